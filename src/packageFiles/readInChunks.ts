// Package files are read a large chunk at a time, into two buffers used in turn. Large: each read,
// and each chunk a stream inflates or deflates, is a trip to libuv's pool and back, which at the
// streams' 16 kB cost a build of 1 GB of package files more CPU than inflating it. Used again: every
// buffer Node allocates is memory outside V8's heap that only the collector frees, and V8 collects
// the whole heap for each few dozen megabytes of it; a fresh buffer a chunk made the collector run
// every few dozen milliseconds through a build.
import type { FileHandle } from "node:fs/promises";
import { constants as zlibConstants } from "node:zlib";

/** The largest read, and the largest chunk handed on. */
export const CHUNK_BYTES = 1 << 20;

/**
 * zlib's output buffer for at most `bytes` of output: CHUNK_BYTES at most, zlib's least at fewest.
 * A buffer of CHUNK_BYTES for a 2 kB icon was a megabyte of garbage an entry.
 */
export function outputChunk(bytes: number): number {
  return Math.min(CHUNK_BYTES, Math.max(zlibConstants.Z_MIN_CHUNK, bytes));
}

/** Buffers let go by a finished read, for the next: enough for the few packages read at once. */
const spare: Buffer[] = [];
const SPARE_BUFFERS = 8;

/**
 * Hands `take` the bytes `[start, end)` of `file` in order, a chunk at a time. `take` returns (or
 * resolves to) false to stop; the chunk is read over once it has returned, or once its promise has
 * settled (a stream's write callback: the stream is done with it), and the next chunk is read
 * meanwhile. `early` is thrown when the file ends before `end`.
 */
export async function readInChunks(
  file: FileHandle,
  start: number,
  end: number,
  take: (chunk: Buffer) => boolean | Promise<boolean>,
  early: () => Error,
): Promise<void> {
  const buffers: Buffer[] = [];
  const taken: (boolean | Promise<boolean>)[] = [true, true];
  try {
    for (let at = start, turn = 0; at < end; turn ^= 1) {
      if (!(await taken[turn])) return;
      const buffer = (buffers[turn] ??= spare.pop() ?? Buffer.allocUnsafe(CHUNK_BYTES));
      const chunk = buffer.subarray(0, Math.min(CHUNK_BYTES, end - at));
      for (let filled = 0; filled < chunk.length;) {
        const { bytesRead } = await file.read(chunk, filled, chunk.length - filled, at + filled);
        if (bytesRead === 0) throw early();
        filled += bytesRead;
      }
      at += chunk.length;
      taken[turn] = take(chunk);
      if (taken[turn] === false) return;
    }
    for (const last of taken) await last;
  } finally {
    // A buffer goes back only once whatever took its last chunk is done with it.
    await Promise.allSettled(taken.map((t) => Promise.resolve(t)));
    for (const buffer of buffers) if (spare.length < SPARE_BUFFERS) spare.push(buffer);
  }
}
