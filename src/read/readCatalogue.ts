// The catalogue's I/O: what is in the folders, and the bytes of one file. Everything it finds is
// reported as plain data; deciding what is wrong with it is validateCatalogue's job.
import { closeSync, fstatSync, opendirSync, openSync, readSync, statSync, type Dirent } from "node:fs";
import { join } from "node:path";
import { UsageError } from "../util/errors.js";
import { digestOf, signatureOf, withDigest, type Signature } from "./signature.js";
import { STATS_FOLDER } from "../catalogue/statsFile.js";

export type EntryKind = "file" | "directory" | "symlink" | "other";

export interface Entry {
  name: string;
  kind: EntryKind;
}

export interface CatalogueListing {
  /** Entries of the catalogue folder, hidden ones (`.git`, `.DS_Store`) left out. */
  root: readonly Entry[];
  /** For every folder of the root: its entries, or why they could not be listed. */
  folders: ReadonlyMap<string, readonly Entry[] | { error: string }>;
  /**
   * The signature of each folder taken just before it was listed: the catalogue folder's under "",
   * each listed folder's under its name. A folder that keeps its signature kept its entries.
   */
  signatures: ReadonlyMap<string, Signature>;
}

function kindOf(entry: Dirent): EntryKind {
  if (entry.isSymbolicLink()) return "symlink";
  if (entry.isFile()) return "file";
  if (entry.isDirectory()) return "directory";
  return "other";
}

function listFolder(dir: string): Entry[] {
  // Read a batch at a time, never as one array of every Dirent: a host folder may list a million manifests.
  const entries: Entry[] = [];
  const folder = opendirSync(dir, { bufferSize: LISTING_BATCH });
  try {
    for (let e = folder.readSync(); e !== null; e = folder.readSync())
      if (!e.name.startsWith(".")) entries.push({ name: e.name, kind: kindOf(e) });
  } finally {
    folder.closeSync();
  }
  return entries;
}

/** How many entries each read of a folder asks the system for. */
const LISTING_BATCH = 1024;

/** Lists the catalogue folder and each folder in it. Throws a UsageError only when `dir` itself cannot be listed. */
export function listCatalogue(dir: string): CatalogueListing {
  let signatures: Map<string, Signature>;
  let root: Entry[];
  try {
    signatures = new Map([["", signatureOf(statSync(dir))]]);
    root = listFolder(dir);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why =
      code === "ENOENT" ? "there is no such folder" : code === "ENOTDIR" ? "it is not a folder" : (e as Error).message;
    throw new UsageError(`cannot read the catalogue ${dir}: ${why}`);
  }
  const folders = new Map<string, Entry[] | { error: string }>();
  for (const entry of root) {
    if (entry.kind !== "directory") continue;
    try {
      const path = join(dir, entry.name);
      signatures.set(entry.name, signatureOf(statSync(path)));
      folders.set(entry.name, listFolder(path));
    } catch (e) {
      folders.set(entry.name, { error: (e as Error).message });
    }
  }
  return { root, folders, signatures };
}

/** The folders whose signatures a build keeps: the catalogue's (""), each host's, and the stats folder when there is one. */
export function listedFolders(hosts: readonly string[], stats: boolean): string[] {
  return ["", ...hosts, ...(stats ? [STATS_FOLDER] : [])];
}

/** The signatures of listedFolders, as listed; null when one was not taken. */
export function folderSignatures(listing: CatalogueListing, hosts: readonly string[]): Signature[] | null {
  const stats = listing.root.some((e) => e.name === STATS_FOLDER && e.kind === "directory");
  const signatures = listedFolders(hosts, stats).map((folder) => listing.signatures.get(folder));
  return signatures.every((s) => s !== undefined) ? (signatures as Signature[]) : null;
}

/** A source file's bytes (or why there are none), and its signature for the next build's comparison. */
export type SourceBytes = ({ bytes: Uint8Array } | { tooLarge: number } | { error: string }) & {
  signature?: Signature;
};

/**
 * A file's bytes, unless it is larger than `maxBytes` (then only its size is returned, so a 50 MB
 * file never reaches memory) or cannot be read.
 */
export function readSourceFile(path: string, maxBytes: number): SourceBytes {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch (e) {
    return { error: (e as Error).message };
  }
  try {
    const signature = signatureOf(fstatSync(fd));
    const size = signature.size;
    if (size > maxBytes) return { tooLarge: size, signature };
    const bytes = Buffer.allocUnsafe(size);
    let read = 0;
    while (read < size) {
      const n = readSync(fd, bytes, read, size - read, read);
      if (n === 0) break;
      read += n;
    }
    const held = bytes.subarray(0, read);
    return { bytes: held, signature: withDigest(signature, digestOf(held)) };
  } catch (e) {
    return { error: (e as Error).message };
  } finally {
    closeSync(fd);
  }
}
