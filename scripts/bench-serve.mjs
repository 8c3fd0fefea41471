// @ts-check
// npm run bench:serve [-- --rounds 5] [--requests 5000] [--packages 10000]
//
// What the tests check as behaviour, measured here as figures (reported, never asserted):
//   load    the preview server as `shopfront serve` runs it (scripts/previewWithHeap.mjs, a process of
//           its own) over the conformance fixture: --rounds of --requests mixed requests from 16
//           connections; per round requests/s, p99 latency, RSS, and the JavaScript heap still alive
//           after a full garbage collection, whose growth from the first round to the last tells a
//           leak from V8 growing its heap to the load (test/load/load.test.ts checks the answers)
//   search  the browse site of a generated host of --packages packages in Debian's chromium: from
//           the input event of each of 10 queries to the list updated, and to the next frame
//           painted (test/browser/site.test.ts checks that the list narrows)
// Writes the results as JSON to bench-results/.
import { execFileSync, fork } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { chromium } from "playwright-core";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "5" },
    requests: { type: "string", default: "5000" },
    packages: { type: "string", default: "10000" },
  },
});
const ROUNDS = Number(values.rounds);
const PER_ROUND = Number(values.requests);
if (!existsSync(join(ROOT, "lib", "cli.js"))) throw new Error("lib/cli.js is missing: run npm install first");
const { buildCatalogue } = await import(join(ROOT, "lib", "build", "buildCatalogue.js"));
const { servePreview } = await import(join(ROOT, "lib", "serve", "servePreview.js"));

const work = mkdtempSync(join(existsSync("/dev/shm") ? "/dev/shm" : tmpdir(), "shopfront-bench-serve-"));

/** Builds a catalogue into `work/NAME/dist`; returns the output folder. */
async function built(catalogue, name) {
  const out = join(work, name, "dist");
  const result = await buildCatalogue({ catalogueDir: catalogue, outDir: out });
  if (!result.built) throw new Error(`${catalogue} did not build: ${JSON.stringify(result.problems)}`);
  return out;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function load() {
  const catalogue = join(work, "conformance", "catalogue");
  cpSync(join(ROOT, "test", "fixtures", "conformance", "catalogue"), catalogue, { recursive: true });
  const child = fork(join(ROOT, "scripts", "previewWithHeap.mjs"), [await built(catalogue, "conformance")], {
    execArgv: ["--expose-gc"],
    stdio: ["ignore", "ignore", "inherit", "ipc"],
  });
  /** @type {<T>() => Promise<T>} */
  const reply = () => new Promise((resolve) => child.once("message", resolve));
  const { url } = /** @type {{ url: string }} */ (await reply());
  const requests = [
    "/v1/hosts",
    "/v1/primary/packages",
    "/v1/primary/package/snake",
    "/v2/primary/packages?package=chart.js",
    "/v2/themes/packages/",
    "/v1/primary/package/no-such-package",
    "/v2/primary/packages?package=a&package=b",
  ].map((path) => ({ method: "GET", path }));
  const rounds = [];
  for (let round = 0; round < ROUNDS; round++) {
    const started = performance.now();
    let last = started;
    const result = await new Promise((resolve, reject) => {
      const instance = autocannon({ url, connections: 16, amount: PER_ROUND, requests }, (err, r) =>
        err ? reject(err) : resolve(r),
      );
      instance.on("response", () => (last = performance.now()));
    });
    const heap = /** @type {Promise<{ heapMb: number }>} */ (reply());
    child.send("heap");
    const rss = Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"))?.[1]) / 1024;
    rounds.push({
      requestsPerS: Math.round(PER_ROUND / ((last - started) / 1000)),
      p99Ms: result.latency.p99,
      errors: result.errors + result.timeouts + result["5xx"],
      rssMb: +rss.toFixed(1),
      heapMb: +(await heap).heapMb.toFixed(2),
    });
  }
  const exited = new Promise((r) => child.once("exit", r));
  child.send("stop");
  await exited;
  return { rounds, heapGrowthMb: +(rounds.at(-1).heapMb - rounds[0].heapMb).toFixed(2) };
}

async function search() {
  const catalogue = join(work, "large", "catalogue");
  execFileSync(process.execPath, [
    join(ROOT, "scripts", "gen-catalogue.mjs"),
    catalogue,
    values.packages,
    "1",
    "3",
    "--coders=real",
    "--stats",
  ]);
  const host = JSON.parse(readFileSync(join(catalogue, "hosts.json"), "utf8")).hosts[0].id;
  const server = await servePreview({ dir: await built(catalogue, "large"), host: "127.0.0.1", port: 0 });
  const browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
  });
  try {
    const page = await browser.newPage();
    await page.goto(`${server.url}/browse/${host}/`);
    const index = page.waitForResponse((r) => r.url().endsWith("/search.json"));
    await page.getByLabel("Search packages").focus();
    await index;
    await page.waitForFunction(() => document.querySelectorAll("#coder option").length > 1);
    const timings = await page.evaluate(
      async (queries) => {
        const input = /** @type {HTMLInputElement} */ (document.getElementById("q"));
        const status = /** @type {HTMLElement} */ (document.getElementById("search-status"));
        const out = [];
        for (const query of queries) {
          const changed = new Promise((resolve) => {
            const observer = new MutationObserver(() => {
              observer.disconnect();
              resolve(undefined);
            });
            observer.observe(status, { childList: true, characterData: true, subtree: true });
          });
          const start = performance.now();
          input.value = query;
          input.dispatchEvent(new Event("input", { bubbles: true }));
          await changed;
          const update = performance.now() - start;
          await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve)));
          out.push({ update, painted: performance.now() - start });
        }
        return out;
      },
      ["a", "ab", "abc", "e", "em", "emu", "z", "zz", "q", "qu"],
    );
    const figure = (xs) => ({ median: +median(xs).toFixed(1), max: +Math.max(...xs).toFixed(1) });
    return {
      packages: Number(values.packages),
      keystrokeToListMs: figure(timings.map((t) => t.update)),
      keystrokeToPaintMs: figure(timings.map((t) => t.painted)),
    };
  } finally {
    await browser.close();
    await server.close();
  }
}

try {
  const report = { date: new Date().toISOString(), node: process.version, load: await load(), search: await search() };
  console.log(`preview server load (${ROUNDS} x ${PER_ROUND} mixed requests, 16 connections):`);
  console.log(["round", "requests/s", "p99", "errors", "RSS", "heap after GC"].join("  "));
  report.load.rounds.forEach((r, i) =>
    console.log(
      [
        String(i + 1).padEnd(5),
        String(r.requestsPerS).padEnd(10),
        `${r.p99Ms} ms`,
        String(r.errors).padEnd(6),
        `${r.rssMb} MB`,
        `${r.heapMb} MB`,
      ].join("  "),
    ),
  );
  console.log(`heap growth from the first round to the last: ${report.load.heapGrowthMb} MB`);
  const { keystrokeToListMs: list, keystrokeToPaintMs: paint } = report.search;
  console.log(`search of ${report.search.packages} packages in chromium (10 queries of 1 to 3 letters):`);
  console.log(`  input event to the list updated: median ${list.median} ms, slowest ${list.max} ms`);
  console.log(`  input event to the next frame painted: median ${paint.median} ms, slowest ${paint.max} ms`);
  const outDir = join(ROOT, "bench-results");
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, "serve-latest.json"), `${JSON.stringify(report, null, 2)}\n`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
