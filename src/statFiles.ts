// The signatures of many files at once. A rebuild of a large catalogue must look at every manifest
// (an edit in place changes nothing else), and lstat is kernel time, so past a few thousand files
// the work is shared with worker threads, one per core.
import { lstatSync } from "node:fs";
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import type { Signature } from "./buildState.js";

/** Below this many files, starting workers costs more than it saves. */
const PARALLEL_FROM = 20_000;

const FIELDS = 4;

/** Fills `out` from `start` with size, mtimeMs, ctimeMs and ino of each path; size -1 for a path that is gone. */
function statInto(paths: readonly string[], out: Float64Array): void {
  for (let i = 0; i < paths.length; i++) {
    const stats = lstatSync(paths[i]!, { throwIfNoEntry: false });
    out[i * FIELDS] = stats ? stats.size : -1;
    out[i * FIELDS + 1] = stats ? stats.mtimeMs : 0;
    out[i * FIELDS + 2] = stats ? stats.ctimeMs : 0;
    out[i * FIELDS + 3] = stats ? stats.ino : 0;
  }
}

// The same loop for a worker thread, self-contained so it runs from lib/ and from source alike.
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const { lstatSync } = require("node:fs");
const out = new Float64Array(workerData.length * ${FIELDS});
workerData.forEach((path, i) => {
  const stats = lstatSync(path, { throwIfNoEntry: false });
  out[i * ${FIELDS}] = stats ? stats.size : -1;
  out[i * ${FIELDS} + 1] = stats ? stats.mtimeMs : 0;
  out[i * ${FIELDS} + 2] = stats ? stats.ctimeMs : 0;
  out[i * ${FIELDS} + 3] = stats ? stats.ino : 0;
});
parentPort.postMessage(out, [out.buffer]);
`;

function statInWorker(paths: readonly string[]): Promise<Float64Array> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: paths });
    worker.once("message", (out: Float64Array) => resolve(out));
    worker.once("error", reject);
  });
}

/** The signature of each path (undefined for one that does not exist), in order. */
export async function statFiles(paths: readonly string[]): Promise<(Signature | undefined)[]> {
  const out = new Float64Array(paths.length * FIELDS);
  const parts = paths.length < PARALLEL_FROM ? 1 : Math.min(availableParallelism(), 8);
  const size = Math.ceil(paths.length / parts);
  // The main thread takes the first share while the workers take the others.
  const others = Array.from({ length: parts - 1 }, (_, k) => paths.slice((k + 1) * size, (k + 2) * size));
  const pending = others.map(statInWorker);
  const first = new Float64Array(Math.min(size, paths.length) * FIELDS);
  statInto(paths.slice(0, size), first);
  out.set(first, 0);
  (await Promise.all(pending)).forEach((part, k) => out.set(part, (k + 1) * size * FIELDS));
  return paths.map((_, i) =>
    out[i * FIELDS]! < 0 ? undefined : { size: out[i * FIELDS]!, mtimeMs: out[i * FIELDS + 1]!, ctimeMs: out[i * FIELDS + 2]!, ino: out[i * FIELDS + 3]! },
  );
}
