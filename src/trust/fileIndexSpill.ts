// The file index of a full build, gathered on disk as the files are written instead of in memory:
// one line a served file (its URL path with its size and SHA-256, or the slot's path of a file
// the writer did not hash, a package file copied or linked in). When every file is written and
// their count gives the shard count, the lines are dealt into a few bucket files by shard, and each
// bucket is read back alone and cut into its shards: the index is never held whole, whatever the
// catalogue's size.
import { closeSync, openSync, readSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { isFileIndexPath } from "../routes/routeTable.js";
import { servedPathOf } from "../routes/servedPath.js";
import { shardOf, type IndexedFile } from "./fileIndex.js";
import { keepHeapNearLive } from "../util/memory.js";

/** Lines are gathered up to this many characters before one write. */
const CHUNK_CHARS = 1 << 20;
/** Buckets the lines are dealt into: each then holds about 1/BUCKETS of the index. */
const BUCKETS = 64;

/** A line: [URL path, size, SHA-256] for a file hashed as written, [URL path, slot path] for one to hash. */
type Line = [path: string, size: number, sha256: string] | [path: string, file: string];

export class FileIndexSpill {
  readonly #dir: string;
  readonly #file: string;
  readonly #fd: number;
  #pending = "";
  #count = 0;

  /** Spills into `dir` (the build's work folder, removed with it). */
  constructor(dir: string) {
    this.#dir = dir;
    this.#file = join(dir, "file-index");
    this.#fd = openSync(this.#file, "w+");
  }

  /** How many served files were added. */
  get count(): number {
    return this.#count;
  }

  /** A file the build wrote at `file` of its slot, with its size and SHA-256 when the writer took them. */
  add(file: string, digest?: { size: number; sha256: string }): void {
    if (isFileIndexPath(file)) return;
    const path = servedPathOf(file);
    if (path === undefined) return;
    const line: Line = digest ? [path, digest.size, digest.sha256] : [path, file];
    this.#pending += `${JSON.stringify(line)}\n`;
    this.#count++;
    if (this.#pending.length >= CHUNK_CHARS) this.#flush();
  }

  /**
   * The files of each of `count` shards, one shard at a time in no set order; `digest` hashes a
   * file the writer did not (its slot path and URL path).
   */
  *shards(count: number, digest: (file: string, path: string) => IndexedFile): Generator<[number, IndexedFile[]]> {
    this.#flush();
    const buckets = Math.min(count, BUCKETS);
    const fds = Array.from({ length: buckets }, (_, b) => openSync(join(this.#dir, `file-index.${b}`), "w+"));
    try {
      const pending: string[] = Array.from({ length: buckets }, () => "");
      for (const text of readLines(this.#fd)) {
        keepHeapNearLive();
        const path = (JSON.parse(text) as Line)[0];
        const shard = shardOf(path, count);
        const b = shard % buckets;
        pending[b] += `${shard}\t${text}\n`;
        if (pending[b]!.length >= CHUNK_CHARS / 16) {
          writeSync(fds[b]!, pending[b]!, null, "utf8");
          pending[b] = "";
        }
      }
      for (let b = 0; b < buckets; b++) if (pending[b]!.length > 0) writeSync(fds[b]!, pending[b]!, null, "utf8");
      for (let b = 0; b < buckets; b++) {
        const shards = new Map<number, IndexedFile[]>();
        for (let i = b; i < count; i += buckets) shards.set(i, []);
        for (const text of readLines(fds[b]!)) {
          keepHeapNearLive();
          const tab = text.indexOf("\t");
          const line = JSON.parse(text.slice(tab + 1)) as Line;
          const file: IndexedFile =
            line.length === 3 ? { path: line[0], size: line[1], sha256: line[2] } : digest(line[1], line[0]);
          shards.get(Number(text.slice(0, tab)))!.push(file);
        }
        closeSync(fds[b]!);
        fds[b] = -1;
        rmSync(join(this.#dir, `file-index.${b}`), { force: true });
        yield* shards;
      }
    } finally {
      for (const fd of fds) if (fd >= 0) closeSync(fd);
    }
  }

  close(): void {
    closeSync(this.#fd);
    rmSync(this.#file, { force: true });
  }

  #flush(): void {
    if (this.#pending.length === 0) return;
    writeSync(this.#fd, this.#pending, null, "utf8");
    this.#pending = "";
  }
}

/** The lines of a file from its start, read a block at a time. */
function* readLines(fd: number): Generator<string> {
  const block = Buffer.allocUnsafe(1 << 20);
  let rest = Buffer.alloc(0);
  for (let at = 0; ;) {
    const read = readSync(fd, block, 0, block.length, at);
    if (read === 0) break;
    at += read;
    let bytes = Buffer.concat([rest, block.subarray(0, read)]);
    let end = bytes.indexOf(0x0a);
    let start = 0;
    while (end >= 0) {
      yield bytes.toString("utf8", start, end);
      start = end + 1;
      end = bytes.indexOf(0x0a, start);
    }
    bytes = bytes.subarray(start);
    rest = Buffer.from(bytes);
  }
  if (rest.length > 0) yield rest.toString("utf8");
}
