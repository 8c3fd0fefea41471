// The full build's writer: every file of a fresh slot goes through it, as one whole file, as a
// stream appended to while the packages pass in name order (a host's list, its v4 and v3
// contents), or as byte ranges of a file it wrote before (a filtered list is ranges of its host's
// list). It hashes every file it writes from bytes as it writes it and hands each file to the file
// index's spill (trust/fileIndexSpill.ts), so the index never reads such a file back and is never
// held; it makes each folder once, and never holds more than one chunk of a list.
import { closeSync, existsSync, mkdirSync, openSync, readSync, renameSync, writeSync } from "node:fs";
import { removeInBackground } from "./removeTree.js";
import { createHash, type Hash } from "node:crypto";
import { dirname, join } from "node:path";
import type { OutputFile } from "../render/renderApi.js";
import { writeContent, type WrittenDigests } from "./writeOutput.js";

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

  /** Writes into `root`, a folder made anew (set aside first: setAside); with `index`, tells it every file written. */
  constructor(root: string, options: { index?: WrittenFiles | undefined; onFile?: (count: number) => void } = {}) {
    this.root = root;
    this.#index = options.index;
    this.#onFile = options.onFile;
    mkdirSync(root);
  }

  /** Writes a whole file; a link to another file of the output (SameAs) waits until close, so what it names is there. */
  write(file: OutputFile): void {
    if (typeof file.content === "object" && "sameAs" in file.content) {
      this.#links.push(file);
      this.#count();
      return;
    }
    this.#folder(file.path);
    writeContent(join(this.root, file.path), file.content, this.root, this.#index && this.#digests, file.path);
    if (this.#index) {
      this.#index.add(file.path, this.#digests.get(file.path));
      this.#digests.delete(file.path);
    }
    this.#count();
  }

  /** Opens a file to be written piece by piece. */
  append(path: string): AppendedFile {
    this.#folder(path);
    const fd = openSync(join(this.root, path), "w");
    const hash = this.#index && createHash("sha256");
    let size = 0;
    let pending = "";
    const flush = () => {
      if (pending.length === 0) return;
      writeSync(fd, pending, null, "latin1");
      hash?.update(pending, "latin1");
      pending = "";
    };
    this.#count();
    return {
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
        writeSync(fd, bytes);
        hash?.update(bytes);
        size += bytes.byteLength;
      },
      close: () => {
        flush();
        closeSync(fd);
        this.#digest(path, size, hash);
        return size;
      },
    };
  }

  /**
   * Writes `path` from `sources`: fresh text, or byte ranges of the file `from` (a closed one),
   * read at their offsets a chunk at a time. Neighbouring ranges are read as one.
   */
  writeRanges(path: string, from: string, sources: Iterable<RangeSource>): void {
    const out = this.append(path);
    const fd = openSync(from, "r");
    try {
      let run: [number, number] | undefined;
      const drain = () => {
        if (!run) return;
        copyRange(fd, run[0], run[1], out);
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
      closeSync(fd);
      out.close();
    }
  }

  /** Writes the links to other files of the output, now that every file they name is there. */
  close(): void {
    for (const file of this.#links) {
      this.#folder(file.path);
      writeContent(join(this.root, file.path), file.content, this.root);
      this.#index?.add(file.path);
    }
    this.#links.length = 0;
  }

  #folder(path: string): void {
    const folder = dirname(path);
    if (this.#made.has(folder)) return;
    mkdirSync(join(this.root, folder), { recursive: true });
    // A folder forgotten is made again, at the cost of an mkdir that finds it there.
    if (this.#made.size >= RECENT_FOLDERS) this.#made = new Set(["."]);
    for (let at = folder; at !== "." && !this.#made.has(at); at = dirname(at)) this.#made.add(at);
  }

  #count(): void {
    this.files++;
    this.#onFile?.(this.files);
  }

  #digest(path: string, size: number, hash: Hash | undefined): void {
    if (hash) this.#index!.add(path, { size, sha256: hash.digest("hex") });
  }
}

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
