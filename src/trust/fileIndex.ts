// The file index's formats (docs/trust.md), pure: which shard a path is in, a shard's bytes and its
// name, and entry.json, which names the shards by their SHA-256 and is what the signature covers.
import { createHash } from "node:crypto";
import { compareCodePoints } from "../util/codePoints.js";
import { FILE_INDEX } from "../routes/routeTable.js";

/** The format's number, in entry.json: a client refuses one it does not know. */
export const INDEX_FORMAT = 1;

/** A served file: its URL path (from `/`, relative to the deployment's base URL), size and SHA-256. */
export interface IndexedFile {
  path: string;
  size: number;
  sha256: string;
}

/** A shard as entry.json names it: its path in the build (`index/<hex>.json`), SHA-256 and size. */
export interface ShardRef {
  path: string;
  sha256: string;
  size: number;
}

export interface IndexEntry {
  format: typeof INDEX_FORMAT;
  /** One more than the last build's, so that a copy with a smaller one is behind. */
  revision: number;
  /** When the build ran, ISO 8601 in UTC. */
  built: string;
  /** How many files the shards list. */
  files: number;
  /** Shard i holds the paths that shardOf puts in i. */
  shards: ShardRef[];
  /** The last build's shards, still served: a file that matches its entry there is stale, not altered. */
  previous?: { revision: number; shards: ShardRef[] };
  /** Base URLs of the deployment's mirrors (shopfront.json's `mirrors`), http or https. */
  mirrors: string[];
  /** When a client must stop trusting the entry, ISO 8601 in UTC (shopfront.json's `indexLifetimeDays`). */
  expires?: string;
}

/**
 * What a client (and verify) holds an index to, so that a server cannot make it hold an endless
 * body or list: every body is read up to the size the signed entry gives, entry.json and its
 * signature up to these (docs/trust.md). 100,000 packages make about 300,000 files, 512 shards of
 * about 80 kB and an entry of about 150 kB; a million packages about 3 million files, 4,096 shards
 * and 400 MB of shards: room for about 2.5 million packages. A build refuses to publish an index past
 * them (writeFileIndex.ts).
 */
export const INDEX_LIMITS = {
  entryBytes: 4 * 1024 * 1024,
  signatureBytes: 16 * 1024,
  publicKeyBytes: 4 * 1024,
  shards: 8192,
  shardBytes: 8 * 1024 * 1024,
  /** The shards' bytes together, each of entry.json's lists (current and previous). */
  indexBytes: 1024 * 1024 * 1024,
  files: 8 * 1024 * 1024,
  mirrors: 16,
  redirects: 5,
} as const;

/** What of an index of `files` files in these shards is past INDEX_LIMITS, or undefined when none is. */
export function pastLimits(files: number, shards: readonly ShardRef[]): string | undefined {
  const bytes = shards.reduce((sum, ref) => sum + ref.size, 0);
  const largest = shards.reduce((max, ref) => Math.max(max, ref.size), 0);
  if (files > INDEX_LIMITS.files) return `${files} files (at most ${INDEX_LIMITS.files})`;
  if (shards.length > INDEX_LIMITS.shards) return `${shards.length} shards (at most ${INDEX_LIMITS.shards})`;
  if (largest > INDEX_LIMITS.shardBytes) return `a shard of ${largest} bytes (at most ${INDEX_LIMITS.shardBytes})`;
  if (bytes > INDEX_LIMITS.indexBytes) return `${bytes} bytes of shards (at most ${INDEX_LIMITS.indexBytes})`;
  return undefined;
}

/** How many files a shard holds on average when the shard count is chosen again. */
const FILES_PER_SHARD = 1024;

export function sha256Hex(bytes: Uint8Array | string): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** The shard of `path` among `count`: the first four bytes of the SHA-256 of its UTF-8, big-endian, modulo count. */
export function shardOf(path: string, count: number): number {
  return createHash("sha256").update(path, "utf8").digest().readUInt32BE(0) % count;
}

/**
 * The shard count for `files` files: kept while it holds 128 to 2048 files a shard on average (so one
 * edit rewrites one shard, and a count that wobbles around a boundary does not move every path),
 * else the power of two nearest 1024 a shard.
 */
export function shardCountFor(files: number, current: number | undefined): number {
  if (
    current !== undefined &&
    files <= 2 * FILES_PER_SHARD * current &&
    (current === 1 || files >= (FILES_PER_SHARD / 8) * current)
  )
    return current;
  let count = 1;
  while (count * FILES_PER_SHARD < files) count *= 2;
  return count;
}

/** A shard's bytes: its files sorted by path in code-point order, one a line. */
export function renderShard(files: readonly IndexedFile[]): string {
  const sorted = [...files].sort((a, b) => compareCodePoints(a.path, b.path));
  const lines = sorted.map((f) => JSON.stringify({ path: f.path, size: f.size, sha256: f.sha256 }));
  return `{"files":[${lines.length > 0 ? `\n${lines.join(",\n")}\n` : ""}]}\n`;
}

/**
 * The path of entry.json's signature named by the entry's own SHA-256 (40 hex digits), written before
 * the entry: a client that got an entry fetches the signature of those bytes, never the one of an
 * entry being replaced beside it. entry.json.minisig, beside the entry, is the same signature.
 */
export function signaturePathOf(entryBytes: Uint8Array | string): string {
  return `${FILE_INDEX.folder}/${sha256Hex(entryBytes).slice(0, 40)}.minisig`;
}

/** A shard's path in the build: named by (the first 40 hex digits of) its own SHA-256, so it never changes in place. */
export function shardPath(sha256: string): string {
  return `${FILE_INDEX.folder}/${sha256.slice(0, 40)}.json`;
}

const HEX64 = /^[0-9a-f]{64}$/;

function isIndexedFile(value: unknown): value is IndexedFile {
  const f = value as IndexedFile;
  return (
    typeof f === "object" &&
    f !== null &&
    typeof f.path === "string" &&
    f.path.startsWith("/") &&
    Number.isSafeInteger(f.size) &&
    f.size >= 0 &&
    typeof f.sha256 === "string" &&
    HEX64.test(f.sha256)
  );
}

function isShardRef(value: unknown): value is ShardRef {
  const s = value as ShardRef;
  return (
    typeof s === "object" &&
    s !== null &&
    typeof s.path === "string" &&
    /^index\/[0-9a-f]{40}\.json$/.test(s.path) &&
    typeof s.sha256 === "string" &&
    HEX64.test(s.sha256) &&
    Number.isSafeInteger(s.size) &&
    s.size >= 0 &&
    s.size <= INDEX_LIMITS.shardBytes
  );
}

/** What is wrong with a list of shard refs, or undefined. */
function shardsProblem(name: string, shards: unknown): string | undefined {
  if (!Array.isArray(shards) || shards.length === 0 || !shards.every(isShardRef))
    return `${name} is not a list of {path, sha256, size} of at most ${INDEX_LIMITS.shardBytes} bytes each`;
  if (shards.length > INDEX_LIMITS.shards) return `${name} lists more than ${INDEX_LIMITS.shards} shards`;
  if (shards.reduce((sum: number, s: ShardRef) => sum + s.size, 0) > INDEX_LIMITS.indexBytes)
    return `the shards of ${name} add up to more than ${INDEX_LIMITS.indexBytes} bytes`;
  return undefined;
}

/** An absolute http or https URL. */
function isHttpUrl(value: unknown): boolean {
  if (typeof value !== "string") return false;
  try {
    const url = new URL(value);
    return (url.protocol === "http:" || url.protocol === "https:") && !/\s/.test(value);
  } catch {
    // Not a URL: not a mirror's URL either.
    return false;
  }
}

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/;

function parseJsonText(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    // Not JSON: the caller names the file as altered.
    return undefined;
  }
}

/** A shard's files; a string says what is wrong. */
export function parseShard(text: string): IndexedFile[] | string {
  const value = parseJsonText(text) as { files?: unknown } | undefined;
  if (typeof value !== "object" || value === null || !Array.isArray(value.files))
    return "not an index shard (a JSON object with a files array)";
  const bad = value.files.findIndex((f) => !isIndexedFile(f));
  return bad >= 0 ? `file ${bad} of the shard is not {path, size, sha256}` : (value.files as IndexedFile[]);
}

/** entry.json's bytes. */
export function renderEntry(entry: IndexEntry): string {
  return `${JSON.stringify(entry, null, 2)}\n`;
}

/** entry.json's fields; a string says what is wrong. */
export function parseEntry(text: string): IndexEntry | string {
  const value = parseJsonText(text) as Partial<IndexEntry> | undefined;
  if (typeof value !== "object" || value === null) return "not a JSON object";
  if (value.format !== INDEX_FORMAT)
    return `format ${JSON.stringify(value.format)} is not ${INDEX_FORMAT}, the one this shopfront reads`;
  if (!Number.isSafeInteger(value.revision) || value.revision! < 1) return "revision is not a positive integer";
  if (typeof value.built !== "string") return "built is not a string";
  if (!Number.isSafeInteger(value.files) || value.files! < 0 || value.files! > INDEX_LIMITS.files)
    return `files is not an integer from 0 to ${INDEX_LIMITS.files}`;
  const shards = shardsProblem("shards", value.shards);
  if (shards !== undefined) return shards;
  const previous = value.previous;
  if (previous !== undefined) {
    if (typeof previous !== "object" || previous === null || !Number.isSafeInteger(previous.revision))
      return "previous is not {revision, shards}";
    const problem = shardsProblem("previous.shards", previous.shards);
    if (problem !== undefined) return problem;
  }
  if (!Array.isArray(value.mirrors) || !value.mirrors.every(isHttpUrl))
    return "mirrors is not a list of http:// or https:// URLs";
  if (value.mirrors.length > INDEX_LIMITS.mirrors) return `mirrors lists more than ${INDEX_LIMITS.mirrors}`;
  if (value.expires !== undefined && (typeof value.expires !== "string" || !ISO_UTC.test(value.expires)))
    return "expires is not a date and time in UTC (ISO 8601)";
  return value as IndexEntry;
}
