// Builds killed with SIGKILL at moments spread over their whole run, full, incremental and of a fresh
// clone with the last build restored: a full build leaves exactly the old tree or the new one; a
// rebuild, which writes the live output in place, leaves every file whole and written in the deploy's
// order (partlyRebuilt); and the next build succeeds and is right.
// Two builds started at once into one output: one fails clearly; the output is never a mix.
import { execFileSync, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { aliasFilesOf } from "../../src/routes/routeTable.js";
import { GEN_CATALOGUE, memoryTempDir, partlyRebuilt, readTree, ROOT } from "../support/helpers.js";

const BIN = join(ROOT, "lib", "cli.js");
// Builds write the API alone: the site's pages go through the same writer, and would only double
// each build's time (test/unit/site.test.ts holds the site).
const MOMENTS = 12;
const PACKAGES = 2000;

function digest(dir: string): string {
  const hash = createHash("sha256");
  for (const [path, bytes] of readTree(dir)) hash.update(`${path}\0`).update(bytes);
  return hash.digest("hex");
}

/** `--target` arguments of a build. */
function targetArgs(targets: readonly string[]): string[] {
  return targets.flatMap((t) => ["--target", t]);
}

function build(catalogue: string, out: string, targets: readonly string[] = []): number {
  const started = performance.now();
  execFileSync(process.execPath, [
    BIN,
    "build",
    "--quiet",
    "--no-site",
    "--catalogue",
    catalogue,
    "--out",
    out,
    ...targetArgs(targets),
  ]);
  return performance.now() - started;
}

function run(catalogue: string, out: string): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [BIN, "build", "--quiet", "--no-site", "--catalogue", catalogue, "--out", out]);
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  // "close", not "exit": only then has all of stderr been read.
  return new Promise((resolve) => child.once("close", (code) => resolve({ code, stderr })));
}

/**
 * Starts a build and kills it after `ms`: whether the kill landed before it finished, and, when it did
 * not, how long the build took.
 */
async function killedBuild(
  catalogue: string,
  out: string,
  ms: number,
  targets: readonly string[] = [],
): Promise<{ landed: boolean; elapsed: number }> {
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [BIN, "build", "--quiet", "--no-site", "--catalogue", catalogue, "--out", out, ...targetArgs(targets)],
    {
      stdio: "ignore",
    },
  );
  const timer = setTimeout(() => child.kill("SIGKILL"), ms);
  const signal = await new Promise<string | null>((r) => child.once("close", (_, s) => r(s)));
  clearTimeout(timer);
  return { landed: signal === "SIGKILL", elapsed: performance.now() - started };
}

/**
 * The moments to kill builds at, spread over a build's duration. The duration is an estimate from
 * one build, and a machine under load runs the next ones faster or slower: a build that finishes
 * before its kill shows the estimate was long, and the moments after it are spread over the time
 * that build took (`shorter`). A single estimate left every later moment past the end of builds
 * that ran faster, and too few kills landed ("expected 3 to be greater than 3").
 */
function moments(
  duration: number,
  count = MOMENTS,
): { [Symbol.iterator](): Iterator<number>; shorter(ms: number): void } {
  let estimate = duration;
  return {
    *[Symbol.iterator]() {
      for (let i = 0; i < count; i++) yield Math.round(((i + 0.5) / count) * estimate);
    },
    shorter(ms: number) {
      estimate = Math.min(estimate, ms);
    },
  };
}

/** Counts a kill that landed; one that did not tells the moments how long the build took. */
function tally(result: { landed: boolean; elapsed: number }, at: ReturnType<typeof moments>): number {
  if (!result.landed) at.shorter(result.elapsed);
  return result.landed ? 1 : 0;
}

let a: string;
let b: string;
const digests = new Map<string, string>();
/** The reference trees, as the digests, for what a killed rebuild may leave. */
const trees = new Map<string, Map<string, Buffer>>();

/** Records the tree a reference build wrote to `out` under `key`. */
function reference(key: string, out: string): void {
  trees.set(key, readTree(out));
  digests.set(key, digest(out));
}

beforeAll(() => {
  const dir = memoryTempDir("shopfront-kill-");
  a = join(dir, "a");
  execFileSync(process.execPath, [GEN_CATALOGUE, a, String(PACKAGES), "2", "5"]);
  // b: a third of a's manifests edited, one removed, one added.
  b = join(dir, "b");
  cpSync(a, b, { recursive: true });
  const files = readdirSync(join(b, "primary")).sort();
  files.forEach((f, i) => {
    if (i % 3 === 0)
      writeFileSync(
        join(b, "primary", f),
        readFileSync(join(b, "primary", f), "utf8").replace('"version": "', '"version": "edited-'),
      );
  });
  rmSync(join(b, "primary", files[1]!));
  writeFileSync(
    join(b, "primary", "added_one.json"),
    readFileSync(join(b, "primary", files[0]!), "utf8").replace(
      /"internal_name": "[^"]*"/,
      '"internal_name": "added_one"',
    ),
  );
  for (const catalogue of [a, b]) {
    const out = join(dir, `ref-${catalogue === a ? "a" : "b"}`);
    build(catalogue, out);
    reference(catalogue, out);
  }
  expect(digests.get(a)).not.toBe(digests.get(b));
});

/** Makes `to` hold `from`'s manifests, edited in place. */
function become(to: string, from: string): void {
  for (const host of ["primary", "themes"]) {
    rmSync(join(to, host), { recursive: true });
    cpSync(join(from, host), join(to, host), { recursive: true });
  }
}

// Each test here runs some 26 builds of 2,000 packages: a few minutes on a loaded 2-core machine.
describe("a killed build", () => {
  it(`leaves the old or the new tree at ${MOMENTS} moments of a full build, and the next build is right`, async () => {
    const out = join(memoryTempDir(), "dist");
    build(a, out);
    // Switching the catalogue folder changes the build's key, so every build here is a full one.
    const duration = build(b, out);
    let from = b;
    let landed = 0;
    const at = moments(duration);
    for (const ms of at) {
      const to = from === a ? b : a;
      landed += tally(await killedBuild(to, out, ms), at);
      expect([digests.get(from), digests.get(to)], `killed after ${ms} ms`).toContain(digest(out));
      build(to, out);
      expect(digest(out)).toBe(digests.get(to));
      from = to;
    }
    expect(landed).toBeGreaterThan(MOMENTS / 2);
  }, 240_000);

  it(`leaves every file whole and in order at ${MOMENTS} moments of an incremental build, and the next build is right`, async () => {
    const catalogue = join(memoryTempDir(), "catalogue");
    cpSync(a, catalogue, { recursive: true });
    const out = join(memoryTempDir(), "dist");
    build(catalogue, out);
    become(catalogue, b);
    const duration = build(catalogue, out);
    let from = b;
    let landed = 0;
    const at = moments(duration);
    for (const ms of at) {
      const to = from === a ? b : a;
      become(catalogue, to);
      landed += tally(await killedBuild(catalogue, out, ms), at);
      expect(partlyRebuilt(readTree(out), trees.get(from)!, trees.get(to)!), `killed after ${ms} ms`).toBeUndefined();
      build(catalogue, out);
      expect(digest(out)).toBe(digests.get(to));
      from = to;
    }
    expect(landed).toBeGreaterThan(MOMENTS / 2);
  }, 240_000);
});

describe("a killed build of a fresh clone", () => {
  // A CI job's clone: every manifest has a new date and inode; those that kept their bytes are known
  // by their digest, and only the others are read, rendered and written.
  const LARGE = 10_000;
  let c: string;
  let d: string;

  beforeAll(() => {
    const dir = memoryTempDir("shopfront-kill-content-");
    c = join(dir, "c");
    execFileSync(process.execPath, [GEN_CATALOGUE, c, String(LARGE), "2", "6", "--coders=real"]);
    // d: one commit's worth of changes: every 50th manifest edited, one removed, one added.
    d = join(dir, "d");
    cpSync(c, d, { recursive: true });
    const files = readdirSync(join(d, "primary")).sort();
    files.forEach((f, i) => {
      if (i % 50 === 0)
        writeFileSync(
          join(d, "primary", f),
          readFileSync(join(d, "primary", f), "utf8").replace('"version": "', '"version": "edited-'),
        );
    });
    rmSync(join(d, "primary", files[1]!));
    cpSync(join(d, "primary", files[2]!), join(d, "primary", "added_one.json"));
    writeFileSync(
      join(d, "primary", "added_one.json"),
      readFileSync(join(d, "primary", "added_one.json"), "utf8").replace(
        /"internal_name": "[^"]*"/,
        '"internal_name": "added_one"',
      ),
    );
    for (const catalogue of [c, d]) {
      const out = join(dir, `ref-${catalogue === c ? "c" : "d"}`);
      build(catalogue, out);
      reference(catalogue, out);
    }
    expect(digests.get(c)).not.toBe(digests.get(d));
  }, 120_000);

  /** Makes `to` a fresh copy of `from` at the same path, as a CI job's clone: every file has a new date and inode. */
  function cloneInto(to: string, from: string): void {
    cpSync(from, `${to}.clone`, { recursive: true });
    rmSync(to, { recursive: true });
    renameSync(`${to}.clone`, to);
  }

  // Fewer moments than above: each one copies and builds a catalogue five times as large.
  const COUNT = MOMENTS / 2;

  it(
    `leaves every file whole and in order at ${COUNT} moments, and the next build is right`,
    { timeout: 300_000 },
    async () => {
      const catalogue = join(memoryTempDir(), "catalogue");
      cpSync(c, catalogue, { recursive: true });
      const out = join(memoryTempDir(), "dist");
      build(catalogue, out);
      cloneInto(catalogue, d);
      const started = performance.now();
      const line = execFileSync(process.execPath, [BIN, "build", "--no-site", "--catalogue", catalogue, "--out", out], {
        encoding: "utf8",
      });
      const duration = performance.now() - started;
      expect(line).toMatch(/ packages \(\d+ changed, \d+ files written\) in /);
      let from = d;
      let landed = 0;
      const at = moments(duration, COUNT);
      for (const ms of at) {
        const to = from === c ? d : c;
        cloneInto(catalogue, to);
        landed += tally(await killedBuild(catalogue, out, ms), at);
        expect(partlyRebuilt(readTree(out), trees.get(from)!, trees.get(to)!), `killed after ${ms} ms`).toBeUndefined();
        build(catalogue, out);
        expect(digest(out)).toBe(digests.get(to));
        from = to;
      }
      expect(landed).toBeGreaterThan(COUNT / 2);
    },
  );
});

describe("two builds started at once into one output", () => {
  it("never mix: the one that finds the lock taken fails at once, naming the other", async () => {
    const out = join(memoryTempDir(), "dist");
    build(a, out);
    for (const catalogue of [b, a, b]) {
      const runs = await Promise.all([run(catalogue, out), run(catalogue, out)]);
      expect(runs.some((r) => r.code === 0)).toBe(true);
      for (const r of runs.filter((x) => x.code !== 0)) {
        expect(r.code).toBe(1);
        // Either it found the lock held, or both found it stale at once and this one lost the race.
        expect(r.stderr).toMatch(
          /^error: another shopfront build \(pid \d+(?: on .+\) is writing |\) started writing .+ at the same time)/,
        );
      }
      expect(digest(out)).toBe(digests.get(catalogue));
    }
  });
});

describe("a killed build with package files", () => {
  // Packages shaped like real homebrew, as folders (zipped by the build) and as zips: a kill may land
  // while a folder is zipped, an archive checked, its entries unpacked or the stored files moved in.
  const PACKAGE_FOLDERS = 40;
  let e: string;
  let f: string;

  beforeAll(() => {
    const dir = memoryTempDir("shopfront-kill-files-");
    const fixture = join(ROOT, "test", "fixtures", "package-files", "catalogue");
    e = join(dir, "e");
    cpSync(fixture, e, { recursive: true });
    const snake = join(fixture, "primary", "snake");
    const manifest = readFileSync(join(fixture, "primary", "snake.json"), "utf8");
    for (let i = 0; i < PACKAGE_FOLDERS; i++) {
      const name = `app${i}`;
      cpSync(join(snake, "apps", "snake"), join(e, "primary", name, "apps", name), { recursive: true });
      writeFileSync(
        join(e, "primary", `${name}.json`),
        manifest.replace('"internal_name": "snake"', `"internal_name": "${name}"`),
      );
    }
    // f: every third package's files changed, the zip package gone.
    f = join(dir, "f");
    cpSync(e, f, { recursive: true });
    for (let i = 0; i < PACKAGE_FOLDERS; i += 3)
      writeFileSync(join(f, "primary", `app${i}`, "apps", `app${i}`, "data", "readme.txt"), `changed ${i}\n`);
    rmSync(join(f, "primary", "pong.zip"));
    rmSync(join(f, "primary", "pong.json"));
    for (const catalogue of [e, f]) {
      for (const targets of [[], PAGES]) {
        const out = join(dir, `ref-${catalogue === e ? "e" : "f"}-${targets.length}`);
        build(catalogue, out, targets);
        reference(withTargets(catalogue, targets), out);
      }
    }
    expect(digests.get(e)).not.toBe(digests.get(f));
    expect(digests.get(withTargets(e, PAGES))).not.toBe(digests.get(e));
  }, 240_000);

  /** A target that serves the package files from copies: the build links them at their aliases' paths. */
  const PAGES = ["github-pages"];
  /** The key of a reference digest: the catalogue, and the targets it was built with. */
  const withTargets = (catalogue: string, targets: readonly string[]) =>
    targets.length === 0 ? catalogue : `${catalogue} ${targets.join(" ")}`;

  const COUNT = MOMENTS / 2;

  /** Makes `to` hold `from`'s only host folder, its manifests and package files. */
  function becomeWithFiles(to: string, from: string): void {
    rmSync(join(to, "primary"), { recursive: true });
    cpSync(join(from, "primary"), join(to, "primary"), { recursive: true });
  }

  /** Kills builds at COUNT moments, each between e and f with `targets`: each file whole and in order, then the new tree. */
  async function killAtMoments(targets: readonly string[]): Promise<number> {
    const catalogue = join(memoryTempDir(), "catalogue");
    cpSync(e, catalogue, { recursive: true });
    const out = join(memoryTempDir(), "dist");
    build(catalogue, out, targets);
    becomeWithFiles(catalogue, f);
    const duration = build(catalogue, out, targets);
    expect(digest(out)).toBe(digests.get(withTargets(f, targets)));
    let from = f;
    let landed = 0;
    const at = moments(duration, COUNT);
    for (const ms of at) {
      const to = from === e ? f : e;
      becomeWithFiles(catalogue, to);
      landed += tally(await killedBuild(catalogue, out, ms, targets), at);
      expect(
        partlyRebuilt(readTree(out), trees.get(withTargets(from, targets))!, trees.get(withTargets(to, targets))!),
        `killed after ${ms} ms`,
      ).toBeUndefined();
      build(catalogue, out, targets);
      expect(digest(out)).toBe(digests.get(withTargets(to, targets)));
      // What the killed build was zipping and unpacking is gone with the next build.
      expect(readdirSync(join(out, "..", ".dist.shopfront")).filter((n) => n.startsWith("work-"))).toEqual([]);
      from = to;
    }
    if (targets.length > 0) {
      // Each package file at its aliases' paths is still one file with the stored one.
      const tree = [...readTree(out).keys()];
      const links = tree.flatMap((file) => aliasFilesOf(file).map((alias) => [alias, file] as const));
      expect(links.length).toBeGreaterThan(PACKAGE_FOLDERS * 3);
      for (const [alias, file] of links)
        expect(statSync(join(out, alias)).ino, alias).toBe(statSync(join(out, file)).ino);
    }
    return landed;
  }

  it(`leaves every file whole and in order at ${COUNT} moments, and the next build is right`, async () => {
    const landed = await killAtMoments([]);
    expect(landed).toBeGreaterThan(COUNT / 2);
  }, 300_000);

  it(`leaves every file whole and in order at ${COUNT} moments with --target github-pages, its links included`, async () => {
    expect(await killAtMoments(PAGES)).toBeGreaterThan(COUNT / 2);
  }, 300_000);
});
