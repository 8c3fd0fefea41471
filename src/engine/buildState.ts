// Over 300 lines: the state file's one format (type, serializer, strict parser), which must change together.
// What a build remembers for the next one, kept beside the slots in .dist.shopfront/state: the
// signature of every input as built, each package's rendered length (to copy it from the lists by
// ranges) and the warnings. Any doubt (no state, another shopfront or schema, another catalogue or
// target list, a killed build) means a full build.
import { createHash } from "node:crypto";
import {
  closeSync,
  fstatSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
  type Stats,
} from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { HostInfo, PackageStats } from "../catalogue/fields.js";
import type { Problem } from "../catalogue/problems.js";
import type { Signature } from "../read/signature.js";
import type { PackageFilesMemo, RenderedPackage } from "../render/renderApi.js";
import { schemaTexts } from "../catalogue/schemas.js";
import { siteAssets } from "../site/siteAssets.js";
import { parseSiteIndex, siteColumns, siteHeader, type SiteIndex } from "../site/siteIndex.js";
import { VERSION } from "../util/version.js";
import type { Slot } from "../write/writeOutput.js";
import type { TargetId } from "../targets/target.js";

/**
 * Numbers kept per package: its source's signature, its rendered length, its category and coder
 * as indices into its host's table of values (the filtered lists it is in), its stats entry:
 * downloads (-1 for no entry) and the rating's index, and its fragments in today's API: the byte
 * length of its object in the v4 and in the v3 contents (so a rebuild copies a kept package's
 * object out of the live contents by offset, never parsing them) and whether it may be the
 * featured app (1) or not (0); last, the digest of its manifest's bytes (read/signature.ts), -1
 * when unknown.
 */
const COLUMNS = 13;
/** How many numbers the index keeps per package (a host's columns hold this many for each). */
export const INDEX_COLUMNS = COLUMNS;
const [SIZE, MTIME, CTIME, INO, LENGTH, CATEGORY, CODER, DOWNLOADS, RATING, V4_LENGTH, V3_LENGTH, FEATURED, DIGEST] = [
  0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
];
const NO_ENTRY = -1;

/** A host's packages as built, in list order: names, COLUMNS numbers for each, and the strings they index. */
export interface HostState {
  names: string[];
  columns: Float64Array;
  /** Each category, coder and rating of the host once; a package's columns index it. */
  values: string[];
  /** The stats file's entries for names the host has no package of, in name order. */
  orphans: [string, PackageStats][];
}

/** What a host's state records of a package that it does not read from its manifest. */
export interface PackageFilters {
  category: string;
  coder: string;
}

/** A package's fragments in today's API, as the index records them (render/renderToday.ts renders them). */
export interface TodayRecord {
  v4: { length: number };
  v3: { length: number };
  featured: boolean;
}

/** What the state records of a package built: its filters, its stats entry, if any, and its today fragments. */
export type PackageRecord = PackageFilters & { stats?: PackageStats | undefined; fragments: TodayRecord };

/** A host's state for `names` in list order; setPackage and copyPackage fill in their numbers. */
export function newHostState(names: string[], orphans: [string, PackageStats][]): HostState {
  return { names, columns: new Float64Array(names.length * COLUMNS), values: [], orphans };
}

/** Each host state's lookup from value to index, made when a value is first added; never written. */
const valueIndexes = new WeakMap<HostState, Map<string, number>>();

/** The index of `value` in the host's table of values, added when new. */
function valueIndex(host: HostState, value: string): number {
  let index = valueIndexes.get(host);
  if (!index) valueIndexes.set(host, (index = new Map(host.values.map((v, i) => [v, i]))));
  let at = index.get(value);
  if (at === undefined) {
    at = host.values.push(value) - 1;
    index.set(value, at);
  }
  return at;
}

/** Records package i's source signature, rendered length, category, coder and stats. */
export function setPackage(
  host: HostState,
  i: number,
  signature: Signature,
  length: number,
  record: PackageRecord,
): void {
  const at = i * COLUMNS;
  host.columns[at + SIZE] = signature.size;
  host.columns[at + MTIME] = signature.mtimeMs;
  host.columns[at + CTIME] = signature.ctimeMs;
  host.columns[at + INO] = signature.ino;
  host.columns[at + DIGEST] = signature.digest ?? NO_ENTRY;
  host.columns[at + LENGTH] = length;
  host.columns[at + CATEGORY] = valueIndex(host, record.category);
  host.columns[at + CODER] = valueIndex(host, record.coder);
  host.columns[at + DOWNLOADS] = record.stats ? record.stats.downloads : NO_ENTRY;
  host.columns[at + RATING] = record.stats ? valueIndex(host, record.stats.rating) : NO_ENTRY;
  host.columns[at + V4_LENGTH] = record.fragments.v4.length;
  host.columns[at + V3_LENGTH] = record.fragments.v3.length;
  host.columns[at + FEATURED] = record.fragments.featured ? 1 : 0;
}

/** Records for package i what `from` holds for its package j, a package that did not change. */
export function copyPackage(host: HostState, i: number, from: HostState, j: number): void {
  const at = i * COLUMNS;
  const was = j * COLUMNS;
  for (let k = 0; k < CATEGORY; k++) host.columns[at + k] = from.columns[was + k]!;
  for (const k of [CATEGORY, CODER, RATING]) {
    const index = from.columns[was + k]!;
    host.columns[at + k] = index === NO_ENTRY ? NO_ENTRY : valueIndex(host, from.values[index]!);
  }
  for (const k of [DOWNLOADS, V4_LENGTH, V3_LENGTH, FEATURED, DIGEST]) host.columns[at + k] = from.columns[was + k]!;
}

/** Package i's manifest moved but kept its bytes: the signature it has now, its digest the same. */
export function setSignature(host: HostState, i: number, signature: Signature): void {
  const at = i * COLUMNS;
  host.columns[at + SIZE] = signature.size;
  host.columns[at + MTIME] = signature.mtimeMs;
  host.columns[at + CTIME] = signature.ctimeMs;
  host.columns[at + INO] = signature.ino;
}

/** Whether package i's manifest was built from bytes of this digest. */
export function digestIs(host: HostState, i: number, digest: number): boolean {
  return host.columns[i * COLUMNS + DIGEST] === digest;
}

/** A host's state for its rendered packages, in list order, their sources' signatures and the stats orphans. */
export function hostStateOf(
  packages: readonly (Pick<RenderedPackage, "name" | "json"> & PackageRecord)[],
  signatures: readonly Signature[],
  orphans: [string, PackageStats][],
): HostState {
  const host = newHostState(
    packages.map((p) => p.name),
    orphans,
  );
  packages.forEach((p, i) => setPackage(host, i, signatures[i]!, p.json.length, p));
  return host;
}

/** The host-wide lists a package has a fragment in: the v1 list, today's v4 and v3 contents. */
export type ListKind = "v1" | "v4" | "v3";

const LENGTH_COLUMN: Record<ListKind, number> = { v1: LENGTH, v4: V4_LENGTH, v3: V3_LENGTH };

/** The byte length of package i's fragment in a host-wide list (its v1 object by default). */
export function lengthAt(host: HostState, i: number, list: ListKind = "v1"): number {
  return host.columns[i * COLUMNS + LENGTH_COLUMN[list]]!;
}

/**
 * Where each package starts in a host-wide list of the host: after "[" and after the comma that
 * follows each package before it, by the lengths the index keeps.
 */
export function listOffsets(host: HostState, list: ListKind = "v1"): Float64Array {
  const offsets = new Float64Array(host.names.length);
  for (let i = 0, at = 1; i < host.names.length; i++) {
    offsets[i] = at;
    at += lengthAt(host, i, list) + 1;
  }
  return offsets;
}

/** Whether package i may be the featured app (renderToday.ts's rule, recorded when it was rendered). */
export function featuredAt(host: HostState, i: number): boolean {
  return host.columns[i * COLUMNS + FEATURED] === 1;
}

/** The stats entry package i was built with, if it had one. */
export function statsAt(host: HostState, i: number): PackageStats | undefined {
  const downloads = host.columns[i * COLUMNS + DOWNLOADS]!;
  if (downloads === NO_ENTRY) return undefined;
  return { downloads, rating: host.values[host.columns[i * COLUMNS + RATING]!]! };
}

/** The category and coder package i was built with. */
/** Package i's category and coder as indices into its host's values (the same index, the same value). */
export function filterIndexesAt(host: HostState, i: number): [category: number, coder: number] {
  return [host.columns[i * COLUMNS + CATEGORY]!, host.columns[i * COLUMNS + CODER]!];
}

export function filtersAt(host: HostState, i: number): PackageFilters {
  return {
    category: host.values[host.columns[i * COLUMNS + CATEGORY]!]!,
    coder: host.values[host.columns[i * COLUMNS + CODER]!]!,
  };
}

export interface BuildState {
  /** The tool, its schemas, the catalogue folder and the targets: any change makes a full build. */
  key: string;
  /** The targets whose files the live output holds (`build --target`), so the next build can say when it drops them. */
  targets: TargetId[];
  /** The slot the output link points to when this state is true. */
  live: Slot;
  /** Wall-clock time just before the inputs were examined; files changed after it are re-read. */
  snapshotMs: number;
  /** The time whose UTC day picked the featured app (the build's, or `--featured-day`'s). */
  featuredMs: number;
  /** hosts.json's hosts as built, in catalogue order: names, domains and descriptions. */
  hostInfos: HostInfo[];
  /** hosts.json's default host, whose today API is at the OSC's paths (with package files or without). */
  hostsDefault: string;
  hostsFile: Signature;
  /**
   * The catalogue folder's signature, then each host folder's, as they were listed; null when one
   * could not be taken. While none of them moves, no manifest was added, removed or renamed.
   */
  folders: Signature[] | null;
  /** Host ids in catalogue order. */
  hosts: string[];
  /** Each host's stats file signature, parallel to hosts; null for a host with none. */
  statsFiles: (Signature | null)[];
  packages: Record<string, HostState>;
  /** Warnings of the inputs as built, reported again while they are unchanged. */
  warnings: Problem[];
  /** Output files in the live slot. */
  files: number;
  /** Whether a package had files beside its manifest (zip or folder). */
  packageFiles?: boolean;
  /** With package files: hosts.json's default host, whose packages' stored files are at the root. */
  defaultHost?: string;
  /**
   * Per package with files (`host/name`): their signatures, what they derived and where the live slot
   * stores them. A build reuses a package's entry while its files keep their signatures.
   */
  packageFilesMemo?: Record<string, PackageFilesMemo>;
  /** With the browse site: what its next rebuild needs of every package (site/siteIndex.ts). */
  site?: SiteIndex;
}

const STATE_FILE = "state";
const MAGIC = "shopfront-state 10\n";

/** Clocks of files and of the process may disagree by a tick; inputs this close to the snapshot are re-read. */
export const RACY_MS = 2000;

type StatsLike = Pick<Stats, "size" | "mtimeMs" | "ctimeMs" | "ino">;

function unchanged(
  now: StatsLike,
  size: number,
  mtimeMs: number,
  ctimeMs: number,
  ino: number,
  snapshotMs: number,
): boolean {
  return (
    now.size === size &&
    now.mtimeMs === mtimeMs &&
    now.ctimeMs === ctimeMs &&
    now.ino === ino &&
    now.ctimeMs < snapshotMs - RACY_MS &&
    now.mtimeMs < snapshotMs - RACY_MS
  );
}

/** Whether a package's source still has the recorded signature, and was not changed near the last snapshot. */
export function isUnchanged(now: StatsLike, host: HostState, i: number, snapshotMs: number): boolean {
  const at = i * COLUMNS;
  const c = host.columns;
  return unchanged(now, c[at + SIZE]!, c[at + MTIME]!, c[at + CTIME]!, c[at + INO]!, snapshotMs);
}

export function signatureUnchanged(now: StatsLike, then: Signature, snapshotMs: number): boolean {
  return unchanged(now, then.size, then.mtimeMs, then.ctimeMs, then.ino, snapshotMs);
}

/**
 * The state file: a line naming the format, the header's length, the header as JSON (names joined
 * by newlines, which names cannot contain) and then every host's numbers as 64-bit floats, so a
 * catalogue of 100,000 packages loads without parsing half a million numbers.
 */
type Header = Omit<BuildState, "packages" | "site"> & {
  packages: { host: string; names: string; values: string[]; orphans: [string, PackageStats][]; count: number }[];
  site?: ReturnType<typeof siteHeader>;
};

export function serializeState(state: BuildState): Buffer {
  const pieces = [...headerPieces(state)];
  const length = pieces.reduce((n, piece) => n + piece.length, 0);
  return Buffer.concat([statePrefix(length), ...pieces, ...columnPieces(state, length)]);
}

/** The line before the header: the format, and the header's length in a fixed width, written last. */
function statePrefix(headerLength: number): Buffer {
  return Buffer.from(`${MAGIC}${String(headerLength).padStart(LENGTH_DIGITS, "0")}\n`);
}

/** The digits the header's length is written in (parseState reads any number of them). */
const LENGTH_DIGITS = 15;

/**
 * The header's JSON, a piece at a time: a million names (and the site's names and display names)
 * are serialized a chunk of them at a time, never as one string of the whole header.
 */
function* headerPieces(state: BuildState): Generator<Buffer> {
  const { site, packages, ...rest } = state;
  const text = (piece: string) => Buffer.from(piece);
  const restJson = JSON.stringify(rest);
  yield text(restJson.slice(0, -1));
  if (site) {
    const head = siteHeader(site);
    yield text(`,"site":{"hosts":${JSON.stringify(head.hosts)},"packages":[`);
    for (const [k, host] of head.packages.entries()) {
      yield text(`${k === 0 ? "" : ","}{"host":${JSON.stringify(host.host)},"names":[`);
      yield* chunked(host.names, (chunk) => JSON.stringify(chunk).slice(1, -1), ",");
      yield text(`],"displays":[`);
      yield* chunked(host.displays, (chunk) => JSON.stringify(chunk).slice(1, -1), ",");
      yield text(`],"values":${JSON.stringify(host.values)},"shards":${JSON.stringify(host.shards)}}`);
    }
    yield text("]}");
  }
  yield text(`,"packages":[`);
  for (const [k, host] of state.hosts.entries()) {
    const { names, values, orphans } = packages[host]!;
    yield text(`${k === 0 ? "" : ","}{"host":${JSON.stringify(host)},"names":"`);
    // One string of names joined by newlines, written a chunk at a time ("\n" between chunks too).
    yield* chunked(names, (chunk) => JSON.stringify(chunk.join("\n")).slice(1, -1), "\\n");
    yield text(`","values":${JSON.stringify(values)},"orphans":${JSON.stringify(orphans)},"count":${names.length}}`);
  }
  yield text("]}");
}

/** `items` serialized `HEADER_CHUNK` at a time, with `between` between two non-empty chunks. */
function* chunked(
  items: readonly string[],
  serialize: (chunk: readonly string[]) => string,
  between: string,
): Generator<Buffer> {
  for (let at = 0; at < items.length; at += HEADER_CHUNK)
    yield Buffer.from(`${at === 0 ? "" : between}${serialize(items.slice(at, at + HEADER_CHUNK))}`);
}

/** How many names are serialized at once. */
const HEADER_CHUNK = 4096;

/** The columns after the header (padded to 8 bytes), each array as it is, never copied into one buffer. */
function columnPieces(state: BuildState, headerLength: number): Buffer[] {
  const before = MAGIC.length + LENGTH_DIGITS + 1 + headerLength;
  const padding = Buffer.alloc((8 - (before % 8)) % 8);
  const columns = state.hosts.map((host) => {
    const c = state.packages[host]!.columns;
    return Buffer.from(c.buffer, c.byteOffset, c.byteLength);
  });
  // The site index's columns follow the hosts' (site/siteIndex.ts).
  const site = state.site ? siteColumns(state.site) : [];
  return [padding, ...columns, ...site.map((c) => Buffer.from(c.buffer, c.byteOffset, c.byteLength))];
}

export function parseState(bytes: Buffer): BuildState | undefined {
  return parseStateFrom({
    size: bytes.length,
    read: (into, at) => {
      if (at + into.length > bytes.length) return false;
      into.set(bytes.subarray(at, at + into.length));
      return true;
    },
  });
}

/** Where a state is read from: its size, and its bytes at an offset (false when the state is shorter). */
export interface StateSource {
  size: number;
  read(into: Uint8Array, at: number): boolean;
}

/**
 * The state from its source, a part at a time: the first line, the header, then each array of
 * columns read straight into its own Float64Array (never the whole file in one buffer beside them).
 */
function parseStateFrom(source: StateSource): BuildState | undefined {
  const first = new Uint8Array(Math.min(source.size, MAGIC.length + LENGTH_DIGITS + 1));
  if (!source.read(first, 0)) return undefined;
  const line = Buffer.from(first.buffer, first.byteOffset, first.byteLength);
  if (line.toString("latin1", 0, MAGIC.length) !== MAGIC) return undefined;
  const lineEnd = line.indexOf(0x0a, MAGIC.length);
  if (lineEnd < 0) return undefined;
  const length = Number(line.toString("latin1", MAGIC.length, lineEnd));
  // A length the file cannot hold is no state (never a buffer of it).
  if (!Number.isSafeInteger(length) || lineEnd + 1 + length > source.size) return undefined;
  const headerBytes = Buffer.alloc(length);
  if (!source.read(headerBytes, lineEnd + 1)) return undefined;
  const header = JSON.parse(headerBytes.toString("utf8")) as Header;
  let at = lineEnd + 1 + length;
  at += (8 - (at % 8)) % 8;
  const packages: Record<string, HostState> = {};
  for (const { host, names, values, orphans, count } of header.packages) {
    // A Float64Array of its own, read into as bytes: aligned, and no copy of the file beside it.
    const columns = new Float64Array(count * COLUMNS);
    if (!source.read(new Uint8Array(columns.buffer), at)) return undefined;
    packages[host] = { names: count === 0 ? [] : names.split("\n"), columns, values, orphans };
    at += columns.byteLength;
  }
  const { site: siteHead, ...rest } = header;
  if (!siteHead) return at === source.size ? { ...rest, packages } : undefined;
  const site = parseSiteIndex(siteHead, source, at);
  return site?.at === source.size ? { ...rest, packages, site: site.index } : undefined;
}

/** The state in `home`, if it exists and parses (its key says whether a build can use it); anything else is no state. */
export function readState(home: string): BuildState | undefined {
  try {
    const fd = openSync(join(home, STATE_FILE), "r");
    try {
      const size = fstatSync(fd).size;
      return parseStateFrom({
        size,
        read: (into, at) => {
          if (at + into.length > size) return false;
          for (let done = 0; done < into.length;) {
            const read = readSync(fd, into, done, into.length - done, at + done);
            if (read === 0) return false;
            done += read;
          }
          return true;
        },
      });
    } finally {
      closeSync(fd);
    }
  } catch {
    // Any state that cannot be read is no state: the build is a full one, which is always right.
    return undefined;
  }
}

export function writeState(home: string, state: BuildState): void {
  const temp = join(home, `${STATE_FILE}.${process.pid}`);
  // Piece by piece, the header's length written over its place once it is known.
  const fd = openSync(temp, "w");
  try {
    let at = writeAll(fd, statePrefix(0), 0);
    for (const piece of headerPieces(state)) at = writeAll(fd, piece, at);
    const length = at - statePrefix(0).length;
    for (const piece of columnPieces(state, length)) at = writeAll(fd, piece, at);
    writeAll(fd, statePrefix(length), 0);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, join(home, STATE_FILE));
}

/** Writes all of `bytes` at `at`; returns where they end. */
function writeAll(fd: number, bytes: Uint8Array, at: number): number {
  for (let done = 0; done < bytes.length;) done += writeSync(fd, bytes, done, bytes.length - done, at + done);
  return at + bytes.length;
}

/** Called before a build changes a slot: if it is killed, the next build will not trust a stale state. */
export function forgetState(home: string): void {
  rmSync(join(home, STATE_FILE), { force: true });
}

/** Every file of the running shopfront's own code, so an edited build of the tool never reuses old output. */
function codeFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((f) => /\.(js|ts)$/.test(f) && statSync(join(dir, f)).isFile())
    .sort();
}

/** A hash of a tool version, its schema texts and its code files (pure, for tests). */
export function computeToolKey(
  version: string,
  schemas: Iterable<readonly [string, string]>,
  code: Iterable<readonly [string, Uint8Array]>,
): string {
  const hash = createHash("sha256").update(version);
  for (const [name, text] of schemas) hash.update(`\0schema\0${name}\0${text}`);
  for (const [file, bytes] of code) hash.update(`\0code\0${file}\0`).update(bytes);
  return hash.digest("hex");
}

let toolHash: string | undefined;

/** The key of the running shopfront: its version, its schemas and its code. */
export function toolKey(): string {
  if (toolHash === undefined) {
    const dir = fileURLToPath(new URL("..", import.meta.url));
    toolHash = computeToolKey(
      VERSION,
      schemaTexts(),
      codeFiles(dir).map((file) => [file, readFileSync(join(dir, file))] as const),
    );
  }
  return toolHash;
}

/**
 * The key of a build: the tool, the catalogue folder and whether it writes the browse site, with the
 * site's stylesheet and script (files of the tool that are not code). Not the targets: the state
 * names them, and a rebuild writes the files of new ones and removes those of the gone.
 */
export function buildKey(catalogueDir: string, site: boolean, baseUrl?: string | undefined): string {
  const assets = site ? siteAssets().map((f) => f.content) : false;
  // A base URL is in every v3/v4 object: another one takes a full build. None keeps the key it had.
  const parts: unknown[] = [toolKey(), resolve(catalogueDir), assets];
  if (baseUrl !== undefined) parts.push(baseUrl);
  return createHash("sha256").update(JSON.stringify(parts)).digest("hex");
}
