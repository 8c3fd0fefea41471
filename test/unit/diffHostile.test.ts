// `shopfront diff` against a hostile deployment (issue 50): a server on 127.0.0.1, started here, that
// answers a signed build through the preview server but for one file in each of its modes: an
// endless entry.json, shard, v1 list or Homebrew Browser list, a redirect to another origin, an
// entry altered after signing. The compiled CLI runs as a child, with its peak RSS reported at exit:
// each endless body ends as a failure naming the file, within a bound of memory (the test's own
// timeout bounds its time); a redirect out of the origin is named and never followed; with a key
// (given, or shopfront.json's publicKey), a bad signature stops diff before anything else is fetched.
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
import { formatPublicKey, generateSecretKey, keyIdHex } from "../../src/trust/minisign.js";
import { copyConformanceWithFiles, ROOT, shopfrontAsync, tempDir } from "../support/helpers.js";

/** The bound on diff's peak memory for an endless body (issue 50). */
const PEAK_RSS_BOUND_KB = 300 * 1024;
const PEAK_RSS = pathToFileURL(join(ROOT, "test", "support", "peakRss.mjs")).href;
const V1_LIST = "/v1/primary/packages";
const HBB_LIST = "/hbb/homebrew_browser/listv036.txt";

describe("diff against a hostile deployment", () => {
  const key = generateSecretKey();
  /** Every request the hostile server got, `/<mode>/<path>`, in order; and those of the other origin. */
  const requests: string[] = [];
  const elsewhere: string[] = [];
  let hostile: Server | undefined;
  let other: Server | undefined;
  let preview: { url: string; close(): Promise<void> } | undefined;
  let base = "";
  let live = "";
  let keyFile = "";
  let alteredEntry = "";

  beforeAll(async () => {
    [other] = await listen((req, res) => {
      elsewhere.push(req.url ?? "");
      res.writeHead(200).end("[]");
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
      if (mode === "endless-list" && path === V1_LIST) return endless(res, "application/json");
      if (mode === "endless-hbb" && path === HBB_LIST) return endless(res, "application/json");
      if (mode === "swapped-list" && path === V1_LIST)
        return void res.writeHead(200, { "content-type": "application/json" }).end("[]");
      if (mode === "altered" && path === "/entry.json")
        return void res.writeHead(200, { "content-type": "application/json" }).end(alteredEntry);
      if (mode === "redirect-entry" && path === "/entry.json")
        return void res.writeHead(307, { location: `${otherUrl}${path}` }).end();
      if (mode === "redirect-list" && path === V1_LIST)
        return void res.writeHead(302, { location: `${otherUrl}${path}` }).end();
      void fetch(`${preview!.url}${path}`).then(async (answer) => {
        res.writeHead(answer.status, { "content-type": answer.headers.get("content-type") ?? "text/plain" });
        res.end(Buffer.from(await answer.arrayBuffer()));
      });
    });

    const out = join(tempDir(), "dist");
    const built = await buildCatalogue({
      catalogueDir: copyConformanceWithFiles(),
      outDir: out,
      index: { mirrors: [], secretKey: key },
    });
    expect(built.built).toBeDefined();
    live = realpathSync(out);
    preview = await servePreview({ dir: live, host: "127.0.0.1", port: 0 });
    keyFile = join(tempDir(), "minisign.pub");
    writeFileSync(keyFile, formatPublicKey(key));
    // The entry as signed, with a mirror added: what a server that wants clients elsewhere answers.
    const entry = parseEntry(readFileSync(join(live, "entry.json"), "latin1"));
    if (typeof entry === "string") throw new Error(entry);
    alteredEntry = renderEntry({ ...entry, mirrors: [...entry.mirrors, `${base}/added-mirror/`] });
  }, 120_000);

  afterAll(async () => {
    await preview?.close();
    await close(hostile);
    await close(other);
  });

  /** The CLI's `diff` of the built folder and a mode of the hostile server: its exit code, output and peak RSS. */
  async function diff(mode: string, args: string[] = [], cwd = tempDir()) {
    const run = await shopfrontAsync(cwd, ["diff", live, `${base}/${mode}/`, ...args], {
      NODE_OPTIONS: `--import=${PEAK_RSS}`,
    });
    const peak = /peak-rss-kb (\d+)\n$/.exec(run.stderr);
    expect(peak, run.stderr).not.toBeNull();
    return { ...run, peakKb: Number(peak![1]) };
  }

  it("the honest deployment, read with the key: no difference, its signature named", async () => {
    const run = await diff("honest", ["--key", keyFile]);
    expect(run.stderr).toBe(`peak-rss-kb ${run.peakKb}\n`);
    expect(run.stdout).toContain(`(deployment, file index revision`);
    expect(run.stdout).toContain(`signature good by key ${keyIdHex(key.keyId)})`);
    expect(run.code).toBe(0);
  }, 60_000);

  it.each([
    ["endless-entry", "/entry.json: longer than 4194304 bytes (not read further)"],
    ["endless-list", `${V1_LIST}: longer than`],
    ["endless-hbb", `${HBB_LIST}: longer than`],
  ])(
    "%s: read up to its cap, named, within the memory bound",
    async (mode, message) => {
      const run = await diff(mode);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`error: ${base}/${mode}${message}`);
      expect(run.peakKb).toBeLessThan(PEAK_RSS_BOUND_KB);
    },
    60_000,
  );

  it("endless-shard: read up to the size entry.json gives, named, within the memory bound", async () => {
    const run = await diff("endless-shard");
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      new RegExp(
        `^error: ${base}/endless-shard/index/[0-9a-f]{40}\\.json: longer than \\d+ bytes \\(not read further\\)`,
      ),
    );
    expect(run.peakKb).toBeLessThan(PEAK_RSS_BOUND_KB);
  }, 60_000);

  it("a redirect to another origin, of entry.json or a list, is named and not followed", async () => {
    for (const [mode, path] of [
      ["redirect-entry", "/entry.json"],
      ["redirect-list", V1_LIST],
    ] as const) {
      const run = await diff(mode);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(
        new RegExp(
          `^error: ${base}/${mode}${path}: redirects to http://127\\.0\\.0\\.1:\\d+${path}, outside ${base}: not followed`,
        ),
      );
    }
    expect(elsewhere).toEqual([]);
  }, 60_000);

  it("a list whose bytes are not the ones the index names is not believed", async () => {
    const run = await diff("swapped-list", ["--key", keyFile]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`error: ${base}/swapped-list${V1_LIST}: its bytes are not the ones the index names`);
  }, 60_000);

  it("an entry altered after signing, with --key: stops at the signature and fetches nothing else", async () => {
    const before = requests.length;
    const run = await diff("altered", ["--key", keyFile]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain(
      `error: ${base}/altered/entry.json.minisig: the signature does not match the file: the signature does not hold, so nothing the entry names was read`,
    );
    // The entry, its signature by the altered bytes' digest (none), the one beside it; no shard, list or mirror.
    expect(requests.slice(before)).toEqual([
      "/altered/entry.json",
      `/altered/${signaturePathOf(alteredEntry)}`,
      "/altered/entry.json.minisig",
    ]);
  }, 60_000);

  it("takes the key from shopfront.json's publicKey, and without a key reads the altered entry's deployment", async () => {
    const project = tempDir();
    writeFileSync(join(project, "minisign.pub"), formatPublicKey(key));
    writeFileSync(join(project, "shopfront.json"), JSON.stringify({ publicKey: "minisign.pub" }));
    const withConfig = await diff("altered", [], project);
    expect(withConfig.code).toBe(1);
    expect(withConfig.stderr).toContain("the signature does not hold, so nothing the entry names was read");
    // Without a key, the unsigned reading believes the entry (it names the same shards): nothing differs.
    const without = await diff("altered");
    expect(without.code).toBe(0);
  }, 60_000);

  it("a folder side is held to the key too: an unsigned build is refused", async () => {
    const unsigned = join(tempDir(), "dist");
    await buildCatalogue({ catalogueDir: copyConformanceWithFiles(), outDir: unsigned, index: { mirrors: [] } });
    const run = await shopfrontAsync(tempDir(), ["diff", unsigned, `${base}/honest/`, "--key", keyFile]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("entry.json is unsigned (no entry.json.minisig), so nothing the entry names was read");
  }, 60_000);
});
