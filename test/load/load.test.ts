// A bounded load test of the preview server on 127.0.0.1: mixed routes, several rounds of thousands
// of requests. No errors, no 5xx, no growing heap; requests/s, p99 and RSS are reported as figures.
import { fork, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import autocannon from "autocannon";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../support/helpers.js";
import { buildSite } from "../support/servers/common.js";

const ROUNDS = 5;
const PER_ROUND = 5000;

let child: ChildProcess;
let server: { url: string };

/** The next message from the server process. */
function reply<T>(): Promise<T> {
  return new Promise((resolve, reject) => {
    const exited = (code: number | null) => reject(new Error(`the preview server exited (${code})`));
    child.once("exit", exited);
    child.once("message", (m) => {
      child.off("exit", exited);
      resolve(m as T);
    });
  });
}

async function heapMb(): Promise<number> {
  const answer = reply<{ heapMb: number }>();
  child.send("heap");
  return (await answer).heapMb;
}

function rssMb(): number {
  const status = readFileSync(`/proc/${child.pid!}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / 1024;
}

beforeAll(async () => {
  const site = await buildSite();
  child = fork(join(ROOT, "test", "support", "servers", "previewWithHeap.mjs"), [site.root], {
    execArgv: ["--expose-gc"],
    stdio: ["ignore", "pipe", "inherit", "ipc"],
  });
  child.stdout!.resume();
  server = await reply<{ url: string }>();
});
afterAll(async () => {
  const exited = new Promise((r) => child.once("exit", r));
  child.send("stop");
  await exited;
});

/**
 * One round, and the seconds from its start to its last response: autocannon's own rate and
 * duration count whole-second ticks, which a round of a second or two makes meaningless.
 */
function oneRound(requests: autocannon.Request[]): Promise<{ result: autocannon.Result; seconds: number }> {
  const started = performance.now();
  let last = started;
  return new Promise((resolve, reject) => {
    const instance = autocannon({ url: server.url, connections: 16, amount: PER_ROUND, requests }, (err, result) =>
      err ? reject(err) : resolve({ result, seconds: (last - started) / 1000 }),
    );
    instance.on("response", () => (last = performance.now()));
  });
}

describe("the preview server under load", () => {
  it(`answers ${ROUNDS} rounds of ${PER_ROUND} mixed requests with no error and no memory growth`, async () => {
    const requests = [
      "/v1/hosts",
      "/v1/primary/packages",
      "/v1/primary/package/snake",
      "/v2/primary/packages?package=chart.js",
      "/v2/themes/packages/",
      "/v1/primary/package/no-such-package",
      "/v1/primary/package/..%2F..%2Fsecret.txt",
      "/v2/primary/packages?package=a&package=b",
    ].map((path) => ({ method: "GET" as const, path }));
    const rss: number[] = [];
    const heap: number[] = [];
    const figures: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const { result, seconds } = await oneRound(requests);
      expect(result.errors).toBe(0);
      expect(result.timeouts).toBe(0);
      expect(result["5xx"]).toBe(0);
      expect(result["2xx"] + result["4xx"]).toBe(PER_ROUND);
      // Six of the eight routes answer 200, two 404: the mix must come back as sent.
      expect(result["4xx"]).toBeGreaterThan(PER_ROUND / 8);
      rss.push(rssMb());
      heap.push(await heapMb());
      figures.push(
        `round ${round + 1}: ${Math.round(PER_ROUND / seconds)} requests/s, p99 ${result.latency.p99} ms, RSS ${rss[round]!.toFixed(0)} MB, heap after GC ${heap[round]!.toFixed(1)} MB`,
      );
    }
    console.log(`preview server load (${ROUNDS} x ${PER_ROUND} requests, 16 connections):\n${figures.join("\n")}`);
    // After the first round has warmed it up, what stays alive stays the same (within a few hundred
    // kB). RSS is only reported: V8 grows its heap to the load by 20 MB or so with no leak. A leak
    // of even 100 bytes per request would leave 2 MB more alive after the last round than after the
    // first.
    expect(heap[ROUNDS - 1]! - heap[0]!).toBeLessThan(2);
  });
});
