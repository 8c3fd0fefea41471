// A bounded load test of the preview server on 127.0.0.1: mixed routes, several rounds of thousands
// of requests. No errors, no 5xx, no growing memory; requests/s and p99 are reported as figures.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import autocannon from "autocannon";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "./helpers.js";
import { buildSite, freePort, startProcess, type RunningServer } from "./servers/common.js";

const ROUNDS = 5;
const PER_ROUND = 5000;

let server: RunningServer;

function rssMb(): number {
  const status = readFileSync(`/proc/${server.pid!}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / 1024;
}

beforeAll(async () => {
  const site = await buildSite();
  const port = await freePort();
  server = await startProcess(process.execPath, [join(ROOT, "lib", "cli.js"), "serve", "--dir", site.root, "--port", String(port)], port);
});
afterAll(() => server?.stop());

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
      figures.push(`round ${round + 1}: ${Math.round(PER_ROUND / seconds)} requests/s, p99 ${result.latency.p99} ms, RSS ${rss[round]!.toFixed(0)} MB`);
    }
    console.log(`preview server load (${ROUNDS} x ${PER_ROUND} requests, 16 connections):\n${figures.join("\n")}`);
    // After the first round has warmed it up, memory stays flat. The garbage collector makes RSS
    // swing by several MB, but a leak raises the floor: even 1 kB per request would leave the lower
    // of the last two rounds 15 MB or more above the first.
    expect(Math.min(...rss.slice(-2)) - rss[0]!).toBeLessThan(15);
  });
});
