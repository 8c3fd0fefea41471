// A package kept as a folder (catalogue/<host>/<name>/ holding the SD card tree) is published as a
// zip that is the same bytes on every machine: entries in code-point order of their full path, every
// folder as an explicit entry (so an empty folder an app expects survives), the DOS epoch as every
// time, fixed Unix modes, deflate by fflate (pure JavaScript, pinned: Node's zlib differs between
// builds) at level 9 with a fixed memory level, no extra fields, no comments. Names are written in
// Unicode NFC, so that a file name macOS hands over decomposed (NFD) gives the same entry.
import { mkdir, open, readdir, rename, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { Zip, ZipDeflate, ZipPassThrough, type ZipInputFile } from "fflate";
import { packageFinding, type PackageFinding } from "./checkZipEntries.js";

/** One entry of a package folder: a `/`-separated path relative to it; a folder's ends in `/`. */
export interface FolderEntry {
  path: string;
  kind: "file" | "directory";
}

/** The settings that make the archive reproducible (documented in docs/catalogue.md). */
export const ZIP_SETTINGS = {
  /** 1980-01-01 00:00:00, the DOS epoch, in every entry. */
  mtime: { year: 1980, month: 1, day: 1 },
  fileMode: 0o100644,
  folderMode: 0o040755,
  level: 9,
  mem: 8,
  /** Files are read and compressed in chunks of this size: the same chunks give the same bytes. */
  chunkSize: 64 * 1024,
} as const;

const UNIX = 3;
const MSDOS_DIRECTORY = 0x10;

/** Code-point order (UTF-8 byte order), not UTF-16 code-unit order. */
export function compareCodePoints(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
}

/**
 * Lists a package folder, sorted for the archive. Hidden entries (`.DS_Store`, `.gitkeep`) are left
 * out, as everywhere in the catalogue; a symbolic link is a problem, never followed.
 */
export async function listPackageFolder(dir: string): Promise<{ entries: FolderEntry[]; findings: PackageFinding[] }> {
  const entries: FolderEntry[] = [];
  const findings: PackageFinding[] = [];
  const walk = async (rel: string): Promise<void> => {
    let children;
    try {
      children = await readdir(join(dir, rel), { withFileTypes: true });
    } catch (error) {
      findings.push(packageFinding("UNREADABLE", `${rel || "."} cannot be listed (${(error as Error).message})`, rel));
      return;
    }
    for (const child of children) {
      if (child.name.startsWith(".")) continue;
      const path = `${rel}${child.name}`;
      if (child.isSymbolicLink()) {
        findings.push(
          packageFinding("SYMLINK", `${path} is a symbolic link (not followed: it could point outside)`, path),
        );
      } else if (child.isDirectory()) {
        entries.push({ path: `${path}/`, kind: "directory" });
        await walk(`${path}/`);
      } else if (child.isFile()) {
        entries.push({ path, kind: "file" });
      } else {
        findings.push(packageFinding("UNREADABLE", `${path} is neither a file nor a folder`, path));
      }
    }
  };
  await walk("");
  entries.sort((a, b) => compareCodePoints(entryName(a), entryName(b)));
  return { entries, findings };
}

/** The entry's name in the archive. */
export function entryName(entry: FolderEntry): string {
  return entry.path.normalize("NFC");
}

function fixedEntry<T extends ZipInputFile>(file: T, kind: FolderEntry["kind"]): T {
  const { year, month, day } = ZIP_SETTINGS.mtime;
  // fflate writes the DOS time from the Date's local fields; a local midnight is that on every machine.
  file.mtime = new Date(year, month - 1, day);
  file.os = UNIX;
  const mode = kind === "directory" ? ZIP_SETTINGS.folderMode : ZIP_SETTINGS.fileMode;
  file.attrs = ((mode << 16) | (kind === "directory" ? MSDOS_DIRECTORY : 0)) >>> 0;
  return file;
}

/**
 * Writes the folder's listed entries as a zip through `write`, one chunk at a time: memory holds one
 * chunk of one file, never the archive.
 */
export async function writeFolderZip(
  dir: string,
  entries: readonly FolderEntry[],
  write: (chunk: Uint8Array) => Promise<void>,
): Promise<void> {
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
    if (entry.kind === "directory") {
      const folder = fixedEntry(new ZipPassThrough(entryName(entry)), "directory");
      zip.add(folder);
      folder.push(new Uint8Array(0), true);
      await flush();
      continue;
    }
    const file = fixedEntry(
      new ZipDeflate(entryName(entry), { level: ZIP_SETTINGS.level, mem: ZIP_SETTINGS.mem }),
      "file",
    );
    zip.add(file);
    const handle = await open(join(dir, entry.path), "r");
    try {
      const { size } = await handle.stat();
      let offset = 0;
      do {
        const length = Math.min(ZIP_SETTINGS.chunkSize, size - offset);
        const chunk = Buffer.alloc(length);
        let filled = 0;
        while (filled < length) {
          const { bytesRead } = await handle.read(chunk, filled, length - filled, offset + filled);
          if (bytesRead === 0) throw new Error(`${entry.path} shrank while it was read`);
          filled += bytesRead;
        }
        offset += length;
        file.push(chunk, offset >= size);
        await flush();
      } while (offset < size);
    } finally {
      await handle.close();
    }
  }
  zip.end();
  await flush();
}

/**
 * Zips the package folder `dir` into `outPath` (written beside it as a temporary file, then renamed).
 * Writes nothing when the folder has a problem.
 */
export async function zipPackageFolder(dir: string, outPath: string): Promise<{ findings: PackageFinding[] }> {
  const { entries, findings } = await listPackageFolder(dir);
  if (findings.length > 0) return { findings };
  await mkdir(dirname(outPath), { recursive: true });
  const temporary = `${outPath}.${process.pid}.tmp`;
  const handle = await open(temporary, "w");
  try {
    await writeFolderZip(dir, entries, async (chunk) => {
      let written = 0;
      while (written < chunk.length) written += (await handle.write(chunk, written)).bytesWritten;
    });
    await handle.close();
    await rename(temporary, outPath);
  } catch (error) {
    await handle.close().catch(() => undefined);
    await rm(temporary, { force: true });
    throw error;
  }
  return { findings };
}

/**
 * Zips files held in memory, each at its name, in the order given, with the same fixed times, modes
 * and deflate settings as a package folder's archive: the same entries give the same bytes. For
 * small archives only (the Homebrew Browser's icons), built whole in memory.
 */
export function zipInMemory(entries: readonly { name: string; bytes: Uint8Array }[]): Uint8Array {
  const chunks: Uint8Array[] = [];
  let failure: Error | null = null;
  const zip = new Zip((error, data) => {
    if (error) failure = error;
    else chunks.push(data);
  });
  for (const entry of entries) {
    const file = fixedEntry(
      new ZipDeflate(entry.name.normalize("NFC"), { level: ZIP_SETTINGS.level, mem: ZIP_SETTINGS.mem }),
      "file",
    );
    zip.add(file);
    file.push(entry.bytes, true);
  }
  zip.end();
  // fflate's Zip and ZipDeflate call back synchronously: every chunk is here once end() returns.
  if (failure) throw failure;
  return Buffer.concat(chunks);
}
