// One side of a diff as clients see it: every served file's size and SHA-256 (the signed file index,
// docs/trust.md), each host's apps as the v1 API lists them, and which apps the Homebrew Browser's
// list holds. Read through a reader of URL paths, so that a built folder and a deployment's base URL
// are read alike, and only the index and a few lists are read: never every file.
//
// A deployment is not trusted (docs/reviewing.md): every body is read up to a cap (entry.json and its
// signature up to the index's limits, a shard up to the size the entry gives, a list up to the size
// the index gives), through the bounded GET every reader shares (util/fetchBounded.ts); with a key,
// nothing the entry names is read before its signature holds; a list is read only when the index
// names it, and believed only when its bytes are the ones the index names.
import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { isValidName } from "../catalogue/names.js";
import type { Problem } from "../catalogue/problems.js";
import { hbbFolderOf } from "../render/renderHbb.js";
import { BINARY_NAMES, packageFilePaths } from "../routes/packageFileLayout.js";
import { FILE_INDEX } from "../routes/routeTable.js";
import {
  INDEX_LIMITS,
  parseEntry,
  parseShard,
  sha256Hex,
  signaturePathOf,
  type IndexedFile,
} from "../trust/fileIndex.js";
import { keyIdHex, verifyMinisign, type PublicKey } from "../trust/minisign.js";
import { FailureError, isSystemError } from "../util/errors.js";
import { fetchBounded } from "../util/fetchBounded.js";

/**
 * The bytes served at a URL path (from `/`), read up to `cap` bytes, or undefined when nothing is
 * there; a body longer than `cap`, or one that cannot be read, is a FailureError naming it.
 */
export type PathReader = (path: string, cap: number) => Promise<Uint8Array | undefined>;

/**
 * The most of a list (`/v1/hosts`, a host's v1 list, its Homebrew Browser list) diff reads, whatever
 * size an index gives: a v1 list of 100,000 packages is about 40 MB.
 */
export const LIST_BYTES = 128 * 1024 * 1024;

/** A package's stored files, by what they are. */
export type PackageFileKind = "archive" | "icon" | "binary" | "meta";
export const PACKAGE_FILE_KINDS: readonly PackageFileKind[] = ["archive", "icon", "binary", "meta"];

/**
 * An app as one host lists it: the v1 API's object, its v4 object (`/api/v4/contents`, which v3 is
 * made from), its Homebrew Browser list entry, and its package files as the index lists them.
 */
export interface AppRecord {
  name: string;
  fields: Record<string, unknown>;
  /** Undefined when the side serves no v4 contents for the host. */
  today?: Record<string, unknown>;
  /** Its entry's lines in the Homebrew Browser's list (a token line, then six text lines); undefined when not listed. */
  hbbEntry?: string;
  files: Partial<Record<PackageFileKind, IndexedFile>>;
}

export interface HostSnapshot {
  id: string;
  apps: Map<string, AppRecord>;
  /** The names the Homebrew Browser's list of the host holds. */
  hbbListed: Set<string>;
  /** The slug of the v4/v3 featured app; null when the host has none (404). */
  featured?: string | null;
}

export interface Snapshot {
  /** Every served file by its URL path. */
  files: Map<string, IndexedFile>;
  /** The index's revision and when it was built. */
  revision: number;
  built: string;
  /** The key whose signature of entry.json held, when one was given (its id, hex). */
  signedBy?: string;
  defaultHost: string | undefined;
  hosts: Map<string, HostSnapshot>;
  /** The build's problems: a git revision's, which diff built, or a built folder's, which its state keeps. */
  problems?: Problem[];
}

/** Reads a built folder: a URL path is the file at that path below it. */
export function folderReader(dir: string): PathReader {
  return async (path, cap) => {
    const file = join(dir, path);
    try {
      if ((await stat(file)).size > cap) throw new FailureError(`${file}: longer than ${cap} bytes (not read)`);
      return await readFile(file);
    } catch (error) {
      if (isSystemError(error) && (error.code === "ENOENT" || error.code === "ENOTDIR")) return undefined;
      throw error;
    }
  };
}

/**
 * Reads a deployment: a URL path is fetched from the base URL (its trailing slash dropped), each body
 * up to its cap, redirects followed within the base URL's origin only.
 */
export function urlReader(base: string): PathReader {
  const root = base.replace(/\/+$/, "");
  const origin = new URL(base);
  return async (path, cap) => {
    const url = `${root}${path}`;
    const got = await fetchBounded(url, { origin, cap });
    if ("body" in got) return new Uint8Array(got.body.buffer, got.body.byteOffset, got.body.byteLength);
    if (got.status === 404 || got.status === 410) return undefined;
    throw new FailureError(`${url}: ${got.problem}`);
  };
}

const utf8 = new TextDecoder("utf-8");

function parseJson(bytes: Uint8Array, where: string): unknown {
  try {
    return JSON.parse(utf8.decode(bytes)) as unknown;
  } catch {
    throw new FailureError(`${where} is not JSON`);
  }
}

/** What a side is read with: the key its entry must be signed by, and the time its expiry is held to. */
export interface TrustOptions {
  key?: PublicKey;
  now?: number;
}

/**
 * entry.json's signature by `key`, found by the entry's digest, else beside it: the key's id when it
 * holds, else a FailureError (nothing the entry names is read).
 */
async function checkSignature(read: PathReader, label: string, bytes: Uint8Array, key: PublicKey): Promise<string> {
  let name = signaturePathOf(bytes);
  let signature = await read(`/${name}`, INDEX_LIMITS.signatureBytes);
  if (signature === undefined) {
    name = FILE_INDEX.signature;
    signature = await read(`/${name}`, INDEX_LIMITS.signatureBytes);
  }
  const stop = "so nothing the entry names was read";
  if (signature === undefined)
    throw new FailureError(`${label}/${FILE_INDEX.entry} is unsigned (no ${FILE_INDEX.signature}), ${stop}`);
  const checked = verifyMinisign(bytes, Buffer.from(signature).toString("latin1"), key);
  if (!checked.ok) throw new FailureError(`${label}/${name}: ${checked.reason}: the signature does not hold, ${stop}`);
  return keyIdHex(key.keyId);
}

/**
 * The served files, from entry.json (its signature checked first when a key is given) and its
 * shards, each shard read up to the size the entry gives and checked against its digest.
 */
async function readIndex(
  read: PathReader,
  label: string,
  trust: TrustOptions,
): Promise<Pick<Snapshot, "files" | "revision" | "built" | "signedBy">> {
  const bytes = await read(`/${FILE_INDEX.entry}`, INDEX_LIMITS.entryBytes);
  if (!bytes)
    throw new FailureError(
      `${label} has no file index (/${FILE_INDEX.entry}): it is not a build of shopfront 0.1 or later`,
    );
  const signedBy = trust.key ? await checkSignature(read, label, bytes, trust.key) : undefined;
  const entry = parseEntry(utf8.decode(bytes));
  if (typeof entry === "string") throw new FailureError(`${label}/${FILE_INDEX.entry}: ${entry}`);
  if (trust.key && entry.expires !== undefined && Date.parse(entry.expires) <= (trust.now ?? Date.now()))
    throw new FailureError(
      `${label}/${FILE_INDEX.entry} expired at ${entry.expires}: a copy frozen on an old index, or one replayed`,
    );
  const files = new Map<string, IndexedFile>();
  for (const shard of entry.shards) {
    const shardBytes = await read(`/${shard.path}`, shard.size);
    if (!shardBytes || shardBytes.byteLength !== shard.size || sha256Hex(shardBytes) !== shard.sha256)
      throw new FailureError(`${label}/${shard.path} is missing or is not the shard ${FILE_INDEX.entry} names`);
    const listed = parseShard(utf8.decode(shardBytes));
    if (typeof listed === "string") throw new FailureError(`${label}/${shard.path}: ${listed}`);
    for (const file of listed) files.set(file.path, file);
  }
  return { files, revision: entry.revision, built: entry.built, ...(signedBy ? { signedBy } : {}) };
}

/**
 * A list the index names, read up to the size it gives and believed only when its bytes are the ones
 * it names; undefined when the index names none at that path (nothing is read).
 */
async function readListed(
  read: PathReader,
  label: string,
  files: ReadonlyMap<string, IndexedFile>,
  path: string,
): Promise<Uint8Array | undefined> {
  const file = files.get(path);
  if (file === undefined) return undefined;
  if (file.size > LIST_BYTES)
    throw new FailureError(
      `${label}${path}: the index gives ${file.size} bytes, more than diff reads of a list (${LIST_BYTES})`,
    );
  const bytes = await read(path, file.size);
  if (bytes === undefined) throw new FailureError(`${label}${path} is missing, though the index names it`);
  if (bytes.byteLength !== file.size || sha256Hex(bytes) !== file.sha256)
    throw new FailureError(`${label}${path}: its bytes are not the ones the index names`);
  return bytes;
}

/**
 * The Homebrew Browser list's entries by name: after the header, a token line (name first) then six
 * text lines per app; footers are `=Category=`.
 */
export function hbbListEntries(text: string): Map<string, string> {
  const lines = text.split(/\r?\n/);
  const entries = new Map<string, string>();
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (line === "" || /^=[^=]+=$/.test(line)) continue;
    entries.set(line.split(" ", 1)[0]!, lines.slice(i, i + 7).join("\n"));
    i += 6;
  }
  return entries;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * A side's snapshot: its index, then `/v1/hosts`, each host's `/v1/<host>/packages` and Homebrew
 * Browser list, each as the index names it. The default host is the one whose files are not under `/hosts/<host>/`.
 */
export async function readSnapshot(read: PathReader, label: string, trust: TrustOptions = {}): Promise<Snapshot> {
  const index = await readIndex(read, label, trust);
  const listed = (path: string) => readListed(read, label, index.files, path);
  const hostsBytes = await listed("/v1/hosts");
  if (!hostsBytes) throw new FailureError(`${label} serves no /v1/hosts: it is not a shopfront build`);
  const hostsValue = parseJson(hostsBytes, `${label}/v1/hosts`);
  const ids = isRecord(hostsValue) && Array.isArray(hostsValue.repos) ? hostsValue.repos : undefined;
  // A name goes into paths read next: one the name rule refuses is not a shopfront build's.
  if (!ids?.every((id): id is string => typeof id === "string" && isValidName(id)))
    throw new FailureError(`${label}/v1/hosts has no list of valid host ids (repos)`);
  const defaultHost = ids.find((id) => !index.files.has(`/hosts/${id}/api/v4/contents`));
  const hosts = new Map<string, HostSnapshot>();
  for (const id of ids) {
    const prefix = id === defaultHost ? "" : `/hosts/${id}`;
    const today = await readToday(listed, label, prefix);
    const listBytes = await listed(`/v1/${id}/packages`);
    const list = listBytes ? parseJson(listBytes, `${label}/v1/${id}/packages`) : [];
    if (!Array.isArray(list)) throw new FailureError(`${label}/v1/${id}/packages is not a list`);
    const apps = new Map<string, AppRecord>();
    for (const fields of list) {
      if (!isRecord(fields) || typeof fields.internal_name !== "string" || !isValidName(fields.internal_name))
        throw new FailureError(`${label}/v1/${id}/packages holds an entry without a valid internal_name`);
      const name = fields.internal_name;
      apps.set(name, {
        name,
        fields,
        ...(today.contents?.has(name) ? { today: today.contents.get(name)! } : {}),
        files: defaultHost ? packageFilesOf(index.files, id, defaultHost, name) : {},
      });
    }
    const hbb = await listed(hbbFolderOf(id, defaultHost ?? id).list);
    const entries = hbb ? hbbListEntries(utf8.decode(hbb)) : new Map<string, string>();
    for (const [name, entry] of entries) {
      const app = apps.get(name);
      if (app) app.hbbEntry = entry;
    }
    hosts.set(id, {
      id,
      apps,
      hbbListed: new Set(entries.keys()),
      ...(today.featured !== undefined ? { featured: today.featured } : {}),
    });
  }
  return { ...index, defaultHost, hosts };
}

/**
 * A host's v4 contents by slug and its featured app's slug (null when it has none), each undefined
 * when the side does not serve the file at all (a build without today's API).
 */
async function readToday(
  read: (path: string) => Promise<Uint8Array | undefined>,
  label: string,
  prefix: string,
): Promise<{ contents?: Map<string, Record<string, unknown>>; featured?: string | null }> {
  const contentsBytes = await read(`${prefix}/api/v4/contents`);
  const result: { contents?: Map<string, Record<string, unknown>>; featured?: string | null } = {};
  if (contentsBytes) {
    const list = parseJson(contentsBytes, `${label}${prefix}/api/v4/contents`);
    if (!Array.isArray(list)) throw new FailureError(`${label}${prefix}/api/v4/contents is not a list`);
    result.contents = new Map(
      list.filter(isRecord).flatMap((app) => (typeof app.slug === "string" ? [[app.slug, app] as const] : [])),
    );
    const featuredBytes = await read(`${prefix}/api/v4/featured-app`);
    const featured = featuredBytes ? parseJson(featuredBytes, `${label}${prefix}/api/v4/featured-app`) : undefined;
    result.featured = isRecord(featured) && typeof featured.slug === "string" ? featured.slug : null;
  }
  return result;
}

function packageFilesOf(
  files: ReadonlyMap<string, IndexedFile>,
  host: string,
  defaultHost: string,
  name: string,
): AppRecord["files"] {
  const found: AppRecord["files"] = {};
  for (const binary of BINARY_NAMES) {
    const paths = packageFilePaths(host, defaultHost, name, binary);
    for (const kind of PACKAGE_FILE_KINDS) {
      const file = files.get(`/${paths[kind]}`);
      if (file) found[kind] = file;
    }
  }
  return found;
}
