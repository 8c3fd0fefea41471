// A catalogue kept in git and built in CI: each build starts from a fresh clone, whose manifests all
// have new dates and inodes, with the last build's output and state restored from a cache at the same
// path. It rebuilds by content: it writes only the files whose bytes changed, and its output is a
// full build's, byte for byte. A cache from another shopfront is not used.
import { execFileSync } from "node:child_process";
import { cpSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { buildCatalogue, type BuildSummary } from "../../src/engine/buildCatalogue.js";
import { parseState, RACY_MS, serializeState } from "../../src/engine/buildState.js";
import { formatBuildSummary } from "../../src/cli/formatBuild.js";
import { GEN_CATALOGUE, memoryTempDir, readTree } from "../support/helpers.js";

function git(cwd: string, ...args: string[]): string {
  return execFileSync(
    "git",
    ["-c", "user.name=Test", "-c", "user.email=test@example.org", "-c", "commit.gpgsign=false", ...args],
    { cwd, encoding: "utf8" },
  );
}

/**
 * A repository with a generated catalogue in `catalogue/`, committed twice: `first`, then `second`
 * with manifests edited, one added, one removed, one renamed and one moved to another category.
 */
function catalogueRepository(packages: number): { origin: string; first: string; second: string } {
  const origin = join(memoryTempDir("shopfront-origin-"), "origin");
  execFileSync(process.execPath, [
    GEN_CATALOGUE,
    join(origin, "catalogue"),
    String(packages),
    "2",
    "9",
    "--coders=real",
  ]);
  git(origin, "init", "-q", "-b", "main");
  git(origin, "add", "-A");
  git(origin, "commit", "-q", "-m", "first");
  const first = git(origin, "rev-parse", "HEAD").trim();
  const dir = join(origin, "catalogue", "primary");
  const files = execFileSync("ls", [dir], { encoding: "utf8" }).trim().split("\n");
  const edit = (file: string, from: RegExp, to: string) =>
    writeFileSync(join(dir, file), readFileSync(join(dir, file), "utf8").replace(from, to));
  for (const i of [3, 5, 8]) edit(files[i]!, /"version": "/, '"version": "2.');
  const category = /"category": "([a-z]*)"/.exec(readFileSync(join(dir, files[13]!), "utf8"))![1];
  edit(files[13]!, /"category": "[a-z]*"/, `"category": "${category === "demos" ? "games" : "demos"}"`);
  rmSync(join(dir, files[21]!));
  writeFileSync(
    join(dir, "added_one.json"),
    readFileSync(join(dir, files[0]!), "utf8").replace(/"internal_name": "[^"]*"/, '"internal_name": "added_one"'),
  );
  renameSync(join(dir, files[34]!), join(dir, "renamed_one.json"));
  edit("renamed_one.json", /"internal_name": "[^"]*"/, '"internal_name": "renamed_one"');
  git(origin, "add", "-A");
  git(origin, "commit", "-q", "-m", "second");
  return { origin, first, second: git(origin, "rev-parse", "HEAD").trim() };
}

/** A clock well past the racy window of every file written so far, as a build long after a clone sees it. */
const settled = () => Date.now() + 2 * RACY_MS;

/** A full build of the catalogue, into a fresh folder. */
async function fullTree(catalogueDir: string, site = true): Promise<Map<string, Buffer>> {
  const out = join(memoryTempDir(), "dist");
  await buildCatalogue({ catalogueDir, outDir: out, site });
  return readTree(out);
}

/** The paths whose bytes differ between two trees, those in one only included. */
function differing(a: Map<string, Buffer>, b: Map<string, Buffer>): number {
  let n = 0;
  for (const [path, bytes] of a) if (!b.get(path)?.equals(bytes)) n++;
  for (const path of b.keys()) if (!a.has(path)) n++;
  return n;
}

/** What a CI cache saves of a checkout (the output link and its hidden folder), and restores into another. */
function saveCache(checkout: string): string {
  const cache = memoryTempDir("shopfront-cache-");
  for (const name of ["dist", ".dist.shopfront"])
    cpSync(join(checkout, name), join(cache, name), { recursive: true, verbatimSymlinks: true });
  return cache;
}

function restoreCache(cache: string, checkout: string): void {
  for (const name of ["dist", ".dist.shopfront"])
    cpSync(join(cache, name), join(checkout, name), { recursive: true, verbatimSymlinks: true });
}

/** A fresh clone of `origin` at `commit`, at `path` (removed first, as each CI job starts from nothing). */
function freshClone(origin: string, path: string, commit: string): void {
  rmSync(path, { recursive: true, force: true });
  git(origin, "clone", "-q", origin, path);
  git(path, "checkout", "-q", commit);
}

async function build(checkout: string): Promise<BuildSummary> {
  const result = await buildCatalogue({ catalogueDir: join(checkout, "catalogue"), outDir: join(checkout, "dist") });
  if (!result.built) throw new Error(`build failed: ${JSON.stringify(result.problems)}`);
  return result.built;
}

describe("a catalogue in git", () => {
  let repo: ReturnType<typeof catalogueRepository>;
  let trees: { first: Map<string, Buffer>; second: Map<string, Buffer> };
  beforeAll(async () => {
    repo = catalogueRepository(300);
    const checkout = join(memoryTempDir(), "checkout");
    freshClone(repo.origin, checkout, repo.first);
    const first = await fullTree(join(checkout, "catalogue"));
    git(checkout, "checkout", "-q", repo.second);
    trees = { first, second: await fullTree(join(checkout, "catalogue")) };
    expect(differing(trees.first, trees.second)).toBeGreaterThan(7);
  });

  it(
    "rebuilds after a checkout of another commit, back and forth, equal to a full build",
    { timeout: 120_000 },
    async () => {
      const checkout = join(memoryTempDir(), "checkout");
      freshClone(repo.origin, checkout, repo.second);
      expect((await build(checkout)).mode.kind).toBe("full");
      for (const [commit, tree] of [
        [repo.first, trees.first],
        [repo.second, trees.second],
        [repo.first, trees.first],
      ] as const) {
        git(checkout, "checkout", "-q", commit);
        const built = await build(checkout);
        expect(built.mode.kind).toBe("incremental");
        expect(built.filesWritten).toBe(differing(trees.first, trees.second));
        expect(readTree(join(checkout, "dist"))).toEqual(tree);
      }
    },
  );

  it(
    "rebuilds a fresh clone with the last build restored by content, writing only the files that changed",
    { timeout: 120_000 },
    async () => {
      const checkout = join(memoryTempDir(), "checkout");
      freshClone(repo.origin, checkout, repo.first);
      await build(checkout);
      const cache = saveCache(checkout);
      freshClone(repo.origin, checkout, repo.second);
      restoreCache(cache, checkout);
      const built = await build(checkout);
      expect(built).toMatchObject({
        mode: { kind: "incremental" },
        filesWritten: differing(trees.first, trees.second),
      });
      expect(readTree(join(checkout, "dist"))).toEqual(trees.second);
    },
  );

  it(
    "does not use a cache that another shopfront left: the build is full, and says why",
    { timeout: 120_000 },
    async () => {
      const checkout = join(memoryTempDir(), "checkout");
      freshClone(repo.origin, checkout, repo.first);
      await build(checkout);
      const cache = saveCache(checkout);
      const statePath = join(cache, ".dist.shopfront", "state");
      const state = parseState(readFileSync(statePath))!;
      writeFileSync(statePath, serializeState({ ...state, key: "the key of another shopfront version" }));
      freshClone(repo.origin, checkout, repo.second);
      restoreCache(cache, checkout);
      expect(await build(checkout)).toMatchObject({
        mode: { kind: "full", reason: "no usable state from the previous build" },
        filesWritten: trees.second.size,
      });
      expect(readTree(join(checkout, "dist"))).toEqual(trees.second);
    },
  );
});

describe("a large catalogue in git, built in CI with the last build restored", () => {
  // Every manifest of a fresh clone has a new date and inode, but most hold the bytes they were
  // built from: their digest in the state says so, and only the others are parsed and rendered.
  const PACKAGES = 10_400;
  let repo: ReturnType<typeof catalogueRepository>;
  beforeAll(() => {
    repo = catalogueRepository(PACKAGES);
  }, 120_000);

  // Four clones of 10,400 files and five builds of them.
  it(
    "knows the unchanged manifests by their bytes, renders only the others and writes only the files that changed",
    { timeout: 300_000 },
    async () => {
      const checkout = join(memoryTempDir(), "checkout");
      // The line `shopfront build` prints. The API alone: the site's pages are compared like any
      // other file (the small catalogue above has them), and would double the files of five builds.
      // A clone's manifests were all written a moment ago: a build right after it must read again,
      // the next time too, those changed within RACY_MS of its start (git's racy rule: an edit in the
      // same clock tick as the build's look would keep the signature). In CI the build is the one
      // build after the clone; here the builds run as they would long after it, as the settled clock
      // says, so that what the state remembers, not the racy rule, decides what is read again.
      const run = async () => {
        const result = await buildCatalogue({
          catalogueDir: join(checkout, "catalogue"),
          outDir: join(checkout, "dist"),
          site: false,
          now: settled,
        });
        if (!result.built) throw new Error(`build failed: ${JSON.stringify(result.problems)}`);
        return { stdout: formatBuildSummary(result.built, "0.1 s", "dist") };
      };
      freshClone(repo.origin, checkout, repo.first);
      expect((await run()).stdout).toMatch(/^built 2 hosts, 10400 packages, \d+ files in /);
      const first = readTree(join(checkout, "dist"));
      let cache = saveCache(checkout);

      // The same commit again: nothing to write.
      freshClone(repo.origin, checkout, repo.first);
      restoreCache(cache, checkout);
      expect((await run()).stdout).toMatch(/^built 2 hosts, 10400 packages \(nothing changed\) in /);
      // The state now has the clone's signatures: the next build trusts them.
      expect((await run()).stdout).toMatch(/^built 2 hosts, 10400 packages \(nothing changed\) in /);
      cache = saveCache(checkout);

      freshClone(repo.origin, checkout, repo.second);
      restoreCache(cache, checkout);
      const second = await fullTree(join(checkout, "catalogue"), false);
      const changed = differing(first, second);
      expect((await run()).stdout).toMatch(
        new RegExp(`^built 2 hosts, 10400 packages \\(8 changed, ${changed} files written\\) in `),
      );
      // Compared with Buffer.equals: a deep equality of 20,000 buffers walks them byte by byte.
      expect(differing(readTree(join(checkout, "dist")), second)).toBe(0);

      // Back to the first commit, from a cache whose spare slot is the first build's.
      cache = saveCache(checkout);
      freshClone(repo.origin, checkout, repo.first);
      restoreCache(cache, checkout);
      expect((await run()).stdout).toMatch(new RegExp(`\\(8 changed, ${changed} files written\\) in `));
      expect(differing(readTree(join(checkout, "dist")), first)).toBe(0);
    },
  );
});
