// `verify --state FILE` (issue 50): a client that remembers what it trusted. One deployment URL on
// 127.0.0.1, served by a switch in front of copies of real signed builds: an older build (signed,
// within its expiry), the current one, an entry of the current revision re-signed with other bytes,
// and a newer build signed by another key. The older index, replayed after the current one was
// accepted, is refused before anything it names is fetched; the current one passes.
import { cpSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildCatalogue } from "../../src/engine/buildCatalogue.js";
import { servePreview } from "../../src/serve/servePreview.js";
import { parseEntry, renderEntry, signaturePathOf } from "../../src/trust/fileIndex.js";
import { formatPublicKey, generateSecretKey, keyIdHex, signMinisign } from "../../src/trust/minisign.js";
import { checkRemembered, parseTrustState, type Remembered } from "../../src/trust/trustState.js";
import { verifyDeployment } from "../../src/trust/verifyDeployment.js";
import { copyFixture, manifest, shopfrontAsync, tempDir, writeFiles } from "../support/helpers.js";

describe("verify --state against a replayed index", () => {
  const key = generateSecretKey();
  const otherKey = generateSecretKey();
  const previews: { url: string; close(): Promise<void> }[] = [];
  /** The preview server each copy is served by, by name; the switch forwards to `serving`. */
  const copies = new Map<string, string>();
  let serving = "old";
  const requests: string[] = [];
  let server: Server | undefined;
  let url = "";
  const revisions: Record<string, number> = {};
  const entries: Record<string, Buffer> = {};

  beforeAll(async () => {
    const catalogue = copyFixture("basic");
    const out = join(tempDir(), "dist");
    const now = Date.now();
    const build = async (at: number, secretKey = key) => {
      const built = await buildCatalogue({
        catalogueDir: catalogue,
        outDir: out,
        now: () => at,
        index: { mirrors: [], secretKey, lifetimeDays: 7 },
      });
      expect(built.built).toBeDefined();
    };
    const keep = async (name: string) => {
      const copy = join(tempDir(), name);
      cpSync(realpathSync(out), copy, { recursive: true });
      const preview = await servePreview({ dir: copy, host: "127.0.0.1", port: 0 });
      previews.push(preview);
      copies.set(name, preview.url);
      entries[name] = readFileSync(join(copy, "entry.json"));
      revisions[name] = (parseEntry(entries[name].toString("latin1")) as { revision: number }).revision;
      return copy;
    };
    await build(now - 3600_000);
    await keep("old");
    writeFiles(catalogue, { "primary/added.json": manifest("added") });
    await build(now);
    const current = await keep("current");
    // The current revision's entry with other bytes (a mirror added), signed with the store's key.
    const entry = parseEntry(readFileSync(join(current, "entry.json"), "latin1"));
    if (typeof entry === "string") throw new Error(entry);
    const resigned = await keep("resigned");
    const text = renderEntry({ ...entry, mirrors: ["https://elsewhere.example.org/"] });
    const signature = signMinisign(Buffer.from(text), key, `revision:${entry.revision}`, "signature");
    writeFileSync(join(resigned, "entry.json"), text);
    writeFileSync(join(resigned, signaturePathOf(text)), signature);
    writeFileSync(join(resigned, "entry.json.minisig"), signature);
    // A newer build signed by another key, which serves that key.
    await build(now + 1000, otherKey);
    await keep("other-key");

    server = createServer((req, res) => {
      requests.push(`${serving} ${req.url ?? ""}`);
      void fetch(`${copies.get(serving)!}${req.url ?? ""}`).then(async (answer) => {
        res.writeHead(answer.status, { "content-type": answer.headers.get("content-type") ?? "text/plain" });
        res.end(Buffer.from(await answer.arrayBuffer()));
      });
    });
    await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  }, 120_000);

  afterAll(async () => {
    for (const preview of previews) await preview.close();
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  });

  const verify = (stateFile: string, publicKey?: string) =>
    verifyDeployment({ url, concurrency: 4, stateFile, ...(publicKey !== undefined ? { publicKey } : {}) });

  it("remembers the old then the current index, refuses the old one replayed (signed, unexpired) before fetching anything it names, and passes the current one", async () => {
    const stateFile = join(tempDir(), "verify-state.json");
    const publicKey = formatPublicKey(key);
    serving = "old";
    const first = await verify(stateFile, publicKey);
    expect(first).toMatchObject({ ok: true, state: { kind: "remembered", revision: revisions.old } });
    serving = "current";
    const second = await verify(stateFile, publicKey);
    expect(second).toMatchObject({
      ok: true,
      state: { kind: "remembered", revision: revisions.current, previous: revisions.old },
    });
    expect(revisions.current).toBeGreaterThan(revisions.old!);

    serving = "old";
    const before = requests.length;
    const replayed = await verify(stateFile, publicKey);
    expect(replayed.signature).toMatchObject({ kind: "verified" });
    expect(replayed.ok).toBe(false);
    expect(replayed.stopped).toMatch(
      new RegExp(
        `^${stateFile}: revision ${revisions.old} is older than revision ${revisions.current} \\(accepted at [^)]+\\): a replayed or frozen copy of an older index$`,
      ),
    );
    // entry.json and its signature by the entry's digest: no shard, no file.
    expect(requests.slice(before)).toEqual(["old /entry.json", `old /${signaturePathOf(entries.old!)}`]);
    // The state still remembers the current revision.
    const state = parseTrustState(readFileSync(stateFile, "utf8"));
    expect(typeof state !== "string" && state.deployments[url.replace(/\/$/, "")]?.revision).toBe(revisions.current);

    serving = "current";
    expect(await verify(stateFile, publicKey)).toMatchObject({ ok: true, state: { kind: "remembered" } });
  }, 120_000);

  it("refuses the current revision with other bytes, though signed by the store's key", async () => {
    const stateFile = join(tempDir(), "verify-state.json");
    serving = "current";
    expect((await verify(stateFile, formatPublicKey(key))).ok).toBe(true);
    serving = "resigned";
    const report = await verify(stateFile, formatPublicKey(key));
    expect(report.signature).toMatchObject({ kind: "verified" });
    expect(report.stopped).toMatch(
      new RegExp(`^.*: revision ${revisions.current} has other bytes than the entry\\.json of the same revision`),
    );
    expect(report.ok).toBe(false);
  }, 60_000);

  it("pins the served key: a newer index signed by another key is refused without --key", async () => {
    const stateFile = join(tempDir(), "verify-state.json");
    serving = "current";
    expect(await verify(stateFile)).toMatchObject({ ok: true, signature: { key: "served" } });
    serving = "other-key";
    const report = await verify(stateFile);
    expect(report.stopped).toContain(
      `signed by key ${keyIdHex(otherKey.keyId)}, not ${keyIdHex(key.keyId)}, which signed revision ${revisions.current}`,
    );
    expect(report.ok).toBe(false);
  }, 60_000);

  it("runs from the CLI: remembers, then refuses the replay with exit 1", async () => {
    const cwd = tempDir();
    const keyFile = join(cwd, "minisign.pub");
    writeFileSync(keyFile, formatPublicKey(key));
    serving = "current";
    const accepted = await shopfrontAsync(cwd, ["verify", url, "--key", keyFile, "--state", "state.json"]);
    expect(accepted.stdout).toContain(`state: revision ${revisions.current} remembered\n`);
    expect(accepted.code).toBe(0);
    serving = "old";
    const replayed = await shopfrontAsync(cwd, ["verify", url, "--key", keyFile, "--state", "state.json"]);
    expect(replayed.code).toBe(1);
    expect(replayed.stdout).toContain(
      `stopped: state.json: revision ${revisions.old} is older than revision ${revisions.current}`,
    );
  }, 60_000);
});

describe("checkRemembered", () => {
  const remembered: Remembered = {
    revision: 10,
    entrySha256: "a".repeat(64),
    keyId: "K1",
    publicKey: "key-one",
    acceptedAt: "2026-01-01T00:00:00.000Z",
  };
  const key = { keyId: "K1", publicKey: "key-one" };

  it("accepts a first index, the same one again, and a larger revision", () => {
    expect(checkRemembered(undefined, { revision: 1, entrySha256: "b".repeat(64), key })).toBeUndefined();
    expect(checkRemembered(remembered, { revision: 10, entrySha256: "a".repeat(64), key })).toBeUndefined();
    expect(checkRemembered(remembered, { revision: 11, entrySha256: "b".repeat(64), key })).toBeUndefined();
  });

  it("refuses a smaller revision, the same with other bytes, another key, and no signature", () => {
    expect(checkRemembered(remembered, { revision: 9, entrySha256: "b".repeat(64), key })).toMatch(/is older than/);
    expect(checkRemembered(remembered, { revision: 10, entrySha256: "b".repeat(64), key })).toMatch(/other bytes/);
    expect(
      checkRemembered(remembered, { revision: 11, entrySha256: "b".repeat(64), key: { keyId: "K2", publicKey: "x" } }),
    ).toMatch(/^signed by key K2, not K1/);
    expect(checkRemembered(remembered, { revision: 11, entrySha256: "b".repeat(64) })).toMatch(/is unsigned/);
  });
});
