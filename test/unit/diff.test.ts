// `shopfront diff` on a real git repository of a store with package files, changed in three commits
// (a version bumped with its zip replaced and an app added; an app removed and one renamed; a zip
// replaced with its version unchanged): between each pair of revisions it names every change, in
// text, JSON (valid by schemas/diff.schema.json) and Markdown; a built folder against its own
// deployment, served by the preview server, differs in nothing.
import { Ajv2020 } from "ajv/dist/2020.js";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readSchema, SCHEMA_FILES, type SchemaName } from "../../src/catalogue/schemas.js";
import {
  escapeControls,
  formatDiffMarkdown,
  formatDiffText,
  markdownCode,
  markdownText,
} from "../../src/cli/formatDiff.js";
import { diffBuilds, type DiffReport } from "../../src/diff/diffBuilds.js";
import { clientKindOf, compareSnapshots } from "../../src/diff/compareSnapshots.js";
import type { HostSnapshot, Snapshot } from "../../src/diff/readSnapshot.js";
import type { IndexedFile } from "../../src/trust/fileIndex.js";
import { wordDiff } from "../../src/diff/wordDiff.js";
import { buildCatalogue } from "../../src/engine/buildCatalogue.js";
import { servePreview, type PreviewServer } from "../../src/serve/servePreview.js";
import { commitAll, FIRST, git, writeStore, type StoreApp } from "../support/diffStore.js";
import { HOSTILE_TEXT, shopfront, tempDir } from "../support/helpers.js";

/** One app of FIRST, changed. */
const changed = (name: string, changes: Partial<StoreApp>): StoreApp => ({
  ...FIRST.find((a) => a.name === name)!,
  ...changes,
});

const SECOND: StoreApp[] = [
  ...FIRST.filter((a) => a.name !== "snake"),
  // The version bumped and the zip replaced (a new binary), the long description reworded.
  changed("snake", { version: "1.1", seed: 11, long: "Eat the golden apples and grow longer." }),
  {
    host: "primary",
    name: "chess",
    version: "0.1",
    displayName: "Chess",
    coder: "Judit",
    category: "games",
    short: "Chess for two",
    long: "Play chess against a friend.",
    seed: 5,
  },
];
// paint removed; tetris renamed blocks (the same binary, a new name).
const THIRD: StoreApp[] = [
  ...SECOND.filter((a) => a.name !== "paint" && a.name !== "tetris"),
  changed("tetris", { name: "blocks" }),
];
// radio's zip replaced (a readme added), its version the same.
const FOURTH: StoreApp[] = [...THIRD.filter((a) => a.name !== "radio"), changed("radio", { readme: "Tune in.\n" })];

/** What each commit changes, as the diff from its parent must name it. */
interface Expected {
  added: [host: string, name: string][];
  removed: [host: string, name: string][];
  renamed: [host: string, from: string, to: string][];
  versions: [host: string, name: string, from: string, to: string][];
  /** Apps whose zip changed while the version did not. */
  zipOnly: [host: string, name: string][];
}

const COMMITS: Expected[] = [
  {
    added: [["primary", "chess"]],
    removed: [],
    renamed: [],
    versions: [["primary", "snake", "1.0", "1.1"]],
    zipOnly: [],
  },
  { added: [], removed: [["primary", "paint"]], renamed: [["primary", "tetris", "blocks"]], versions: [], zipOnly: [] },
  { added: [], removed: [], renamed: [], versions: [], zipOnly: [["extra", "radio"]] },
];

/** What the diff from revision i to revision j (i < j) must name: the commits between, each on its own apps. */
function expectedBetween(i: number, j: number): Expected {
  const all = COMMITS.slice(i, j);
  return {
    added: all.flatMap((c) => c.added),
    removed: all.flatMap((c) => c.removed),
    renamed: all.flatMap((c) => c.renamed),
    versions: all.flatMap((c) => c.versions),
    zipOnly: all.flatMap((c) => c.zipOnly),
  };
}

let repo: string;
const revisions: string[] = [];

beforeAll(() => {
  repo = join(tempDir("shopfront-diff-"), "store");
  writeStore(repo, FIRST);
  git(repo, "init", "-q", "-b", "main", repo);
  revisions.push(commitAll(repo, "first"));
  for (const [state, message] of [
    [SECOND, "snake 1.1, chess added"],
    [THIRD, "paint removed, tetris renamed blocks"],
    [FOURTH, "radio's zip replaced"],
  ] as const) {
    writeStore(repo, state);
    revisions.push(commitAll(repo, message));
  }
});

async function diffOf(a: string, b: string, outDir?: string): Promise<DiffReport> {
  const report = await diffBuilds({ a, b, catalogueDir: join(repo, "catalogue"), ...(outDir ? { outDir } : {}) });
  if ("unbuilt" in report) throw new Error(`${report.unbuilt.argument} does not build`);
  return report;
}

const host = (report: DiffReport, id: string) => report.hosts.find((h) => h.host === id);

async function validateReport(report: DiffReport): Promise<void> {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  for (const [name, file] of Object.entries(SCHEMA_FILES)) ajv.addSchema(readSchema(name as SchemaName), file);
  const validate = ajv.getSchema(SCHEMA_FILES.diff)!;
  // The document the CLI prints: the report through JSON.
  expect(validate(JSON.parse(JSON.stringify(report))), JSON.stringify(validate.errors)).toBe(true);
}

/** Every change `expected` lists, found in the report's data and in its text and Markdown. */
function expectNames(report: DiffReport, expected: Expected): void {
  const text = formatDiffText(report).join("\n");
  const markdown = formatDiffMarkdown(report);
  const every = (h: string) => host(report, h);
  for (const [h, name] of expected.added) {
    expect(every(h)?.added.map((a) => a.name)).toContain(name);
    expect(text).toMatch(new RegExp(`^  added: ${name} `, "m"));
    expect(markdown).toContain(`**Added** \`${name}\``);
    // An app with files enters the Homebrew Browser's list.
    expect(every(h)!.hbb.entered).toContain(name);
  }
  for (const [h, name] of expected.removed) {
    expect(every(h)?.removed.map((a) => a.name)).toContain(name);
    expect(text).toMatch(new RegExp(`^  removed: ${name} `, "m"));
    expect(markdown).toContain(`**Removed** \`${name}\``);
    expect(every(h)!.hbb.left).toContain(name);
  }
  for (const [h, from, to] of expected.renamed) {
    expect(every(h)?.renamed.map((r) => [r.from.name, r.to.name])).toContainEqual([from, to]);
    expect(every(h)!.added.map((a) => a.name)).not.toContain(to);
    expect(every(h)!.removed.map((a) => a.name)).not.toContain(from);
    expect(text).toMatch(new RegExp(`^  renamed: ${from} -> ${to} `, "m"));
    expect(markdown).toContain(`**Renamed** \`${from}\` → \`${to}\``);
  }
  for (const [h, name, from, to] of expected.versions) {
    const app = every(h)!.updated.find((u) => u.name === name)!;
    expect(app.fields).toContainEqual({ field: "version", from, to });
    expect(app.archiveChangedVersionSame).toBe(false);
    // The zip, the binary and meta.xml are new; each is named with its sizes and new SHA-256.
    expect(app.files.map((f) => f.kind).sort()).toEqual(["archive", "binary", "meta"]);
    for (const file of app.files) {
      expect(file.from!.sha256).not.toBe(file.to!.sha256);
      expect(text).toContain(`${file.from!.size} B -> ${file.to!.size} B, sha256 ${file.to!.sha256}`);
      expect(markdown).toContain(`SHA-256 \`${file.to!.sha256}\``);
    }
    expect(text).toContain(`version: "${from}" -> "${to}"`);
    expect(markdown).toContain(`version: \`${from}\` → \`${to}\``);
  }
  for (const [h, name] of expected.zipOnly) {
    const app = every(h)!.updated.find((u) => u.name === name)!;
    expect(app.fields.map((f) => f.field)).not.toContain("version");
    expect(app.files.map((f) => f.kind)).toEqual(["archive"]);
    expect(app.archiveChangedVersionSame).toBe(true);
    expect(text).toContain("its zip changed and its version did not");
    expect(markdown).toContain("its zip changed and its version did not");
  }
  // Nothing else: no app named that the commits did not change.
  const named = report.hosts.flatMap((h) => [
    ...h.added.map((a) => a.name),
    ...h.removed.map((a) => a.name),
    ...h.renamed.flatMap((r) => [r.from.name, r.to.name]),
    ...h.updated.map((u) => u.name),
  ]);
  expect(named.sort()).toEqual(
    [
      ...expected.added.map(([, n]) => n),
      ...expected.removed.map(([, n]) => n),
      ...expected.renamed.flatMap(([, f, t]) => [f, t]),
      ...expected.versions.map(([, n]) => n),
      ...expected.zipOnly.map(([, n]) => n),
    ].sort(),
  );
}

describe("shopfront diff between git revisions of a store", () => {
  it("names every change between each pair of revisions, in text, JSON and Markdown", async () => {
    for (let i = 0; i < revisions.length; i++) {
      for (let j = i + 1; j < revisions.length; j++) {
        const report = await diffOf(revisions[i]!, revisions[j]!);
        expect(report.a).toMatchObject({ kind: "revision", commit: revisions[i] });
        expect(report.b).toMatchObject({ kind: "revision", commit: revisions[j] });
        expect(report.same).toBe(false);
        expectNames(report, expectedBetween(i, j));
        await validateReport(report);
        // Every changed file is some client's; the deploy sends each one added or changed.
        const counted = report.clients.reduce((n, c) => n + c.added + c.changed, 0);
        expect(report.deploy.files).toBe(counted);
        expect(report.deploy.files).toBe(report.files.added + report.files.changed);
        expect(report.deploy.deleted).toBe(report.files.removed);
        expect(report.deploy.bytes).toBeGreaterThan(0);
      }
    }
  }, 240_000);

  it("says per client what changes, and the words a description gained", async () => {
    const report = await diffOf(revisions[0]!, revisions[1]!);
    const counts = Object.fromEntries(report.clients.map((c) => [c.kind, c]));
    // chess is new: its package files, its v1 object, its place in v4, the list and the site.
    for (const kind of ["v1-v2", "v4-v3", "homebrew-browser", "package-files", "site"])
      expect(counts[kind]!.added + counts[kind]!.changed, kind).toBeGreaterThan(0);
    expect(counts["package-files"]!.added).toBe(4);
    const snake = host(report, "primary")!.updated.find((u) => u.name === "snake")!;
    expect(snake.fields.find((f) => f.field === "long_description")!.words).toEqual([
      { kind: "same", text: "Eat the" },
      { kind: "added", text: "golden" },
      { kind: "same", text: "apples and grow longer." },
    ]);
    expect(formatDiffText(report).join("\n")).toContain("long_description: Eat the {+golden+} apples and grow longer.");
    expect(formatDiffMarkdown(report)).toContain("long\\_description: Eat the **golden** apples and grow longer\\.");
  });

  it("compares the problems of two revisions: those a change introduces and those it fixes", async () => {
    const report = await diffOf(revisions[1]!, revisions[3]!);
    expect(report.problems).toEqual({ introduced: [], fixed: [] });
    // A manifest that disagrees with its meta.xml is a warning the later revision brings, and then clears.
    const manifest = join(repo, "catalogue", "primary", "chess.json");
    const text = readFileSync(manifest, "utf8");
    writeFileSync(manifest, text.replace('"Chess for two"', '"Chess for two players"'));
    const warned = commitAll(repo, "chess's short description disagrees with its meta.xml");
    const introduced = await diffOf(revisions[3]!, warned);
    expect(introduced.problems!.introduced.map((p) => [p.file, p.pointer, p.severity])).toEqual([
      ["primary/chess.json", "/short_description", "warning"],
    ]);
    expect(introduced.problems!.fixed).toEqual([]);
    const fixed = await diffOf(warned, revisions[3]!);
    expect(fixed.problems!.fixed).toEqual(introduced.problems!.introduced);
    expect(formatDiffText(fixed).join("\n")).toMatch(/^problems: 0 introduced, 1 fixed$/m);
    expect(formatDiffMarkdown(introduced)).toContain("- introduced: `primary/chess.json /short_description`");
    git(repo, "reset", "-q", "--hard", revisions[3]!);
  }, 60_000);

  it("builds a revision into --out as a rebuild of what is there, and the working tree's catalogue in place", async () => {
    const out = join(tempDir(), "dist");
    await buildCatalogue({ catalogueDir: join(repo, "catalogue"), outDir: out, index: { mirrors: [] } });
    // The folder (the last build, as a CI cache restores it) against HEAD, built into it: nothing moved.
    const same = await diffOf(out, "HEAD", out);
    expect(same.a.kind).toBe("folder");
    expect(same.b).toMatchObject({ kind: "revision", build: "unchanged" });
    expect(same.same).toBe(true);
    // The folder's build kept its warnings in its state: the two sides' are compared.
    expect(same.problems).toEqual({ introduced: [], fixed: [] });
    // Two older revisions, checked out beside the build's state and built into the folder one after the other.
    const older = await diffOf(revisions[1]!, revisions[2]!, out);
    expectNames(older, expectedBetween(1, 2));
    expect(older.b).toMatchObject({ build: "incremental" });
    const again = await diffOf(revisions[1]!, revisions[2]!, out);
    expect(again.hosts).toEqual(older.hosts);
    // The checkout beside the state is the one built before: each side is a rebuild of the other.
    expect([again.a, again.b]).toMatchObject([{ build: "incremental" }, { build: "incremental" }]);
  }, 120_000);
});

describe("shopfront diff against a deployment", () => {
  let server: PreviewServer;
  let out: string;

  beforeAll(async () => {
    out = join(tempDir(), "dist");
    await buildCatalogue({ catalogueDir: join(repo, "catalogue"), outDir: out, index: { mirrors: [] } });
    server = await servePreview({ dir: out, host: "127.0.0.1", port: 0 });
  });
  afterAll(() => server.close());

  it("reports nothing between a built folder and its own deployment served by shopfront serve", async () => {
    const report = await diffOf(out, server.url);
    expect(report.a.kind).toBe("folder");
    expect(report.b.kind).toBe("url");
    expect(report.same).toBe(true);
    expect(report.hosts).toEqual([]);
    expect(report.files.unchanged).toBeGreaterThan(0);
    expect(report.deploy).toEqual({ files: 0, bytes: 0, deleted: 0 });
    // A deployment does not say its problems.
    expect(report.problems).toBeNull();
    for (const c of report.clients) expect(c.added + c.removed + c.changed).toBe(0);
    expect(formatDiffText(report)).toContain(
      `no difference: the same ${report.files.unchanged} served files, byte for byte`,
    );
  });

  it("names what a revision would change on the deployment", async () => {
    const report = await diffOf(server.url, revisions[2]!);
    // The deployment is the last revision's build; the one before has radio's old zip.
    expectNames(report, { ...expectedBetween(0, 0), zipOnly: [["extra", "radio"]] });
    expect(report.a.kind).toBe("url");
  });
});

describe("the shopfront diff command", () => {
  it("exits 0 with a difference, prints JSON and Markdown, and exits 2 for a side that is none", () => {
    const cwd = repo;
    const text = shopfront(cwd, "diff", revisions[0]!, revisions[1]!);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^ {2}added: chess 0\.1 \(Chess\)$/m);
    const json = shopfront(cwd, "diff", revisions[2]!, revisions[3]!, "--format", "json");
    expect(json.code, json.stderr).toBe(0);
    expect((JSON.parse(json.stdout) as DiffReport).hosts.map((h) => h.host)).toEqual(["extra"]);
    const markdown = shopfront(cwd, "diff", revisions[1]!, revisions[2]!, "--format", "markdown");
    expect(markdown.code, markdown.stderr).toBe(0);
    expect(markdown.stdout).toContain("**Removed** `paint`");
    for (const bad of [["no-such-revision", "HEAD"], ["HEAD", "--format=yaml"], ["HEAD"], ["-x", "HEAD"]]) {
      const result = shopfront(cwd, "diff", ...bad);
      expect(result.code, bad.join(" ")).toBe(2);
    }
    expect(shopfront(cwd, "diff", "no-such-revision", "HEAD").stderr).toContain(
      "no-such-revision is not a built folder, an http(s):// base URL, a git revision or the catalogue folder",
    );
  }, 60_000);
});

const side = { argument: "x", kind: "folder", indexRevision: 1, built: "" } as const;

describe("the report's formats", () => {
  it("keeps a hostile name, version or description from adding Markdown, HTML, links or mentions", async () => {
    const report = await diffOf(revisions[2]!, revisions[3]!);
    const radio = report.hosts[0]!.updated[0]!;
    const hostile = "<img src=x onerror=alert(1)> [link](https://evil.example) @octocat #1 **bold** `code` | cell";
    radio.displayName = hostile;
    radio.version = `${HOSTILE_TEXT.version}\n\n# heading`;
    radio.fields.push({ field: "short_description", from: "a", to: hostile, words: wordDiff("a", hostile) });
    const markdown = formatDiffMarkdown(report);
    // Outside code spans (whose text is shown as it is), nothing is markup.
    const outsideCode = markdown.replace(/(`+)(?!`)[\s\S]*?(?<!`)\1(?!`)/g, "");
    expect(outsideCode).not.toMatch(/(?<!\\)(<img|<script|\]\(|@octocat|#1|\*\*bold|`)|\n# heading/);
    expect(markdown).toContain(`\`1.0</td><script>alert(1)</script> # heading\``);
    // Each piece is there to read, escaped.
    expect(markdown).toContain("\\<img src\\=x onerror\\=alert\\(1\\)\\>");
    expect(markdownCode("a ``b`` c")).toBe("```a ``b`` c```");
    expect(markdownCode("`x`")).toBe("`` `x` ``");
    expect(markdownCode("")).toBe("*(empty)*");
    expect(markdownText("@you #2")).toBe("\\@\u200byou \\#\u200b2");
    // In a terminal, control characters are shown, not obeyed.
    expect(escapeControls("a\u001b[31mred\u0007")).toBe("a\\u{1b}[31mred\\u{7}");
    radio.displayName = "\u001b[2J";
    expect(formatDiffText(report).join("\n")).not.toContain("\u001b");
  });

  it("cuts a Markdown report too long for a comment, and says how much it left out", async () => {
    const report = await diffOf(revisions[0]!, revisions[3]!);
    const whole = formatDiffMarkdown(report);
    const limit = Math.floor(whole.length / 2);
    const cut = formatDiffMarkdown(report, limit);
    expect(cut.length).toBeLessThanOrEqual(limit);
    const left = Number(
      /^\*(\d+) more lines? left out: `npx shopfront diff` of the same two sides prints them all\.\*$/m.exec(cut)![1],
    );
    expect(cut.split("\n").length - 2 + left).toBe(whole.split("\n").length);
    // What is kept is the whole report's beginning, and its last line, the deploy, is there.
    expect(whole.startsWith(cut.slice(0, cut.indexOf("\n\n*")))).toBe(true);
    expect(cut.trimEnd().split("\n").at(-1)).toBe(whole.trimEnd().split("\n").at(-1));
  });

  it("says which apps enter and leave the Homebrew Browser's list, renames an app without files by its fields, and names a host added", () => {
    const file = (path: string, sha: string) => ({ path, size: 1, sha256: sha.repeat(64) });
    const app = (name: string, fields: Record<string, unknown>) => ({
      name,
      fields: { internal_name: name, version: "1", display_name: "An app", ...fields },
      files: {},
    });
    const snapshot = (hosts: HostSnapshot[], files: IndexedFile[]): Snapshot => ({
      files: new Map(files.map((f) => [f.path, f])),
      revision: 1,
      built: "",
      defaultHost: "primary",
      hosts: new Map(hosts.map((h) => [h.id, h])),
    });
    const a = snapshot(
      [
        {
          id: "primary",
          apps: new Map([
            ["kept", app("kept", { downloads: 5 })],
            ["old", app("old", { coder: "x" })],
          ]),
          hbbListed: new Set(["kept"]),
        },
      ],
      [file("/v1/primary/packages", "a"), file("/openapi.json", "a")],
    );
    const b = snapshot(
      [
        {
          id: "primary",
          apps: new Map([
            ["kept", app("kept", { downloads: 5 })],
            ["new", app("new", { coder: "x" })],
            ["popular", app("popular", { downloads: 9 })],
          ]),
          // A more downloaded app took kept's place in a full list.
          hbbListed: new Set(["popular"]),
        },
        { id: "later", apps: new Map(), hbbListed: new Set() },
      ],
      [file("/v1/primary/packages", "b"), file("/openapi.json", "a"), file("/v1/later/packages", "c")],
    );
    const report = compareSnapshots(a, b);
    expect(report.hosts.map((h) => [h.host, h.status])).toEqual([
      ["later", "added"],
      ["primary", "kept"],
    ]);
    const primary = report.hosts[1]!;
    expect(primary.renamed.map((r) => [r.from.name, r.to.name])).toEqual([["old", "new"]]);
    expect(primary.added.map((x) => x.name)).toEqual(["popular"]);
    expect(primary.updated).toEqual([]);
    expect(primary.hbb).toEqual({ entered: ["popular"], left: ["kept"], from: 1, to: 1 });
    expect(report.files).toEqual({ added: 1, removed: 0, changed: 1, unchanged: 1 });
    expect(report.clients.find((c) => c.kind === "v1-v2")).toEqual({ kind: "v1-v2", added: 1, removed: 0, changed: 1 });
    expect(report.problems).toBeNull();
    const text = formatDiffText({ format: 2, a: side, b: side, ...report }).join("\n");
    expect(text).toContain("  Homebrew Browser list: 1 -> 1 apps; enter: popular; leave: kept");
    expect(text).toContain("host later (added):");
  });

  it("word-diffs descriptions briefly, and says which client fetches each file", () => {
    expect(wordDiff("one two", "one two")).toEqual([]);
    const long = Array.from({ length: 30 }, (_, i) => `w${i}`);
    const edited = [...long.slice(0, 15), "new", ...long.slice(16)];
    expect(wordDiff(long.join(" "), edited.join(" "))).toEqual([
      { kind: "same", text: "… w12 w13 w14" },
      { kind: "removed", text: "w15" },
      { kind: "added", text: "new" },
      { kind: "same", text: "w16 w17 w18 …" },
    ]);
    expect(
      ["/v1/primary/packages", "/v2/hosts", "/hosts/extra/api/v4/contents", "/api/v3/featured-app"].map(clientKindOf),
    ).toEqual(["v1-v2", "v1-v2", "v4-v3", "v4-v3"]);
    expect(
      ["/hbb/a/a.zip", "/hosts/extra/unzipped_apps/a/apps/a/boot.dol", "/hbb/listv036.txt", "/hbb_download.php"].map(
        clientKindOf,
      ),
    ).toEqual(["package-files", "package-files", "homebrew-browser", "homebrew-browser"]);
    expect(["/", "/browse/primary/index.html", "/openapi.json"].map(clientKindOf)).toEqual(["site", "site", "other"]);
  });
});
