// Over 350 lines: the index's one writer, full and incremental, with the live index it reads and the
// order its files are written in, which must change together.
// The build's file index (docs/trust.md), written into the spare slot after its files and before it
// is published: every served file's URL path, size and SHA-256, in shards named by their own
// SHA-256, and entry.json naming the shards, signed when a key is given. Incremental: only the
// changed files are hashed again and only the shards that hold one are written again; the others,
// and the last build's shards (kept so a client can tell a stale file from an altered one), are
// links to the live slot's. Nothing here is changed in place: a file is written beside and renamed,
// in the order a reader needs: the shards and the signature named by the entry's SHA-256, then
// entry.json, then entry.json.minisig and the key, and only then are the last index's files removed.
import {
  closeSync,
  fstatSync,
  linkSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { FILE_INDEX, isFileIndexPath } from "../routes/routeTable.js";
import type { WrittenDigests } from "../write/writeOutput.js";
import { servedPathOf } from "../routes/servedPath.js";
import { FailureError } from "../util/errors.js";
import {
  INDEX_FORMAT,
  pastLimits,
  parseEntry,
  parseShard,
  renderEntry,
  renderShard,
  sha256Hex,
  shardCountFor,
  shardOf,
  shardPath,
  signaturePathOf,
  type IndexedFile,
  type IndexEntry,
  type ShardRef,
} from "./fileIndex.js";
import { formatPublicKey, keyIdHex, signMinisign, type SecretKey } from "./minisign.js";
import { sameInode } from "../util/sameInode.js";
import { expiryOf, nextRevision } from "./nextRevision.js";
import type { FileIndexSpill } from "./fileIndexSpill.js";
import { keepHeapNearLive } from "../util/memory.js";

export interface FileIndexOptions {
  /** Base URLs of the deployment's mirrors (shopfront.json's `mirrors`). */
  mirrors: readonly string[];
  /** Signs entry.json and publishes the public key beside it; without one the index is unsigned. */
  secretKey?: SecretKey | undefined;
  /** Days until the entry expires (shopfront.json's `indexLifetimeDays`); without it, never. */
  lifetimeDays?: number | undefined;
}

/**
 * A build renews an expiring entry once the live one is this old, though nothing else changed: the
 * daily rebuild of the Pages workflow always does, two builds an hour apart do not.
 */
const RENEW_AFTER_MS = 12 * 3600 * 1000;

/** What the writer knows of the files it wrote (src/write/writeOutput.ts), so they are not read back. */
export interface Written {
  digests?: WrittenDigests;
  /** Every file of a slot written afresh, when it was. */
  paths?: readonly string[];
  /** A slot written afresh by the full build: its files as it wrote them, gathered on disk. */
  spill?: FileIndexSpill;
}

export interface FileIndexWritten {
  revision: number;
  files: number;
  /** Shards written anew (the others are the live slot's). */
  shardsWritten: number;
  shards: number;
  signed: boolean;
}

/**
 * Writes the index of the files in `spareDir` into it. `liveDir` is the live slot (the last build),
 * `changed` the paths where the spare differs from it, each with null when it is removed (written
 * before the removals, so that no entry names a file gone), or "all" when it is unknown (a fresh slot).
 */
export function writeFileIndex(
  spareDir: string,
  liveDir: string | undefined,
  changed: ReadonlyMap<string, unknown> | "all",
  options: FileIndexOptions & { builtMs: number },
  written?: Written,
): FileIndexWritten {
  const live = liveDir === undefined ? undefined : readLiveIndex(liveDir);
  const digest = (file: string, path: string): IndexedFile => {
    const known = written?.digests?.get(file);
    return known ? { path, ...known } : hashFile(spareDir, file, path);
  };
  let shards: Iterable<[number, Shard]>;
  let count: number;
  // The files of the shards kept as the live slot has them, never read to be counted.
  let files = 0;
  if (changed === "all" && written?.spill) {
    count = shardCountFor(written.spill.count, live?.entry.shards.length);
    shards = spilledShards(written.spill, count, spareDir, liveDir, live, digest);
  } else {
    const all =
      changed === "all" || live === undefined
        ? { shards: indexAll(spareDir, liveDir, live, digest, changed === "all" ? written?.paths : undefined), kept: 0 }
        : indexChanges(spareDir, live, changed, digest);
    count = all.shards.length;
    shards = all.shards.entries();
    files = all.kept;
  }
  const refs: ShardRef[] = new Array<ShardRef>(count);
  let shardsWritten = 0;
  const folder = join(spareDir, FILE_INDEX.folder);
  mkdirSync(folder, { recursive: true });
  const wanted = new Set<string>();
  for (const [i, shard] of shards) {
    keepHeapNearLive();
    if (shard.kept) {
      refs[i] = shard.kept;
      continue;
    }
    const text = renderShard(shard.files);
    const sha256 = sha256Hex(text);
    refs[i] = { path: shardPath(sha256), sha256, size: text.length };
    files += shard.files.length;
    shardsWritten++;
    if (!wanted.has(refs[i]!.path)) writeBeside(spareDir, refs[i]!.path, text);
    wanted.add(refs[i]!.path);
  }
  refusePastLimits(files, refs);
  const previous = live?.entry.shards;
  // The last entry's signature stays with its shards: a reader holding that entry fetches it by its name.
  const kept = [...refs, ...(previous ?? [])].map((ref) => ref.path);
  if (live && existsFile(join(liveDir!, signaturePathOf(live.bytes)))) kept.push(signaturePathOf(live.bytes));
  for (const path of kept) {
    if (wanted.has(path)) continue;
    wanted.add(path);
    linkBeside(liveDir!, spareDir, path);
  }

  const entry: IndexEntry = {
    format: INDEX_FORMAT,
    revision: nextRevision(options.builtMs, live?.entry.revision),
    built: new Date(options.builtMs).toISOString(),
    files,
    shards: refs,
    ...(live ? { previous: { revision: live.entry.revision, shards: live.entry.shards } } : {}),
    mirrors: [...options.mirrors],
    ...(options.lifetimeDays !== undefined ? { expires: expiryOf(options.builtMs, options.lifetimeDays) } : {}),
  };
  const text = renderEntry(entry);
  const key = options.secretKey;
  if (key) {
    const trusted = `timestamp:${Math.floor(options.builtMs / 1000)}\tfile:${FILE_INDEX.entry}\thashed\trevision:${entry.revision}`;
    const signature = signMinisign(
      Buffer.from(text),
      key,
      trusted,
      `signature from shopfront secret key ${keyIdHex(key.keyId)}`,
    );
    wanted.add(signaturePathOf(text));
    writeBeside(spareDir, signaturePathOf(text), signature);
    writeBeside(spareDir, FILE_INDEX.entry, text);
    writeBeside(spareDir, FILE_INDEX.signature, signature);
    writeBeside(spareDir, FILE_INDEX.publicKey, formatPublicKey(key));
  } else {
    writeBeside(spareDir, FILE_INDEX.entry, text);
    rmSync(join(spareDir, FILE_INDEX.signature), { force: true });
    rmSync(join(spareDir, FILE_INDEX.publicKey), { force: true });
  }
  for (const name of readdirSync(folder))
    if (!wanted.has(`${FILE_INDEX.folder}/${name}`)) rmSync(join(folder, name), { force: true });
  return { revision: entry.revision, files, shardsWritten, shards: refs.length, signed: key !== undefined };
}

/**
 * Stops the build before it publishes an index no client would accept (fileIndex.ts's INDEX_LIMITS,
 * which docs/trust.md tells clients to hold to): the output stays as it was.
 */
function refusePastLimits(files: number, refs: readonly ShardRef[]): void {
  const past = pastLimits(files, refs);
  if (past !== undefined)
    throw new FailureError(
      `the signed file index would list ${past}, more than a client accepts (docs/trust.md); the output is unchanged`,
    );
}

/**
 * Whether the live slot's index is not what a build with these options writes, though no served file
 * changed: it has none, or other mirrors, or another key (or none where one is given now), or
 * another lifetime, or an expiry to renew (RENEW_AFTER_MS). Then a build that changed nothing still
 * publishes, with the index alone new.
 */
export function fileIndexOutdated(liveDir: string, options: FileIndexOptions & { builtMs: number }): boolean {
  const live = readLiveIndex(liveDir);
  if (live === undefined || live.entry.mirrors.join("\n") !== options.mirrors.join("\n")) return true;
  const built = Date.parse(live.entry.built);
  const days = options.lifetimeDays;
  if (days === undefined ? live.entry.expires !== undefined : live.entry.expires !== expiryOf(built, days)) return true;
  if (days !== undefined && !(options.builtMs - built < RENEW_AFTER_MS)) return true;
  let servedKey: string | undefined;
  try {
    servedKey = readFileSync(join(liveDir, FILE_INDEX.publicKey), "latin1");
  } catch {
    // No served key (or none readable): the index is outdated unless no key is given either.
    servedKey = undefined;
  }
  return servedKey !== (options.secretKey ? formatPublicKey(options.secretKey) : undefined);
}

/** A shard of the new index: kept as the live slot has it, or its files to write. */
type Shard = { kept: ShardRef; files?: never } | { kept?: never; files: IndexedFile[] };

interface LiveIndex {
  entry: IndexEntry;
  /** entry.json's bytes, which name its signature (signaturePathOf). */
  bytes: Buffer;
  /** Shard i's files, read when asked for (again each time: a caller keeps what it needs). */
  shard(i: number): IndexedFile[];
}

/** The live slot's index, when it has a whole one (entry.json and every shard it names); else undefined. */
function readLiveIndex(liveDir: string): LiveIndex | undefined {
  let entry: IndexEntry | string;
  let bytes: Buffer;
  try {
    bytes = readFileSync(join(liveDir, FILE_INDEX.entry));
    entry = parseEntry(bytes.toString("latin1"));
  } catch {
    // No whole live index: this build writes every shard anew.
    return undefined;
  }
  if (typeof entry === "string") return undefined;
  const shard = (i: number): IndexedFile[] => {
    const ref = entry.shards[i]!;
    const bytes = readFileSync(join(liveDir, ref.path));
    const parsed = sha256Hex(bytes) === ref.sha256 ? parseShard(bytes.toString("latin1")) : "altered";
    // The index's own data: a shard that does not match its entry is a bug or a tampered disk.
    if (typeof parsed === "string")
      throw new Error(`internal: ${ref.path} of the live index is not its entry's: ${parsed}`);
    return parsed;
  };
  for (const ref of entry.shards) {
    try {
      if (statSync(join(liveDir, ref.path)).size !== ref.size) return undefined;
    } catch {
      // No whole live index: this build writes every shard anew.
      return undefined;
    }
  }
  return { entry, bytes, shard };
}

/** Every served file of the spare slot, hashed (but a live file the spare links, whose live entry holds). */
function indexAll(
  spareDir: string,
  liveDir: string | undefined,
  live: LiveIndex | undefined,
  digest: (file: string, path: string) => IndexedFile,
  paths: readonly string[] | undefined,
): Shard[] {
  const known = new Map<string, IndexedFile>();
  if (live) for (let i = 0; i < live.entry.shards.length; i++) for (const f of live.shard(i)) known.set(f.path, f);
  const files: IndexedFile[] = [];
  for (const file of paths ?? listFiles(spareDir)) {
    if (isFileIndexPath(file)) continue;
    const path = servedPathOf(file);
    if (path === undefined) continue;
    const before = known.get(path);
    files.push(before && liveDir && sameInode(join(spareDir, file), join(liveDir, file)) ? before : digest(file, path));
  }
  const count = shardCountFor(files.length, live?.entry.shards.length);
  const shards: IndexedFile[][] = Array.from({ length: count }, () => []);
  for (const f of files) shards[shardOf(f.path, count)]!.push(f);
  return shards.map((list) => ({ files: list }));
}

/**
 * The shards of a slot the full build wrote, from its spill: a file it hashed as it wrote it comes
 * with its digest; another (a package file copied, moved or linked in) is the live index's entry when
 * it is the live slot's own file, else hashed now.
 */
function* spilledShards(
  spill: FileIndexSpill,
  count: number,
  spareDir: string,
  liveDir: string | undefined,
  live: LiveIndex | undefined,
  digest: (file: string, path: string) => IndexedFile,
): Generator<[number, Shard]> {
  const liveCount = live?.entry.shards.length ?? 0;
  // The live shards looked in, a few at a time: package files of one shard come together when the count holds.
  const read = new Map<number, IndexedFile[]>();
  const liveShard = (i: number): IndexedFile[] => {
    let files = read.get(i);
    if (files === undefined) {
      if (read.size >= LIVE_SHARDS_HELD) read.clear();
      read.set(i, (files = live!.shard(i)));
    }
    return files;
  };
  const known = (file: string, path: string): IndexedFile => {
    if (live && liveDir && sameInode(join(spareDir, file), join(liveDir, file))) {
      const before = liveShard(shardOf(path, liveCount)).find((f) => f.path === path);
      if (before) return before;
    }
    return digest(file, path);
  };
  for (const [i, files] of spill.shards(count, known)) yield [i, { files }];
}

/** How many live shards the full build holds as it looks up package files linked from the live slot. */
const LIVE_SHARDS_HELD = 64;

/**
 * The live index with the changed paths hashed again: only their shards are new, unless the shard
 * count moves. The others are kept unread, with the files they list (`kept`), from the entry's count.
 */
function indexChanges(
  spareDir: string,
  live: LiveIndex,
  changed: ReadonlyMap<string, unknown>,
  digest: (file: string, path: string) => IndexedFile,
): { shards: Shard[]; kept: number } {
  const count = live.entry.shards.length;
  const updates = new Map<string, IndexedFile | null>();
  for (const [file, content] of changed) {
    if (isFileIndexPath(file)) continue;
    const path = servedPathOf(file);
    if (path === undefined) continue;
    updates.set(path, content !== null && existsFile(join(spareDir, file)) ? digest(file, path) : null);
  }
  const touched = new Map<number, IndexedFile[]>();
  // The files of the kept shards: the live entry's, less those of the shards written again.
  let kept = live.entry.files;
  for (const [path, update] of updates) {
    const i = shardOf(path, count);
    let files = touched.get(i);
    if (files === undefined) {
      const before = live.shard(i);
      kept -= before.length;
      touched.set(i, (files = before.filter((f) => !updates.has(f.path))));
    }
    if (update) files.push(update);
  }
  let total = kept;
  for (const files of touched.values()) total += files.length;
  const wanted = shardCountFor(total, count);
  if (wanted !== count) {
    // Every path moves: the kept shards are read and all are dealt out again, no file hashed again.
    const shards: IndexedFile[][] = Array.from({ length: wanted }, () => []);
    for (let i = 0; i < count; i++)
      for (const f of touched.get(i) ?? live.shard(i)) shards[shardOf(f.path, wanted)]!.push(f);
    return { shards: shards.map((files) => ({ files })), kept: 0 };
  }
  const shards = live.entry.shards.map((ref, i): Shard => {
    const files = touched.get(i);
    return files ? { files } : { kept: ref };
  });
  return { shards, kept };
}

/** Files are hashed in blocks of this many bytes. */
const BLOCK_BYTES = 1 << 20;
const block = Buffer.allocUnsafe(BLOCK_BYTES);

/** A file's size and SHA-256, read a block at a time. */
function hashFile(root: string, file: string, path: string): IndexedFile {
  const hash = createHash("sha256");
  const fd = openSync(join(root, file), "r");
  try {
    const size = fstatSync(fd).size;
    for (let position = 0; position < size;) {
      const read = readSync(fd, block, 0, Math.min(BLOCK_BYTES, size - position), position);
      if (read === 0) break;
      hash.update(block.subarray(0, read));
      position += read;
    }
    return { path, size, sha256: hash.digest("hex") };
  } finally {
    closeSync(fd);
  }
}

function existsFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    // Not there or not readable: not a file to keep.
    return false;
  }
}

/** The files under `root`, relative to it with `/` between names. */
function listFiles(root: string, folder = "", paths: string[] = []): string[] {
  for (const entry of readdirSync(join(root, folder), { withFileTypes: true })) {
    const path = folder === "" ? entry.name : `${folder}/${entry.name}`;
    if (entry.isDirectory()) listFiles(root, path, paths);
    else paths.push(path);
  }
  return paths;
}

/**
 * The temporary file every write of the index is renamed from: in the index's folder of the slot,
 * whose files not in the index the next build removes, so a killed build leaves nothing served.
 */
function temporaryIn(slot: string): string {
  return join(slot, FILE_INDEX.folder, `.tmp-${process.pid}`);
}

/** Writes `text` at `file` of `slot` by renaming a file written beside it: the live slot may share the old one's inode. */
function writeBeside(slot: string, file: string, text: string): void {
  const temp = temporaryIn(slot);
  writeFileSync(temp, text, "latin1");
  renameSync(temp, join(slot, file));
}

/** Links `file` of `slot` to the live one (the two slots share a file that never changes), unless it is that already. */
function linkBeside(liveDir: string, slot: string, file: string): void {
  if (sameInode(join(liveDir, file), join(slot, file))) return;
  const temp = temporaryIn(slot);
  linkSync(join(liveDir, file), temp);
  renameSync(temp, join(slot, file));
}
