// @ts-check
// npm run bench:stats [-- --size-mb 1024] [--runs 1] [--gzip] [--work-dir DIR]
//
// Times `shopfront stats count` on a generated nginx combined log of the given size (default 1 GiB):
// downloads of 2,000 packages answered 200, download managers' 206 ranges (several per client),
// 304s, 404s, HEADs, bots, IPv6 clients, API requests and junk names, with realistic user agents.
// Runs the command under measure.mjs for its peak RSS and prints MB/s (of decompressed log) and the
// peak RSS. The log is generated once per size and kept in the work folder; the stats file is
// removed before each run so the log is counted, not skipped. Writes the results as JSON to
// bench-results/.
import { spawnSync } from "node:child_process";
import { closeSync, existsSync, mkdirSync, openSync, rmSync, statSync, writeFileSync, writeSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const CLI = join(ROOT, "lib", "cli.js");
const MEASURE = join(ROOT, "scripts", "measure.mjs");

const { values } = parseArgs({
  options: {
    "size-mb": { type: "string", default: "1024" },
    runs: { type: "string", default: "1" },
    gzip: { type: "boolean", default: false },
    "work-dir": { type: "string", default: join(ROOT, "bench-results", "work-stats") },
  },
});
const sizeBytes = Math.round(Number(values["size-mb"]) * 1024 * 1024);
const runs = Number(values.runs);
const work = resolve(values["work-dir"]);
if (!existsSync(CLI)) throw new Error("lib/cli.js is missing: run npm install first");

const PACKAGES = 2000;
const HOST = "primary";
const PATTERN = "/hbb/{name}/{name}.zip";

/** A small deterministic generator, so every run of the benchmark reads the same log. */
let seed = 42;
function random() {
  seed = (seed * 1664525 + 1013904223) >>> 0;
  return seed / 2 ** 32;
}
const pick = (/** @type {readonly string[]} */ list) => list[Math.floor(random() * list.length)];

const names = Array.from({ length: PACKAGES }, (_, i) => `app-${i.toString(36)}${i % 3 === 0 ? "_hd" : ""}`);
const agents = [
  "HomebrewBrowser/0.3.9e",
  "Mozilla/5.0 (Nintendo Wii; U; ; 3642; en)",
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
  "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0",
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.6 Mobile/15E148 Safari/604.1",
  "curl/8.5.0",
  "Wget/1.21.4",
  "aria2/1.37.0",
];
const bots = [
  "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
  "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)",
  "Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)",
  "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)",
];
const months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

function client() {
  const n = () => Math.floor(random() * 256);
  return random() < 0.15
    ? `2001:db8:${Math.floor(random() * 65536).toString(16)}::${Math.floor(random() * 65536).toString(16)}`
    : `${n()}.${n()}.${n()}.${n()}`;
}

/** The last ranged download: a download manager asks for the next part of the same file. */
let lastRange = { address: "", name: "", agent: "" };

function line(/** @type {number} */ i) {
  const second = Math.floor(i / 60);
  const time = `[${String(1 + (Math.floor(second / 86400) % 28)).padStart(2, "0")}/${months[10]}/2026:${String(Math.floor(second / 3600) % 24).padStart(2, "0")}:${String(Math.floor(second / 60) % 60).padStart(2, "0")}:${String(second % 60).padStart(2, "0")} +0000]`;
  const r = random();
  const name = pick(names);
  let method = "GET";
  let path = `/hbb/${name}/${name}.zip`;
  let status = 200;
  let bytes = 20000 + Math.floor(random() * 5e6);
  let agent = pick(agents);
  if (r < 0.1) status = 206;
  else if (r < 0.18) [status, bytes] = [304, 0];
  else if (r < 0.23) [path, status, bytes] = [`/hbb/${name}x/${name}x.zip`, 404, 153];
  else if (r < 0.27) [method, bytes] = ["HEAD", 0];
  else if (r < 0.32) agent = pick(bots);
  else if (r < 0.4) [path, bytes] = [`/v1/primary/package/${name}?hbb=1`, 900];
  else if (r < 0.41) [method, path, status] = ["-", "", 400];
  let address = client();
  if (status === 206) {
    if (lastRange.name && random() < 0.6) {
      ({ address, agent } = lastRange);
      path = `/hbb/${lastRange.name}/${lastRange.name}.zip`;
    } else lastRange = { address, name, agent };
  }
  const request = method === "-" ? "-" : `${method} ${path} HTTP/1.1`;
  return `${address} - - ${time} "${request}" ${status} ${bytes} "-" "${agent}"\n`;
}

/** Writes the log once per size (and kind); a later run reuses it. */
function generate() {
  const path = join(work, `access-${values["size-mb"]}mb.log`);
  if (existsSync(path) && statSync(path).size >= sizeBytes) return path;
  mkdirSync(work, { recursive: true });
  const started = performance.now();
  const fd = openSync(path, "w");
  let written = 0;
  let i = 0;
  while (written < sizeBytes) {
    let batch = "";
    while (batch.length < 4 * 1024 * 1024) batch += line(i++);
    written += writeSync(fd, batch);
  }
  closeSync(fd);
  console.error(
    `generated ${path}: ${(written / 1e6).toFixed(0)} MB, ${i} lines in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  return path;
}

function gzipped(/** @type {string} */ path) {
  const out = `${path}.gz`;
  if (!existsSync(out)) {
    const run = spawnSync("gzip", ["-k", "-1", path]);
    if (run.status !== 0) throw new Error(`gzip failed: ${run.stderr}`);
  }
  return out;
}

function catalogue() {
  const dir = join(work, "catalogue");
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, HOST), { recursive: true });
  writeFileSync(
    join(dir, "hosts.json"),
    JSON.stringify({
      default: HOST,
      hosts: [{ id: HOST, name: "Bench", host: "hbb.example.org", description: "Bench." }],
    }),
  );
  for (const name of names) writeFileSync(join(dir, HOST, `${name}.json`), "{}\n");
  return dir;
}

const log = generate();
const input = values.gzip ? gzipped(log) : log;
const catalogueDir = catalogue();
const logBytes = statSync(log).size;
const results = [];
for (let run = 0; run < runs; run++) {
  rmSync(join(catalogueDir, "stats"), { recursive: true, force: true });
  const args = ["stats", "count", input, "--catalogue", catalogueDir, "--host", HOST, "--url-pattern", PATTERN];
  const started = process.hrtime.bigint();
  const child = spawnSync(process.execPath, [MEASURE, CLI, ...args], { encoding: "utf8", maxBuffer: 1 << 26 });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const last = child.stderr
    .trim()
    .split("\n")
    .findLast((l) => l.startsWith('{"maxRssKb":'));
  if (child.status !== 0 || !last) throw new Error(`stats count failed (exit ${child.status}):\n${child.stderr}`);
  const rssMb = JSON.parse(last).maxRssKb / 1024;
  const mbPerSecond = logBytes / 1e6 / seconds;
  results.push({ seconds, mbPerSecond, rssMb, summary: child.stdout.split("\n")[0] });
  console.log(
    `run ${run + 1}: ${(logBytes / 1e6).toFixed(0)} MB${values.gzip ? " (gzipped)" : ""} in ${seconds.toFixed(1)} s = ${mbPerSecond.toFixed(0)} MB/s, peak RSS ${rssMb.toFixed(0)} MB`,
  );
  console.log(`  ${child.stdout.split("\n")[0]}`);
}

const out = join(ROOT, "bench-results", `stats-${new Date().toISOString().replace(/[:.]/g, "-")}.json`);
mkdirSync(dirname(out), { recursive: true });
writeFileSync(
  out,
  `${JSON.stringify(
    {
      kind: "stats count",
      logBytes,
      gzip: values.gzip,
      packages: PACKAGES,
      node: process.version,
      cpus: cpus().length,
      cpu: cpus()[0]?.model,
      memoryGb: totalmem() / 2 ** 30,
      runs: results,
    },
    null,
    2,
  )}\n`,
);
console.log(`results: ${out}`);
