// The files of a slot as the engine reads them: the last build's live output (what a rebuild keeps,
// compares with, and copies a kept package's fragments from, by ranges), or the files a host's pass
// has just written (its new contents, whose featured object is cut from them). A large list is read
// a block at a time at its offsets, never whole; nothing here parses a file.
import { closeSync, existsSync, fstatSync, openSync, readFileSync, readSync } from "node:fs";
import { join } from "node:path";

/** A file read by ranges: the ranges are read when written (it stays open until then). */
export interface LiveRanges {
  /** Bytes [start, end) now, in a buffer of their own. */
  read(start: number, end: number): Buffer;
  /** Bytes [start, end), a block at a time as they are asked for; a block is good until the next is. */
  blocks(start: number, end: number): Iterable<Uint8Array>;
}

/** A slot's files, read on demand: a list may be large and is read only when it changes. */
export interface LiveFiles {
  /** A file's bytes as latin1 text (outputs are ASCII), or undefined when it cannot be read. */
  text(path: string): string | undefined;
  exists(path: string): boolean;
  bytes(path: string): Uint8Array;
  /** A large file (a host's list, today's contents) read by ranges, never whole. */
  ranges(path: string): LiveRanges;
}

/** Ranges are read in blocks of this many bytes as they are written. */
const RANGE_BLOCK = 1 << 20;

/** The block every range is read into as it is written (LiveRanges.blocks: each block is used before the next). */
const BLOCK = Buffer.allocUnsafe(RANGE_BLOCK);

/** Bytes [start, end) of an open file, into `into` when given (at least as long), else a buffer of their own. */
function readRange(fd: number, start: number, end: number, into?: Buffer): Buffer {
  const bytes = into ? into.subarray(0, end - start) : Buffer.allocUnsafe(end - start);
  for (let done = 0; done < bytes.length;) {
    const read = readSync(fd, bytes, done, bytes.length - done, start + done);
    if (read === 0) throw new Error(`internal: a live range ends past its file (${start + done} of ${end})`);
    done += read;
  }
  return bytes;
}

/**
 * Whether the file at `path` and the file `file` hold the same bytes, compared a block at a time
 * (an icon, meta.xml, a host's icon archive, which may be large).
 */
export function sameBytes(path: string, file: string): boolean {
  let live: number | undefined;
  let made: number | undefined;
  try {
    live = openSync(path, "r");
    made = openSync(file, "r");
    const size = fstatSync(live).size;
    if (fstatSync(made).size !== size) return false;
    for (let at = 0; at < size; at += RANGE_BLOCK) {
      const end = Math.min(size, at + RANGE_BLOCK);
      if (!readRange(live, at, end).equals(readRange(made, at, end))) return false;
    }
    return true;
  } catch {
    // A file that cannot be read is not the same file: the caller writes it anew.
    return false;
  } finally {
    if (live !== undefined) closeSync(live);
    if (made !== undefined) closeSync(made);
  }
}

/**
 * The files of the slot `dir`; a file that cannot be read counts as changed. A file read by ranges
 * stays open until close(), after the plan is written: its old bytes are read through the
 * descriptor even once a new file is renamed over it.
 */
export function liveFiles(dir: string): LiveFiles & { close(): void } {
  const open = new Map<string, number>();
  const fdOf = (path: string) => {
    let fd = open.get(path);
    if (fd === undefined) open.set(path, (fd = openSync(join(dir, path), "r")));
    return fd;
  };
  return {
    ranges(path) {
      return {
        read: (start, end) => readRange(fdOf(path), start, end),
        *blocks(start, end) {
          for (let at = start; at < end; at += RANGE_BLOCK)
            yield readRange(fdOf(path), at, Math.min(end, at + RANGE_BLOCK), BLOCK);
        },
      };
    },
    close() {
      for (const fd of open.values()) closeSync(fd);
      open.clear();
    },
    text(path) {
      try {
        return readFileSync(join(dir, path), "latin1");
      } catch {
        // Missing or unreadable, the live file counts as changed: the plan writes it (LiveFiles).
        return undefined;
      }
    },
    bytes: (path) => readFileSync(join(dir, path)),
    exists: (path) => existsSync(join(dir, path)),
  };
}
