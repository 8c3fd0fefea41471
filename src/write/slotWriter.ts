// The full build's writer: every file of a fresh slot goes through it, as one whole file, as a
// stream appended to while the packages pass in name order (a host's list, its v4 and v3
// contents), or as byte ranges of a file it wrote before (a filtered list is ranges of its host's
// list). It hashes every file it writes from bytes as it writes it and hands each file to the file
// index's spill (trust/fileIndexSpill.ts), so the index never reads such a file back and is never
// held; it makes each folder once, and never holds more than one chunk of a list.
import { closeSync, existsSync, mkdirSync, openSync, readSync, renameSync, writeSync } from "node:fs";
import { removeInBackground } from "./removeTree.js";
import { createHash } from "node:crypto";
import { dirname, join } from "node:path";
import type { OutputFile } from "../render/renderApi.js";
import { fileOperation, writeContent, type WrittenDigests } from "./writeOutput.js";
import { WriteThread } from "./writeThread.js";

/** How many folders the writer remembers having made (RECENT_FOLDERS of the latest, at most). */
const RECENT_FOLDERS = 4096;

/** Text appended to a stream is gathered up to this many characters before one write. */
const CHUNK_CHARS = 1 << 20;

/** A file written piece by piece: the pieces are its bytes (a string as latin1), in order. */
export interface AppendedFile {
  /** Bytes written so far: where the next piece starts. */
  readonly size: number;
  add(piece: string): void;
  /** Appends bytes as they are (a run copied from another file), after the text added before them. */
  addBytes(bytes: Uint8Array): void;
  /** Appends bytes [start, end) of the file `from`, closed before (a run of another list); only on the thread. */
  addRange?(from: string, start: number, end: number): void;
  /** Ends the file; its digest is recorded. Returns its size. */
  close(): number;
}

/** Where the writer hands every file it wrote: with its size and SHA-256 when it wrote it from bytes. */
export interface WrittenFiles {
  add(path: string, digest?: { size: number; sha256: string }): void;
}

/** A file written as byte ranges `[start, end)` of a file the writer closed before, between fresh text. */
export type RangeSource = string | readonly [start: number, end: number];

export class SlotWriter {
  readonly root: string;
  /** How many files were written (each path once: the writer never writes a path twice). */
  files = 0;
  readonly #index: WrittenFiles | undefined;
  /** The digest writeContent takes of one file, handed on at once. */
  readonly #digests: WrittenDigests = new Map();
  /**
   * The folders made lately, so each is made once while files come to it: a package's own folder
   * (its page) is never written to again once the stream has passed it, so only the most recent are
   * kept, never one a package.
   */
  #made = new Set<string>(["."]);
  readonly #links: OutputFile[] = [];
  readonly #onFile: ((count: number) => void) | undefined;
  /** The thread that writes once the build is past THREAD_AFTER files (writeThread.ts). */
  #thread: WriteThread | undefined;

  readonly #threadAfter: number;

  /**
   * Writes into `root`, a folder made anew (set aside first: setAside); with `index`, tells it every
   * file written. Past `threadAfter` files (THREAD_AFTER unless a test says) it writes on a thread.
   */
  constructor(
    root: string,
    options: { index?: WrittenFiles | undefined; onFile?: (count: number) => void; threadAfter?: number } = {},
  ) {
    this.root = root;
    this.#index = options.index;
    this.#onFile = options.onFile;
    this.#threadAfter = options.threadAfter ?? THREAD_AFTER;
    mkdirSync(root);
  }

  /** Writes a whole file; a link to another file of the output (SameAs) waits until close, so what it names is there. */
  write(file: OutputFile): void {
    const content = file.content;
    if (typeof content === "object" && "sameAs" in content) {
      this.#links.push(file);
      this.#count();
      return;
    }
    this.#folder(file.path);
    const thread = this.#threadNow();
    const target = join(this.root, file.path);
    if (!thread) {
      writeContent(target, content, this.root, this.#index && this.#digests, file.path);
      if (this.#index) {
        this.#index.add(file.path, this.#digests.get(file.path));
        this.#digests.delete(file.path);
      }
    } else if (typeof content === "string") {
      thread.file(target, content, this.#index && file.path);
    } else {
      thread[fileOperation(content)](content.file, target);
      this.#index?.add(file.path, content.digest);
    }
    this.#count();
  }

  /** Opens a file to be written piece by piece. */
  append(path: string): AppendedFile {
    this.#folder(path);
    const target = join(this.root, path);
    this.#count();
    const thread = this.#threadNow();
    return thread ? this.#appendThere(thread, path, target) : this.#appendHere(path, target);
  }

  /**
   * Writes `path` from `sources`: fresh text, or byte ranges of the file `from` (a closed one),
   * read at their offsets a chunk at a time. Neighbouring ranges are read as one.
   */
  writeRanges(path: string, from: string, sources: Iterable<RangeSource>): void {
    const out = this.append(path);
    const thread = this.#thread;
    // Once there is a thread, it reads the ranges itself, after what it was asked to write before.
    const fd = thread ? undefined : openSync(from, "r");
    try {
      let run: [number, number] | undefined;
      const drain = () => {
        if (!run) return;
        if (fd === undefined) out.addRange!(from, run[0], run[1]);
        else copyRange(fd, run[0], run[1], out);
        run = undefined;
      };
      for (const source of sources) {
        if (typeof source === "string") {
          drain();
          out.add(source);
        } else if (run && run[1] === source[0]) run[1] = source[1];
        else {
          drain();
          run = [source[0], source[1]];
        }
      }
      drain();
    } finally {
      if (fd !== undefined) closeSync(fd);
      out.close();
    }
  }

  /** Waits until every file asked for is on disk, before the slot is read (a list's ranges, an icon). */
  drain(): void {
    this.#thread?.drain();
  }

  /** Writes the links to other files of the output, now that every file they name is there; ends the thread. */
  close(): void {
    for (const file of this.#links) {
      this.#folder(file.path);
      const sameAs = (file.content as { sameAs: string }).sameAs;
      if (this.#thread) this.#thread.link(join(this.root, sameAs), join(this.root, file.path));
      else writeContent(join(this.root, file.path), file.content, this.root);
      this.#index?.add(file.path);
    }
    this.#links.length = 0;
    this.stop();
  }

  /** Ends the thread once what it was asked is done; throws what failed. A build that fails stops it before it removes the slot. */
  stop(): void {
    const thread = this.#thread;
    this.#thread = undefined;
    thread?.stop();
  }

  /** Stops the thread once it is idle, whatever failed: before a failed build's slot is removed. */
  abandon(): void {
    try {
      this.stop();
    } catch {
      // The build has failed already, or is failing: what the thread could not write does not matter.
    }
  }

  /** The thread, started once the build is past THREAD_AFTER files; none before (a small build never starts one). */
  #threadNow(): WriteThread | undefined {
    if (!this.#thread && this.files >= this.#threadAfter)
      this.#thread = new WriteThread((key, digest) => this.#index!.add(key, digest));
    return this.#thread;
  }

  #appendHere(path: string, target: string): AppendedFile {
    const fd = openSync(target, "w");
    const hash = this.#index && createHash("sha256");
    return appendedFile({
      text: (piece) => {
        writeSync(fd, piece, null, "latin1");
        hash?.update(piece, "latin1");
      },
      bytes: (bytes) => {
        writeSync(fd, bytes);
        hash?.update(bytes);
      },
      end: (size) => {
        closeSync(fd);
        if (hash) this.#index!.add(path, { size, sha256: hash.digest("hex") });
      },
    });
  }

  #appendThere(thread: WriteThread, path: string, target: string): AppendedFile {
    const id = thread.open(target, this.#index && path);
    return appendedFile({
      text: (piece) => thread.append(id, piece),
      // The caller may use its buffer again: the thread is given a copy.
      bytes: (bytes) => thread.append(id, Uint8Array.prototype.slice.call(bytes)),
      range: (from, start, end) => thread.appendRange(id, from, start, end),
      end: () => thread.close(id),
    });
  }

  #folder(path: string): void {
    const folder = dirname(path);
    if (this.#made.has(folder)) return;
    const thread = this.#threadNow();
    if (thread) thread.mkdir(join(this.root, folder));
    else mkdirSync(join(this.root, folder), { recursive: true });
    // A folder forgotten is made again, at the cost of an mkdir that finds it there.
    if (this.#made.size >= RECENT_FOLDERS) this.#made = new Set(["."]);
    for (let at = folder; at !== "." && !this.#made.has(at); at = dirname(at)) this.#made.add(at);
  }

  #count(): void {
    this.files++;
    this.#onFile?.(this.files);
  }
}

/** Where an appended file's pieces go, in order; `range` only where the reading is done there (the thread). */
interface AppendSink {
  text(piece: string): void;
  bytes(bytes: Uint8Array): void;
  range?(from: string, start: number, end: number): void;
  end(size: number): void;
}

/** A file appended to: text gathered up to CHUNK_CHARS before it goes to the sink, bytes and ranges after the text before them. */
function appendedFile(sink: AppendSink): AppendedFile {
  let size = 0;
  let pending = "";
  const flush = () => {
    if (pending.length === 0) return;
    sink.text(pending);
    pending = "";
  };
  const file: AppendedFile = {
    get size() {
      return size;
    },
    add(piece: string) {
      pending += piece;
      size += piece.length;
      if (pending.length >= CHUNK_CHARS) flush();
    },
    addBytes(bytes: Uint8Array) {
      flush();
      sink.bytes(bytes);
      size += bytes.byteLength;
    },
    close() {
      flush();
      sink.end(size);
      return size;
    },
  };
  const range = sink.range;
  if (range)
    file.addRange = (from, start, end) => {
      flush();
      range(from, start, end);
      size += end - start;
    };
  return file;
}

/**
 * Past this many files a build writes on a second thread (writeThread.ts), beside its rendering; a
 * small build (a test's, an edit's stage) is written on the main thread, without starting one.
 */
const THREAD_AFTER = 2000;

/**
 * Moves `folder` (a slot of a previous build) out of the way in one rename, to `trash`, and removes
 * it on libuv's pool while the build writes: removing a tree of 300,000 files first cost as much as
 * writing it (unlinks, failed rmdirs, and slower creates after them). A build killed meanwhile
 * leaves `trash` to the next one's removeLeftovers, as does a removal that fails. Resolves once it has ended.
 */
export function setAside(folder: string, trash: string): Promise<void> {
  if (!existsSync(folder)) return Promise.resolve();
  renameSync(folder, trash);
  return removeInBackground(trash);
}

/** Reusable buffer for copying ranges: lists' runs are copied through it, never held whole. */
const COPY = Buffer.alloc(1 << 20);

function copyRange(fd: number, start: number, end: number, out: AppendedFile): void {
  for (let at = start; at < end;) {
    const read = readSync(fd, COPY, 0, Math.min(COPY.length, end - at), at);
    if (read === 0) throw new Error(`internal: a range ends past its file (${at} of ${end})`);
    out.addBytes(COPY.subarray(0, read));
    at += read;
  }
}
