// A file-system fact the read step takes of every input it opens or lists: what identifies a file's
// content without reading it. A rebuild compares it with the one it remembers.
import type { Stats } from "node:fs";

/** A file's size, times and inode; a changed ctime catches tools that restore mtime. */
export interface Signature {
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
}

export function signatureOf(stats: Stats): Signature {
  return { size: stats.size, mtimeMs: stats.mtimeMs, ctimeMs: stats.ctimeMs, ino: stats.ino };
}
