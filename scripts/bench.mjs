// @ts-check
// npm run bench [-- --sizes 10000,100000] [--fs disk,shm] [--runs 3] [--hosts 2] [--coders real|synthetic] [--log-mb 1024] [--api-only]
//                [--floor-dir ../shared/bench] [--skip-serve] [--files-packages 2000] [--files-mb 1024]
//                [--rows full,clone,noop,edit,folder,stats,heap]
//
// --rows picks what is measured (all but heap by default); each measurement is printed as it is
// taken, so a long run can be quoted before it ends. The floor always runs (every ratio is against
// it); without `full`, our cold build runs once, to have an output, and is not reported.
//   heap      the catalogue built with a heap of --heap-mb (128 by default: what a million packages'
//             1 GiB allows at 100,000) and rebuilt after one edit under it: passes or fails, with RSS
// Compares shopfront's default build (the API, the browse site and every client's file) with the
// floor of the same files: floor.mjs --filtered (the least work that writes the same API files,
// category and coder lists included), then floor-files.mjs writing every other file the build wrote
// at its path and size, doing nothing else. --api-only compares `build --no-site` with floor.mjs
// alone. Both run in the same run, on catalogues with real-shaped coder names (gen-catalogue.mjs
// --coders=real) unless told otherwise, so the noise of a shared machine hits both: runs alternate,
// and the table shows medians and ratios, and what the output costs a package: files, inodes
// (files and folders, hard links once) and bytes. The floor and its generator are the project's shared
// benchmark kit in --floor-dir (../shared/bench beside the checkout), so that figures compare
// across implementations; without it, catalogues come from scripts/gen-catalogue.mjs and the table
// has absolute figures only. For each catalogue size and each file system:
//   cold      an empty output folder, ours against the floor
//   clone     a CI job's build: a fresh copy of the catalogue (new dates and inodes) with one manifest
//             edited and the last build's output and state kept, as a cache restores them: its time,
//             against the floor's and our cold build, and the files it wrote (first one after a cold
//             build, and the median of the following ones)
//   no-op     a rebuild with nothing changed
//   one edit  a rebuild after one manifest was edited (first one after a cold build, and the median
//             of the following ones, which find the spare slot up to date)
//   replaced, added, removed
//             a rebuild after a manifest was replaced (renamed over, as git checkout does), one
//             added, one removed: edits that move a folder (medians of --runs)
//   stats     a rebuild after a first stats file (every package gets an entry), then the median of
//             daily counts (a tenth of the packages' downloads change; the first after the first stats
//             file is reported apart, as it also brings the spare slot up to date)
// with the peak RSS of each. Then scripts/bench-stats.mjs times `stats count` on a generated combined
// log of --log-mb (0 skips it), scripts/bench-files.mjs (also `npm run bench:files`) a catalogue of
// --files-packages packages with their files (binaries of --files-mb in all; 0 skips it) against a floor
// that copies the same files, and scripts/bench-serve.mjs (also `npm run bench:serve`) measures the
// preview server under load (requests/s, p99, RSS, heap growth) and the browse site's search in
// chromium (keystroke to list), which the tests check only as behaviour (--skip-serve skips it).
// Writes the results as JSON to bench-results/.
import { spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { cpus, totalmem } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const CLI = join(ROOT, "lib", "cli.js");
const MEASURE = join(ROOT, "scripts", "measure.mjs");

const { values } = parseArgs({
  options: {
    sizes: { type: "string", default: "10000,100000" },
    fs: { type: "string", default: "disk,shm" },
    runs: { type: "string", default: "3" },
    hosts: { type: "string", default: "2" },
    coders: { type: "string", default: "real" },
    "log-mb": { type: "string", default: "1024" },
    "work-dir": { type: "string", default: join(ROOT, "bench-results", "work") },
    "floor-dir": { type: "string", default: resolve(ROOT, "..", "shared", "bench") },
    "skip-serve": { type: "boolean", default: false },
    "api-only": { type: "boolean", default: false },
    "files-packages": { type: "string", default: "2000" },
    "files-mb": { type: "string", default: "1024" },
    rows: { type: "string", default: "full,clone,noop,edit,folder,stats" },
    "heap-mb": { type: "string", default: "128" },
  },
});
const ROWS = new Set(values.rows.split(","));
for (const row of ROWS)
  if (!["full", "clone", "noop", "edit", "folder", "stats", "heap"].includes(row))
    throw new Error(`--rows: no row ${row}`);
const FLOOR_DIR = resolve(values["floor-dir"]);
const hasFloor = existsSync(join(FLOOR_DIR, "floor.mjs")) && existsSync(join(FLOOR_DIR, "gen-catalogue.mjs"));
const GENERATOR = hasFloor ? join(FLOOR_DIR, "gen-catalogue.mjs") : join(ROOT, "scripts", "gen-catalogue.mjs");
if (!hasFloor)
  console.log(
    `no floor.mjs and gen-catalogue.mjs in ${FLOOR_DIR}: catalogues from scripts/gen-catalogue.mjs, ` +
      "absolute figures only (no comparison with the floor)",
  );
const sizes = values.sizes.split(",").map(Number);
const runs = Number(values.runs);
const places = values.fs.split(",").map((name) => {
  if (name === "disk") return { name: "disk", dir: resolve(values["work-dir"]) };
  if (name === "shm") return { name: "shm", dir: "/dev/shm/shopfront-bench" };
  throw new Error(`--fs ${name}: expected disk or shm`);
});
if (!existsSync(CLI)) throw new Error("lib/cli.js is missing: run npm install first");
const apiOnly = values["api-only"];
/** The build measured: the default one, or the API alone (--api-only), as the floor writes it. */
const BUILD = apiOnly ? ["build", "--no-site"] : ["build"];
const FLOOR_FILES = join(FLOOR_DIR, "floor-files.mjs");
if (!apiOnly && hasFloor && !existsSync(FLOOR_FILES)) throw new Error(`no floor-files.mjs in ${FLOOR_DIR}`);

/**
 * What an output holds (following the link to its slot): its files, its inodes (files and folders,
 * a hard-linked file once) and bytes (each inode's once), and every file's path and size.
 */
function treeOf(dir) {
  const root = realpathSync(dir);
  const files = new Map();
  const inodes = new Set();
  let bytes = 0;
  const walk = (folder, prefix) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      const stat = lstatSync(path);
      const fresh = !inodes.has(stat.ino);
      inodes.add(stat.ino);
      if (entry.isDirectory()) walk(path, `${prefix}${entry.name}/`);
      else {
        files.set(`${prefix}${entry.name}`, stat.size);
        if (fresh) bytes += stat.size;
      }
    }
  };
  walk(root, "");
  return { files, inodes: inodes.size, bytes };
}

/** The "size<TAB>path" list of the files of `ours` that floor.mjs did not write into `floorOut`, for floor-files.mjs. */
function otherFilesList(ours, floorOut, listFile) {
  const floor = treeOf(floorOut).files;
  const lines = [];
  for (const [path, size] of treeOf(ours).files) if (!floor.has(path)) lines.push(`${size}\t${path}\n`);
  writeFileSync(listFile, lines.join(""));
  return lines.length;
}

/** Prints one measurement as soon as it is taken. */
function say(where, what, t) {
  const rss = Number.isFinite(t.rssMb) ? `, peak RSS ${t.rssMb.toFixed(0)} MB` : "";
  console.log(`${where} ${what}: ${t.failed ? `failed (${t.failed})` : `${t.seconds.toFixed(2)} s${rss}`}`);
}

/** Runs a script under measure.mjs (with `nodeOptions` for Node itself); returns seconds and peak RSS in MB, or why it failed. */
function timed(script, args, nodeOptions = []) {
  const started = process.hrtime.bigint();
  const run = spawnSync(process.execPath, [...nodeOptions, MEASURE, script, ...args], {
    encoding: "utf8",
    maxBuffer: 1 << 26,
  });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const lines = run.stderr.trim().split("\n");
  // measure.mjs reports on exit; after a crash Node still prints its version below that line.
  const { maxRssKb } = JSON.parse(lines.findLast((l) => l.startsWith('{"maxRssKb":')) ?? '{"maxRssKb":null}');
  const failed = run.status !== 0 ? (lines.find((l) => /Error/.test(l)) ?? `exit ${run.status}`).trim() : undefined;
  return { seconds, rssMb: maxRssKb / 1024, failed, stdout: run.stdout };
}

/** Ours must never fail; the floor may (it builds each list as one string, which V8 caps near 512 MB). */
function mustSucceed(t, what) {
  if (t.failed) throw new Error(`${what} failed: ${t.failed}`);
  return t;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** Removes an output of ours: the link and its hidden sibling folder. */
function removeOutput(out) {
  rmSync(out, { recursive: true, force: true });
  rmSync(join(dirname(out), `.${out.split("/").pop()}.shopfront`), { recursive: true, force: true });
}

/** Edits one manifest in place (a new version string), as a maintainer would. */
/** The first host folder of a catalogue and its manifests, sorted. */
function hostFiles(catalogue) {
  const host =
    readdirSync(catalogue, { withFileTypes: true })
      .filter((e) => e.isDirectory() && e.name !== "stats")
      .map((e) => e.name)
      .sort()[0] ?? "primary";
  return { dir: join(catalogue, host), files: readdirSync(join(catalogue, host)).sort() };
}

/** A manifest's text with a new version string. */
const bumped = (text, i) => text.replace(/"version": "([^"]*)"/, (_, v) => `"version": "${v}.${i}"`);

/** Edits one manifest in place (a new version string), as a maintainer would. */
function editManifest(catalogue, i) {
  const { dir, files } = hostFiles(catalogue);
  const file = join(dir, files[(i * 7919) % files.length] ?? "");
  writeFileSync(file, bumped(readFileSync(file, "utf8"), i));
}

/**
 * The edits that move a folder, each as git or an editor does it: a manifest replaced (written to a
 * temporary file, then renamed over, as `git checkout` and `sed -i` do), one added, one removed.
 */
const FOLDER_EDITS = {
  replaced(catalogue, i) {
    const { dir, files } = hostFiles(catalogue);
    const file = join(dir, files[(i * 104729) % files.length] ?? "");
    writeFileSync(`${file}.tmp-edit`, bumped(readFileSync(file, "utf8"), i));
    renameSync(`${file}.tmp-edit`, file);
  },
  added(catalogue, i) {
    const { dir, files } = hostFiles(catalogue);
    const name = `zz-added-${i}`;
    const text = readFileSync(join(dir, files[0] ?? ""), "utf8");
    writeFileSync(join(dir, `${name}.json`), text.replace(/"internal_name": "[^"]*"/, `"internal_name": "${name}"`));
  },
  removed(catalogue, i) {
    const { dir, files } = hostFiles(catalogue);
    rmSync(join(dir, files[(i * 15485863) % files.length] ?? ""));
  },
};

/**
 * Makes the catalogue a fresh copy of itself at the same path, as a CI job's fresh clone is: every
 * manifest and folder has new dates and inodes. The output and its state stay, as a cache restores them.
 */
function freshClone(catalogue) {
  rmSync(`${catalogue}.clone`, { recursive: true, force: true });
  cpSync(catalogue, `${catalogue}.clone`, { recursive: true });
  rmSync(catalogue, { recursive: true });
  renameSync(`${catalogue}.clone`, catalogue);
}

/** The files a build wrote, from its summary line ("nothing changed" is none; a full build's are all its files). */
function filesWritten(stdout) {
  if (/\(nothing changed/.test(stdout)) return 0;
  const match = / (\d+) files? written/.exec(stdout) ?? /, (\d+) files? in /.exec(stdout);
  return match ? Number(match[1]) : NaN;
}

const { serializeStats } = await import(join(ROOT, "lib", "catalogue", "statsFile.js"));

/** Writes every host's stats file: each package gets an entry; `changed` of them (a fraction) new downloads. */
function writeStats(catalogue, round, changed) {
  mkdirSync(join(catalogue, "stats"), { recursive: true });
  for (const entry of readdirSync(catalogue, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name === "stats") continue;
    const packages = {};
    readdirSync(join(catalogue, entry.name)).forEach((file, i) => {
      const moved = (i * 7919 + round * 104729) % 1000 < changed * 1000;
      packages[file.slice(0, -".json".length)] = { downloads: moved ? round * 1000 + (i % 997) : i % 997 };
    });
    writeFileSync(join(catalogue, "stats", `${entry.name}.json`), serializeStats({ packages }));
  }
}

/**
 * A full build and a one-edit rebuild with a heap of --heap-mb: what holds the catalogue outgrows
 * it (100,000 packages at 128 MB is a million's 1 GiB), what holds only the index does not.
 */
function measureHeap(catalogue, ours, where) {
  const heapMb = Number(values["heap-mb"]);
  const options = [`--max-old-space-size=${heapMb}`];
  removeOutput(ours);
  const full = timed(CLI, [...BUILD, "--quiet", "--catalogue", catalogue, "--out", ours], options);
  say(where, `full build in a ${heapMb} MB heap`, full);
  editManifest(catalogue, 999);
  const edit = full.failed ? full : timed(CLI, [...BUILD, "--quiet", "--catalogue", catalogue, "--out", ours], options);
  if (!full.failed) say(where, `one edit in a ${heapMb} MB heap`, edit);
  return {
    heapMb,
    full: full.failed ?? "passed",
    fullRssMb: full.rssMb,
    edit: edit.failed ?? "passed",
    editRssMb: edit.rssMb,
  };
}

const results = [];
for (const place of places) {
  for (const size of sizes) {
    const base = join(place.dir, `n${size}`);
    rmSync(base, { recursive: true, force: true });
    mkdirSync(base, { recursive: true });
    const catalogue = join(base, "catalogue");
    const coders = values.coders === "real" ? ["--coders=real"] : [];
    spawnSync(process.execPath, [GENERATOR, catalogue, String(size), values.hosts, ...coders], {
      stdio: "ignore",
    });
    const floorOut = join(base, "floor");
    const floorOther = join(base, "floor-other");
    const otherList = join(base, "floor-other.list");
    const ours = join(base, "dist");
    /** @type {{ floor: number[], floorApi: number[], ours: number[], floorRss: number[], oursRss: number[], floorFailed?: string }} */
    const cold = { floor: [], floorApi: [], ours: [], floorRss: [], oursRss: [] };
    let otherFiles = 0;
    const where = `${place.name} ${size}`;
    for (let r = 0; r < runs; r++) {
      // Alternate who goes first, so a slow minute hits both; ours first in the first run, whose
      // output names the files the floor of the same files writes beyond the API.
      const order = !hasFloor ? ["ours"] : r % 2 === 0 ? ["ours", "floor"] : ["floor", "ours"];
      for (const who of order) {
        if (who === "floor") {
          rmSync(floorOut, { recursive: true, force: true });
          const t = timed(join(FLOOR_DIR, "floor.mjs"), [catalogue, floorOut, "--filtered"]);
          if (t.failed) {
            cold.floorFailed = t.failed;
            continue;
          }
          if (!apiOnly && r === 0) otherFiles = otherFilesList(ours, floorOut, otherList);
          const other = apiOnly
            ? { seconds: 0, rssMb: 0 }
            : mustSucceed(timed(FLOOR_FILES, [otherList, floorOther]), "floor-files.mjs");
          rmSync(floorOther, { recursive: true, force: true });
          cold.floorApi.push(t.seconds);
          cold.floor.push(t.seconds + other.seconds);
          cold.floorRss.push(Math.max(t.rssMb, other.rssMb));
          say(where, "floor", { seconds: t.seconds + other.seconds, rssMb: Math.max(t.rssMb, other.rssMb) });
        } else if (ROWS.has("full") || r === 0) {
          removeOutput(ours);
          const t = mustSucceed(
            timed(CLI, [...BUILD, "--quiet", "--catalogue", catalogue, "--out", ours]),
            "shopfront build",
          );
          if (!ROWS.has("full")) continue;
          cold.ours.push(t.seconds);
          cold.oursRss.push(t.rssMb);
          say(where, "full build", t);
        }
      }
    }
    rmSync(floorOut, { recursive: true, force: true });
    const tree = treeOf(ours);
    // The last cold build of ours is in place: a CI job's fresh clone with one manifest edited (a
    // commit's change) and the output restored, once after the cold build and `runs` times more.
    const clones = Array.from({ length: ROWS.has("clone") ? runs + 1 : 0 }, (_, i) => {
      freshClone(catalogue);
      editManifest(catalogue, 100 + i);
      const t = mustSucceed(timed(CLI, [...BUILD, "--catalogue", catalogue, "--out", ours]), "shopfront rebuild");
      say(where, i === 0 ? "first CI clone" : "CI clone", t);
      return { ...t, files: filesWritten(t.stdout) };
    });
    // The clone's files are new: a build this close to them reads them again (git's "racy" rule).
    // Wait that out, so the no-op below is what it is after any other build.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2500);
    // Then rebuild with nothing changed, then after edits.
    const build = (what) => {
      const t = mustSucceed(
        timed(CLI, [...BUILD, "--quiet", "--catalogue", catalogue, "--out", ours]),
        "shopfront rebuild",
      );
      say(where, what, t);
      return t;
    };
    const noop = Array.from({ length: ROWS.has("noop") ? runs : 0 }, () => build("no-op"));
    const edits = Array.from({ length: ROWS.has("edit") ? runs + 1 : 0 }, (_, i) => {
      editManifest(catalogue, i + 1);
      return build(i === 0 ? "first edit" : "edit");
    });
    // Each kind of edit that moves a folder, once to settle, then `runs` times for the median.
    const folderEdits = Object.fromEntries(
      Object.entries(FOLDER_EDITS).map(([kind, edit]) => {
        const times = Array.from({ length: ROWS.has("folder") ? runs + 1 : 0 }, (_, i) => {
          edit(catalogue, i + 1);
          return build(kind);
        });
        return [kind, median(times.slice(1).map((t) => t.seconds))];
      }),
    );
    if (ROWS.has("stats")) writeStats(catalogue, 0, 0);
    const firstStats = ROWS.has("stats") ? build("first stats") : { seconds: NaN, rssMb: NaN };
    const days = Array.from({ length: ROWS.has("stats") ? runs + 1 : 0 }, (_, i) => {
      writeStats(catalogue, i + 1, 0.1);
      return build("stats day");
    });
    // The heap the index allows: a full build and a one-edit rebuild under --max-old-space-size.
    const heap = ROWS.has("heap") ? measureHeap(catalogue, ours, where) : undefined;
    const floorCold = median(cold.floor);
    const row = {
      fs: place.name,
      packages: size,
      hosts: Number(values.hosts),
      floorColdS: floorCold,
      floorApiColdS: median(cold.floorApi),
      floorOtherFiles: otherFiles,
      filesPerPackage: tree.files.size / size,
      inodesPerPackage: tree.inodes / size,
      bytesPerPackage: tree.bytes / size,
      ...(cold.floorFailed ? { floorFailed: cold.floorFailed } : {}),
      oursColdS: median(cold.ours),
      coldRatio: median(cold.ours) / floorCold,
      firstCloneS: clones[0]?.seconds ?? NaN,
      cloneS: median(clones.slice(1).map((t) => t.seconds)),
      cloneOfFloorCold: median(clones.slice(1).map((t) => t.seconds)) / floorCold,
      cloneOfOursCold: median(clones.slice(1).map((t) => t.seconds)) / median(cold.ours),
      cloneFilesWritten: median(clones.slice(1).map((t) => t.files)),
      cloneRssMb: median(clones.slice(1).map((t) => t.rssMb)),
      noopS: median(noop.map((t) => t.seconds)),
      noopOfFloorCold: median(noop.map((t) => t.seconds)) / floorCold,
      firstEditS: edits[0]?.seconds ?? NaN,
      editS: median(edits.slice(1).map((t) => t.seconds)),
      editOfFloorCold: median(edits.slice(1).map((t) => t.seconds)) / floorCold,
      floorRssMb: median(cold.floorRss),
      oursColdRssMb: median(cold.oursRss),
      noopRssMb: median(noop.map((t) => t.rssMb)),
      editRssMb: median(edits.slice(1).map((t) => t.rssMb)),
      replacedS: folderEdits.replaced,
      addedS: folderEdits.added,
      removedS: folderEdits.removed,
      firstStatsS: firstStats.seconds,
      firstDayS: days[0]?.seconds ?? NaN,
      statsDayS: median(days.slice(1).map((t) => t.seconds)),
      statsDayOfFloorCold: median(days.slice(1).map((t) => t.seconds)) / floorCold,
      statsDayRssMb: median(days.slice(1).map((t) => t.rssMb)),
      firstEditOfFloorCold: (edits[0]?.seconds ?? NaN) / floorCold,
      ...(heap ? { heap } : {}),
      runs,
      samples: {
        cold,
        clones: clones.map((t) => ({ seconds: t.seconds, files: t.files })),
        noop: noop.map((t) => t.seconds),
        edits: edits.map((t) => t.seconds),
        stats: [firstStats, ...days].map((t) => t.seconds),
      },
    };
    results.push(row);
    removeOutput(ours);
    rmSync(base, { recursive: true, force: true });
    process.stderr.write(`done: ${place.name} ${size}\n`);
  }
}

const pct = (x) => (Number.isFinite(x) ? `${(x * 100).toFixed(1)}%` : "-");
/** A time; "-" for one not measured (a row left out of --rows). */
const s = (x) => (Number.isFinite(x) ? `${x.toFixed(2)} s` : "-");
/** The floor's time: "-" when there is no floor to run, "failed" when it ran and failed. */
const floorS = (x) => (!hasFloor ? "-" : Number.isFinite(x) ? s(x) : "failed");
const header = [
  "fs",
  "packages",
  "floor cold",
  "ours cold",
  "ratio",
  "1st clone",
  "clone",
  "of floor/ours",
  "clone writes",
  "no-op",
  "of floor",
  "1st edit",
  "edit",
  "of floor",
  "replaced/added/removed",
  "1st stats",
  "1st day",
  "day",
  "of floor",
  "files/inodes/bytes a package",
  "RSS floor/cold/clone/no-op/edit/day MB",
];
const table = [
  header,
  ...results.map((r) => [
    r.fs,
    String(r.packages),
    floorS(r.floorColdS),
    s(r.oursColdS),
    Number.isFinite(r.coldRatio) ? `${r.coldRatio.toFixed(2)}x` : "-",
    s(r.firstCloneS),
    s(r.cloneS),
    `${pct(r.cloneOfFloorCold)}/${pct(r.cloneOfOursCold)}`,
    String(r.cloneFilesWritten),
    s(r.noopS),
    pct(r.noopOfFloorCold),
    `${s(r.firstEditS)} (${pct(r.firstEditOfFloorCold)})`,
    s(r.editS),
    pct(r.editOfFloorCold),
    [r.replacedS, r.addedS, r.removedS].map((x) => `${s(x)} (${pct(x / r.floorColdS)})`).join(" / "),
    s(r.firstStatsS),
    s(r.firstDayS),
    s(r.statsDayS),
    pct(r.statsDayOfFloorCold),
    `${r.filesPerPackage.toFixed(2)}/${r.inodesPerPackage.toFixed(2)}/${r.bytesPerPackage.toFixed(0)}`,
    [r.floorRssMb, r.oursColdRssMb, r.cloneRssMb, r.noopRssMb, r.editRssMb, r.statsDayRssMb]
      .map((m) => (Number.isFinite(m) ? m.toFixed(0) : "-"))
      .join("/"),
  ]),
];
const widths = header.map((_, c) => Math.max(...table.map((row) => row[c].length)));
console.log(table.map((row) => row.map((cell, c) => cell.padEnd(widths[c])).join("  ")).join("\n"));
console.log(
  `medians of ${runs} runs; cold = empty output folder; clone = a fresh copy of the catalogue (new dates and inodes, as a CI clone) ` +
    `with one manifest edited and the output and state kept (as a CI cache restores them), with its share of the floor's and our cold build ` +
    `and the files it wrote (median of ${runs}; 1st clone = the first after a cold build, whose spare slot is remade from links); edit = one manifest changed (median of ${runs}; 1st edit = the first after a cold build); ` +
    `replaced/added/removed = one manifest renamed over (as git checkout), added, removed, with their share of the floor's cold build; ` +
    `1st stats = every package gets a stats entry; day = a tenth of the downloads change (median of ${runs}; 1st day = the first after 1st stats); ` +
    `${apiOnly ? "ours = build --no-site, the floor = floor.mjs --filtered" : "ours = the default build (API, browse site, every client's file), the floor = floor.mjs --filtered and floor-files.mjs writing every other file ours wrote"}; ` +
    `files/inodes/bytes a package = the output's files, inodes (files and folders, hard links once) and bytes over the packages`,
);
for (const r of results)
  if (r.heap)
    console.log(
      `${r.fs} ${r.packages}: in a ${r.heap.heapMb} MB heap, the full build ${r.heap.full} (peak RSS ${r.heap.fullRssMb.toFixed(0)} MB), ` +
        `one edit ${r.heap.edit} (peak RSS ${r.heap.editRssMb.toFixed(0)} MB)`,
    );
if (!hasFloor) console.log(`no floor in ${FLOOR_DIR}: these are absolute figures, not compared with the floor`);
for (const r of results) if (r.floorFailed) console.log(`the floor failed at ${r.fs} ${r.packages}: ${r.floorFailed}`);

const outDir = join(ROOT, "bench-results");
mkdirSync(outDir, { recursive: true });
const report = {
  date: new Date().toISOString(),
  floor: hasFloor ? FLOOR_DIR : null,
  node: process.version,
  cpus: cpus().length,
  memGb: Math.round(totalmem() / 2 ** 30),
  results,
};
const file = join(outDir, `bench-${report.date.replace(/[:.]/g, "-")}.json`);
writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
writeFileSync(join(outDir, "latest.json"), `${JSON.stringify(report, null, 2)}\n`);
console.log(`written ${file}`);

if (Number(values["log-mb"]) > 0) {
  const logBench = spawnSync(
    process.execPath,
    [
      join(ROOT, "scripts", "bench-stats.mjs"),
      "--size-mb",
      values["log-mb"],
      "--work-dir",
      join(places[0].dir, "stats"),
    ],
    { stdio: "inherit" },
  );
  // The generated log is as large as asked: never left behind (on /dev/shm it would hold memory).
  rmSync(join(places[0].dir, "stats"), { recursive: true, force: true });
  if (logBench.status !== 0) throw new Error(`bench-stats.mjs failed (exit ${logBench.status})`);
}

if (Number(values["files-mb"]) > 0) {
  const filesBench = spawnSync(
    process.execPath,
    [
      join(ROOT, "scripts", "bench-files.mjs"),
      "--packages",
      values["files-packages"],
      "--files-mb",
      values["files-mb"],
      "--runs",
      values.runs,
      "--fs",
      places[0].name,
      "--work-dir",
      join(places[0].dir, "files"),
      "--floor-dir",
      FLOOR_DIR,
    ],
    { stdio: "inherit" },
  );
  if (filesBench.status !== 0) throw new Error(`bench-files.mjs failed (exit ${filesBench.status})`);
}

if (!values["skip-serve"]) {
  const serveBench = spawnSync(process.execPath, [join(ROOT, "scripts", "bench-serve.mjs")], { stdio: "inherit" });
  if (serveBench.status !== 0) throw new Error(`bench-serve.mjs failed (exit ${serveBench.status})`);
}
