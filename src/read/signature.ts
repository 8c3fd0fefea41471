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
 * A digest of a source file's bytes as one number: the first 48 bits of the id git gives the same
 * bytes as a blob (SHA-1 of `blob <size>\0` and the bytes), exact in a float64 column of the state.
 * Git's own, so that in a git checkout git can tell a file's digest without it being read
 * (read/gitDigests.ts). Two files with one digest are taken for the same (odds of 2^-48 a pair).
 */
export function digestOf(bytes: Uint8Array): number {
  return createHash("sha1").update(`blob ${bytes.length}\0`).update(bytes).digest().readUIntBE(0, 6);
}

/** The digest of a blob id git printed (40 or 64 hex digits): its first 48 bits, as digestOf takes them. */
export function digestOfBlobId(hex: string): number {
  return Number.parseInt(hex.slice(0, 12), 16);
}

export function signatureOf(stats: Stats): Signature {
  return { size: stats.size, mtimeMs: stats.mtimeMs, ctimeMs: stats.ctimeMs, ino: stats.ino };
}

/**
 * The signature with the digest of the bytes it was taken with. Written out, not spread: V8 gave
 * each object made by `{ ...signature, digest }` a hidden class of its own (about 200 bytes more a
 * manifest, 22 MB for a clone of 100,000).
 */
export function withDigest(signature: Signature, digest: number): Signature {
  return { size: signature.size, mtimeMs: signature.mtimeMs, ctimeMs: signature.ctimeMs, ino: signature.ino, digest };
}
