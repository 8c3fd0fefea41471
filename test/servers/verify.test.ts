// `shopfront verify` against real servers (issue 39): the preview server and nginx each serve a
// signed build of the conformance fixture with package files, in which one byte of a zip is flipped,
// an icon is gone and one package's file is served as the previous build had it; a second folder,
// served by a second server of the same kind, holds the build before, a mirror one deploy behind.
// verify names each file and the mirror.
import { chmodSync, cpSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildCatalogue } from "../../src/engine/buildCatalogue.js";
import { servePreview } from "../../src/serve/servePreview.js";
import { signaturePathOf } from "../../src/trust/fileIndex.js";
import { formatPublicKey, generateSecretKey } from "../../src/trust/minisign.js";
import { verifyDeployment, type VerifyReport } from "../../src/trust/verifyDeployment.js";
import { copyConformanceWithFiles, shopfrontAsync, tempDir, writeFiles } from "../support/helpers.js";
import type { RunningServer, Site } from "../support/servers/common.js";
import { startNginx } from "../support/servers/nginx.js";

const SERVERS: { name: string; start: (site: Site) => Promise<RunningServer> }[] = [
  {
    name: "the preview server",
    start: (site) =>
      servePreview({ dir: site.root, host: "127.0.0.1", port: 0 }).then((s) => ({ url: s.url, stop: s.close })),
  },
  { name: "nginx", start: startNginx },
];

const ZIP = "hbb/snake-deluxe/snake-deluxe.zip";
const ICON = "hosts/mirror.eu/hbb/_under/icon.png";
const EDITED = "v1/primary/package/snake";

/** Replaces a file of the live slot (never in place: the other slot may share its inode). */
function replace(root: string, file: string, bytes: Buffer): void {
  rmSync(join(root, file));
  writeFileSync(join(root, file), bytes);
}

describe.each(SERVERS)("verify against $name", ({ start }) => {
  const key = generateSecretKey();
  let main: RunningServer;
  let mirror: RunningServer;
  let keyText: string;
  let report: VerifyReport;
  let firstRevision: number;

  beforeAll(async () => {
    const dir = tempDir("shopfront-site-");
    chmodSync(dir, 0o755);
    const mirrorRoot = join(dir, "mirror");
    const catalogue = copyConformanceWithFiles();
    const out = join(dir, "dist");
    // The mirror holds the first build; only the second one's entry, which verify reads, lists it.
    expect(
      (await buildCatalogue({ catalogueDir: catalogue, outDir: out, index: { mirrors: [], secretKey: key } })).built,
    ).toBeDefined();
    cpSync(out, mirrorRoot, { recursive: true, dereference: true });
    firstRevision = (JSON.parse(readFileSync(join(out, "entry.json"), "utf8")) as { revision: number }).revision;
    mirror = await start({ root: mirrorRoot, dir });
    const index = { mirrors: [mirror.url], secretKey: key };
    const before = readFileSync(join(out, EDITED));
    // A new version, nothing else: a new coder would need nginx's config written again.
    const snake = JSON.parse(readFileSync(join(catalogue, "primary", "snake.json"), "utf8")) as object;
    writeFiles(catalogue, { "primary/snake.json": { ...snake, version: "9.9" } });
    expect((await buildCatalogue({ catalogueDir: catalogue, outDir: out, index })).built?.changedPackages).toBe(1);
    expect(readFileSync(join(out, EDITED)).equals(before)).toBe(false);

    const zip = readFileSync(join(out, ZIP));
    zip[zip.length >> 1] = zip[zip.length >> 1]! ^ 1;
    replace(out, ZIP, zip);
    rmSync(join(out, ICON));
    replace(out, EDITED, before);
    main = await start({ root: out, dir });
    keyText = formatPublicKey(key);
    report = await verifyDeployment({ url: main.url, publicKey: keyText, mirrors: true, concurrency: 4 });
  });
  afterAll(async () => {
    await main?.stop();
    await mirror?.stop();
  });

  it("checks the signature with the key given and every file, naming the altered zip, the missing icon and the stale file", () => {
    expect(report.signature).toMatchObject({ kind: "verified", key: "given" });
    expect(report.revision).toBeGreaterThan(firstRevision);
    expect(report.badShards).toEqual([]);
    expect(report.checked).toBe(report.indexed);
    expect(report.files).toEqual([
      { path: `/${ZIP}`, problem: "altered", detail: "its SHA-256 differs" },
      { path: `/${ICON}`, problem: "missing", detail: "answered 404" },
      { path: `/${EDITED}`, problem: "stale", detail: "served as the previous build had it" },
    ]);
    expect(report.ok).toBe(false);
  });

  it("says the mirror is one deploy behind", () => {
    expect(report.mirrors).toEqual([
      { url: mirror.url, status: "behind", revision: firstRevision, detail: `older than revision ${report.revision}` },
    ]);
  });

  it("serves the signature by the entry's digest, the same bytes as entry.json.minisig", async () => {
    const entry = Buffer.from(await (await fetch(`${main.url}/entry.json`)).arrayBuffer());
    const byDigest = await fetch(`${main.url}/${signaturePathOf(entry)}`);
    expect(byDigest.status).toBe(200);
    expect(await byDigest.text()).toBe(await (await fetch(`${main.url}/entry.json.minisig`)).text());
  });

  it("refuses an index signed by another key, checking nothing it names, and without --key says the served key proves consistency only", async () => {
    const other = formatPublicKey(generateSecretKey());
    const refused = await verifyDeployment({ url: main.url, publicKey: other, concurrency: 4, sample: 3 });
    expect(refused.signature).toMatchObject({ kind: "bad", reason: expect.stringContaining("not with the key given") });
    expect(refused).toMatchObject({ checked: 0, indexed: 0, ok: false, stopped: expect.stringContaining("signature") });
    const served = await verifyDeployment({ url: mirror.url, concurrency: 4 });
    expect(served).toMatchObject({ signature: { kind: "verified", key: "served" }, files: [], ok: true });
  });

  it("the CLI names each file and the mirror, and exits 1", async () => {
    const keyFile = join(tempDir(), "minisign.pub");
    writeFileSync(keyFile, keyText);
    // Run without blocking: the preview server answers from this process.
    const run = await shopfrontAsync(tempDir(), ["verify", main.url, "--key", keyFile, "--mirrors"]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(`missing     /${ICON}`);
    expect(run.stdout).toContain(`altered     /${ZIP}`);
    expect(run.stdout).toContain(`stale       /${EDITED}`);
    expect(run.stdout).toContain(`mirror ${mirror.url}: behind (revision ${firstRevision})`);
  });
});
