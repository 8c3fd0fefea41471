// What a build does for a client of its signed index (issue 44): real minisign accepts every entry
// a build signs, and the signature named by the entry's digest is the same one; a build with no
// live index still gets a larger revision; an entry with a lifetime expires, verify fails it with
// the date and a fresh build renews it; a rebuild's new entry is signed and names no removed file
// before the first removal; a secret key file others can read is refused; entry.json's caps.
import fs, { chmodSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { syncBuiltinESMExports } from "node:module";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildCatalogue, type BuildOptions } from "../../src/engine/buildCatalogue.js";
import { servedPathOf } from "../../src/routes/servedPath.js";
import { servePreview } from "../../src/serve/servePreview.js";
import {
  INDEX_LIMITS,
  parseEntry,
  parseShard,
  renderEntry,
  signaturePathOf,
  type IndexEntry,
} from "../../src/trust/fileIndex.js";
import { formatPublicKey, formatSecretKey, generateSecretKey, verifyMinisign } from "../../src/trust/minisign.js";
import { verifyDeployment } from "../../src/trust/verifyDeployment.js";
import { formatVerifyReport } from "../../src/cli/formatVerify.js";
import { requireProgram } from "../support/servers/common.js";
import { copyConformanceWithFiles, copyFixture, memoryTempDir, shopfront, tempDir } from "../support/helpers.js";

const minisign = requireProgram("minisign", "minisign");
const DAY_MS = 24 * 3600 * 1000;

function entryOf(dir: string): IndexEntry {
  const entry = parseEntry(readFileSync(join(dir, "entry.json"), "latin1"));
  if (typeof entry === "string") throw new Error(entry);
  return entry;
}

/** Every URL path the index in `dir` lists. */
function indexedPaths(dir: string): Set<string> {
  const paths = new Set<string>();
  for (const ref of entryOf(dir).shards) {
    const shard = parseShard(readFileSync(join(dir, ref.path), "latin1"));
    if (typeof shard === "string") throw new Error(shard);
    for (const f of shard) paths.add(f.path);
  }
  return paths;
}

/** Real minisign's verdict on the entry in `dir`, with the signature beside it, and with the one named by its digest. */
function minisignAccepts(dir: string): boolean {
  const bytes = readFileSync(join(dir, "entry.json"));
  const byDigest = readFileSync(join(dir, signaturePathOf(bytes)), "latin1");
  if (byDigest !== readFileSync(join(dir, "entry.json.minisig"), "latin1")) return false;
  const run = spawnSync(
    minisign,
    [
      "-V",
      "-H",
      "-m",
      join(dir, "entry.json"),
      "-x",
      join(dir, signaturePathOf(bytes)),
      "-p",
      join(dir, "minisign.pub"),
    ],
    { encoding: "utf8" },
  );
  return run.status === 0 && run.stdout.includes(`revision:${entryOf(dir).revision}`);
}

describe("a signed build's entries", () => {
  const key = generateSecretKey();

  it("are each accepted by real minisign: a full build, a rebuild in place, an index-only change, a build into an empty folder", async () => {
    const catalogue = copyConformanceWithFiles();
    const out = join(tempDir(), "dist");
    const options: BuildOptions = { catalogueDir: catalogue, outDir: out, index: { mirrors: [], secretKey: key } };
    expect((await buildCatalogue(options)).built).toBeDefined();
    expect(minisignAccepts(out)).toBe(true);
    rmSync(join(catalogue, "primary", "snake.json"));
    expect((await buildCatalogue(options)).built?.mode.kind).toBe("incremental");
    expect(minisignAccepts(out)).toBe(true);
    await buildCatalogue({ ...options, index: { mirrors: ["https://mirror.example.org/"], secretKey: key } });
    expect(entryOf(out).mirrors).toEqual(["https://mirror.example.org/"]);
    expect(minisignAccepts(out)).toBe(true);
    const empty = join(tempDir(), "dist");
    await buildCatalogue({ ...options, outDir: empty });
    expect(minisignAccepts(empty)).toBe(true);
  }, 120_000);

  it("have a larger revision when built into an empty folder after an earlier signed build (a CI cache missed)", async () => {
    const catalogue = copyFixture("basic");
    const now = Date.now();
    const first = join(memoryTempDir(), "dist");
    await buildCatalogue({
      catalogueDir: catalogue,
      outDir: first,
      now: () => now,
      index: { mirrors: [], secretKey: key },
    });
    const later = join(memoryTempDir(), "dist");
    await buildCatalogue({
      catalogueDir: catalogue,
      outDir: later,
      now: () => now + 1000,
      index: { mirrors: [], secretKey: key },
    });
    expect(entryOf(later).revision).toBeGreaterThan(entryOf(first).revision);
    expect(entryOf(later).previous).toBeUndefined();
  });

  it("differ and grow for two builds in the same second into empty folders (a CI cache missed twice)", async () => {
    const catalogue = copyFixture("basic");
    const second = 1_800_000_000_000;
    const revisions: number[] = [];
    for (const ms of [second + 100, second + 101]) {
      const out = join(memoryTempDir(), "dist");
      await buildCatalogue({
        catalogueDir: catalogue,
        outDir: out,
        now: () => ms,
        index: { mirrors: [], secretKey: key },
      });
      revisions.push(entryOf(out).revision);
    }
    expect(revisions[1]).toBeGreaterThan(revisions[0]!);
  });

  it("go forward even when two builds come within one second", async () => {
    const out = join(memoryTempDir(), "dist");
    const options: BuildOptions = {
      catalogueDir: copyFixture("basic"),
      outDir: out,
      now: () => 1_800_000_000_000,
      index: { mirrors: [], secretKey: key },
    };
    await buildCatalogue(options);
    const first = entryOf(out).revision;
    await buildCatalogue({ ...options, index: { mirrors: ["https://m.example.org/"], secretKey: key } });
    expect(entryOf(out).revision).toBe(first + 1);
  });
});

describe("an entry with a lifetime", () => {
  const key = generateSecretKey();
  const out = join(tempDir(), "dist");
  const now = Date.now();
  let options: BuildOptions;
  let server: { url: string; close(): Promise<void> } | undefined;

  beforeAll(async () => {
    // One featured day for every build, so that the index alone moves with the clock.
    options = {
      catalogueDir: copyFixture("basic"),
      outDir: out,
      featuredDay: 20_000,
      now: () => now,
      index: { mirrors: [], secretKey: key, lifetimeDays: 2 },
    };
    await buildCatalogue(options);
    chmodSync(realpathSync(out), 0o755);
    server = await servePreview({ dir: out, host: "127.0.0.1", port: 0 });
  });
  afterAll(async () => server?.close());

  const verifyAt = (ms: number) =>
    verifyDeployment({ url: server!.url, publicKey: formatPublicKey(key), concurrency: 4, now: () => ms });

  it("says when it expires, and verifies until then", async () => {
    expect(entryOf(out).expires).toBe(new Date(now + 2 * DAY_MS).toISOString());
    expect(await verifyAt(now + DAY_MS)).toMatchObject({ ok: true, expires: entryOf(out).expires });
  });

  it("fails verify once past it, with the date, fetching nothing it names", async () => {
    const expires = entryOf(out).expires!;
    const report = await verifyAt(now + 3 * DAY_MS);
    expect(report).toMatchObject({ ok: false, checked: 0, expires });
    expect(report.stopped).toContain(`entry.json expired at ${expires}`);
    expect(formatVerifyReport(report)).toEqual([
      expect.stringMatching(/^signature: good, by key /),
      `index: revision ${report.revision}, built ${report.built}, expires ${expires}`,
      `stopped: ${report.stopped}`,
    ]);
  });

  it("is not renewed by a build within 12 hours that changes nothing, and renewed by a later one", async () => {
    const revision = entryOf(out).revision;
    await buildCatalogue({ ...options, now: () => now + 3600_000 });
    expect(entryOf(out).revision).toBe(revision);
    await buildCatalogue({ ...options, now: () => now + 3 * DAY_MS });
    expect(entryOf(out).expires).toBe(new Date(now + 5 * DAY_MS).toISOString());
    expect(entryOf(out).revision).toBeGreaterThan(revision);
    expect(await verifyAt(now + 3 * DAY_MS)).toMatchObject({ ok: true });
  });

  it("is dropped by a build without one", async () => {
    await buildCatalogue({ ...options, now: () => now + 3 * DAY_MS, index: { mirrors: [], secretKey: key } });
    expect(entryOf(out).expires).toBeUndefined();
  });
});

describe("a rebuild in place", () => {
  it("publishes its entry, signed, before it removes a file, and the entry names none it removes", async () => {
    const key = generateSecretKey();
    const catalogue = copyConformanceWithFiles();
    const out = join(memoryTempDir(), "dist");
    const options: BuildOptions = { catalogueDir: catalogue, outDir: out, index: { mirrors: [], secretKey: key } };
    await buildCatalogue(options);
    const live = realpathSync(out);
    rmSync(join(catalogue, "primary", "snake.json"));
    const removed: string[] = [];
    let seen: { indexed: Set<string>; signed: boolean } | undefined;
    const original = fs.rmSync;
    // Each removal of a served file: what a reader sees of the index at that moment.
    fs.rmSync = (path, ...rest) => {
      const file = relative(live, String(path));
      if (!file.startsWith("..") && !file.startsWith("index/") && fs.existsSync(String(path))) {
        removed.push(file);
        const bytes = readFileSync(join(live, "entry.json"));
        const signature = readFileSync(join(live, signaturePathOf(bytes)), "latin1");
        seen ??= { indexed: indexedPaths(live), signed: verifyMinisign(bytes, signature, key).ok };
      }
      original(path, ...rest);
    };
    syncBuiltinESMExports();
    try {
      expect((await buildCatalogue(options)).built?.mode.kind).toBe("incremental");
    } finally {
      fs.rmSync = original;
      syncBuiltinESMExports();
    }
    expect(removed).toContain("v1/primary/package/snake");
    expect(seen?.signed).toBe(true);
    for (const file of removed) expect(seen?.indexed.has(servedPathOf(file) ?? `/${file}`)).toBe(false);
    expect(seen?.indexed).toEqual(indexedPaths(live));
  }, 120_000);
});

describe("build --signing-key", () => {
  it("refuses a secret key file its group or others can read, as ssh does, and signs with one its owner alone can", () => {
    const dir = tempDir();
    const keyFile = join(tempDir(), "shopfront.key");
    writeFileSync(keyFile, formatSecretKey(generateSecretKey()));
    const args = ["build", "--catalogue", copyFixture("basic"), "--out", join(dir, "dist"), "--signing-key", keyFile];
    chmodSync(keyFile, 0o644);
    const refused = shopfront(dir, ...args);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`--signing-key ${keyFile}: the secret key is open to group or others (mode 0644)`);
    expect(refused.stderr).toContain(`chmod 600 ${keyFile}`);
    chmodSync(keyFile, 0o600);
    const signed = shopfront(dir, ...args);
    expect(signed.stderr).toBe("");
    expect(signed.code).toBe(0);
  }, 60_000);
});

describe("build's index settings", () => {
  it("takes the lifetime from shopfront.json's indexLifetimeDays, and refuses a mirror that is not http(s)", () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, "shopfront.json"),
      JSON.stringify({ catalogue: copyFixture("basic"), indexLifetimeDays: 7 }),
    );
    const built = shopfront(dir, "build");
    expect(built.code).toBe(0);
    const entry = entryOf(join(dir, "dist"));
    expect(Date.parse(entry.expires!) - Date.parse(entry.built)).toBe(7 * DAY_MS);
    const refused = shopfront(dir, "build", "--mirror", "ftp://mirror.example.org/");
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("--mirror ftp://mirror.example.org/: not an http:// or https:// URL");
  }, 60_000);
});

describe("entry.json's caps", () => {
  const entry: IndexEntry = {
    format: 1,
    revision: 1_800_000_000,
    built: "2027-01-15T08:00:00.000Z",
    files: 1,
    shards: [{ path: `index/${"a".repeat(40)}.json`, sha256: "a".repeat(64), size: 100 }],
    mirrors: [],
  };
  const parsed = (changes: Partial<IndexEntry>) => parseEntry(renderEntry({ ...entry, ...changes }));

  it("reads an entry within them", () => {
    expect(parsed({ mirrors: ["https://m.example.org/store/"], expires: "2027-01-17T08:00:00.000Z" })).toMatchObject({
      revision: 1_800_000_000,
    });
  });

  it.each([
    [{ mirrors: ["ftp://m.example.org/"] }, /mirrors is not a list of http/],
    [{ mirrors: ["file:///etc/"] }, /mirrors is not a list of http/],
    [{ mirrors: Array.from({ length: 17 }, (_, i) => `https://m${i}.example.org/`) }, /more than 16/],
    [
      { shards: Array.from({ length: INDEX_LIMITS.shards + 1 }, () => entry.shards[0]!) },
      new RegExp(`more than ${INDEX_LIMITS.shards} shards`),
    ],
    [{ shards: [{ ...entry.shards[0]!, size: INDEX_LIMITS.shardBytes + 1 }] }, /at most 8388608 bytes each/],
    [{ files: INDEX_LIMITS.files + 1 }, /files is not an integer from 0 to/],
    [{ expires: "tomorrow" }, /expires is not a date/],
  ] as [Partial<IndexEntry>, RegExp][])("refuses %#", (changes, message) => {
    expect(parsed(changes)).toMatch(message);
  });
});
