// @ts-check
// npm run bench:files [-- --packages 2000] [--files-mb 1024] [--runs 3] [--hosts 2] [--fs disk|shm]
//                      [--work-dir DIR] [--floor-dir ../shared/bench]
//
// A catalogue whose packages carry their files, against a floor that copies the same files. The
// manifests come from the shared kit's generator (--floor-dir, as in bench.mjs; else this
// repository's scripts/gen-catalogue.mjs), real-shaped coders, over --hosts hosts; each package gets
// files shaped like real homebrew: apps/<name>/boot.dol (boot.elf for one in ten) of varied sizes
// (log-uniform over a factor of 100, scaled so the binaries total --files-mb), a meta.xml that agrees
// with its manifest and a 128x48 icon.png. Half the packages (every other one, in name order) keep
// them as <name>.zip, made reproducibly (deflated, fixed dates), the other half as the folder
// <name>/, which the build zips itself: a catalogue kept in git holds either. The manifests leave
// zip_size, extracted and package_type to the files, as the docs suggest.
//
// The floor is the shared floor.mjs --filtered (the API files) followed by scripts/floor-package-files.mjs,
// which copies every zip, deflates every folder's files once with Node's zlib, and copies the
// unpacked binary, icon and meta.xml, made beforehand, to their stored paths: it unpacks, checks and
// hashes nothing (see its header for why that is the least work). Measured, runs alternating with the floor's:
//   cold        an empty output folder (build --no-site: the floor writes no site)
//   no-op       a rebuild with nothing changed
//   zip         a rebuild after one package's zip was replaced (a new zip renamed over it, as git does)
//   boot.dol    a rebuild after one folder's boot.dol was edited in place (same size, other bytes)
//   clone       a CI job's fresh clone: the catalogue is kept in git, a commit replaced one zip or
//               edited one boot.dol, and the build runs in a `git clone` of it at the same path (every
//               file with a new inode and dates), with the last output and state kept
//   config      config nginx on the catalogue (it needs the names only)
//   with site   the default build (API and browse site): cold once, then boot.dol edits
// each with its share of the floor's cold run; for each rebuild the first after a cold build and the
// median of --runs more, the packages whose files it read and the files it wrote, and peak RSS.
// Writes the results as JSON to bench-results/.
import { spawnSync } from "node:child_process";
import {
  closeSync,
  existsSync,
  linkSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { cpus, loadavg, totalmem } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { crc32, deflateRawSync } from "node:zlib";
import { png, rawZip } from "../test/fixtures/package-files/fixture-bytes.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const CLI = join(ROOT, "lib", "cli.js");
const MEASURE = join(ROOT, "scripts", "measure.mjs");
const FLOOR_FILES = join(ROOT, "scripts", "floor-package-files.mjs");

const { values } = parseArgs({
  options: {
    packages: { type: "string", default: "2000" },
    "files-mb": { type: "string", default: "1024" },
    runs: { type: "string", default: "3" },
    hosts: { type: "string", default: "2" },
    fs: { type: "string", default: "disk" },
    "work-dir": { type: "string", default: join(ROOT, "bench-results", "work-files") },
    "floor-dir": { type: "string", default: resolve(ROOT, "..", "shared", "bench") },
  },
});
const packageCount = Number(values.packages);
const filesBytes = Math.round(Number(values["files-mb"]) * 1024 * 1024);
const runs = Number(values.runs);
const FLOOR_DIR = resolve(values["floor-dir"]);
const hasFloor = existsSync(join(FLOOR_DIR, "floor.mjs")) && existsSync(join(FLOOR_DIR, "gen-catalogue.mjs"));
const GENERATOR = hasFloor ? join(FLOOR_DIR, "gen-catalogue.mjs") : join(ROOT, "scripts", "gen-catalogue.mjs");
const base =
  values.fs === "shm"
    ? "/dev/shm/shopfront-bench-files"
    : values.fs === "disk"
      ? resolve(values["work-dir"])
      : (() => {
          throw new Error(`--fs ${values.fs}: expected disk or shm`);
        })();
if (!existsSync(CLI)) throw new Error("lib/cli.js is missing: run npm install first");

/** Runs a script under measure.mjs; returns seconds, peak RSS in MB and stdout; throws when it fails. */
function timed(script, args) {
  const started = process.hrtime.bigint();
  const run = spawnSync(process.execPath, [MEASURE, script, ...args], { encoding: "utf8", maxBuffer: 1 << 26 });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const lines = run.stderr.trim().split("\n");
  const { maxRssKb } = JSON.parse(lines.findLast((l) => l.startsWith('{"maxRssKb":')) ?? '{"maxRssKb":null}');
  if (run.status !== 0) throw new Error(`${script} ${args.join(" ")} failed:\n${run.stdout}\n${run.stderr}`);
  return { seconds, rssMb: maxRssKb / 1024, stdout: run.stdout };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

// xorshift32: the same bytes on every machine for the same arguments.
let seed = 0x9e3779b9;
function random() {
  seed ^= seed << 13;
  seed >>>= 0;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  seed >>>= 0;
  return seed / 2 ** 32;
}

/**
 * Bytes that look like code to a compressor: noise with a PowerPC opcode byte in every word (deflate
 * keeps about four fifths of it, as it does of real binaries). Binaries are slices of one pool.
 */
const POOL_BYTES = 16 << 20;
const pool = Buffer.alloc(POOL_BYTES);
for (let i = 0; i < POOL_BYTES; i += 4) {
  const word = (random() * 2 ** 32) >>> 0;
  pool.writeUInt32BE(((word & 0x00ffffff) | 0x38000000) >>> 0, i);
}

/** A binary of `size` bytes for package `i`: a DOL header (or an ELF's), then a slice of the pool marked with `round`. */
function binary(i, size, elf, round = 0) {
  const header = Buffer.alloc(elf ? 0x34 : 0x100);
  if (elf) {
    Buffer.from([0x7f, 0x45, 0x4c, 0x46, 1, 2, 1]).copy(header, 0);
    header.writeUInt16BE(2, 0x10);
    header.writeUInt16BE(20, 0x12);
    header.writeUInt32BE(1, 0x14);
    header.writeUInt32BE(0x80004000, 0x18);
  } else {
    header.writeUInt32BE(0x100, 0x00);
    header.writeUInt32BE(0x80003100, 0x48);
    header.writeUInt32BE(size - 0x100, 0x90);
    header.writeUInt32BE(0x80003100 + size - 0x100, 0xd8);
    header.writeUInt32BE(0x40, 0xdc);
    header.writeUInt32BE(0x80003100, 0xe0);
  }
  const body = Buffer.alloc(size - header.length);
  const start = ((i * 7919 + round * 104729) * 64) % (POOL_BYTES - 64);
  for (let at = 0; at < body.length;) {
    const from = at === 0 ? start : 0;
    at += pool.copy(body, at, from, Math.min(POOL_BYTES, from + body.length - at));
  }
  body.writeUInt32BE(i, 0);
  body.writeUInt32BE(round, 4);
  return Buffer.concat([header, body]);
}

const xml = (s) => String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
/** meta.xml's date: YYYYMMDDhhmmss in UTC. */
const metaDate = (seconds) => new Date(seconds * 1000).toISOString().replace(/[-:T]/g, "").slice(0, 14);

function metaXml(m) {
  return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<app version="1">
\t<name>${xml(m.display_name)}</name>
\t<coder>${xml(m.coder)}</coder>
\t<version>${xml(m.version)}</version>
\t<release_date>${metaDate(m.release_date)}</release_date>
\t<short_description>${xml(m.short_description)}</short_description>
\t<long_description>${xml(m.long_description)}</long_description>
\t<ahb_access/>
</app>
`;
}

function icon(i) {
  const a = [(i * 37) % 256, (i * 91) % 256, (i * 53) % 256];
  const b = [255 - a[0], 255 - a[1], 255 - a[2]];
  return png(128, 48, (x, y) => (((x >> 4) + (y >> 4) + i) % 2 === 0 ? a : b));
}

/** A package's zip, as a release has it: the folders, then the files, deflated, with fixed dates. */
function zipOf(name, files) {
  return rawZip([
    { name: "apps/" },
    { name: `apps/${name}/` },
    ...files.map(([file, data]) => ({
      name: `apps/${name}/${file}`,
      data,
      method: 8,
      packed: deflateRawSync(data, { level: 1 }),
      crc: crc32(data),
    })),
  ]);
}

function write(path, bytes) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, bytes);
}

/** Writes the catalogue with its package files, and the floor's copies of every stored file. */
function generate(catalogue, floorSources) {
  spawnSync(process.execPath, [GENERATOR, catalogue, String(packageCount), values.hosts, "--coders=real"], {
    stdio: "ignore",
  });
  const hostsFile = JSON.parse(readFileSync(join(catalogue, "hosts.json"), "utf8"));
  const manifests = [];
  for (const { id } of hostsFile.hosts)
    for (const file of readdirSync(join(catalogue, id)).sort())
      if (file.endsWith(".json")) manifests.push({ host: id, name: file.slice(0, -".json".length) });
  const weights = manifests.map(() => Math.exp(random() * Math.log(100)));
  const total = weights.reduce((a, b) => a + b, 0);
  let zipBytes = 0;
  const packages = manifests.map(({ host, name }, i) => {
    const path = join(catalogue, host, `${name}.json`);
    const m = JSON.parse(readFileSync(path, "utf8"));
    delete m.zip_size;
    delete m.extracted;
    delete m.package_type;
    writeFileSync(path, `${JSON.stringify(m, null, 2)}\n`);
    const elf = i % 10 === 9;
    const size = Math.min(POOL_BYTES, Math.max(4096, Math.round((weights[i] / total) * filesBytes)));
    const files = [
      [elf ? "boot.elf" : "boot.dol", binary(i, size, elf)],
      ["icon.png", icon(i)],
      ["meta.xml", Buffer.from(metaXml(m))],
    ];
    const zip = zipOf(name, files);
    zipBytes += zip.length;
    const sources = join(floorSources, host, name);
    mkdirSync(sources, { recursive: true });
    const kind = i % 2 === 1 ? "zip" : "folder";
    if (kind === "zip") {
      write(join(catalogue, host, `${name}.zip`), zip);
      linkSync(join(catalogue, host, `${name}.zip`), join(sources, `${name}.zip`));
      for (const [file, data] of files) writeFileSync(join(sources, file), data);
    } else {
      for (const [file, data] of files) {
        write(join(catalogue, host, name, "apps", name, file), data);
        linkSync(join(catalogue, host, name, "apps", name, file), join(sources, file));
      }
    }
    return { host, name, kind, elf, size, files };
  });
  return { defaultHost: hostsFile.default, packages, zipBytes };
}

/** Removes an output of ours: the link and its hidden sibling folder. */
function removeOutput(out) {
  rmSync(out, { recursive: true, force: true });
  rmSync(join(dirname(out), `.${out.split("/").pop()}.shopfront`), { recursive: true, force: true });
}

rmSync(base, { recursive: true, force: true });
mkdirSync(base, { recursive: true });
const catalogue = join(base, "catalogue");
const floorSources = join(base, "floor-sources");
const generated = generate(catalogue, floorSources);
// Kept in git, as a catalogue built in CI is (setup, not timed).
git(["init", "-q", "-b", "main"]);
git(["add", "-A"]);
git(["commit", "-q", "-m", "generated"]);
const floorOut = join(base, "floor");
const ours = join(base, "dist");
const siteOut = join(base, "site-dist");
process.stderr.write(
  `generated ${generated.packages.length} packages, zips of ${(generated.zipBytes / 2 ** 20).toFixed(0)} MB in all\n`,
);

/** A build of ours; its summary (build --format json). */
function build(out, site = false) {
  const t = timed(CLI, [
    "build",
    "--format",
    "json",
    ...(site ? [] : ["--no-site"]),
    "--catalogue",
    catalogue,
    "--out",
    out,
  ]);
  const { summary } = JSON.parse(t.stdout);
  return { ...t, summary };
}

const cold = { floor: [], ours: [], floorRss: [], oursRss: [], floorApi: [] };
for (let r = 0; r < runs; r++) {
  const order = r % 2 === 0 ? ["floor", "ours"] : ["ours", "floor"];
  for (const who of order) {
    if (who === "floor") {
      rmSync(floorOut, { recursive: true, force: true });
      const api = hasFloor ? timed(join(FLOOR_DIR, "floor.mjs"), [catalogue, floorOut, "--filtered"]) : undefined;
      const files = timed(FLOOR_FILES, [floorSources, floorOut, generated.defaultHost]);
      cold.floor.push((api?.seconds ?? 0) + files.seconds);
      cold.floorApi.push(api?.seconds ?? NaN);
      cold.floorRss.push(Math.max(api?.rssMb ?? 0, files.rssMb));
    } else {
      removeOutput(ours);
      const t = build(ours);
      cold.ours.push(t.seconds);
      cold.oursRss.push(t.rssMb);
    }
  }
}
rmSync(floorOut, { recursive: true, force: true });

const zipPackages = generated.packages.filter((p) => p.kind === "zip");
const folderPackages = generated.packages.filter((p) => p.kind === "folder");

/** Replaces package k's zip with a new one (other binary bytes), written beside it and renamed over. */
function replaceZip(round) {
  const p = zipPackages[(round * 7919) % zipPackages.length];
  const i = generated.packages.indexOf(p);
  const files = p.files.map(([file, data]) => [
    file,
    file.startsWith("boot.") ? binary(i, p.size, p.elf, round) : data,
  ]);
  const path = join(catalogue, p.host, `${p.name}.zip`);
  writeFileSync(`${path}.tmp`, zipOf(p.name, files));
  renameSync(`${path}.tmp`, path);
}

/** Edits a folder package's binary in place: the same size, other bytes, as a build tool rewrites it. */
function editBinary(round) {
  const p = folderPackages[(round * 104729) % folderPackages.length];
  const fd = openSync(join(catalogue, p.host, p.name, "apps", p.name, p.files[0][0]), "r+");
  writeSync(fd, Buffer.from(`edit ${round} `.repeat(8)), 0, undefined, 0x200);
  closeSync(fd);
}

const rebuilds = (out, edit, site = false) =>
  Array.from({ length: runs + 1 }, (_, i) => {
    edit?.(i + 1);
    return build(out, site);
  });
/** Runs git in the catalogue (or `cwd`), without compressing objects: the zips do not compress, and the setup is not timed. */
function git(args, cwd = catalogue) {
  const run = spawnSync(
    "git",
    ["-c", "user.name=bench", "-c", "user.email=bench@example.org", "-c", "core.compression=0", ...args],
    { cwd, stdio: ["ignore", "ignore", "pipe"], encoding: "utf8" },
  );
  if (run.status !== 0) throw new Error(`git ${args.join(" ")}: ${run.stderr}`);
}

/**
 * A CI job's fresh clone: what the catalogue has is committed, and the catalogue is replaced by a
 * `git clone` of it at the same path (every file with a new inode and dates, its index fresh), the
 * last output and state kept, as a workflow's cache restores them.
 */
function freshClone() {
  git(["add", "-A"]);
  git(["commit", "-q", "--allow-empty", "-m", "bench"]);
  const copy = `${catalogue}.clone`;
  rmSync(copy, { recursive: true, force: true });
  git(["clone", "-q", catalogue, copy], base);
  rmSync(catalogue, { recursive: true, force: true });
  renameSync(copy, catalogue);
}

const noop = Array.from({ length: runs }, () => build(ours));
const zip = rebuilds(ours, replaceZip);
const dol = rebuilds(ours, (round) => editBinary(100 + round));
// A clone of a commit that replaced one package's zip, then of one that edited a folder's binary.
const cloneZip = rebuilds(ours, (round) => {
  replaceZip(300 + round);
  freshClone();
});
const cloneDol = rebuilds(ours, (round) => {
  editBinary(400 + round);
  freshClone();
});
const config = Array.from({ length: runs }, () =>
  timed(CLI, ["config", "nginx", "--catalogue", catalogue, "--root", ours, "--listen", "8080"]),
);
removeOutput(ours);
const siteCold = build(siteOut, true);
const siteDol = rebuilds(siteOut, (round) => editBinary(200 + round), true);
removeOutput(siteOut);

const floorCold = median(cold.floor);
/** A rebuild's figures: the first after a cold build, and the median of the rest. */
const summarise = (ts) => ({
  firstS: ts[0].seconds,
  s: median(ts.slice(1).map((t) => t.seconds)),
  ofFloor: median(ts.slice(1).map((t) => t.seconds)) / floorCold,
  packageFilesRead: median(ts.slice(1).map((t) => t.summary.packageFilesRead ?? NaN)),
  filesWritten: median(ts.slice(1).map((t) => t.summary.filesWritten)),
  mode: ts.at(-1).summary.mode.kind,
  rssMb: median(ts.slice(1).map((t) => t.rssMb)),
});
const result = {
  date: new Date().toISOString(),
  floor: hasFloor ? FLOOR_DIR : null,
  node: process.version,
  cpus: cpus().length,
  memGb: Math.round(totalmem() / 2 ** 30),
  loadAtEnd: loadavg()[0],
  fs: values.fs,
  packages: generated.packages.length,
  hosts: Number(values.hosts),
  binariesMb: Number(values["files-mb"]),
  zipsMb: generated.zipBytes / 2 ** 20,
  floorColdS: floorCold,
  floorApiS: median(cold.floorApi),
  oursColdS: median(cold.ours),
  coldRatio: median(cold.ours) / floorCold,
  floorRssMb: median(cold.floorRss),
  oursColdRssMb: median(cold.oursRss),
  noopS: median(noop.map((t) => t.seconds)),
  noopOfFloor: median(noop.map((t) => t.seconds)) / floorCold,
  noopMode: noop.at(-1).summary.mode.kind,
  noopRssMb: median(noop.map((t) => t.rssMb)),
  zip: summarise(zip),
  dol: summarise(dol),
  cloneZip: summarise(cloneZip),
  cloneDol: summarise(cloneDol),
  configS: median(config.map((t) => t.seconds)),
  siteColdS: siteCold.seconds,
  siteColdRatio: siteCold.seconds / floorCold,
  siteDol: summarise(siteDol),
  runs,
  samples: {
    cold,
    noop: noop.map((t) => t.seconds),
    zip: zip.map((t) => t.seconds),
    dol: dol.map((t) => t.seconds),
    cloneZip: cloneZip.map((t) => t.seconds),
    cloneDol: cloneDol.map((t) => t.seconds),
    config: config.map((t) => t.seconds),
    siteDol: siteDol.map((t) => t.seconds),
  },
};
rmSync(base, { recursive: true, force: true });

const s = (x) => (Number.isFinite(x) ? `${x.toFixed(2)} s` : "-");
const pct = (x) => (Number.isFinite(x) ? `${(x * 100).toFixed(1)}%` : "-");
const rebuild = (r) =>
  `${s(r.s)} (${s(r.firstS)}), ${pct(r.ofFloor)}, ${r.mode}, read ${r.packageFilesRead}, wrote ${r.filesWritten}`;
console.log(
  [
    `package files: ${result.packages} packages over ${result.hosts} hosts, half zips and half folders, binaries ${result.binariesMb} MB, zips ${result.zipsMb.toFixed(0)} MB, on ${result.fs}; load ${result.loadAtEnd.toFixed(1)} at the end`,
    `  floor, full           ${s(floorCold)}${hasFloor ? ` (API ${s(result.floorApiS)})` : " (package files only: no floor.mjs)"}`,
    `  shopfront, full       ${s(result.oursColdS)} (${result.coldRatio.toFixed(2)}x the floor)`,
    `  no-op                 ${s(result.noopS)}, ${pct(result.noopOfFloor)}, ${result.noopMode}`,
    `  one zip replaced      ${rebuild(result.zip)}`,
    `  one boot.dol edited   ${rebuild(result.dol)}`,
    `  clone, zip replaced   ${rebuild(result.cloneZip)}`,
    `  clone, boot.dol       ${rebuild(result.cloneDol)}`,
    `  config nginx          ${s(result.configS)}`,
    `  with site: full       ${s(result.siteColdS)} (${result.siteColdRatio.toFixed(2)}x)`,
    `  with site: boot.dol   ${rebuild(result.siteDol)}`,
    `  peak RSS floor/full/no-op/zip/boot.dol/site MB: ${[result.floorRssMb, result.oursColdRssMb, result.noopRssMb, result.zip.rssMb, result.dol.rssMb, result.siteDol.rssMb].map((m) => m.toFixed(0)).join("/")}`,
    `medians of ${runs} runs; rebuilds: median (first after a full build), share of the floor's full, mode, packages whose files were read, files written`,
  ].join("\n"),
);
const outDir = join(ROOT, "bench-results");
mkdirSync(outDir, { recursive: true });
const file = join(outDir, `bench-files-${result.date.replace(/[:.]/g, "-")}.json`);
writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
console.log(`written ${file}`);
