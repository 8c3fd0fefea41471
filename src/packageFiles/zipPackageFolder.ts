// A package kept as a folder (catalogue/<host>/<name>/ holding the SD card tree) is published as a
// zip that is the same bytes on every machine with the same zlib: entries in code-point order of
// their full path, file entries only (libreshop-client's extractor and the Wii's libfat open every
// entry as a file, and stop at a folder entry such as `apps/`; every extractor creates a file's
// folders from its path), the DOS epoch as every time, a fixed Unix mode, deflate at level 9 with a
// fixed memory level, no extra fields, no comments. Names are written in Unicode NFC, so that a file
// name macOS hands over decomposed (NFD) gives the same entry. fflate writes the container; the files
// are deflated by Node's zlib, on its own threads and some three times as fast as fflate's JavaScript
// (docs/speed.md), so the bytes are the same for one zlib build (ZIP_WRITER: its version and the CPU
// architecture), not on every Node: a package's content digest includes ZIP_WRITER, so a build by
// another zlib zips its folders again.
import { createHash, type Hash } from "node:crypto";
import { once } from "node:events";
import { mkdir, open, readdir, rename, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import * as zlib from "node:zlib";
import { Zip, type AsyncFlateStreamHandler, type ZipInputFile } from "fflate";
import { isError } from "../catalogue/problems.js";
import { packageFinding, type PackageFinding, type ZipEntryInfo } from "./checkZipEntries.js";
import { crc32 } from "./crc32.js";
import { outputChunk, readInChunks } from "./readInChunks.js";

/** One file of a package folder: a `/`-separated path relative to it. */
export interface FolderEntry {
  path: string;
}

/** The settings that make the archive reproducible (documented in docs/catalogue.md). */
export const ZIP_SETTINGS = {
  /** 1980-01-01 00:00:00, the DOS epoch, in every entry. */
  mtime: { year: 1980, month: 1, day: 1 },
  fileMode: 0o100644,
  level: 9,
  mem: 8,
} as const;

/** What writes a folder's archive: the same folder gives the same bytes while this is the same. */
export const ZIP_WRITER = `zlib ${process.versions.zlib} ${process.arch}`;

const UNIX = 3;

/** Code-point order (UTF-8 byte order), not UTF-16 code-unit order. */
export function compareCodePoints(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
}

/**
 * Lists a package folder's files, sorted for the archive. Hidden entries (`.DS_Store`, `.gitkeep`) are
 * left out, as everywhere in the catalogue; a symbolic link is a problem, never followed; an empty
 * folder is a warning (the archive, files only, cannot hold it).
 */
export async function listPackageFolder(dir: string): Promise<{ entries: FolderEntry[]; findings: PackageFinding[] }> {
  const entries: FolderEntry[] = [];
  const findings: PackageFinding[] = [];
  /** Walks the folder `rel` (ending in `/`, or "" for the root); true when it holds anything. */
  const walk = async (rel: string): Promise<boolean> => {
    let children;
    try {
      children = await readdir(join(dir, rel), { withFileTypes: true });
    } catch (error) {
      findings.push(packageFinding("UNREADABLE", `${rel || "."} cannot be listed (${(error as Error).message})`, rel));
      return true;
    }
    let holds = false;
    for (const child of children) {
      if (child.name.startsWith(".")) continue;
      const path = `${rel}${child.name}`;
      holds = true;
      if (child.isSymbolicLink()) {
        findings.push(
          packageFinding("SYMLINK", `${path} is a symbolic link (not followed: it could point outside)`, path),
        );
      } else if (child.isDirectory()) {
        if (!(await walk(`${path}/`))) {
          findings.push(
            packageFinding(
              "EMPTY_FOLDER",
              `${path}/ is empty and left out of the archive, which holds files only (libreshop-client and the Wii's libfat open every entry as a file): put a file in it if the app needs the folder`,
              `${path}/`,
              "warning",
            ),
          );
        }
      } else if (child.isFile()) {
        entries.push({ path });
      } else {
        findings.push(packageFinding("UNREADABLE", `${path} is neither a file nor a folder`, path));
      }
    }
    return holds;
  };
  await walk("");
  entries.sort((a, b) => compareCodePoints(entryName(a), entryName(b)));
  return { entries, findings };
}

/** The entry's name in the archive. */
export function entryName(entry: FolderEntry): string {
  return entry.path.normalize("NFC");
}

function fixedEntry<T extends ZipInputFile>(file: T): T {
  const { year, month, day } = ZIP_SETTINGS.mtime;
  // fflate writes the DOS time from the Date's local fields; a local midnight is that on every machine.
  file.mtime = new Date(year, month - 1, day);
  file.os = UNIX;
  file.attrs = (ZIP_SETTINGS.fileMode << 16) >>> 0;
  return file;
}

/** A file entry whose deflated bytes come from Node's zlib, in fflate's container. */
class NativeDeflate implements ZipInputFile {
  size = 0;
  crc = 0;
  compression = 8;
  /** The general purpose flag's bits 1 and 2 as fflate writes them for level 9 ("maximum"). */
  flag = 1;
  ondata?: AsyncFlateStreamHandler;
  constructor(public filename: string) {}
}

/**
 * A digest of a package folder's content: each listed file's name, size and bytes, and the zip
 * writer, so that the same digest means the same archive. Fed as the folder is read for its zip, or
 * read for it alone (digestPackageFolder).
 */
export class FolderDigest {
  private readonly hash: Hash = createHash("sha256").update(ZIP_WRITER);
  entry(entry: FolderEntry, size: number): void {
    this.hash.update(`\0file\0${entryName(entry)}\0${size}\0`);
  }
  update(bytes: Uint8Array): void {
    this.hash.update(bytes);
  }
  digest(): string {
    return `folder:${this.hash.digest("hex")}`;
  }
}

/**
 * Reads a file a chunk at a time (readInChunks), each handed to `each` after `start` was told its
 * size; the file must keep its size while it is read.
 */
async function readChunks(
  path: string,
  label: string,
  start: (size: number) => void,
  each: (chunk: Buffer) => boolean | Promise<boolean>,
): Promise<void> {
  const handle = await open(path, "r");
  try {
    const { size } = await handle.stat();
    start(size);
    await readInChunks(handle, 0, size, each, () => new Error(`${label} shrank while it was read`));
  } finally {
    await handle.close();
  }
}

/** Told an entry's name as stored and its size as it is read; what it returns sees each of its chunks. */
export type EntryWatch = (name: string, size: number) => ((chunk: Buffer) => void) | undefined;

/**
 * Writes the folder's listed entries as a zip through `write`, one chunk at a time: memory holds a
 * few chunks of one file, never the archive. `digest`, when given, is fed the folder's content as it
 * is read, and `watch` each entry's bytes. Returns the central directory as written.
 */
export async function writeFolderZip(
  dir: string,
  entries: readonly FolderEntry[],
  write: (chunk: Uint8Array) => Promise<void>,
  digest?: FolderDigest,
  watch?: EntryWatch,
): Promise<ZipEntryInfo[]> {
  const written: ZipEntryInfo[] = [];
  const pending: Uint8Array[] = [];
  let failure: Error | null = null;
  const zip = new Zip((error, data) => {
    if (error) failure = error;
    else pending.push(data);
  });
  const flush = async (): Promise<void> => {
    if (failure) throw failure;
    while (pending.length > 0) await write(pending.shift()!);
  };
  for (const entry of entries) {
    const file = fixedEntry(new NativeDeflate(entryName(entry)));
    zip.add(file);
    let compressedSize = 0;
    let seen: ((chunk: Buffer) => void) | undefined;
    const deflated: Buffer[] = [];
    let deflate: zlib.DeflateRaw | undefined;
    let ended: Promise<unknown> | undefined;
    // One at a time, in order: the archive is written at its end.
    let emitted = Promise.resolve();
    let failed: { error: unknown } | undefined;
    const emit = (): Promise<void> =>
      (emitted = emitted.then(async () => {
        for (const chunk of deflated.splice(0)) file.ondata!(null, chunk as Uint8Array<ArrayBuffer>, false);
        await flush();
      }));
    try {
      await readChunks(
        join(dir, entry.path),
        entry.path,
        (size) => {
          digest?.entry(entry, size);
          seen = watch?.(file.filename, size);
          // Made once the size is known: zlib's output buffers are no larger than the file
          // (deflate adds a few bytes a block to what it cannot shrink), not a chunk each for an icon.
          deflate = zlib.createDeflateRaw({
            level: ZIP_SETTINGS.level,
            memLevel: ZIP_SETTINGS.mem,
            chunkSize: outputChunk(size + 1024),
          });
          deflate.on("data", (chunk: Buffer) => {
            compressedSize += chunk.length;
            deflated.push(chunk);
          });
          ended = once(deflate, "end");
        },
        (chunk) => {
          digest?.update(chunk);
          seen?.(chunk);
          file.crc = crc32(chunk, file.crc);
          file.size += chunk.length;
          // The chunk is read over once zlib has taken it in (the write's callback). The promise
          // never rejects: a failure to write the archive stops the reads and is thrown below.
          const taken = new Promise<boolean>((resolve) => deflate!.write(chunk, (error) => resolve(!error)));
          return taken
            .then(async (ok) => {
              await emit();
              return ok;
            })
            .catch((error: unknown) => {
              failed ??= { error };
              return false;
            });
        },
      );
      if (failed) throw failed.error;
    } catch (error) {
      deflate?.destroy();
      throw error;
    }
    deflate!.end();
    await ended;
    await emit();
    file.ondata!(null, new Uint8Array(0), true);
    await flush();
    written.push({
      name: file.filename,
      compressedSize,
      uncompressedSize: file.size,
      compressionMethod: file.compression,
      encrypted: false,
      unixMode: ZIP_SETTINGS.fileMode,
    });
  }
  zip.end();
  await flush();
  return written;
}

/** The archive's hashes, taken as it was written. */
export interface ZipHashes {
  md5: string;
  sha256: string;
}

/** The archive a folder was zipped into, as it was written: its size, hashes and central directory. */
export interface ZippedFolder {
  size: number;
  hashes: ZipHashes;
  entries: ZipEntryInfo[];
}

/**
 * Zips the package folder `dir` into `outPath` (written beside it as a temporary file, then renamed).
 * Writes nothing when the folder has an error; warnings are returned beside the archive. Each file
 * is read once: as it is deflated, the folder's content digest (FolderDigest) is taken, and as the
 * archive is written, its hashes.
 */
export async function zipPackageFolder(
  dir: string,
  outPath: string,
  options: { watch?: (names: readonly string[]) => EntryWatch } = {},
): Promise<{ findings: PackageFinding[]; digest?: string; zip?: ZippedFolder }> {
  const { entries, findings } = await listPackageFolder(dir);
  if (findings.some(isError)) return { findings };
  const watch = options.watch?.(entries.map(entryName));
  let size = 0;
  await mkdir(dirname(outPath), { recursive: true });
  const temporary = `${outPath}.${process.pid}.tmp`;
  const handle = await open(temporary, "w");
  const digest = new FolderDigest();
  const md5 = createHash("md5");
  const sha256 = createHash("sha256");
  let written: ZipEntryInfo[];
  try {
    written = await writeFolderZip(
      dir,
      entries,
      async (chunk) => {
        md5.update(chunk);
        sha256.update(chunk);
        size += chunk.length;
        let done = 0;
        while (done < chunk.length) done += (await handle.write(chunk, done)).bytesWritten;
      },
      digest,
      watch,
    );
    await handle.close();
    await rename(temporary, outPath);
  } catch (error) {
    await handle.close().catch(() => undefined);
    await rm(temporary, { force: true });
    throw error;
  }
  const hashes = { md5: md5.digest("hex"), sha256: sha256.digest("hex") };
  return { findings, digest: digest.digest(), zip: { size, hashes, entries: written } };
}

/**
 * The content digest of the package folder `dir` (what zipPackageFolder takes as it zips it), read
 * without zipping; undefined when the folder has a problem, which only zipping reports.
 */
export async function digestPackageFolder(dir: string): Promise<string | undefined> {
  const { entries, findings } = await listPackageFolder(dir);
  if (findings.some(isError)) return undefined;
  const digest = new FolderDigest();
  for (const entry of entries)
    await readChunks(
      join(dir, entry.path),
      entry.path,
      (size) => digest.entry(entry, size),
      (chunk) => {
        digest.update(chunk);
        return true;
      },
    );
  return digest.digest();
}
