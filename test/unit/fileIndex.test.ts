// The signed file index (docs/trust.md): real minisign accepts a build's entry.json with the
// published key, and shopfront accepts real minisign's signatures; one changed file rewrites one
// shard and entry.json, the rest are the live slot's own files; an incremental index equals one
// written from scratch; key new refuses a git work tree.
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildCatalogue } from "../../src/engine/buildCatalogue.js";
import { createKeyPair } from "../../src/trust/createKeyPair.js";
import {
  INDEX_LIMITS,
  parseEntry,
  parseShard,
  pastLimits,
  shardOf,
  type IndexEntry,
  type IndexedFile,
  type ShardRef,
} from "../../src/trust/fileIndex.js";
import {
  formatPublicKey,
  generateSecretKey,
  parsePublicKey,
  parseSecretKey,
  formatSecretKey,
  verifyMinisign,
} from "../../src/trust/minisign.js";
import { writeFileIndex } from "../../src/trust/writeFileIndex.js";
import { requireProgram } from "../support/servers/common.js";
import {
  copyConformanceWithFiles,
  GEN_CATALOGUE,
  manifest,
  memoryTempDir,
  tempDir,
  writeFiles,
} from "../support/helpers.js";

const minisign = requireProgram("minisign", "minisign");

function entryOf(dir: string): IndexEntry {
  const entry = parseEntry(readFileSync(join(dir, "entry.json"), "latin1"));
  if (typeof entry === "string") throw new Error(entry);
  return entry;
}

/** Every file the index in `dir` lists, by path. */
function indexOf(dir: string): Map<string, IndexedFile> {
  const files = new Map<string, IndexedFile>();
  for (const ref of entryOf(dir).shards) {
    const shard = parseShard(readFileSync(join(dir, ref.path), "latin1"));
    if (typeof shard === "string") throw new Error(shard);
    for (const f of shard) files.set(f.path, f);
  }
  return files;
}

describe("the entry's signature, in minisign's format", () => {
  it("is accepted by real minisign with the published key, prehashed (-H), and refused once a byte of entry.json moves", async () => {
    const key = generateSecretKey();
    const out = join(tempDir(), "dist");
    const built = await buildCatalogue({
      catalogueDir: copyConformanceWithFiles(),
      outDir: out,
      index: { mirrors: ["https://mirror.example.org/"], secretKey: key },
    });
    expect(built.built).toBeDefined();
    const ok = spawnSync(minisign, ["-V", "-H", "-m", join(out, "entry.json"), "-p", join(out, "minisign.pub")], {
      encoding: "utf8",
    });
    expect(ok.stderr).toBe("");
    expect(ok.status).toBe(0);
    expect(ok.stdout).toContain(`revision:${entryOf(out).revision}`);
    expect(readFileSync(join(out, "minisign.pub"), "latin1")).toBe(formatPublicKey(key));

    const copy = join(tempDir(), "entry.json");
    const bytes = readFileSync(join(out, "entry.json"));
    const at = bytes.indexOf("mirror.example");
    bytes[at] = bytes[at]! ^ 1;
    writeFileSync(copy, bytes);
    cpSync(join(out, "entry.json.minisig"), `${copy}.minisig`);
    const refused = spawnSync(minisign, ["-V", "-m", copy, "-p", join(out, "minisign.pub")], { encoding: "utf8" });
    expect(refused.status).not.toBe(0);
  });

  it("reads real minisign's keys and signatures, prehashed and legacy, and refuses another key's", () => {
    const dir = tempDir();
    execFileSync(minisign, ["-G", "-W", "-p", join(dir, "k.pub"), "-s", join(dir, "k.key")]);
    const file = join(dir, "data.txt");
    writeFileSync(file, "some bytes\n");
    const key = parsePublicKey(readFileSync(join(dir, "k.pub"), "latin1"));
    if (typeof key === "string") throw new Error(key);
    for (const legacy of [false, true]) {
      execFileSync(minisign, ["-S", ...(legacy ? ["-l"] : []), "-s", join(dir, "k.key"), "-m", file, "-t", "hello"]);
      const signature = readFileSync(`${file}.minisig`, "latin1");
      expect(verifyMinisign(readFileSync(file), signature, key)).toEqual({ ok: true, trustedComment: "hello" });
      expect(verifyMinisign(Buffer.from("other bytes\n"), signature, key)).toMatchObject({ ok: false });
      rmSync(`${file}.minisig`);
    }
    execFileSync(minisign, ["-S", "-s", join(dir, "k.key"), "-m", file]);
    const other = generateSecretKey();
    expect(verifyMinisign(readFileSync(file), readFileSync(`${file}.minisig`, "latin1"), other)).toMatchObject({
      ok: false,
      reason: expect.stringContaining("not with the key given"),
    });
  });

  it("reads back the secret key it writes, and refuses a damaged one", () => {
    const key = generateSecretKey();
    const text = formatSecretKey(key);
    expect(parseSecretKey(text)).toEqual(key);
    const line = text.split("\n")[1]!;
    const damaged = Buffer.from(line, "base64");
    damaged[20] = damaged[20]! ^ 1;
    expect(parseSecretKey(`untrusted comment: x\n${damaged.toString("base64")}\n`)).toMatch(/does not match/);
    expect(parseSecretKey("untrusted comment: x\nnot base64!\n")).toMatch(/not a shopfront secret key/);
  });
});

describe("key new", () => {
  it("refuses a folder inside a git work tree and an existing key, and writes the secret key for its owner alone", () => {
    const repo = tempDir();
    mkdirSync(join(repo, ".git"));
    expect(() => createKeyPair(join(repo, "keys"))).toThrow(/inside the git work tree/);
    const dir = join(tempDir(), "keys");
    const made = createKeyPair(dir);
    expect(statSync(made.secretKeyFile).mode & 0o777).toBe(0o600);
    const secret = parseSecretKey(readFileSync(made.secretKeyFile, "latin1"));
    if (typeof secret === "string") throw new Error(secret);
    expect(readFileSync(made.publicKeyFile, "latin1")).toBe(formatPublicKey(secret));
    expect(() => createKeyPair(dir)).toThrow(/exists/);
  });
});

describe("the index, written incrementally", () => {
  /** A tree of `n` files in a slot folder, as a build's API files would be. */
  function slot(n: number): string {
    const dir = memoryTempDir("shopfront-slot-");
    for (let i = 0; i < n; i++) writeFiles(dir, { [`v1/primary/package/p${i}`]: `{"name":"p${i}"}` });
    return dir;
  }

  it("one changed file rewrites its shard and entry.json; every other shard is a link to the live slot's", () => {
    const live = slot(3000);
    const first = writeFileIndex(live, undefined, "all", { mirrors: [], builtMs: 0 });
    expect(first.shards).toBeGreaterThan(1);
    const spare = memoryTempDir("shopfront-slot-");
    rmSync(spare, { recursive: true });
    cpSync(live, spare, { recursive: true });
    rmSync(join(spare, "index"), { recursive: true });
    writeFiles(spare, { "v1/primary/package/p7": '{"name":"p7","edited":true}' });

    const second = writeFileIndex(spare, live, new Map([["v1/primary/package/p7", "edited"]]), {
      mirrors: [],
      builtMs: 1000,
    });
    // The revision is the build's time in milliseconds, larger than the live one's (1, at time 0).
    expect(second).toMatchObject({ revision: 1000, shardsWritten: 1, shards: first.shards, files: 3000 });
    const before = entryOf(live);
    const after = entryOf(spare);
    const changed = after.shards.map((ref, i) => ref.path !== before.shards[i]!.path);
    expect(changed.filter(Boolean)).toHaveLength(1);
    expect(changed.indexOf(true)).toBe(shardOf("/v1/primary/package/p7", first.shards));
    for (const [i, ref] of after.shards.entries()) {
      if (changed[i]) continue;
      expect(statSync(join(spare, ref.path)).ino).toBe(statSync(join(live, ref.path)).ino);
    }
    expect(after.previous).toEqual({ revision: 1, shards: before.shards });
    // The index folder holds this build's shards and the last build's, nothing else.
    const kept = new Set([...after.shards, ...before.shards].map((ref) => ref.path));
    expect(new Set(readdirSync(join(spare, "index")).map((name) => `index/${name}`))).toEqual(kept);
    expect(indexOf(spare)).toEqual(indexOf(writeFresh(spare)));
  });

  /** A copy of the slot's files with an index written from scratch. */
  function writeFresh(dir: string): string {
    const copy = memoryTempDir("shopfront-slot-");
    rmSync(copy, { recursive: true });
    cpSync(dir, copy, { recursive: true });
    rmSync(join(copy, "index"), { recursive: true });
    writeFileIndex(copy, undefined, "all", { mirrors: [], builtMs: 0 });
    return copy;
  }

  it("a rebuild's index after an edit, an addition and a removal equals one written from scratch, and lists no config file", async () => {
    const catalogue = join(memoryTempDir(), "catalogue");
    execFileSync(process.execPath, [GEN_CATALOGUE, catalogue, "60", "2", "3"]);
    const out = join(memoryTempDir(), "dist");
    const options = {
      catalogueDir: catalogue,
      outDir: out,
      targets: ["nginx", "github-pages"] as const,
      index: { mirrors: [] },
    };
    await buildCatalogue({ ...options, targets: [...options.targets] });
    const revision = entryOf(out).revision;
    const [first] = readdirSync(join(catalogue, "primary")).filter((f) => f.endsWith(".json"));
    writeFiles(catalogue, {
      "primary/added-one.json": manifest("added-one"),
      [`primary/${first}`]: manifest(first!.slice(0, -5), { version: "9.9" }),
    });
    const [, second] = readdirSync(join(catalogue, "primary")).filter((f) => f.endsWith(".json"));
    rmSync(join(catalogue, "primary", second!));
    const rebuilt = await buildCatalogue({ ...options, targets: [...options.targets] });
    expect(rebuilt.built?.mode.kind).toBe("incremental");
    expect(entryOf(out).revision).toBeGreaterThan(revision);
    const index = indexOf(out);
    expect(index).toEqual(indexOf(writeFresh(out)));
    expect([...index.keys()].some((path) => path.includes("added-one"))).toBe(true);
    expect(index.has("/.nojekyll")).toBe(false);
    expect(index.has("/404.json")).toBe(false);
    expect(index.get("/")).toBeDefined();
  });
});

describe("the index's limits", () => {
  const shard = (size: number): ShardRef => ({ path: "index/x.json", sha256: "0".repeat(64), size });
  it("hold a million packages' index (3 million files, 4,096 shards of 100 kB) and refuse what a client would", () => {
    const million = Array.from({ length: 4096 }, () => shard(100_000));
    expect(pastLimits(3_000_000, million)).toBeUndefined();
    expect(pastLimits(INDEX_LIMITS.files + 1, million)).toMatch(/files \(at most/);
    expect(
      pastLimits(
        1000,
        Array.from({ length: INDEX_LIMITS.shards + 1 }, () => shard(1)),
      ),
    ).toMatch(/shards/);
    expect(pastLimits(1000, [shard(INDEX_LIMITS.shardBytes + 1)])).toMatch(/a shard of/);
    const heavy = Array.from({ length: 200 }, () => shard(INDEX_LIMITS.shardBytes));
    expect(pastLimits(1000, heavy)).toMatch(/bytes of shards/);
  });
});
