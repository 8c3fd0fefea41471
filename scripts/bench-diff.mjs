// @ts-check
// npm run bench:diff [-- --packages 10000] [--runs 3] [--work-dir DIR]
//
// The review loop at scale: a generated catalogue (gen-catalogue.mjs --coders=real) committed to git,
// then one manifest's version bumped in a second commit. Times, each a separate process:
//   incremental  `build` of one manifest edited in the working tree, over the last build (the median
//                of --runs edits)
//   diff first   `diff HEAD~1 HEAD --out X` into an empty X (the first side built in full)
//   diff again   the same diff again (the median of --runs): each side a rebuild of the other
// and prints the row, with the ratio of `diff again` to `incremental` (the bar: at most 3x),
// and how each side of the last diff was built. Writes nothing outside --work-dir.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const CLI = join(ROOT, "lib", "cli.js");
const { values } = parseArgs({
  options: {
    packages: { type: "string", default: "10000" },
    runs: { type: "string", default: "3" },
    "work-dir": { type: "string", default: join(ROOT, "bench-results", "work-diff") },
  },
});
const packages = Number(values.packages);
const runs = Number(values.runs);
const work = resolve(values["work-dir"]);
const store = join(work, "store");
const catalogue = join(store, "catalogue");

const git = (...args) =>
  execFileSync("git", ["-c", "user.name=bench", "-c", "user.email=bench@example.org", ...args], {
    cwd: store,
    encoding: "utf8",
  });

/** Runs the CLI; its wall seconds and output. */
function timed(args) {
  const started = process.hrtime.bigint();
  const run = spawnSync(process.execPath, [CLI, ...args], { cwd: work, encoding: "utf8", maxBuffer: 1 << 26 });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (run.status !== 0) throw new Error(`shopfront ${args.join(" ")} exited ${run.status}: ${run.stderr}`);
  return { seconds, stdout: run.stdout };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** One manifest of the first host, by index, with its version bumped by `tag`. */
function bump(i, tag) {
  const host = readdirSync(catalogue, { withFileTypes: true }).find((e) => e.isDirectory())?.name ?? "primary";
  const files = readdirSync(join(catalogue, host))
    .filter((f) => f.endsWith(".json"))
    .sort();
  const file = join(catalogue, host, files[(i * 7919) % files.length]);
  writeFileSync(file, readFileSync(file, "utf8").replace(/"version": "([^"]*)"/, `"version": "$1.${tag}"`));
}

rmSync(work, { recursive: true, force: true });
mkdirSync(work, { recursive: true });
execFileSync(
  process.execPath,
  [join(ROOT, "scripts", "gen-catalogue.mjs"), catalogue, String(packages), "2", "7", "--coders=real"],
  {
    stdio: "ignore",
  },
);
git("init", "-q", "-b", "main");
git("add", "-A");
git("commit", "-q", "-m", "the catalogue");
bump(1, "diff");
git("commit", "-q", "-am", "one version bumped");

// The incremental build: the working tree built once, then one edit at a time.
timed(["build", "--catalogue", catalogue, "--out", join(work, "built")]);
const incremental = [];
for (let i = 0; i < runs; i++) {
  bump(100 + i, `edit${i}`);
  incremental.push(timed(["build", "--catalogue", catalogue, "--out", join(work, "built")]).seconds);
}
git("checkout", "-q", "--", ".");

const diffArgs = ["diff", "HEAD~1", "HEAD", "--catalogue", catalogue, "--out", join(work, "X")];
const first = timed(diffArgs).seconds;
const again = [];
let last = "";
for (let i = 0; i < runs; i++) {
  const run = timed(diffArgs);
  again.push(run.seconds);
  last = run.stdout;
}
const sides = last
  .split("\n")
  .filter((l) => /^[ab]: /.test(l))
  .map((l) => /, (built in full|rebuilt|rebuilt, unchanged|built, written by content),/.exec(l)?.[1] ?? "?");
const row = {
  packages,
  incrementalSeconds: median(incremental),
  diffFirstSeconds: first,
  diffAgainSeconds: median(again),
  ratio: median(again) / median(incremental),
  sides,
};
console.log(
  `| ${packages} packages | incremental build ${row.incrementalSeconds.toFixed(2)} s | diff first run ${first.toFixed(2)} s | diff again ${row.diffAgainSeconds.toFixed(2)} s (a: ${sides[0]}, b: ${sides[1]}) | ${row.ratio.toFixed(2)}x |`,
);
mkdirSync(join(ROOT, "bench-results"), { recursive: true });
writeFileSync(join(ROOT, "bench-results", `diff-${packages}.json`), `${JSON.stringify(row, null, 2)}\n`);
