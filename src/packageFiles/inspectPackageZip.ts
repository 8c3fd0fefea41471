// Over 300 lines: one pass over a hostile archive, each check beside the entry state it reads.
// Reads a package archive as hostile input and derives what the Open Shop Channel derives from it.
// yauzl reads the central directory lazily from the file (random access: the archive is never held
// in memory); every entry is checked on what it declares (checkZipEntries), then each safe entry is
// unpacked once (its stored bytes read at their offset a large chunk at a time: readInChunks.ts),
// counted against its declared size, and the parts the package needs are kept: the binary's hashes,
// meta.xml's bytes, the icon's first bytes.
import { createHash } from "node:crypto";
import { mkdir, open, stat, type FileHandle } from "node:fs/promises";
import { join } from "node:path";
import { createInflateRaw } from "node:zlib";
import yauzl from "yauzl";
import { crc32 } from "./crc32.js";
import { checkZipEntries, packageFinding, type PackageFinding, type ZipEntryInfo } from "./checkZipEntries.js";
import { deriveFiles, EntryTap, servedRole, type DerivedFiles, type ServedRole, type Unpacked } from "./deriveFiles.js";
import { outputChunk, readInChunks } from "./readInChunks.js";
import { DEFAULT_ZIP_LIMITS, type ZipLimits } from "./zipLimits.js";

export type { DerivedFiles } from "./deriveFiles.js";

export interface PackageZipReport {
  /** Present when the archive could be read far enough to have a binary. */
  derived?: DerivedFiles;
  findings: PackageFinding[];
}

const LOCAL_HEADER_SIGNATURE = [0x50, 0x4b, 0x03, 0x04];

async function startsLikeZip(path: string): Promise<boolean> {
  const handle = await open(path, "r");
  try {
    const head = Buffer.alloc(4);
    const { bytesRead } = await handle.read(head, 0, 4, 0);
    return bytesRead === 4 && LOCAL_HEADER_SIGNATURE.every((b, i) => head[i] === b);
  } finally {
    await handle.close();
  }
}

/** Sorts yauzl's structural errors: a file cut short reads past its end. */
function structuralFinding(error: Error): PackageFinding {
  if (/EOF|overflows|out of bounds/i.test(error.message)) {
    return packageFinding("ZIP_TRUNCATED", `the archive ends too early (${error.message})`);
  }
  if (/encryption/i.test(error.message)) return packageFinding("ZIP_ENCRYPTED", error.message);
  return packageFinding("ZIP_INVALID", `the archive is damaged (${error.message})`);
}

async function hashFile(path: string): Promise<{ md5: string; sha256: string }> {
  const md5 = createHash("md5");
  const sha256 = createHash("sha256");
  const file = await open(path, "r");
  try {
    const { size } = await file.stat();
    await readInChunks(
      file,
      0,
      size,
      (chunk) => {
        md5.update(chunk);
        sha256.update(chunk);
        return true;
      },
      () => new Error(`${path} shrank while it was hashed`),
    );
  } finally {
    await file.close();
  }
  return { md5: md5.digest("hex"), sha256: sha256.digest("hex") };
}

function readEntries(zipfile: yauzl.ZipFile): Promise<{ entries: yauzl.Entry[]; error?: Error }> {
  return new Promise((resolve) => {
    const entries: yauzl.Entry[] = [];
    zipfile.on("entry", (entry: yauzl.Entry) => {
      entries.push(entry);
      zipfile.readEntry();
    });
    zipfile.on("end", () => resolve({ entries }));
    zipfile.on("error", (error: Error) => resolve({ entries, error }));
    zipfile.readEntry();
  });
}

function entryInfo(entry: yauzl.Entry): ZipEntryInfo {
  return {
    // strictFileNames keeps backslashes, so that checkZipEntries sees the path as stored.
    name: yauzl.getFileNameLowLevel(entry.generalPurposeBitFlag, entry.fileNameRaw, entry.extraFields, true),
    compressedSize: entry.compressedSize,
    uncompressedSize: entry.uncompressedSize,
    compressionMethod: entry.compressionMethod,
    encrypted: (entry.generalPurposeBitFlag & 0x41) !== 0,
    unixMode: entry.externalFileAttributes >>> 16,
  };
}

/**
 * Unpacks one entry, counting its bytes: more than declared stops it at once (ZIP_BOMB), fewer is
 * ZIP_CORRUPT, and so is a CRC-32 other than the declared one. `keep` bytes are kept from its start; `hash` hashes it as it streams.
 */
async function unpackEntry(
  zipfile: yauzl.ZipFile,
  archive: FileHandle,
  entry: yauzl.Entry,
  info: ZipEntryInfo,
  role: ServedRole,
  to: string | undefined,
): Promise<{ unpacked?: Unpacked; finding?: PackageFinding }> {
  let size = 0;
  let crc = 0;
  // The entry as served beside the archive, written as it is checked: an archive with a problem is not stored.
  const tap = new EntryTap(role, to);
  try {
    // An archiver that extracts by the local headers would write another file than the one checked.
    const local = await zipfile.readLocalFileHeaderPromise(entry);
    if (!local.fileName.equals(entry.fileNameRaw) || local.compressionMethod !== entry.compressionMethod) {
      const what = local.fileName.equals(entry.fileNameRaw)
        ? `compression method ${local.compressionMethod}`
        : JSON.stringify(local.fileName.toString("latin1"));
      return {
        finding: packageFinding(
          "ZIP_CORRUPT",
          `${info.name}: its local header says ${what}, unlike the central directory`,
          info.name,
        ),
      };
    }
    let bomb = false;
    await unpackedBytes(archive, local.fileDataStart, entry, (bytes) => {
      size += bytes.length;
      if (size > info.uncompressedSize) {
        bomb = true;
        return false;
      }
      crc = crc32(bytes, crc);
      tap.see(bytes);
      return true;
    });
    if (bomb) {
      return {
        finding: packageFinding(
          "ZIP_BOMB",
          `${info.name} unpacks to more than the ${info.uncompressedSize} bytes it declares`,
          info.name,
        ),
      };
    }
  } catch (error) {
    const f = structuralFinding(error as Error);
    const code = f.code === "ZIP_TRUNCATED" ? f.code : "ZIP_CORRUPT";
    return {
      finding: packageFinding(code, `${info.name} cannot be unpacked (${(error as Error).message})`, info.name),
    };
  } finally {
    tap.close();
  }
  if (size < info.uncompressedSize) {
    return {
      finding: packageFinding(
        "ZIP_CORRUPT",
        `${info.name} unpacks to ${size} bytes, not the ${info.uncompressedSize} it declares`,
        info.name,
      ),
    };
  }
  if (crc !== entry.crc32) {
    const hex = (n: number): string => n.toString(16).padStart(8, "0");
    return {
      finding: packageFinding(
        "ZIP_CORRUPT",
        `${info.name} has the checksum ${hex(crc)}, not the ${hex(entry.crc32)} it declares`,
        info.name,
      ),
    };
  }
  const unpacked = tap.unpacked();
  return { unpacked };
}

/**
 * Hands `take` an entry's bytes, unpacked, a chunk at a time, until it returns false: its stored
 * bytes from `start` (its local header's end) read at their offsets, inflated when deflated.
 * checkZipEntries lets through only methods 0 and 8, unencrypted; yauzl checked that the stored
 * bytes end inside the archive. Throws what inflating throws (a damaged deflate stream, one that
 * ends early).
 */
async function unpackedBytes(
  archive: FileHandle,
  start: number,
  entry: yauzl.Entry,
  take: (bytes: Buffer) => boolean,
): Promise<void> {
  const end = start + entry.compressedSize;
  const early = () => new Error("unexpected end of file");
  if (entry.compressionMethod === 0) return readInChunks(archive, start, end, take, early);
  // Its output buffers are no larger than the entry says it unpacks to (one past it, to see more):
  // CHUNK_BYTES for a 2 kB icon made the collector run every few dozen milliseconds.
  const inflate = createInflateRaw({ chunkSize: outputChunk(entry.uncompressedSize + 1) });
  const inflated = new Promise<void>((resolve, reject) => {
    inflate.on("data", (bytes: Buffer) => {
      // What taking them throws (writing the served copy) ends the entry, as an inflate error does.
      try {
        if (!take(bytes)) inflate.destroy();
      } catch (error) {
        inflate.destroy(error as Error);
      }
    });
    inflate.on("end", resolve);
    inflate.on("close", resolve);
    inflate.on("error", reject);
  });
  const fed = readInChunks(
    archive,
    start,
    end,
    (chunk) =>
      !inflate.destroyed &&
      new Promise<boolean>((resolve) => inflate.write(chunk, (error) => resolve(!error && !inflate.destroyed))),
    early,
  ).then(
    () => inflate.end(),
    (error: unknown) => inflate.destroy(error as Error),
  );
  try {
    await inflated;
  } finally {
    // No read is left running when the archive is closed.
    inflate.destroy();
    await fed;
  }
}

/** How inspectPackageZip reads an archive, beside what it checks it against. */
export interface InspectOptions {
  limits?: ZipLimits | undefined;
  /**
   * A folder that gets the entries served beside the archive as they are checked (the binary as
   * boot.dol or boot.elf, icon.png, meta.xml), so the archive is unpacked once: they are what a build
   * serves only when the report has no error and derives them.
   */
  unpackTo?: string | undefined;
}

/**
 * Checks the archive at `path` as the package `name` and derives its sizes, hashes and meta.xml.
 * Every problem is collected; nothing is thrown for a bad archive (only for an unreadable file).
 */
export async function inspectPackageZip(
  path: string,
  name: string,
  options: InspectOptions = {},
): Promise<PackageZipReport> {
  const { limits = DEFAULT_ZIP_LIMITS, unpackTo } = options;
  const { size: zipSize } = await stat(path);
  if (zipSize === 0) return { findings: [packageFinding("ZIP_INVALID", "the archive is an empty file")] };
  let zipfile: yauzl.ZipFile;
  try {
    zipfile = await yauzl.openPromise(path, {
      lazyEntries: true,
      autoClose: false,
      decodeStrings: false,
      // Sizes are verified here while unpacking (unpackEntry), so that every entry gets its own problem.
      validateEntrySizes: false,
    });
  } catch (error) {
    const message = (error as Error).message;
    if (/signature not found/.test(message) && (await startsLikeZip(path))) {
      return {
        findings: [packageFinding("ZIP_TRUNCATED", "the archive has no end of central directory: it was cut short")],
      };
    }
    if (/signature not found/.test(message)) {
      return { findings: [packageFinding("ZIP_INVALID", "the file is not a zip archive")] };
    }
    return { findings: [structuralFinding(error as Error)] };
  }
  let archive: FileHandle | undefined;
  try {
    if (zipfile.entryCount > limits.maxEntries) {
      const m = `${zipfile.entryCount} entries, more than the limit of ${limits.maxEntries}`;
      return { findings: [packageFinding("ZIP_BOMB", m)] };
    }
    const { entries, error } = await readEntries(zipfile);
    const findings: PackageFinding[] = error ? [structuralFinding(error)] : [];
    const infos = entries.map(entryInfo);
    const check = checkZipEntries(infos, name, limits);
    // With the central directory cut short, the layout's findings would be about entries never read.
    findings.push(...(error ? check.findings.filter((f) => f.code.startsWith("ZIP_")) : check.findings));
    const layout = error ? undefined : check.layout;
    const parts = new Map<number, Unpacked>();
    // Made once for the entries served beside the archive, not once an entry.
    if (!error && unpackTo !== undefined) await mkdir(unpackTo, { recursive: true });
    if (!error && check.unpack.length > 0) {
      // The entries' bytes are read through a handle of this module's, in large reads (entryData).
      archive = await open(path, "r");
      for (const i of check.unpack) {
        const info = infos[i]!;
        const role = servedRole(layout, info.name, limits);
        const to = unpackTo !== undefined && role.served !== undefined ? join(unpackTo, role.served) : undefined;
        const result = await unpackEntry(zipfile, archive, entries[i]!, info, role, to);
        if (result.finding) findings.push(result.finding);
        if (result.unpacked) parts.set(i, result.unpacked);
      }
    }
    const part = (entry: string): Unpacked | undefined => {
      const i = infos.findIndex((info) => info.name === entry);
      return i < 0 ? undefined : parts.get(i);
    };
    const derived = layout && deriveFiles(layout, part, limits, findings);
    if (!derived) return { findings };
    const zipHashes = await hashFile(path);
    return {
      derived: { zip_size: zipSize, zip_md5: zipHashes.md5, zip_sha256: zipHashes.sha256, ...derived },
      findings,
    };
  } finally {
    zipfile.close();
    await archive?.close();
  }
}
