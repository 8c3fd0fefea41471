// The one bounded GET every reader of a deployment uses (src/util/fetchBounded.ts), and check's raw
// request over its body reader, against a server on 127.0.0.1 started here: a body past its cap, a redirect to another origin, a server that stalls
// and one that trickles, each ends as a failure that says why; the redirect rule at every hop.
import type { Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { close, endless, listen } from "../support/hostileServer.js";
import { CHECK_BODY_BYTES, sendRaw } from "../../src/check/runConformance.js";
import { deadlineFor, fetchBounded, fetchDigestBounded, redirectProblem } from "../../src/util/fetchBounded.js";

describe("redirectProblem, at each hop", () => {
  const origin = new URL("http://store.example/api/");
  const at = (url: string) => new URL(url);

  it("follows one within the origin, and http to https on the same host", () => {
    expect(redirectProblem(at("http://store.example/a"), at("http://store.example/b"), origin)).toBeUndefined();
    expect(redirectProblem(at("http://store.example/a"), at("https://store.example/a"), origin)).toBeUndefined();
  });

  it("refuses another host, and https back to http on the same host (http -> https -> http)", () => {
    expect(redirectProblem(at("http://store.example/a"), at("http://cdn.example/a"), origin)).toMatch(
      /^redirects to http:\/\/cdn\.example\/a, outside http:\/\/store\.example: not followed/,
    );
    expect(redirectProblem(at("https://store.example/a"), at("http://store.example/a"), origin)).toBe(
      "redirects from https://store.example/a to http://store.example/a, from https to http: not followed",
    );
  });

  it("refuses https to http even within an https origin's host on another port", () => {
    const secure = new URL("https://store.example/");
    expect(redirectProblem(at("https://store.example/a"), at("http://store.example/a"), secure)).toMatch(/outside/);
  });
});

describe("fetchBounded against a server", () => {
  const requests: string[] = [];
  const elsewhere: string[] = [];
  let server: Server;
  let other: Server;
  let base = "";
  let otherBase = "";
  const timers = new Set<NodeJS.Timeout>();

  beforeAll(async () => {
    [other, otherBase] = await listen((req, res) => {
      elsewhere.push(req.url ?? "");
      res.end("elsewhere");
    });
    [server, base] = await listen((req, res) => {
      const url = req.url ?? "";
      requests.push(url);
      if (url === "/small") return void res.end("0123456789");
      if (url === "/endless") return endless(res);
      if (url === "/declared") return void res.writeHead(200, { "content-length": "1000000" }).end();
      if (url === "/away") return void res.writeHead(302, { location: `${otherBase}/file` }).end();
      if (url === "/moved") return void res.writeHead(301, { location: "/small" }).end();
      if (url === "/loop") return void res.writeHead(302, { location: "/loop" }).end();
      if (url === "/stall") {
        res.writeHead(200);
        return void res.write("a");
      }
      if (url === "/trickle") {
        res.writeHead(200);
        const timer = setInterval(() => res.write("a"), 20);
        timers.add(timer);
        res.once("close", () => clearInterval(timer));
        return;
      }
      res.writeHead(404).end();
    });
  });

  afterAll(async () => {
    for (const timer of timers) clearInterval(timer);
    await close(server);
    await close(other);
  });

  const req = (cap: number) => ({ origin: new URL(base), cap });

  it("reads a body up to its cap, and its digest", async () => {
    expect(await fetchBounded(`${base}/small`, req(10))).toEqual({ body: Buffer.from("0123456789") });
    expect(await fetchDigestBounded(`${base}/small`, req(10))).toMatchObject({ size: 10 });
    expect(await fetchBounded(`${base}/missing`, req(10))).toEqual({ problem: "answered 404", status: 404 });
  });

  it("stops an endless body at its cap, and one whose declared length passes it before reading", async () => {
    expect(await fetchBounded(`${base}/endless`, req(1_000_000))).toEqual({
      problem: "longer than 1000000 bytes (not read further)",
      longer: true,
    });
    expect(await fetchBounded(`${base}/declared`, req(1000))).toMatchObject({ longer: true });
  });

  it("follows a redirect within the origin, names one to another origin and never asks it", async () => {
    expect(await fetchBounded(`${base}/moved`, req(10))).toEqual({ body: Buffer.from("0123456789") });
    const away = await fetchBounded(`${base}/away`, req(10));
    expect(away).toEqual({ problem: expect.stringMatching(/^redirects to http:\/\/127\.0\.0\.1:\d+\/file, outside/) });
    expect(elsewhere).toEqual([]);
    expect(await fetchBounded(`${base}/loop`, req(10))).toEqual({ problem: "redirects more than 5 times" });
  });

  it("check's raw request reads a body up to its cap too, and leaves a stalled server", async () => {
    await expect(sendRaw(base, "GET", "/endless")).rejects.toThrow(
      `a body longer than ${CHECK_BODY_BYTES} bytes (not read further)`,
    );
    await expect(sendRaw(base, "GET", "/endless", { cap: 100 })).rejects.toThrow("a body longer than 100 bytes");
    await expect(sendRaw(base, "GET", "/stall", { idleMs: 300 })).rejects.toThrow("no byte within 0.3 s");
    expect((await sendRaw(base, "GET", "/small")).body.toString()).toBe("0123456789");
  });

  it("leaves a server that sends no byte for the idle time", async () => {
    const got = await fetchBounded(`${base}/stall`, {
      ...req(1000),
      timing: { idleMs: 300, baseMs: 60_000, bytesPerSecond: 1 },
    });
    expect(got).toEqual({ problem: "no byte for 0.3 s", timeout: true });
  });

  it("leaves a server that trickles past the deadline counted from the size expected", async () => {
    const timing = { idleMs: 60_000, baseMs: 300, bytesPerSecond: 1_000_000 };
    expect(deadlineFor(1000, timing)).toBe(301);
    const got = await fetchBounded(`${base}/trickle`, { ...req(1_000_000), expected: 1000, timing });
    expect(got).toEqual({ problem: "not done within 0.301 s", timeout: true });
  });
});
