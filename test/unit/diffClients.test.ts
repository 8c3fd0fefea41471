// `shopfront diff` on a store in git, for what only some clients see and for how a review can go
// wrong: each change of a field of today's clients (the NAND flag, platforms, peripherals, authors),
// the featured app, a file inside a zip and meta.xml's lines name the app and the field; dates read
// as dates; a whitespace-only edit says so; an added app whose binary is another's is flagged; a
// base that is not the merge base is said so; a revision that does not build yields its problems;
// a side that is no build is refused before the other is built; the working tree is a side; and
// --exit-code, --fail-on and --host decide and filter as a merge-blocking check needs.
import { Ajv2020 } from "ajv/dist/2020.js";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import {
  COMMENT_MARKER,
  formatDiffMarkdown,
  formatDiffText,
  formatUnbuiltMarkdown,
  shortMessage,
} from "../../src/cli/formatDiff.js";
import { readSchema, SCHEMA_FILES, type SchemaName } from "../../src/catalogue/schemas.js";
import { readBuildSource, recordBuildSource } from "../../src/diff/buildSource.js";
import { diffBuilds, type DiffReport, type UnbuiltReport } from "../../src/diff/diffBuilds.js";
import { diffFailures } from "../../src/diff/diffFailures.js";
import { buildCatalogue } from "../../src/engine/buildCatalogue.js";
import { commitAll, FIRST, git, writeStore, type StoreApp } from "../support/diffStore.js";
import { shopfront, tempDir } from "../support/helpers.js";

const changed = (apps: readonly StoreApp[], name: string, changes: Partial<StoreApp>): StoreApp[] =>
  apps.map((a) => (a.name === name ? { ...a, ...changes } : a));

let repo: string;
let catalogue: string;
/** FIRST; then each commit below. */
const rev: Record<string, string> = {};

// Today's fields changed on four apps; radio's zip gains a readme; snake's version (and meta.xml) bumped.
const TODAY = changed(
  changed(
    changed(changed(FIRST, "paint", { today: { flags: ["writes_to_nand"] } }), "tetris", {
      today: { supported_platforms: ["wii", "vwii", "wii_mini"] },
    }),
    "radio",
    { controllers: "wn", today: { peripherals: ["wii_remote", "nunchuk"], authors: ["Marconi", "Tesla"] } },
  ),
  "snake",
  { version: "1.1", releaseDate: 1717200000 },
);
const CONTENTS = changed(TODAY, "radio", { readme: "Tune in.\n" });
const WHITESPACE = changed(CONTENTS, "paint", { long: "Draw with\n\nthe Wii   Remote." });
// An app added whose binary is snake's, byte for byte (the same seed), and which writes to the NAND.
const COPY = [
  ...WHITESPACE,
  {
    ...WHITESPACE.find((a) => a.name === "snake")!,
    name: "snake2",
    displayName: "Snake Two",
    today: { flags: ["writes_to_nand"] },
  },
];

beforeAll(() => {
  repo = join(tempDir("shopfront-diff-clients-"), "store");
  catalogue = join(repo, "catalogue");
  writeStore(repo, FIRST);
  git(repo, "init", "-q", "-b", "main", repo);
  rev.first = commitAll(repo, "first");
  for (const [name, apps] of [
    ["today", TODAY],
    ["contents", CONTENTS],
    ["whitespace", WHITESPACE],
    ["copy", COPY],
  ] as const) {
    writeStore(repo, apps);
    rev[name] = commitAll(repo, name);
  }
});

async function diffOf(a: string, b: string, extra: { outDir?: string; hosts?: string[] } = {}): Promise<DiffReport> {
  const report = await diffBuilds({ a, b, catalogueDir: catalogue, ...extra });
  if ("unbuilt" in report) throw new Error(`unbuilt: ${JSON.stringify(report.unbuilt)}`);
  return report;
}

/** The document `--format json` prints, checked by schemas/diff.schema.json. */
function expectValidJson(report: DiffReport | UnbuiltReport): void {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  for (const [name, file] of Object.entries(SCHEMA_FILES)) ajv.addSchema(readSchema(name as SchemaName), file);
  const validate = ajv.getSchema(SCHEMA_FILES.diff)!;
  expect(validate(JSON.parse(JSON.stringify(report))), JSON.stringify(validate.errors)).toBe(true);
}

const updated = (report: DiffReport, host: string, name: string) =>
  report.hosts.find((h) => h.host === host)!.updated.find((u) => u.name === name)!;

describe("what only today's clients, the Homebrew Browser or a package's files show", () => {
  it("names the app and the field for the NAND flag, platforms, peripherals and authors", async () => {
    const report = await diffOf(rev.first!, rev.today!);
    const paint = updated(report, "primary", "paint");
    expect(paint.fields).toContainEqual({ field: "flags", client: "v4-v3", from: [], to: ["WRITES_TO_NAND"] });
    expect(paint.gainsNand).toBe(true);
    expect(updated(report, "primary", "tetris").fields).toContainEqual({
      field: "supported_platforms",
      client: "v4-v3",
      from: ["wii", "vwii"],
      to: ["wii", "vwii", "wii_mini"],
    });
    const radio = updated(report, "extra", "radio");
    expect(radio.fields).toContainEqual({
      field: "peripherals",
      client: "v4-v3",
      from: ["wii_remote"],
      to: ["wii_remote", "nunchuk"],
    });
    expect(radio.fields).toContainEqual({
      field: "authors",
      client: "v4-v3",
      from: ["Marconi"],
      to: ["Marconi", "Tesla"],
    });
    // The v1 API's letter for it, and the Homebrew Browser's list entry, which carries the controllers.
    expect(radio.fields).toContainEqual({ field: "controllers", from: "w", to: "wn" });
    expect(radio.fields.find((f) => f.field === "list entry")).toMatchObject({ client: "homebrew-browser" });
    const text = formatDiffText(report).join("\n");
    expect(text).toMatch(
      /^ {2}updated: paint 2\.0 \(Paint\)\n {4}flags \(v4\/v3 API\): \[\] -> \["WRITES_TO_NAND"\]$/m,
    );
    expect(text).toContain(
      "    ! it writes to the console's NAND (WRITES_TO_NAND): a mistake there can brick a Wii, which it did not before",
    );
    expect(text).toContain('    supported_platforms (v4/v3 API): ["wii","vwii"] -> ["wii","vwii","wii_mini"]');
    expect(text).toContain('    authors (v4/v3 API): ["Marconi"] -> ["Marconi","Tesla"]');
    const markdown = formatDiffMarkdown(report);
    expect(markdown.split("\n")[0]).toBe(COMMENT_MARKER);
    expect(markdown).toContain('  - peripherals \\(v4\\/v3 API\\): `["wii_remote"]` → `["wii_remote","nunchuk"]`');
    expect(markdown).toContain("- **Updated** `paint` `2.0` (Paint)");
    expect(diffFailures(report, ["nand"])).toEqual(["writes to the NAND, newly: primary/paint"]);
    expectValidJson(report);
  }, 60_000);

  it("shows dates as dates, meta.xml's lines, and the files inside a zip", async () => {
    const today = await diffOf(rev.first!, rev.today!);
    const snake = updated(today, "primary", "snake");
    expect(snake.fields).toContainEqual({ field: "release_date", from: 1704067200, to: 1717200000 });
    expect(snake.metaXml!.filter((r) => r.kind !== "same")).toEqual([
      { kind: "removed", text: "  <version>1.0</version>" },
      { kind: "added", text: "  <version>1.1</version>" },
    ]);
    const text = formatDiffText(today).join("\n");
    expect(text).toContain('    release_date: "2024-01-01T00:00:00Z" -> "2024-06-01T00:00:00Z"');
    expect(text).toContain("      -   <version>1.0</version>\n      +   <version>1.1</version>");
    expect(formatDiffMarkdown(today)).toContain("    -   <version>1.0</version>\n    +   <version>1.1</version>");

    // radio's zip gains a readme; its version does not move. Built into one folder, one after the other.
    const out = join(tempDir(), "dist");
    const contents = await diffOf(rev.today!, rev.contents!, { outDir: out });
    const radio = updated(contents, "extra", "radio");
    expect(radio.zipEntries).toEqual([
      { path: "apps/radio/readme.txt", from: null, to: { size: 9, crc32: expect.any(Number) } },
    ]);
    expect(radio.archiveChangedVersionSame).toBe(true);
    expect(formatDiffText(contents).join("\n")).toMatch(
      /^ {2}updated: radio 3\.1 \(Radio\)\n(?: {4}.*\n)* {4}file in zip apps\/radio\/readme\.txt: added, none -> 9 B$/m,
    );
    expect(formatDiffMarkdown(contents)).toContain("  - file in zip `apps/radio/readme.txt`: added, none → 9 B");
    expectValidJson(today);
    expectValidJson(contents);
  }, 60_000);

  it("says a whitespace-only edit is one, and flags an added app whose binary is another's and which writes to the NAND", async () => {
    const report = await diffOf(rev.contents!, rev.copy!);
    const paint = updated(report, "primary", "paint");
    expect(paint.fields.find((f) => f.field === "long_description")).toMatchObject({ whitespaceOnly: true });
    const text = formatDiffText(report).join("\n");
    expect(text).toContain("    long_description: only its spaces or line breaks changed");
    expect(text).not.toMatch(/long_description: *$/m);
    const added = report.hosts.find((h) => h.host === "primary")!.added;
    expect(added).toEqual([
      { name: "snake2", displayName: "Snake Two", version: "1.1", writesToNand: true, sameBinaryAs: ["primary/snake"] },
    ]);
    expect(text).toContain("    ! its binary is byte for byte the one of primary/snake: a copy under another name?");
    expect(formatDiffMarkdown(report)).toContain("  - ⚠️ **its binary is byte for byte the one of** `primary/snake`");
    expectValidJson(report);
    expect(diffFailures(report, ["nand", "removed"])).toEqual(["writes to the NAND, newly: primary/snake2"]);
    // --host leaves out the other hosts' apps.
    expect((await diffOf(rev.first!, rev.today!, { hosts: ["extra"] })).hosts.map((h) => h.host)).toEqual(["extra"]);
  }, 60_000);

  it("names the featured app moving between two builds of the same commit on other days", async () => {
    const dir = tempDir();
    const built = async (day: number) => {
      const out = join(dir, `day-${day}`);
      await buildCatalogue({ catalogueDir: catalogue, outDir: out, featuredDay: day, index: { mirrors: [] } });
      return out;
    };
    const first = await built(20000);
    let moved: DiffReport | undefined;
    for (let day = 20001; day < 20020 && !moved; day++) {
      const report = await diffOf(first, await built(day));
      if (report.hosts.some((h) => h.featured)) moved = report;
    }
    const host = moved!.hosts.find((h) => h.featured)!;
    expect(host.featured!.from).not.toBe(host.featured!.to);
    expect(formatDiffText(moved!).join("\n")).toContain(
      `  featured app (v4/v3 API): ${host.featured!.from} -> ${host.featured!.to}`,
    );
    expect(formatDiffMarkdown(moved!)).toContain(
      `- Featured app (v4/v3 API): \`${host.featured!.from}\` → \`${host.featured!.to}\``,
    );
  }, 120_000);

  it("cuts a long quoted value in a problem's message", () => {
    const long = "word ".repeat(140).trim();
    const message = `is ${JSON.stringify(long)}, meta.xml's <long_description> says ${JSON.stringify(`${long}!`)}`;
    const short = shortMessage(message);
    expect(short.length).toBeLessThan(220);
    expect(short).toContain(`(${long.length} characters)`);
    expect(short).toContain(`(${long.length + 1} characters)`);
    expect(shortMessage('is "short"')).toBe('is "short"');
  });
});

describe("the right base, and a revision that does not build", () => {
  it("records a build's commit beside it, names both commits, and says when the base is not the merge base", async () => {
    const out = join(tempDir(), "dist");
    git(repo, "checkout", "-q", rev.first!);
    await buildCatalogue({ catalogueDir: catalogue, outDir: out, index: { mirrors: [] } });
    await recordBuildSource(out, catalogue);
    expect(readBuildSource(out)).toEqual({ commit: rev.first, dirty: false });
    // A branch from `today`, while the folder holds an older build: first is an ancestor, and is the merge base.
    git(repo, "checkout", "-q", "-b", "feature", rev.today!);
    writeFileSync(join(repo, "NOTES"), "the feature\n");
    const feature = commitAll(repo, "the feature's own commit");
    const fine = await diffOf(out, "HEAD", { outDir: join(tempDir(), "other") });
    expect(fine.a).toMatchObject({ kind: "folder", commit: rev.first });
    expect(fine.b).toMatchObject({ kind: "revision", commit: feature });
    expect(fine.base).toEqual({ status: "merge-base", commit: rev.first });
    expect(formatDiffMarkdown(fine)).toContain(
      `\`${out}\` (${rev.first!.slice(0, 12)}) → \`HEAD\` (${feature.slice(0, 12)},`,
    );
    // The pull request as GitHub checks it out: merged into main, which has moved on (contents) since the folder's build.
    git(repo, "checkout", "-q", "-b", "merged", rev.contents!);
    git(repo, "merge", "-q", "--no-ff", "-m", "merge", "feature");
    const stale = await diffOf(out, "HEAD", { outDir: join(tempDir(), "other") });
    expect(stale.base).toEqual({ status: "not-merge-base", commit: rev.first, mergeBase: rev.contents });
    expect(formatDiffText(stale)[2]).toMatch(/^! a \([0-9a-f]{12}\) is not the merge base of b \([0-9a-f]{12}\)/);
    expect(formatDiffMarkdown(stale)).toMatch(/^> \[!WARNING\]\n> a \\\([0-9a-f]{12}\\\) is not the merge base/m);
    expect(diffFailures(stale, ["base"])).toEqual(["the first side is not the merge base of the second"]);
    expectValidJson(stale);
    // A build newer than the record (here: one that did not record) leaves the commit unknown.
    await buildCatalogue({ catalogueDir: catalogue, outDir: out, force: true, index: { mirrors: [] } });
    expect(readBuildSource(out)).toBeUndefined();
    git(repo, "checkout", "-q", "main");
  }, 120_000);

  it("returns the problems of a revision that does not build, and the CLI prints them as Markdown and exits 1", async () => {
    const broken = join(catalogue, "primary", "snake.json");
    writeFileSync(broken, "{ not json");
    const bad = commitAll(repo, "a broken manifest");
    const report = (await diffBuilds({ a: rev.copy!, b: bad, catalogueDir: catalogue })) as UnbuiltReport;
    expect(report.unbuilt).toMatchObject({ side: "b", argument: bad, commit: bad });
    expect(report.unbuilt.problems.map((p) => [p.file, p.severity])).toContainEqual(["primary/snake.json", "error"]);
    expectValidJson(report);
    const markdown = formatUnbuiltMarkdown(report);
    expect(markdown.split("\n").slice(0, 2)).toEqual([
      COMMENT_MARKER,
      `### ❌ \`${bad}\` (${bad.slice(0, 12)}) does not build`,
    ]);
    expect(markdown).toMatch(/^- `primary\/snake\.json` \(error, \w+\): /m);
    const cli = shopfront(repo, "diff", rev.copy!, bad, "--format", "markdown");
    expect(cli.code).toBe(1);
    expect(cli.stdout).toBe(markdown);
    git(repo, "reset", "-q", "--hard", rev.copy!);
  }, 60_000);

  it("refuses a side that is no build before building the other, and builds the working tree as a side", async () => {
    const notBuild = join(tempDir(), "not-a-build");
    mkdirSync(notBuild);
    const out = join(tempDir(), "dist");
    const refused = shopfront(repo, "diff", "HEAD", notBuild, "--out", out);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("is a folder without a file index (entry.json)");
    expect(existsSync(out)).toBe(false);
    // An edit not committed: the catalogue folder is the working tree's side.
    writeStore(repo, changed(COPY, "tetris", { version: "0.6" }));
    const report = await diffOf("HEAD", catalogue, { outDir: out });
    expect(report.b).toMatchObject({ kind: "worktree", commit: rev.copy, dirty: true });
    // The second side is a rebuild of the first, even on the first run.
    expect([report.a, report.b]).toMatchObject([{ build: "full" }, { build: "incremental" }]);
    expect(updated(report, "primary", "tetris").fields).toContainEqual({ field: "version", from: "0.5", to: "0.6" });
    expectValidJson(report);
    // Both sides built at one path: the second run rebuilds each from the other.
    const again = await diffOf("HEAD", catalogue, { outDir: out });
    expect([again.a, again.b]).toMatchObject([{ build: "incremental" }, { build: "incremental" }]);
    git(repo, "checkout", "-q", "--", ".");
  }, 120_000);

  it("exits 1 for --exit-code with a difference and for each --fail-on that holds, 0 otherwise", () => {
    const run = (...args: string[]) => shopfront(repo, "diff", ...args);
    expect(run(rev.copy!, rev.copy!, "--exit-code").code).toBe(0);
    const differ = run(rev.first!, rev.today!, "--exit-code");
    expect(differ.code).toBe(1);
    expect(differ.stderr).toContain("check failed: the two sides differ");
    expect(run(rev.first!, rev.today!, "--fail-on", "removed").code).toBe(0);
    const nand = run(rev.first!, rev.today!, "--fail-on", "removed", "nand");
    expect(nand.code).toBe(1);
    expect(nand.stderr).toContain("check failed: writes to the NAND, newly: primary/paint");
    expect(run(rev.first!, rev.today!, "--fail-on", "nothing").code).toBe(2);
  }, 120_000);
});
