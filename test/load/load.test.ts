// A bounded load test of the preview server on 127.0.0.1: mixed routes, several rounds of thousands
// of requests: every one answered, none with an error or a 5xx, the mix of 200s and 404s as sent.
// Speed and memory are figures, not checks: `npm run bench` measures them (scripts/bench-serve.mjs).
import { fork, type ChildProcess } from "node:child_process";
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

beforeAll(async () => {
  const site = await buildSite();
  child = fork(join(ROOT, "scripts", "previewWithHeap.mjs"), [site.root], {
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

/** One round of `PER_ROUND` requests from 16 connections. */
function oneRound(requests: autocannon.Request[]): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon({ url: server.url, connections: 16, amount: PER_ROUND, requests }, (err, result) =>
      err ? reject(err) : resolve(result),
    );
  });
}

describe("the preview server under load", () => {
  it(`answers ${ROUNDS} rounds of ${PER_ROUND} mixed requests with no error, each as its route answers`, async () => {
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
    for (let round = 0; round < ROUNDS; round++) {
      const result = await oneRound(requests);
      expect(result.errors).toBe(0);
      expect(result.timeouts).toBe(0);
      expect(result["5xx"]).toBe(0);
      expect(result["2xx"] + result["4xx"]).toBe(PER_ROUND);
      // Six of the eight routes answer 200, two 404: the mix must come back as sent.
      expect(result["4xx"]).toBeGreaterThan(PER_ROUND / 8);
    }
  });
});
