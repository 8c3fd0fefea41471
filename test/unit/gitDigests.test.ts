// What git knows of a catalogue in a git checkout (src/read/gitDigests.ts), and the rebuild of a
// fresh clone that uses it: a CI job's clone gives every file a new date and inode, and git's index
// tells which still hold the bytes the last build read, so packages with files are kept unread.
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { buildCatalogue } from "../../src/engine/buildCatalogue.js";
import { parseState, RACY_MS } from "../../src/engine/buildState.js";
import { surveyCatalogue } from "../../src/engine/surveyCatalogue.js";
import { gitDigests } from "../../src/read/gitDigests.js";
import { digestOf } from "../../src/read/signature.js";
import { copyFixture, memoryTempDir, readTree } from "../support/helpers.js";

function git(cwd: string, ...args: string[]): string {
  return execFileSync(
    "git",
    ["-c", "user.name=Test", "-c", "user.email=test@example.org", "-c", "commit.gpgsign=false", ...args],
    { cwd, encoding: "utf8" },
  );
}

/** A repository at a new folder holding `files` under `catalogue/`, committed. */
function repository(files: Record<string, string>): { root: string; catalogue: string } {
  const root = memoryTempDir("shopfront-git-");
  const catalogue = join(root, "catalogue");
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(catalogue, path, ".."), { recursive: true });
    writeFileSync(join(catalogue, path), text);
  }
  git(root, "init", "-q", "-b", "main");
  git(root, "add", "-A");
  git(root, "commit", "-q", "-m", "first");
  return { root, catalogue };
}

describe("gitDigests", () => {
  it("gives each clean tracked file under the folder its digest, by its path there, as a read of it would", () => {
    const { catalogue } = repository({ "hosts.json": "{}\n", "primary/a.json": '{"a":1}\n', "primary/b.json": "[]\n" });
    const digests = gitDigests(catalogue);
    expect([...digests.keys()].sort()).toEqual(["hosts.json", "primary/a.json", "primary/b.json"]);
    for (const [path, digest] of digests) expect(digest).toBe(digestOf(readFileSync(join(catalogue, path))));
  });

  it("leaves out a file edited since it was committed (same size), an untracked file and a link", () => {
    const { root, catalogue } = repository({ "primary/a.json": '{"a":1}\n', "primary/b.json": '{"b":2}\n' });
    writeFileSync(join(catalogue, "primary/a.json"), '{"a":9}\n');
    writeFileSync(join(catalogue, "primary/new.json"), "{}\n");
    symlinkSync("b.json", join(catalogue, "primary/link.json"));
    git(root, "add", "catalogue/primary/link.json");
    expect([...gitDigests(catalogue).keys()]).toEqual(["primary/b.json"]);
  });

  it("is empty outside a git work tree", () => {
    const dir = memoryTempDir("shopfront-no-git-");
    writeFileSync(join(dir, "hosts.json"), "{}\n");
    expect(gitDigests(dir).size).toBe(0);
  });
});

/** A clock past the racy window of every file written so far, as a build long after a clone sees it. */
const settled = () => Date.now() + 2 * RACY_MS;

/** Packages with files (copies of the fixture's folder package) on top of the fixture's own. */
const COPIES = 70;

describe("a catalogue with package files in git, built in CI with the last build restored", () => {
  let origin: string;
  let first: string;
  let second: string;
  beforeAll(() => {
    const fixture = copyFixture("package-files");
    origin = join(memoryTempDir("shopfront-origin-"), "origin");
    cpSync(fixture, join(origin, "catalogue"), { recursive: true });
    const primary = join(origin, "catalogue", "primary");
    const snake = readFileSync(join(primary, "snake.json"), "utf8");
    for (let i = 0; i < COPIES; i++) {
      const name = `snake${String(i).padStart(2, "0")}`;
      cpSync(join(primary, "snake"), join(primary, name), { recursive: true });
      renameSync(join(primary, name, "apps", "snake"), join(primary, name, "apps", name));
      // A binary of its own: the fixture's, its last byte this package's.
      const dol = join(primary, name, "apps", name, "boot.dol");
      const bytes = readFileSync(dol);
      bytes[bytes.length - 1] = i;
      writeFileSync(dol, bytes);
      writeFileSync(
        join(primary, `${name}.json`),
        snake.replace('"internal_name": "snake"', `"internal_name": "${name}"`),
      );
    }
    git(origin, "init", "-q", "-b", "main");
    git(origin, "add", "-A");
    git(origin, "commit", "-q", "-m", "first");
    first = git(origin, "rev-parse", "HEAD").trim();
    // The second commit: one folder's file changed, and the zip of another replaced.
    writeFileSync(join(primary, "snake05/apps/snake05/data/readme.txt"), "a longer readme than before\n");
    const zip = join(primary, "pong.zip");
    const bytes = readFileSync(zip);
    // The end of central directory's comment length is 0: a one-byte comment is another archive.
    writeFileSync(zip, Buffer.concat([bytes.subarray(0, -2), Buffer.from([1, 0, 0x21])]));
    git(origin, "commit", "-q", "-am", "second");
    second = git(origin, "rev-parse", "HEAD").trim();
  }, 60_000);

  /** A fresh clone of `commit` at `checkout`, with the output and state of the build before restored beside it. */
  const cloneWithCache = (checkout: string, commit: string): void => {
    const cache = memoryTempDir("shopfront-cache-");
    for (const name of ["dist", ".dist.shopfront"])
      cpSync(join(checkout, name), join(cache, name), { recursive: true, verbatimSymlinks: true });
    rmSync(checkout, { recursive: true, force: true });
    git(origin, "clone", "-q", origin, checkout);
    git(checkout, "checkout", "-q", commit);
    for (const name of ["dist", ".dist.shopfront"])
      cpSync(join(cache, name), join(checkout, name), { recursive: true, verbatimSymlinks: true });
  };
  const catalogueOf = (checkout: string) => join(checkout, "catalogue");
  const stateOf = (checkout: string) => parseState(readFileSync(join(checkout, ".dist.shopfront", "state")))!;
  const build = async (checkout: string) => {
    const result = await buildCatalogue({
      catalogueDir: catalogueOf(checkout),
      outDir: join(checkout, "dist"),
      site: false,
      now: settled,
    });
    if (!result.built) throw new Error(`build failed: ${JSON.stringify(result.problems)}`);
    return result.built;
  };
  const fullTree = async (checkout: string) => {
    const out = join(memoryTempDir(), "dist");
    await buildCatalogue({ catalogueDir: catalogueOf(checkout), outDir: out, site: false });
    return readTree(out);
  };

  it(
    "keeps every package of a clone of the same commit unread, and reads only those a new commit changed",
    { timeout: 120_000 },
    async () => {
      const checkout = join(memoryTempDir(), "checkout");
      rmSync(checkout, { recursive: true, force: true });
      git(origin, "clone", "-q", origin, checkout);
      git(checkout, "checkout", "-q", first);
      expect((await build(checkout)).mode.kind).toBe("full");

      // The same commit again: every manifest and package file moved, and git knows them all.
      cloneWithCache(checkout, first);
      const survey = surveyCatalogue(catalogueOf(checkout), stateOf(checkout));
      expect(survey.toRead).toEqual([]);
      expect(survey.resignedFiles.size).toBe(COPIES + 3);
      expect(await build(checkout)).toMatchObject({ mode: { kind: "unchanged" }, filesWritten: 0 });

      // The next commit: the two packages it changed are read, and the output is a full build's.
      cloneWithCache(checkout, second);
      const next = surveyCatalogue(catalogueOf(checkout), stateOf(checkout));
      expect(next.toRead.map((r) => r.ref.name).sort()).toEqual(["pong", "snake05"]);
      expect(await build(checkout)).toMatchObject({ mode: { kind: "incremental" }, packageFilesRead: 2 });
      expect(readTree(join(checkout, "dist"))).toEqual(await fullTree(checkout));

      // A file changed in the clone after the checkout, to the same size: git does not vouch for it.
      cloneWithCache(checkout, second);
      const dol = join(catalogueOf(checkout), "primary/snake10/apps/snake10/boot.dol");
      const bytes = readFileSync(dol);
      bytes[bytes.length - 1] = 0xff;
      writeFileSync(dol, bytes);
      const edited = surveyCatalogue(catalogueOf(checkout), stateOf(checkout));
      expect(edited.toRead.map((r) => r.ref.name)).toEqual(["snake10"]);
      expect(await build(checkout)).toMatchObject({ packageFilesRead: 1 });
      expect(readTree(join(checkout, "dist"))).toEqual(await fullTree(checkout));
    },
  );
});
