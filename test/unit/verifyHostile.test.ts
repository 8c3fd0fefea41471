// `shopfront verify` against a hostile server (issue 44): a server on 127.0.0.1, started here, that
// answers a signed build through the preview server but for one file in each of its modes: an
// endless entry.json, an endless shard, an endless zip, an entry altered after signing (a mirror
// added), and a redirect to another origin. The compiled CLI runs as a child, with its peak RSS
// reported at exit: each endless body ends as a failure naming the file, within a bound of memory;
// after a bad signature nothing else is fetched and no mirror is contacted.
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { close, endless, listen } from "../support/hostileServer.js";
import { buildCatalogue } from "../../src/engine/buildCatalogue.js";
import { servePreview } from "../../src/serve/servePreview.js";
import { parseEntry, renderEntry, signaturePathOf } from "../../src/trust/fileIndex.js";
import { formatPublicKey, generateSecretKey } from "../../src/trust/minisign.js";
import { verifyDeployment } from "../../src/trust/verifyDeployment.js";
import { copyConformanceWithFiles, ROOT, shopfrontAsync, tempDir } from "../support/helpers.js";

const ZIP = "hbb/snake-deluxe/snake-deluxe.zip";
/** verify's bound on peak memory for an endless body (issue 44); it stays far below. */
const PEAK_RSS_BOUND_KB = 300 * 1024;
const PEAK_RSS = pathToFileURL(join(ROOT, "test", "support", "peakRss.mjs")).href;

describe("verify against a hostile server", () => {
  const key = generateSecretKey();
  /** Every request the hostile server got, `/<mode>/<path>`, in order; and those of the other origin. */
  const requests: string[] = [];
  const elsewhere: string[] = [];
  let hostile: Server | undefined;
  let other: Server | undefined;
  let preview: { url: string; close(): Promise<void> } | undefined;
  let base = "";
  let keyFile = "";
  let alteredEntry = "";
  let zipSize = 0;

  beforeAll(async () => {
    [other] = await listen((req, res) => {
      elsewhere.push(req.url ?? "");
      res.writeHead(200).end("not the file");
    });
    const otherUrl = `http://127.0.0.1:${(other!.address() as AddressInfo).port}`;
    [hostile, base] = await listen((req, res) => {
      const url = req.url ?? "";
      requests.push(url);
      const [, mode, ...rest] = url.split("/");
      const path = `/${rest.join("/")}`;
      if (mode === "endless-entry" && path === "/entry.json") return endless(res, "application/json");
      if (mode === "endless-shard" && path.startsWith("/index/") && path.endsWith(".json"))
        return endless(res, "application/json");
      if (mode === "endless-zip" && path === `/${ZIP}`) return endless(res, "application/zip");
      if (mode === "altered" && path === "/entry.json")
        return void res.writeHead(200, { "content-type": "application/json" }).end(alteredEntry);
      if (mode === "redirect-entry" && path === "/entry.json")
        return void res.writeHead(307, { location: `${otherUrl}${path}` }).end();
      if (mode === "redirect" && path === `/${ZIP}`)
        return void res.writeHead(302, { location: `${otherUrl}${path}` }).end();
      // Within the origin: followed, as a host that moves its files to another path of itself.
      if (mode === "redirect" && path === "/v1/hosts")
        return void res.writeHead(301, { location: `/honest${path}` }).end();
      // Anything else as the honest server has it.
      void fetch(`${preview!.url}${path}`).then(async (answer) => {
        res.writeHead(answer.status, { "content-type": answer.headers.get("content-type") ?? "text/plain" });
        res.end(Buffer.from(await answer.arrayBuffer()));
      });
    });

    const out = join(tempDir(), "dist");
    const built = await buildCatalogue({
      catalogueDir: copyConformanceWithFiles(),
      outDir: out,
      index: { mirrors: [`${base}/mirror/`], secretKey: key },
    });
    expect(built.built).toBeDefined();
    const live = realpathSync(out);
    preview = await servePreview({ dir: live, host: "127.0.0.1", port: 0 });
    keyFile = join(tempDir(), "minisign.pub");
    writeFileSync(keyFile, formatPublicKey(key));
    zipSize = readFileSync(join(live, ZIP)).length;
    // The entry as signed, with one more mirror: what a server that added its own would answer.
    const entry = parseEntry(readFileSync(join(live, "entry.json"), "latin1"));
    if (typeof entry === "string") throw new Error(entry);
    alteredEntry = renderEntry({ ...entry, mirrors: [...entry.mirrors, `${base}/added-mirror/`] });
  }, 120_000);

  afterAll(async () => {
    await preview?.close();
    await close(hostile);
    await close(other);
  });

  /** The CLI's `verify --key` of a mode of the hostile server: its exit code, output and peak RSS. */
  async function verify(mode: string, ...args: string[]) {
    const run = await shopfrontAsync(tempDir(), ["verify", `${base}/${mode}/`, "--key", keyFile, ...args], {
      NODE_OPTIONS: `--import=${PEAK_RSS}`,
    });
    const peak = /peak-rss-kb (\d+)\n$/.exec(run.stderr);
    expect(peak, run.stderr).not.toBeNull();
    return { ...run, peakKb: Number(peak![1]) };
  }

  it("the honest answers verify, the mirror included: the server answers as the build has it", async () => {
    const run = await verify("honest", "--mirrors");
    expect(run.stdout).toContain("signature: good, by key");
    expect(run.stdout).toContain(`mirror ${base}/mirror/: current`);
    expect(run.code).toBe(0);
  }, 60_000);

  it("an endless entry.json is read up to its cap and named, within the memory bound", async () => {
    const run = await verify("endless-entry");
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`${base}/endless-entry/entry.json: longer than 4194304 bytes (not read further)`);
    expect(run.peakKb).toBeLessThan(PEAK_RSS_BOUND_KB);
  }, 60_000);

  it("an endless shard is read up to the size entry.json gives and named altered, within the memory bound", async () => {
    const run = await verify("endless-shard");
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(
      /^bad shard {2}index\/[0-9a-f]{40}\.json: altered: longer than the \d+ bytes entry\.json gives/m,
    );
    expect(run.peakKb).toBeLessThan(PEAK_RSS_BOUND_KB);
  }, 60_000);

  it("an endless zip is read up to the size its shard gives and named altered, within the memory bound", async () => {
    const run = await verify("endless-zip");
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(
      `altered     /${ZIP}: longer than the ${zipSize} bytes the index gives (not read further)`,
    );
    expect(run.peakKb).toBeLessThan(PEAK_RSS_BOUND_KB);
  }, 60_000);

  it("an entry altered after signing (a mirror added): the bad signature is named, then nothing else is fetched and no mirror contacted", async () => {
    const before = requests.length;
    const run = await verify("altered", "--mirrors");
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("signature: BAD: entry.json.minisig: the signature does not match the file");
    expect(run.stdout).toContain("stopped: the signature does not hold");
    // The entry, its signature by the altered bytes' digest (none), the one beside it; no shard, file or mirror.
    expect(requests.slice(before)).toEqual([
      "/altered/entry.json",
      `/altered/${signaturePathOf(alteredEntry)}`,
      "/altered/entry.json.minisig",
    ]);
  }, 60_000);

  it("a redirect to another origin is not followed and names the file; one within the origin is followed", async () => {
    const report = await verifyDeployment({
      url: `${base}/redirect/`,
      publicKey: formatPublicKey(key),
      concurrency: 4,
    });
    expect(report.signature).toMatchObject({ kind: "verified", key: "given" });
    expect(report.files).toEqual([
      {
        path: `/${ZIP}`,
        problem: "unreachable",
        detail: expect.stringMatching(/^redirects to http:\/\/127\.0\.0\.1:\d+\/hbb\/.*: not followed/),
      },
    ]);
    expect(elsewhere).toEqual([]);
    expect(requests).toContain("/honest/v1/hosts");
    expect(report.ok).toBe(false);
  }, 60_000);

  it("an entry.json that redirects to another origin is not followed, and named", async () => {
    const run = await verify("redirect-entry");
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /\/redirect-entry\/entry\.json: redirects to http:\/\/127\.0\.0\.1:\d+\/entry\.json, outside http:\/\/127\.0\.0\.1:\d+: not followed/,
    );
    expect(elsewhere).toEqual([]);
  }, 60_000);
});
