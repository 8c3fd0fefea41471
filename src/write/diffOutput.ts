// Compares rendered files with the files of a slot, by their bytes: what must be written or deleted
// to turn that slot into the rendered tree. A build that had to read every input again (a fresh
// clone with the last build restored: every manifest has new dates) then writes only what changed.
// Lists are compared in blocks, never read whole, so a list of any length costs a block of memory.
import { closeSync, fstatSync, openSync, readdirSync, readSync } from "node:fs";
import { join } from "node:path";
import type { OutputFile, SameAs } from "../render/renderApi.js";
import { sameInode } from "../util/sameInode.js";

/** Files are read in blocks of this many bytes; most files of the API fit one. */
const BLOCK_BYTES = 1 << 20;

/**
 * The changes that turn the tree in `dir` into `files`: each rendered file whose bytes differ or that
 * is missing, with its content, and each file of the tree that is not rendered, with null.
 */
export function diffOutput(dir: string, files: readonly OutputFile[]): Map<string, OutputFile["content"] | null> {
  const changes = new Map<string, OutputFile["content"] | null>();
  const present = new Set(listFiles(dir, ""));
  const block = Buffer.allocUnsafe(BLOCK_BYTES);
  const links: (OutputFile & { content: SameAs })[] = [];
  for (const file of files) {
    if (typeof file.content !== "string" && "sameAs" in file.content) links.push({ ...file, content: file.content });
    else if (!present.delete(file.path) || !sameBytes(join(dir, file.path), file.content, block))
      changes.set(file.path, file.content);
  }
  // A link is unchanged while it is still a link to the file it names, and that file is unchanged:
  // then its bytes are the new ones, and nothing is read.
  for (const link of links) {
    const { sameAs } = link.content;
    if (!present.delete(link.path) || changes.has(sameAs) || !sameInode(join(dir, link.path), join(dir, sameAs)))
      changes.set(link.path, link.content);
  }
  for (const path of present) changes.set(path, null);
  return changes;
}

/** Adds the paths of the files in `folder` of `root` and below to `paths`, relative to `root`, with "/" between names. */
function listFiles(root: string, folder: string, paths: string[] = []): string[] {
  for (const entry of readdirSync(join(root, folder), { withFileTypes: true })) {
    const path = folder === "" ? entry.name : `${folder}/${entry.name}`;
    // Not pushed by spreading: a folder of 100,000 files is more arguments than a call can take.
    if (entry.isDirectory()) listFiles(root, path, paths);
    else paths.push(path);
  }
  return paths;
}

type InMemory = Exclude<OutputFile["content"], { file: string } | SameAs>;

/** The content's length in bytes (outputs are ASCII, so a string's length is its byte length). */
function byteLength(content: InMemory): number {
  if (typeof content === "string") return content.length;
  let length = 2 + Math.max(0, content.jsonArray.length - 1);
  for (const item of content.jsonArray) length += typeof item === "string" ? item.length : item.byteLength;
  return length;
}

/** The content as runs of bytes, in order. */
function* pieces(content: InMemory): Generator<Uint8Array> {
  if (typeof content === "string") {
    yield Buffer.from(content, "latin1");
    return;
  }
  yield Buffer.from("[");
  for (let i = 0; i < content.jsonArray.length; i++) {
    if (i > 0) yield Buffer.from(",");
    const item = content.jsonArray[i]!;
    yield typeof item === "string" ? Buffer.from(item, "latin1") : item;
  }
  yield Buffer.from("]");
}

/** Whether the file at `path` holds exactly `content`; a file that cannot be read differs. */
function sameBytes(path: string, content: Exclude<OutputFile["content"], SameAs>, block: Buffer): boolean {
  if (typeof content !== "string" && "file" in content) return sameFile(path, content.file, block);
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    // A live file that cannot be read (gone, another kind) differs: the build writes it.
    return false;
  }
  try {
    const size = byteLength(content);
    if (fstatSync(fd).size !== size) return false;
    let have = 0;
    let at = 0;
    let position = 0;
    for (const bytes of pieces(content)) {
      for (let offset = 0; offset < bytes.byteLength;) {
        if (at === have) {
          have = readSync(fd, block, 0, Math.min(block.length, size - position), position);
          if (have === 0) return false;
          position += have;
          at = 0;
        }
        const n = Math.min(have - at, bytes.byteLength - offset);
        if (block.compare(bytes, offset, offset + n, at, at + n) !== 0) return false;
        at += n;
        offset += n;
      }
    }
    return true;
  } catch {
    // A live file that cannot be read (gone, another kind) differs: the build writes it.
    return false;
  } finally {
    closeSync(fd);
  }
}

/** Whether the files at `path` and `source` hold the same bytes, compared a block at a time. */
function sameFile(path: string, source: string, block: Buffer): boolean {
  let fd: number;
  let sourceFd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    // A live file that cannot be read (gone, another kind) differs: the build writes it.
    return false;
  }
  try {
    sourceFd = openSync(source, "r");
  } catch {
    // A source that cannot be read differs from the live file: the build writes it and reports why.
    closeSync(fd);
    return false;
  }
  try {
    const stats = fstatSync(fd);
    const sourceStats = fstatSync(sourceFd);
    // The same file (a package's stored file linked from the live slot): equal without a read.
    if (stats.ino === sourceStats.ino && stats.dev === sourceStats.dev) return true;
    const size = stats.size;
    if (sourceStats.size !== size) return false;
    const other = Buffer.allocUnsafe(Math.min(block.length, 1 << 16));
    for (let position = 0; position < size;) {
      const want = Math.min(other.length, size - position);
      const a = readSync(fd, block, 0, want, position);
      const b = readSync(sourceFd, other, 0, want, position);
      if (a !== want || b !== want || block.compare(other, 0, want, 0, want) !== 0) return false;
      position += want;
    }
    return true;
  } catch {
    // A live file that cannot be read (gone, another kind) differs: the build writes it.
    return false;
  } finally {
    closeSync(fd);
    closeSync(sourceFd);
  }
}
