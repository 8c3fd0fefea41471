// The package files at their aliases' paths, for a target that cannot rewrite (Target.packageFiles
// "copies": Netlify, S3 + CloudFront, GitHub Pages): each a hard link to the stored file in the same
// slot, written by the full build, kept and replaced by the rebuild, gone
// with their package or with the last target that needed them; and none without such a target.
import { rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildCatalogue, type BuildSummary } from "../../src/engine/buildCatalogue.js";
import { needsAliasFiles } from "../../src/output/storedPackageFiles.js";
import { RACY_MS } from "../../src/engine/buildState.js";
import { aliasFilesOf, isPackageFile } from "../../src/routes/routeTable.js";
import { loadCatalogueNames } from "../../src/load/loadCatalogue.js";
import { targetById, TARGETS, type TargetId } from "../../src/targets/index.js";
import { copyFixture, readTree, shopfront, tempDir } from "../support/helpers.js";
import { UNSIGNED_NOTE } from "../../src/cli/commands/build.js";
import { isFileIndexPath } from "../../src/routes/routeTable.js";

const NAMES = ["pong", "snake", "tetris"];

/** The stored package files of a built tree: the files of a package file route that are no alias's path. */
function storedFiles(out: string): string[] {
  const tree = [...readTree(out).keys()];
  const aliases = new Set(tree.flatMap(aliasFilesOf));
  return tree.filter((path) => isPackageFile(path) && !aliases.has(path));
}

function inode(path: string): number {
  return statSync(path).ino;
}

async function build(catalogueDir: string, outDir: string, targets: TargetId[] = []): Promise<BuildSummary> {
  const result = await buildCatalogue({ catalogueDir, outDir, targets });
  if (!result.built) throw new Error(`did not build: ${JSON.stringify(result.problems)}`);
  return result.built;
}

/** Waits until files just copied are older than a build's snapshot trusts (RACY_MS). */
const settle = () => new Promise((resolve) => setTimeout(resolve, RACY_MS + 100));

describe("the package files at their aliases' paths", () => {
  it("are what the hosts that copy need, and only they", () => {
    for (const target of TARGETS)
      expect(needsAliasFiles([target.id]), target.id).toBe(target.packageFiles === "copies");
    expect(needsAliasFiles(["nginx", "github-pages"])).toBe(true);
    expect(needsAliasFiles([])).toBe(false);
    expect(aliasFilesOf("hbb/snake/icon.png")).toEqual(["hbb/snake.png", "api/contents/snake/icon.png"]);
    expect(aliasFilesOf("v1/hosts")).toEqual([]);
  });

  it("are each a hard link to the stored file with --target github-pages, netlify or cloudfront, and absent otherwise", async () => {
    const catalogue = copyFixture("package-files");
    const plain = join(catalogue, "..", "plain");
    const nginx = join(catalogue, "..", "nginx");
    await build(catalogue, plain);
    await build(catalogue, nginx, ["nginx"]);
    const names = (await loadCatalogueNames(catalogue)).names!;
    // Without a target that copies, no alias's path is written: a server target adds nothing.
    const tree = readTree(plain);
    expect(readTree(nginx)).toEqual(tree);
    expect([...tree.keys()].flatMap(aliasFilesOf).filter((path) => tree.has(path))).toEqual([]);

    for (const target of ["github-pages", "netlify", "cloudfront"] as const) {
      const out = join(catalogue, "..", target);
      const built = await build(catalogue, out, [target]);
      const files = readTree(out);
      const stored = storedFiles(out);
      expect(stored.length).toBe(NAMES.length * 4);
      let aliases = 0;
      for (const file of stored) {
        for (const alias of aliasFilesOf(file)) {
          aliases++;
          expect(files.get(alias)?.equals(files.get(file)!), alias).toBe(true);
          expect(inode(join(out, alias)), alias).toBe(inode(join(out, file)));
        }
        // The stored file and its aliases are one file: no extra disk.
        expect(statSync(join(out, file)).nlink).toBe(1 + aliasFilesOf(file).length);
      }
      // Per package: /hbb/<name>.png and the zip and icon under /api, /api/v3 and /api/v4.
      expect(aliases).toBe(NAMES.length * 3);
      expect(built.files).toBe(files.size);
      // Nothing else differs from the build without a target but the target's own files.
      const deployFiles = targetById(target).deployFiles?.(names) ?? [];
      const expected = new Set([...tree.keys(), ...stored.flatMap(aliasFilesOf), ...deployFiles.map((f) => f.path)]);
      expect([...files.keys()].sort()).toEqual([...expected].sort());
      for (const [path, bytes] of tree) expect(files.get(path), path).toEqual(bytes);
    }
  });

  it("are replaced with their package's changed files and kept for the others, removed with their package, and equal a fresh build", async () => {
    const catalogue = copyFixture("package-files");
    const out = join(catalogue, "..", "dist");
    await settle();
    await build(catalogue, out, ["github-pages"]);
    const before = new Map(aliasPathsOf(out).map((path) => [path, inode(join(out, path))]));
    const packageFilesBefore = packageFileInodes(out);

    writeFileSync(join(catalogue, "primary/snake/apps/snake/data/readme.txt"), "a longer readme than before\n");
    const changed = await build(catalogue, out, ["github-pages"]);
    expect(changed.mode.kind).toBe("incremental");
    const after = new Map(aliasPathsOf(out).map((path) => [path, inode(join(out, path))]));
    expect([...after.keys()]).toEqual([...before.keys()]);
    for (const [path, ino] of before) {
      if (path.endsWith("snake/snake.zip")) {
        expect(after.get(path), path).not.toBe(ino);
        expect(after.get(path), path).toBe(inode(join(out, "hbb/snake/snake.zip")));
      } else expect(after.get(path), path).toBe(ino);
    }
    // Of every package file, stored or linked, only snake's zip at its four paths was written.
    const packageFilesAfter = packageFileInodes(out);
    expect([...packageFilesAfter.keys()]).toEqual([...packageFilesBefore.keys()]);
    expect(
      [...packageFilesAfter].filter(([path, ino]) => packageFilesBefore.get(path) !== ino).map(([p]) => p),
    ).toEqual(["api/contents/snake/snake.zip", "hbb/snake/snake.zip"]);
    expect(readTree(out)).toEqual(readTree(await fresh(catalogue, ["github-pages"])));

    rmSync(join(catalogue, "primary/snake"), { recursive: true });
    rmSync(join(catalogue, "primary/snake.json"));
    await build(catalogue, out, ["github-pages"]);
    const left = aliasPathsOf(out);
    expect(left.filter((path) => path.includes("snake"))).toEqual([]);
    expect(left).toHaveLength(2 * 3);
    expect(readTree(out)).toEqual(readTree(await fresh(catalogue, ["github-pages"])));
  });

  it("are gone when the last target that needed them is, and the note counts them", async () => {
    const catalogue = copyFixture("package-files");
    const cwd = join(catalogue, "..");
    const run = (...targets: string[]) => {
      const result = shopfront(cwd, "build", "--catalogue", catalogue, ...targets.flatMap((t) => ["--target", t]));
      // The fixture's warnings come first; the note is the last line.
      return {
        code: result.code,
        stderr: result.stderr
          .split("\n")
          .filter((l) => l.startsWith("note:") && l !== UNSIGNED_NOTE)
          .join("\n"),
      };
    };
    expect(run("github-pages").code).toBe(0);
    // From one target that copies to another: the links stay, only the first target's files go.
    expect(run("netlify").stderr).toBe(
      'note: the previous build had --target github-pages and this one has --target netlify, so .nojekyll and 404.html are gone; put "targets" in shopfront.json to build them every time',
    );
    expect(aliasPathsOf(join(cwd, "dist"))).toHaveLength(NAMES.length * 3);
    const dropped = run("nginx");
    expect(dropped.code).toBe(0);
    expect(dropped.stderr).toBe(
      `note: the previous build had --target netlify and this one has --target nginx, so _redirects, _headers and the ${NAMES.length * 3} links that served the package files at their aliases' URLs are gone; put "targets" in shopfront.json to build them every time`,
    );
    expect(aliasPathsOf(join(cwd, "dist"))).toEqual([]);
    // The CLI's build also writes the file index (docs/trust.md), which the core's leaves out.
    const built = new Map([...readTree(join(cwd, "dist"))].filter(([path]) => !isFileIndexPath(path)));
    expect(built).toEqual(readTree(await fresh(catalogue, ["nginx"])));
  });
});

/** Every path of the tree at `out` that is an alias's path of a package file it holds. */
function aliasPathsOf(out: string): string[] {
  const tree = readTree(out);
  return [...tree.keys()]
    .flatMap(aliasFilesOf)
    .filter((path) => tree.has(path))
    .sort();
}

/** The inode of every package file of the tree at `out`, stored or at an alias's path, by path. */
function packageFileInodes(out: string): Map<string, number> {
  return new Map(
    [...readTree(out).keys()].filter((path) => isPackageFile(path)).map((path) => [path, inode(join(out, path))]),
  );
}

/** A full build of the catalogue as it is now, into a new folder. */
async function fresh(catalogue: string, targets: TargetId[]): Promise<string> {
  const out = join(tempDir(), "dist");
  await build(catalogue, out, targets);
  return out;
}
