// The writer's second thread: a build renders on the main thread while this one makes the folders,
// creates, writes, hashes and closes the files (the kernel's share of a build, about as much as its
// own work), so the two overlap on two cores instead of taking turns. Operations go over in batches,
// in the order they were asked for, and are carried out in that order; at most MAX_IN_FLIGHT batches
// wait at once (the main thread blocks on a shared counter beyond that, so memory stays bounded and
// every caller stays synchronous). Each file's size and SHA-256 come back as they are taken. A
// failure stops the thread's work and is thrown on the main thread at its next batch or drain, with
// the system error's code, so it reads as any failed write does.
import { receiveMessageOnPort, Worker, type MessagePort } from "node:worker_threads";
import { MessageChannel } from "node:worker_threads";

/** Batches handed over and not yet carried out, at most. */
const MAX_IN_FLIGHT = 8;
/** A batch is handed over at this many operations, or this many bytes of content. */
const BATCH_OPS = 512;
const BATCH_BYTES = 1 << 20;

/** What the thread does, in order; a file's digest is taken when it is given a key (its path in the output). */
type Operation =
  | [kind: "mkdir", folder: string]
  | [kind: "file", path: string, content: string, key: string | null]
  | [kind: "open", id: number, path: string, key: string | null]
  | [kind: "append", id: number, bytes: string | Uint8Array]
  | [kind: "appendRange", id: number, from: string, start: number, end: number]
  | [kind: "close", id: number]
  | [kind: "link" | "copy" | "move", from: string, to: string];

/** What the thread sends back: digests taken, or the failure that stopped it. */
type Result =
  | { digests: [key: string, size: number, sha256: string][] }
  | { error: { message: string; code?: string; syscall?: string; path?: string; errno?: number } };

// The thread's code, CommonJS evaluated as it is: a worker given a file would need the compiled
// JavaScript beside this module, which the tests (run from the TypeScript) do not have.
const THREAD = `
const { workerData, parentPort } = require("node:worker_threads");
const fs = require("node:fs");
const { createHash } = require("node:crypto");
const state = new Int32Array(workerData.state);
const results = workerData.results;
const open = new Map();
const buffer = Buffer.allocUnsafe(1 << 20);
let failed = false;
// The file the last ranges were read from, open until the batch ends (a list's many ranges, one open).
let source;

function sourceFd(path) {
  if (source && source.path === path) return source.fd;
  releaseSource();
  source = { path, fd: fs.openSync(path, "r") };
  return source.fd;
}

function releaseSource() {
  if (source) fs.closeSync(source.fd);
  source = undefined;
}

function writeAll(fd, bytes) {
  if (typeof bytes === "string") fs.writeSync(fd, bytes, null, "latin1");
  else for (let at = 0; at < bytes.length; ) at += fs.writeSync(fd, bytes, at, bytes.length - at);
}

function append(file, bytes) {
  writeAll(file.fd, bytes);
  if (file.hash) file.hash.update(bytes, typeof bytes === "string" ? "latin1" : undefined);
  file.size += bytes.length;
}

function run(op, digests) {
  switch (op[0]) {
    case "mkdir": fs.mkdirSync(op[1], { recursive: true }); break;
    case "file": {
      const fd = fs.openSync(op[1], "w");
      try { writeAll(fd, op[2]); } finally { fs.closeSync(fd); }
      if (op[3] !== null) digests.push([op[3], op[2].length, createHash("sha256").update(op[2], "latin1").digest("hex")]);
      break;
    }
    case "open": open.set(op[1], { fd: fs.openSync(op[2], "w"), key: op[3], hash: op[3] === null ? undefined : createHash("sha256"), size: 0 }); break;
    case "append": append(open.get(op[1]), op[2]); break;
    case "appendRange": {
      const file = open.get(op[1]);
      const from = sourceFd(op[2]);
      for (let at = op[3]; at < op[4]; ) {
        const read = fs.readSync(from, buffer, 0, Math.min(buffer.length, op[4] - at), at);
        if (read === 0) throw new Error("internal: a range ends past its file (" + at + " of " + op[4] + ")");
        append(file, buffer.subarray(0, read));
        at += read;
      }
      break;
    }
    case "close": {
      const file = open.get(op[1]);
      open.delete(op[1]);
      fs.closeSync(file.fd);
      if (file.hash) digests.push([file.key, file.size, file.hash.digest("hex")]);
      break;
    }
    case "link": fs.linkSync(op[1], op[2]); break;
    case "copy": fs.copyFileSync(op[1], op[2]); break;
    case "move": fs.renameSync(op[1], op[2]); break;
  }
}

parentPort.on("message", (ops) => {
  const digests = [];
  if (!failed) {
    try {
      for (const op of ops) run(op, digests);
      releaseSource();
    } catch (e) {
      failed = true;
      for (const file of open.values()) fs.closeSync(file.fd);
      open.clear();
      // Failing already: a source that will not close is not the error to report.
      try { releaseSource(); } catch {}
      results.postMessage({ error: { message: e.message, code: e.code, syscall: e.syscall, path: e.path, errno: e.errno } });
    }
  }
  if (digests.length > 0) results.postMessage({ digests });
  Atomics.sub(state, 0, 1);
  Atomics.notify(state, 0);
});
`;

export class WriteThread {
  readonly #worker: Worker;
  /** [0]: batches handed over and not yet carried out. */
  readonly #state: Int32Array;
  readonly #results: MessagePort;
  readonly #onDigest: (key: string, digest: { size: number; sha256: string }) => void;
  #batch: Operation[] = [];
  #bytes = 0;
  #ids = 0;
  #error: Error | undefined;

  /** `onDigest` is told each file's size and SHA-256 as they come back, on the main thread. */
  constructor(onDigest: (key: string, digest: { size: number; sha256: string }) => void) {
    this.#onDigest = onDigest;
    const shared = new SharedArrayBuffer(4);
    this.#state = new Int32Array(shared);
    const { port1, port2 } = new MessageChannel();
    this.#results = port1;
    this.#worker = new Worker(THREAD, {
      eval: true,
      // None of the parent's flags (a test runner's loaders would be started again in the thread).
      execArgv: [],
      workerData: { state: shared, results: port2 },
      transferList: [port2],
    });
    // A build that fails leaves it to stop(); it never keeps the process alive.
    this.#worker.unref();
  }

  mkdir(folder: string): void {
    this.#push(["mkdir", folder], 0);
  }

  /** A whole file of latin1 text; its digest is taken under `key` when given. */
  file(path: string, content: string, key: string | undefined): void {
    this.#push(["file", path, content, key ?? null], content.length);
  }

  /** Opens a file to be appended to; returns its id. */
  open(path: string, key: string | undefined): number {
    const id = this.#ids++;
    this.#push(["open", id, path, key ?? null], 0);
    return id;
  }

  /** Appends text (latin1) or bytes, which are the thread's from now on: the caller must not change them. */
  append(id: number, bytes: string | Uint8Array): void {
    this.#push(["append", id, bytes], bytes.length);
  }

  /** Appends bytes [start, end) of the file `from`, read by the thread once what came before is written. */
  appendRange(id: number, from: string, start: number, end: number): void {
    this.#push(["appendRange", id, from, start, end], 0);
  }

  close(id: number): void {
    this.#push(["close", id], 0);
  }

  link(from: string, to: string): void {
    this.#push(["link", from, to], 0);
  }

  copy(from: string, to: string): void {
    this.#push(["copy", from, to], 0);
  }

  move(from: string, to: string): void {
    this.#push(["move", from, to], 0);
  }

  /** Waits until every operation asked for is carried out; throws the failure that stopped one. */
  drain(): void {
    this.#post();
    for (let waiting = Atomics.load(this.#state, 0); waiting > 0; waiting = Atomics.load(this.#state, 0))
      Atomics.wait(this.#state, 0, waiting);
    this.#receive();
  }

  /** Drains, then ends the thread; it ends even when the drain throws. */
  stop(): void {
    try {
      this.drain();
    } finally {
      void this.#worker.terminate();
      this.#results.close();
    }
  }

  #push(op: Operation, bytes: number): void {
    this.#batch.push(op);
    this.#bytes += bytes;
    if (this.#batch.length >= BATCH_OPS || this.#bytes >= BATCH_BYTES) this.#post();
  }

  #post(): void {
    if (this.#batch.length === 0) return;
    Atomics.add(this.#state, 0, 1);
    this.#worker.postMessage(this.#batch);
    this.#batch = [];
    this.#bytes = 0;
    this.#receive();
    for (let waiting = Atomics.load(this.#state, 0); waiting > MAX_IN_FLIGHT; waiting = Atomics.load(this.#state, 0))
      Atomics.wait(this.#state, 0, waiting);
  }

  /** Takes the results sent back so far; throws the failure that stopped the thread, if one did. */
  #receive(): void {
    for (let message = receiveMessageOnPort(this.#results); message; message = receiveMessageOnPort(this.#results)) {
      const result = message.message as Result;
      if ("error" in result) {
        const { message: text, ...system } = result.error;
        this.#error ??= Object.assign(new Error(text), system);
      } else for (const [key, size, sha256] of result.digests) this.#onDigest(key, { size, sha256 });
    }
    if (this.#error) throw this.#error;
  }
}
