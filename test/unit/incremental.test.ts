// Builds after builds: whatever sequence of edits, the incremental output equals a full build of the
// same catalogue byte for byte; the cache is never trusted across tools, schemas or killed builds.
import { execFileSync, spawn } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { buildCatalogue, type BuildOptions } from "../../src/engine/buildCatalogue.js";
import type { TargetId } from "../../src/targets/target.js";
import { surveyKnown } from "../../src/engine/surveyCatalogue.js";
import { zipPackageFolder } from "../../src/packageFiles/zipPackageFolder.js";
import {
  computeToolKey,
  parseState,
  serializeState,
  writeState,
  type BuildState,
} from "../../src/engine/buildState.js";
import {
  BIN,
  copyFixture,
  GEN_CATALOGUE,
  manifest,
  readJson,
  readTree,
  ROOT,
  tempDir,
  writeFiles,
  partlyRebuilt,
} from "../support/helpers.js";

async function build(catalogueDir: string, outDir: string, extra: Partial<BuildOptions> = {}) {
  const result = await buildCatalogue({ catalogueDir, outDir, ...extra });
  if (!result.built) throw new Error(`build failed: ${JSON.stringify(result.problems)}`);
  return result.built;
}

/** A full build of the catalogue as it is now, into a fresh folder. */
async function fullTree(catalogueDir: string): Promise<Map<string, Buffer>> {
  const out = join(tempDir(), "dist");
  await build(catalogueDir, out);
  return readTree(out);
}

/** Moves a file's mtime and ctime out of the "racy" window, as if it was edited long before the build. */
function age(dir: string): void {
  const past = new Date(Date.now() - 60_000);
  for (const [file] of readTree(dir)) utimesSync(join(dir, file), past, past);
}

const hostsPath = (dir: string) => join(dir, "hosts.json");

/**
 * A clock ten seconds ahead: the build sees every edit as settled (outside the racy window), so it
 * trusts the signatures it recorded, as a build run long after the last edit does.
 */
const settled = () => Date.now() + 10_000;

describe("incremental builds", () => {
  it.each([
    ["right after the edits (every touched input is read again)", undefined],
    ["long after the edits (signatures trusted, folders not listed while they keep theirs)", settled],
  ])(
    "equal a full build after every kind of edit, in sequence: %s",
    async (_, now) => {
      const catalogue = copyFixture("conformance");
      const out = join(tempDir(), "dist");
      expect((await build(catalogue, out, { now })).mode.kind).toBe("full");

      const edits: [string, (dir: string) => void, string][] = [
        ["nothing", () => {}, "unchanged"],
        [
          "one manifest's text",
          (d) => writeFiles(d, { "primary/snake.json": manifest("snake", { version: "2.0" }) }),
          "incremental",
        ],
        [
          "another manifest",
          (d) =>
            writeFiles(d, {
              "themes/dark-blue.json": manifest("dark-blue", { category: "themes", package_type: "thm" }),
            }),
          "incremental",
        ],
        ["a new package", (d) => writeFiles(d, { "primary/new-one.json": manifest("new-one") }), "incremental"],
        ["a removed package", (d) => rmSync(join(d, "primary", "240pTest.json")), "incremental"],
        [
          "a package added to the empty host",
          (d) => writeFiles(d, { "empty/first.json": manifest("first") }),
          "incremental",
        ],
        ["the last package of a host removed", (d) => rmSync(join(d, "empty", "first.json")), "incremental"],
        [
          "a manifest rewritten with the same content",
          (d) => writeFiles(d, { "primary/snake.json": readFileSync(join(d, "primary/snake.json")) }),
          "unchanged",
        ],
        [
          "an editor's backups beside the manifests",
          (d) => writeFiles(d, { "primary/snake.json~": "{", "primary/#snake.json#": "", "primary/4913": "" }),
          "unchanged",
        ],
        ["nothing, with the backups still there", () => {}, "unchanged"],
        [
          "a host's description",
          (d) =>
            writeFiles(d, {
              "hosts.json": {
                ...(readJson(hostsPath(d)) as object),
                hosts: (readJson(hostsPath(d)) as { hosts: object[] }).hosts.map((h, i) =>
                  i === 0 ? { ...h, description: "New words." } : h,
                ),
              },
            }),
          // Every page of the browse site shows its host's description or name: a full build.
          "full",
        ],
        [
          "the order of the hosts",
          (d) =>
            writeFiles(d, {
              "hosts.json": {
                ...(readJson(hostsPath(d)) as object),
                hosts: [...(readJson(hostsPath(d)) as { hosts: object[] }).hosts].reverse(),
              },
            }),
          // Every host's files move: a full build.
          "full",
        ],
        [
          "non-ASCII text",
          (d) => writeFiles(d, { "primary/json.json": manifest("json", { long_description: "Ærø – 日本語 🎮" }) }),
          "incremental",
        ],
        [
          "a stats file: numbers for two packages and one the host does not have",
          (d) =>
            writeFiles(d, {
              "stats/primary.json": {
                packages: {
                  snake: { downloads: 12, rating: "4.5" },
                  ZapShot: { downloads: 3 },
                  retired: { downloads: 9 },
                },
              },
            }),
          "incremental",
        ],
        [
          "one package's downloads",
          (d) =>
            writeFiles(d, {
              "stats/primary.json": {
                packages: {
                  snake: { downloads: 13, rating: "4.5" },
                  ZapShot: { downloads: 3 },
                  retired: { downloads: 9 },
                },
              },
            }),
          "incremental",
        ],
        [
          "the stats file rewritten with the same numbers, in another order, with a counted log",
          (d) =>
            writeFiles(d, {
              "stats/primary.json": {
                packages: {
                  retired: { downloads: 9 },
                  ZapShot: { downloads: 3, rating: "" },
                  snake: { rating: "4.5", downloads: 13 },
                },
                counted: [
                  {
                    sha256: "0".repeat(64),
                    bytes: 10,
                    file: "access.log.1",
                    countedAt: "2026-11-23T21:00:00Z",
                    downloads: 1,
                  },
                ],
              },
            }),
          "unchanged",
        ],
        [
          "a package that has stats removed (its entry stays)",
          (d) => rmSync(join(d, "primary", "ZapShot.json")),
          "incremental",
        ],
        [
          "a package added whose name has stats",
          (d) => writeFiles(d, { "primary/retired.json": manifest("retired") }),
          "incremental",
        ],
        [
          "stats for another host",
          (d) => writeFiles(d, { "stats/themes.json": { packages: { "dark-blue": { downloads: 2147483647 } } } }),
          "incremental",
        ],
        ["a stats file removed", (d) => rmSync(join(d, "stats", "primary.json")), "incremental"],
        [
          "a renamed package (same inode, new name)",
          (d) => {
            renameSync(join(d, "primary/snake.json"), join(d, "primary/snake-2.json"));
            writeFiles(d, {
              "primary/snake-2.json": {
                ...(readJson(join(d, "primary/snake-2.json")) as object),
                internal_name: "snake-2",
              },
            });
          },
          "incremental",
        ],
      ];
      for (const [what, edit, mode] of edits) {
        edit(catalogue);
        const result = await buildCatalogue({ catalogueDir: catalogue, outDir: out, now });
        expect(result.built?.mode.kind, what).toBe(mode);
        expect(readTree(out), what).toEqual(await fullTree(catalogue));
        // The warnings too: a stats entry of a removed package is reported, one of a package added back is not.
        const full = await buildCatalogue({ catalogueDir: catalogue, outDir: join(tempDir(), "dist") });
        expect(result.problems, what).toEqual(full.problems);
      }
    },
    240_000,
  );

  it("write only what changed and say so", async () => {
    const catalogue = copyFixture("basic");
    const out = join(tempDir(), "dist");
    // The API's files alone: test/unit/site.test.ts counts the site's.
    // Day 3's featured app is ZapShot, which no edit below touches.
    const apiOnly = { site: false, featuredDay: 3 };
    await build(catalogue, out, apiOnly);
    // snake moves from games and "Fixture Coder" to utilities and "Test Coder": its file, its host's
    // list, the three filtered lists it leaves (one kept by ZapShot) and the three it joins (two new);
    // and its host's v3 and v4 contents (ten files of today's API in all, see build.test.ts).
    writeFiles(catalogue, { "primary/snake.json": manifest("snake", { zip_size: 7 }) });
    expect(await build(catalogue, out, apiOnly)).toMatchObject({
      mode: { kind: "incremental" },
      changedPackages: 1,
      filesWritten: 10,
      packages: 5,
      files: 34,
    });
    // A new package also changes the host's app count (v3 and v4 information); a demo is never
    // featured. It makes the demos list and its coder's pair list.
    writeFiles(catalogue, { "primary/added.json": manifest("added", { category: "demos" }) });
    expect(await build(catalogue, out, apiOnly)).toMatchObject({
      mode: { kind: "incremental" },
      changedPackages: 1,
      filesWritten: 9,
      packages: 6,
      files: 37,
    });
    rmSync(join(catalogue, "primary", "added.json"));
    expect(await build(catalogue, out, apiOnly)).toMatchObject({
      mode: { kind: "incremental" },
      changedPackages: 1,
      filesWritten: 9,
      packages: 5,
      files: 34,
    });
    expect(readTree(out).size).toBe(34);
  });

  it("notice an edit that keeps size and mtime (the ctime moves)", async () => {
    const catalogue = copyFixture("basic");
    const out = join(tempDir(), "dist");
    age(catalogue);
    await build(catalogue, out);
    const file = join(catalogue, "primary", "snake.json");
    const before = statSync(file);
    writeFileSync(file, readFileSync(file, "utf8").replace('"1.0"', '"1.1"'));
    utimesSync(file, before.atime, before.mtime);
    expect(statSync(file).size).toBe(before.size);
    expect(await build(catalogue, out)).toMatchObject({ mode: { kind: "incremental" }, changedPackages: 1 });
    expect(readTree(out)).toEqual(await fullTree(catalogue));
  });

  it("write nothing when the catalogue has errors, and build the fix", async () => {
    const catalogue = copyFixture("basic");
    const out = join(tempDir(), "dist");
    await build(catalogue, out);
    const before = readTree(out);
    writeFiles(catalogue, { "primary/snake.json": manifest("snake", { zip_size: "x" }) });
    const failed = await buildCatalogue({ catalogueDir: catalogue, outDir: out });
    expect(failed.built).toBeUndefined();
    expect(failed.problems.map((p) => p.code)).toEqual(["WRONG_TYPE"]);
    expect(readTree(out)).toEqual(before);
    writeFiles(catalogue, { "primary/snake.json": manifest("snake", { zip_size: 9 }) });
    expect((await build(catalogue, out)).mode.kind).toBe("incremental");
    expect(readTree(out)).toEqual(await fullTree(catalogue));
  });

  it("check a new name against the known ones for case collisions", async () => {
    const catalogue = copyFixture("basic");
    const out = join(tempDir(), "dist");
    await build(catalogue, out);
    writeFiles(catalogue, { "primary/SNAKE.json": manifest("SNAKE"), "primary/con.json": manifest("con") });
    const result = await buildCatalogue({ catalogueDir: catalogue, outDir: out });
    expect(result.built).toBeUndefined();
    expect(result.problems.map((p) => [p.code, p.file])).toEqual([
      ["RESERVED_NAME", "primary/con.json"],
      ["RESERVED_NAME", "primary/con.json"],
      ["CASE_COLLISION", "primary/snake.json"],
    ]);
  });

  it("report the warnings of unchanged files again", async () => {
    const catalogue = copyFixture("basic");
    const out = join(tempDir(), "dist");
    writeFiles(catalogue, { "primary/snake.json": manifest("snake", { updated: 1 }) });
    const first = await buildCatalogue({ catalogueDir: catalogue, outDir: out });
    const again = await buildCatalogue({ catalogueDir: catalogue, outDir: out });
    expect(again.built?.mode.kind).toBe("unchanged");
    expect(again.problems).toEqual(first.problems);
    expect(again.problems.map((p) => p.code)).toEqual(["UPDATED_BEFORE_RELEASE"]);
  });

  it("report the files they ignore again, listing the catalogue or not", async () => {
    const catalogue = copyFixture("basic");
    const out = join(tempDir(), "dist");
    writeFiles(catalogue, { "primary/snake.json.bak": "{", "themes/dark-blue.json.orig": "" });
    const first = await buildCatalogue({ catalogueDir: catalogue, outDir: out });
    expect(first.problems.map((p) => [p.code, p.file])).toEqual([
      ["IGNORED_FILE", "primary/snake.json.bak"],
      ["IGNORED_FILE", "themes/dark-blue.json.orig"],
    ]);
    // Long after the edits the folders are not listed again (surveyKnown); right after, they are.
    for (const now of [settled, undefined]) {
      const again = await buildCatalogue({ catalogueDir: catalogue, outDir: out, now });
      expect(again.built?.mode.kind).toBe("unchanged");
      expect(again.problems).toEqual(first.problems);
    }
  });

  it("rebuild fully with --force", async () => {
    const catalogue = copyFixture("basic");
    const out = join(tempDir(), "dist");
    await build(catalogue, out);
    expect(await build(catalogue, out, { force: true })).toMatchObject({ mode: { kind: "full", reason: "--force" } });
  });

  it("write only the targets' files when the target list changes, equal to a full build", async () => {
    const catalogue = copyFixture("package-files");
    const out = join(tempDir(), "dist");
    await build(catalogue, out, { now: settled });
    const lists: TargetId[][] = [["netlify"], ["netlify", "github-pages"], ["github-pages"], [], ["cloudfront"], []];
    let before: TargetId[] = [];
    for (const targets of lists) {
      const built = await build(catalogue, out, { now: settled, targets });
      expect(built.mode.kind, targets.join()).toBe("incremental");
      expect(built.changedPackages).toBe(0);
      const gone = before.filter((t) => !targets.includes(t));
      if (gone.length > 0) expect(built.dropped?.targets, targets.join()).toEqual(gone);
      const fresh = join(tempDir(), "dist");
      await build(catalogue, fresh, { now: settled, targets });
      expect(readTree(out), targets.join()).toEqual(readTree(fresh));
      expect(built.files, targets.join()).toBe(readTree(out).size);
      before = targets;
    }
  });
});

describe("the build cache", () => {
  it("is keyed by the tool's version, its schemas and its code", () => {
    const base = computeToolKey("1.0.0", [["manifest", "{}"]], [["cli.js", Buffer.from("a")]]);
    expect(computeToolKey("1.0.0", [["manifest", "{}"]], [["cli.js", Buffer.from("a")]])).toBe(base);
    expect(computeToolKey("1.0.1", [["manifest", "{}"]], [["cli.js", Buffer.from("a")]])).not.toBe(base);
    expect(computeToolKey("1.0.0", [["manifest", '{"type":"object"}']], [["cli.js", Buffer.from("a")]])).not.toBe(base);
    expect(computeToolKey("1.0.0", [["manifest", "{}"]], [["cli.js", Buffer.from("b")]])).not.toBe(base);
  });

  it("left by another shopfront or other schemas is not used: the next build is full and equal", async () => {
    const catalogue = copyFixture("basic");
    const out = join(tempDir(), "dist");
    await build(catalogue, out);
    const statePath = join(out, "..", ".dist.shopfront", "state");
    const state = parseState(readFileSync(statePath))!;
    writeFileSync(statePath, serializeState({ ...state, key: "written by another version" }));
    writeFiles(catalogue, { "primary/snake.json": manifest("snake", { version: "3" }) });
    expect(await build(catalogue, out)).toMatchObject({
      mode: { kind: "full", reason: "no usable state from the previous build" },
    });
    expect(readTree(out)).toEqual(await fullTree(catalogue));
  });

  it("survives a round trip through its file, empty hosts included", () => {
    const state: BuildState = {
      key: "k",
      targets: ["netlify", "github-pages"],
      live: "a",
      snapshotMs: 1.5,
      featuredMs: 86_400_000,
      hostInfos: [
        { id: "p", name: "Primary", host: "p.example", description: "Apps" },
        { id: "e", name: "Empty", host: "e.example", description: "" },
      ],
      hostsDefault: "p",
      hostsFile: { size: 1, mtimeMs: 2.25, ctimeMs: 3.125, ino: 4 },
      hosts: ["p", "e"],
      statsFiles: [{ size: 90, mtimeMs: 1.25, ctimeMs: 1.5, ino: 12 }, null],
      folders: [
        { size: 4096, mtimeMs: 5.5, ctimeMs: 6.25, ino: 7 },
        { size: 0, mtimeMs: 8, ctimeMs: 9.75, ino: 10 },
        { size: 1, mtimeMs: 2, ctimeMs: 3, ino: 11 },
      ],
      packages: {
        p: {
          names: ["x", "y"],
          columns: Float64Array.from([
            1,
            2.5,
            3.5,
            4,
            5,
            0,
            1,
            12,
            3,
            700,
            650,
            1,
            2 ** 47 + 3,
            6,
            7.75,
            8.5,
            9,
            10,
            2,
            1,
            -1,
            -1,
            812,
            760,
            0,
            -1,
          ]),
          values: ["games", "Jānis Rūcis", "utilities", "4.5"],
          orphans: [["gone", { downloads: 7, rating: "" }]],
        },
        e: { names: [], columns: new Float64Array(0), values: [], orphans: [] },
      },
      warnings: [],
      files: 3,
    };
    expect(parseState(serializeState(state))).toEqual(state);
  });

  it("round-trips a state whose names and site index span many of the header's chunks", () => {
    const count = 10_001;
    const names = Array.from({ length: count }, (_, i) => `pkg_${i}`);
    // Display names with quotes, backslashes and letters beyond Latin-1, which JSON escapes or keeps.
    const displays = names.map((n, i) => (i % 3 === 0 ? `"${n}" \\ 名前 ${i}` : `App ${n}`));
    const columns = new Float64Array(count * 13).map((_, i) => i % 97);
    const siteColumns = new Float64Array(count * 6).map((_, i) => i % 89);
    const state: BuildState = {
      key: "k",
      targets: [],
      live: "a",
      snapshotMs: 1,
      featuredMs: 1,
      hostInfos: [{ id: "primary", name: "P", host: "p.example.org", description: "d" }],
      hostsDefault: "primary",
      hostsFile: { size: 1, mtimeMs: 2.25, ctimeMs: 3.125, ino: 4 },
      folders: null,
      hosts: ["primary"],
      statsFiles: [null],
      packages: { primary: { names, columns, values: ["games", "Jānis"], orphans: [] } },
      site: {
        hosts: [{ id: "primary", name: "P", host: "p.example.org", description: "d" }],
        packages: {
          primary: { names, displays, values: ["games"], columns: siteColumns, shards: ["abc", "def"] },
        },
      },
      warnings: [],
      files: count,
    };
    const bytes = serializeState(state);
    expect(parseState(bytes)).toEqual(state);
    // Cut short, or claiming a header longer than the file: no state (a full build), never a throw.
    expect(parseState(bytes.subarray(0, bytes.length - 8))).toBeUndefined();
    const line = bytes.indexOf(0x0a, "shopfront-state".length + 4);
    const claims = Buffer.concat([bytes.subarray(0, line - 15), Buffer.from("999999999999999"), bytes.subarray(line)]);
    expect(parseState(claims)).toBeUndefined();
    // writeState writes the same bytes piece by piece.
    const home = tempDir();
    writeState(home, state);
    expect(readFileSync(join(home, "state")).equals(bytes)).toBe(true);
  });

  it("left half-written by a killed build (state.<pid>) is removed by the next build", async () => {
    const catalogue = copyFixture("basic");
    const out = join(tempDir(), "dist");
    await build(catalogue, out);
    const deadPid = execFileSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], {
      encoding: "utf8",
    });
    const leftover = join(out, "..", ".dist.shopfront", `state.${deadPid}`);
    writeFileSync(leftover, "shopfront-state 3\n12");
    expect((await build(catalogue, out)).mode.kind).toBe("unchanged");
    expect(existsSync(leftover)).toBe(false);
  });

  it("that is cut short is not used", async () => {
    const catalogue = copyFixture("basic");
    const out = join(tempDir(), "dist");
    await build(catalogue, out);
    const statePath = join(out, "..", ".dist.shopfront", "state");
    writeFileSync(statePath, readFileSync(statePath).subarray(0, 100));
    expect((await build(catalogue, out)).mode.kind).toBe("full");
  });

  it("is not used when the link was switched by hand to the other slot", async () => {
    const catalogue = copyFixture("basic");
    const out = join(tempDir(), "dist");
    await build(catalogue, out);
    writeFiles(catalogue, { "primary/snake.json": manifest("snake", { version: "3" }) });
    await build(catalogue, out);
    const home = join(out, "..", ".dist.shopfront");
    const state = parseState(readFileSync(join(home, "state")))!;
    rmSync(out);
    const { symlinkSync } = await import("node:fs");
    symlinkSync(`.dist.shopfront/${state.live === "a" ? "b" : "a"}`, out);
    expect(await build(catalogue, out)).toMatchObject({
      mode: { kind: "full", reason: "the previous build was interrupted" },
    });
    expect(readTree(out)).toEqual(await fullTree(catalogue));
  });
});

describe("a rebuild that does not list the catalogue", () => {
  /** A catalogue built by a build that ran long after its files were written, and that build's state. */
  async function settledBuild() {
    const catalogue = copyFixture("basic");
    const out = join(tempDir(), "dist");
    await build(catalogue, out, { now: settled });
    const state = () => parseState(readFileSync(join(out, "..", ".dist.shopfront", "state")))!;
    return { catalogue, out, state };
  }

  it("is taken while no folder moved, and reads only the manifests whose signature moved", async () => {
    const { catalogue, state } = await settledBuild();
    const survey = surveyKnown(catalogue, state());
    expect(survey?.toRead).toEqual([]);
    expect([...survey!.kept.values()].map((flags) => [...flags])).toEqual([[1, 1, 1, 1], [1]]);
    writeFiles(catalogue, { "primary/snake.json": manifest("snake", { version: "9" }) });
    expect(surveyKnown(catalogue, state())?.toRead.map((r) => r.ref)).toEqual([
      { host: "primary", name: "snake", file: "primary/snake.json" },
    ]);
  });

  it.each<[string, (dir: string) => void]>([
    ["a manifest is added", (d) => writeFiles(d, { "primary/added.json": manifest("added") })],
    ["a manifest is removed", (d) => rmSync(join(d, "primary/snake.json"))],
    ["a manifest is renamed", (d) => renameSync(join(d, "primary/snake.json"), join(d, "primary/snake-2.json"))],
    [
      "a manifest is replaced by a link",
      (d) => {
        rmSync(join(d, "primary/snake.json"));
        symlinkSync(join(d, "primary/ZapShot.json"), join(d, "primary/snake.json"));
      },
    ],
    ["a stray file lands in a host folder", (d) => writeFiles(d, { "primary/notes.txt": "x" })],
    ["an undeclared folder lands in the catalogue", (d) => mkdirSync(join(d, "extra"))],
    [
      "a host folder is swapped for another",
      (d) => {
        renameSync(join(d, "themes"), join(d, "themes-old"));
        cpSync(join(d, "themes-old"), join(d, "themes"), { recursive: true });
      },
    ],
  ])("gives way to a listing when %s", async (_, edit) => {
    const { catalogue, state } = await settledBuild();
    edit(catalogue);
    expect(surveyKnown(catalogue, state())).toBeUndefined();
  });

  it("gives way to the listing's own message when the catalogue cannot be reached any more", async () => {
    const parent = join(tempDir(), "parent");
    const catalogue = join(parent, "catalogue");
    cpSync(copyFixture("basic"), catalogue, { recursive: true });
    const out = join(tempDir(), "dist");
    await build(catalogue, out, { now: settled });
    rmSync(parent, { recursive: true });
    writeFileSync(parent, "a file where a folder was");
    await expect(buildCatalogue({ catalogueDir: catalogue, outDir: out, now: settled })).rejects.toThrow(
      `cannot read the catalogue ${catalogue}: `,
    );
  });

  it("gives way to a listing when a folder moved just before the last build, and is taken after it", async () => {
    const catalogue = copyFixture("basic");
    const out = join(tempDir(), "dist");
    await build(catalogue, out);
    const state = () => parseState(readFileSync(join(out, "..", ".dist.shopfront", "state")))!;
    expect(surveyKnown(catalogue, state())).toBeUndefined();
    // The next build lists the catalogue and records the folders' signatures under its own clock.
    expect(await build(catalogue, out, { now: settled })).toMatchObject({ mode: { kind: "unchanged" } });
    expect(surveyKnown(catalogue, state())?.toRead).toEqual([]);
  });
});

describe("incremental builds of a catalogue with package files", () => {
  /** A zip of the folder `from` (holding apps/<name>/) renamed over `to`, as git checks a file out. */
  async function replaceZip(from: string, to: string): Promise<void> {
    await zipPackageFolder(from, `${to}.new`);
    renameSync(`${to}.new`, to);
  }

  it.each([
    ["right after the edits (every touched input is read again)", undefined],
    ["long after the edits (signatures trusted, folders not listed while they keep theirs)", settled],
  ])(
    "equal a full build after every kind of edit to packages and their files, in sequence: %s",
    async (_, now) => {
      const catalogue = copyFixture("package-files");
      writeFiles(catalogue, { "primary/plain.json": manifest("plain") });
      const out = join(tempDir(), "dist");
      expect((await build(catalogue, out, { now })).mode.kind).toBe("full");
      const snake = (d: string) => join(d, "primary", "snake", "apps", "snake");
      const withoutSizes = (d: string, name: string, changes: Record<string, unknown> = {}) => ({
        ...(readJson(join(d, "primary", `${name}.json`)) as object),
        zip_size: undefined,
        extracted: undefined,
        ...changes,
      });

      // [what, edit, mode, packages whose files are read when signatures are trusted]
      const edits: [string, (dir: string) => unknown, string, number][] = [
        ["nothing", () => {}, "unchanged", 0],
        [
          "a file in a package folder, edited in place",
          (d) => writeFileSync(join(snake(d), "data", "readme.txt"), "a longer readme than before\n"),
          "incremental",
          1,
        ],
        [
          "a folder package's binary, edited in place (same size)",
          (d) => {
            const dol = readFileSync(join(snake(d), "boot.dol"));
            dol.writeUInt8(dol.readUInt8(dol.length - 1) ^ 0xff, dol.length - 1);
            writeFileSync(join(snake(d), "boot.dol"), dol);
          },
          "incremental",
          1,
        ],
        [
          "a manifest alone (its files are not read: their stored files are linked)",
          (d) =>
            writeFiles(d, {
              "primary/snake.json": { ...(readJson(join(d, "primary/snake.json")) as object), controllers: "w" },
            }),
          "incremental",
          0,
        ],
        [
          "a zip replaced by another (renamed over it)",
          async (d) => {
            cpSync(snake(d), join(d, "..", "pong-src", "apps", "pong"), { recursive: true });
            await replaceZip(join(d, "..", "pong-src"), join(d, "primary", "pong.zip"));
            writeFiles(d, { "primary/pong.json": withoutSizes(d, "pong", { display_name: "Snake" }) });
          },
          "incremental",
          1,
        ],
        [
          "a package's icon removed (the placeholder served)",
          (d) => rmSync(join(snake(d), "icon.png")),
          "incremental",
          1,
        ],
        [
          "a binary that changes kind (boot.elf to boot.dol)",
          (d) => {
            const tetris = join(d, "primary", "tetris", "apps", "tetris");
            rmSync(join(tetris, "boot.elf"));
            cpSync(join(snake(d), "boot.dol"), join(tetris, "boot.dol"));
            writeFiles(d, { "primary/tetris.json": withoutSizes(d, "tetris", { package_type: "dol" }) });
          },
          "incremental",
          1,
        ],
        [
          "a package added with its folder",
          (d) => {
            cpSync(snake(d), join(d, "primary", "viper", "apps", "viper"), { recursive: true });
            writeFiles(d, {
              "primary/viper.json": { ...(readJson(join(d, "primary/snake.json")) as object), internal_name: "viper" },
            });
          },
          "incremental",
          1,
        ],
        [
          "a package removed with its zip",
          (d) => {
            rmSync(join(d, "primary", "pong.json"));
            rmSync(join(d, "primary", "pong.zip"));
          },
          "incremental",
          0,
        ],
        [
          // The sizes its files gave: its package object stays the same, its site pages lose the download.
          "a package that loses its files (its manifest states the sizes they had)",
          (d) => {
            const { zip_size, extracted } = readJson(join(out, "v1/primary/package/viper")) as Record<string, number>;
            rmSync(join(d, "primary", "viper"), { recursive: true });
            writeFiles(d, {
              "primary/viper.json": { ...(readJson(join(d, "primary/viper.json")) as object), zip_size, extracted },
            });
          },
          "incremental",
          0,
        ],
        [
          "a package that gains files",
          async (d) => {
            cpSync(snake(d), join(d, "..", "plain-src", "apps", "plain"), { recursive: true });
            await replaceZip(join(d, "..", "plain-src"), join(d, "primary", "plain.zip"));
            writeFiles(d, { "primary/plain.json": withoutSizes(d, "plain", { package_type: undefined }) });
          },
          "incremental",
          1,
        ],
        ["nothing again", () => {}, "unchanged", 0],
      ];
      for (const [what, edit, mode, read] of edits) {
        await edit(catalogue);
        const result = await buildCatalogue({ catalogueDir: catalogue, outDir: out, now });
        expect(result.built?.mode.kind, what).toBe(mode);
        if (now) expect(result.built?.packageFilesRead, what).toBe(read);
        expect(readTree(out), what).toEqual(await fullTree(catalogue));
        const full = await buildCatalogue({ catalogueDir: catalogue, outDir: join(tempDir(), "dist") });
        expect(result.problems, what).toEqual(full.problems);
      }
    },
    240_000,
  );

  it("read a zip again when a folder appears beside it, to report both", async () => {
    const catalogue = copyFixture("package-files");
    const out = join(tempDir(), "dist");
    await build(catalogue, out, { now: settled });
    cpSync(join(catalogue, "primary", "snake"), join(catalogue, "primary", "pong"), { recursive: true });
    const result = await buildCatalogue({ catalogueDir: catalogue, outDir: out, now: settled });
    expect(result.built).toBeUndefined();
    expect(result.problems.filter((p) => p.code === "PACKAGE_FILES_TWICE").map((p) => p.file)).toEqual([
      "primary/pong/",
    ]);
  });

  it("link every stored file of a package that did not change, and write none of them", async () => {
    const catalogue = copyFixture("package-files");
    const out = join(tempDir(), "dist");
    await build(catalogue, out, { now: settled });
    writeFileSync(join(catalogue, "primary", "snake", "apps", "snake", "data", "readme.txt"), "changed\n");
    const inode = (path: string) => statSync(join(out, path)).ino;
    // Other packages' files, and snake's icon and binary, which kept their bytes: the live files, not written again.
    const kept = [
      "hbb/pong/pong.zip",
      "hbb/tetris/icon.png",
      "unzipped_apps/tetris/apps/tetris/boot.elf",
      "hbb/snake/icon.png",
      "unzipped_apps/snake/apps/snake/boot.dol",
    ];
    const before = kept.map(inode);
    const zip = inode("hbb/snake/snake.zip");
    const built = await build(catalogue, out, { now: settled });
    // snake's zip and its package object, its host's list and the site's pages that show its size.
    expect(built).toMatchObject({ mode: { kind: "incremental" }, changedPackages: 1, packageFilesRead: 1 });
    expect(kept.map(inode)).toEqual(before);
    expect(inode("hbb/snake/snake.zip")).not.toBe(zip);
  });
});

const STOP_AT_CALL = join(ROOT, "test", "support", "stopAtCall.mjs");

/** Waits until process `pid` is stopped (state T in /proc); fails if it exits first. */
async function stopped(pid: number, exited: Promise<unknown>): Promise<void> {
  let done = false;
  void exited.then(() => (done = true));
  for (;;) {
    if (done) throw new Error(`process ${pid} exited before it stopped: the build made fewer calls`);
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    if (stat.slice(stat.lastIndexOf(")") + 2)[0] === "T") return;
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe("a killed incremental build", () => {
  it(
    "leaves every file whole, written in the deploy's order, and the next build is right",
    { timeout: 180_000 },
    async () => {
      const catalogue = join(tempDir(), "catalogue");
      execFileSync(process.execPath, [GEN_CATALOGUE, catalogue, "3000"]);
      const out = join(tempDir(), "dist");
      // Built by the binary the killed builds run, so that they find its state and build incrementally
      // (the tests' own build is another shopfront: its code is the TypeScript sources).
      const cli = ["build", "--quiet", "--catalogue", catalogue, "--out", out];
      execFileSync(process.execPath, [join(ROOT, "lib", "cli.js"), ...cli]);
      const old = readTree(out);
      // Edit a third of the manifests so the incremental build has real work to be killed in.
      const names = [...readTree(join(catalogue, "primary")).keys()].filter((_, i) => i % 3 === 0);
      for (const name of names)
        writeFileSync(
          join(catalogue, "primary", name),
          readFileSync(join(catalogue, "primary", name), "utf8").replace('"version": "', '"version": "9.'),
        );
      const fresh = await fullTree(catalogue);
      // At these calls of the file system (of some 17,000 the build makes: reading the edited
      // manifests, writing the changes in place), the build stops itself; it is killed
      // while stopped, so every kill lands before the build has finished.
      for (const call of [100, 1500, 4000, 8000]) {
        const child = spawn(process.execPath, ["--import", pathToFileURL(STOP_AT_CALL).href, BIN, ...cli], {
          env: { ...process.env, STOP_AT_CALL: String(call) },
          stdio: "ignore",
        });
        const exited = new Promise<NodeJS.Signals | null>((r) => child.once("exit", (_, signal) => r(signal)));
        await stopped(child.pid!, exited);
        child.kill("SIGKILL");
        expect(await exited, `the build stopped at call ${call}`).toBe("SIGKILL");
        expect(partlyRebuilt(readTree(out), old, fresh), `the build stopped at call ${call}`).toBeUndefined();
      }
      await build(catalogue, out);
      // Compared as text: a deep comparison of some 4,000 Buffers byte by byte takes minutes.
      const text = (tree: Map<string, Buffer>) => new Map([...tree].map(([p, b]) => [p, b.toString("latin1")]));
      expect(text(readTree(out))).toEqual(text(fresh));
      renameSync(out, `${out}-moved`);
    },
  );

  it(
    "with package files, leaves every file whole, in order, and the next build is right",
    { timeout: 180_000 },
    async () => {
      // The fixture's packages and 40 folders shaped like real homebrew: a kill may land while a folder
      // is zipped again, an archive checked, its entries unpacked or the stored files moved in.
      const catalogue = copyFixture("package-files");
      const snake = join(catalogue, "primary", "snake");
      for (let i = 0; i < 40; i++) {
        cpSync(join(snake, "apps", "snake"), join(catalogue, "primary", `app${i}`, "apps", `app${i}`), {
          recursive: true,
        });
        writeFiles(catalogue, {
          [`primary/app${i}.json`]: { ...(readJson(`${snake}.json`) as object), internal_name: `app${i}` },
        });
      }
      const out = join(tempDir(), "dist");
      const cli = ["build", "--quiet", "--catalogue", catalogue, "--out", out];
      execFileSync(process.execPath, [join(ROOT, "lib", "cli.js"), ...cli]);
      const old = readTree(out);
      // A third of the packages' files edited, one package's manifest, one zip replaced by a copy of itself.
      for (let i = 0; i < 40; i += 3)
        writeFileSync(join(catalogue, "primary", `app${i}`, "apps", `app${i}`, "data", "readme.txt"), `changed ${i}\n`);
      writeFiles(catalogue, {
        "primary/app1.json": { ...(readJson(`${snake}.json`) as object), internal_name: "app1", version: "9" },
      });
      cpSync(join(catalogue, "primary", "pong.zip"), join(catalogue, "primary", "pong.zip.new"));
      renameSync(join(catalogue, "primary", "pong.zip.new"), join(catalogue, "primary", "pong.zip"));
      const fresh = await fullTree(catalogue);
      // Of some 550 calls the build makes (pong's zip, the same bytes renamed over, is known by its
      // content): reading the manifests and files that moved, zipping and unpacking them, moving the
      // stored files in, writing the pages.
      for (const call of [50, 200, 350, 500]) {
        const child = spawn(process.execPath, ["--import", pathToFileURL(STOP_AT_CALL).href, BIN, ...cli], {
          env: { ...process.env, STOP_AT_CALL: String(call) },
          stdio: "ignore",
        });
        const exited = new Promise<NodeJS.Signals | null>((r) => child.once("exit", (_, signal) => r(signal)));
        await stopped(child.pid!, exited);
        child.kill("SIGKILL");
        expect(await exited, `the build stopped at call ${call}`).toBe("SIGKILL");
        expect(partlyRebuilt(readTree(out), old, fresh), `the build stopped at call ${call}`).toBeUndefined();
      }
      // The next build is right; nothing is left of the killed ones' work.
      execFileSync(process.execPath, [join(ROOT, "lib", "cli.js"), ...cli]);
      expect(readTree(out)).toEqual(fresh);
      expect(readdirSync(join(out, "..", ".dist.shopfront")).filter((n) => n.startsWith("work-"))).toEqual([]);
    },
  );
});
