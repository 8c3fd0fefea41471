// A file-system fact the read step takes of every input it opens or lists: what identifies a file's
// content without reading it. A rebuild compares it with the one it remembers.
import { createHash } from "node:crypto";
import type { Stats } from "node:fs";

/**
 * A file's size, times and inode; a changed ctime catches tools that restore mtime. A source file
 * that was read also has a digest of its bytes: a file that moved but kept them (a fresh clone's
 * new dates and inodes, a checkout back and forth) is known by it without being parsed again.
 */
export interface Signature {
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
  digest?: number;
}

/**
 * A digest of a source file's bytes as one number: SHA-1's first 48 bits, exact in a float64
 * column of the state. Two files with one digest are taken for the same (odds of 2^-48 a pair).
 */
export function digestOf(bytes: Uint8Array): number {
  return createHash("sha1").update(bytes).digest().readUIntBE(0, 6);
}

export function signatureOf(stats: Stats): Signature {
  return { size: stats.size, mtimeMs: stats.mtimeMs, ctimeMs: stats.ctimeMs, ino: stats.ino };
}
