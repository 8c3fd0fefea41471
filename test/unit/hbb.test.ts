// The Homebrew Browser's surface as the build writes it: a list that `import hbb` reads back into the
// same catalogue (what the list holds), sizes equal to the bytes served at the app's URLs, every
// value within the Wii app's buffers and capacities however large the catalogue, the icon archive,
// and a rebuild that brings both up to date. Serving them (and the stubs) on every real server is
// test/servers/conformance.test.ts's row hbb.
import { todayPackageOf } from "../../src/render/renderToday.js";
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { isUtf8 } from "node:buffer";
import { join } from "node:path";
import { unzipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { buildCatalogue } from "../../src/engine/buildCatalogue.js";
import type { Manifest, Package } from "../../src/catalogue/fields.js";
import type { Problem } from "../../src/catalogue/problems.js";
import { importHbbList } from "../../src/import/importCatalogue.js";
import { parseHbbList } from "../../src/import/parseHbbList.js";
import { validateCatalogue } from "../../src/load/validateCatalogue.js";
import { renderPackage, type RenderedPackage } from "../../src/render/renderApi.js";
import {
  HBB_CATEGORIES,
  HBB_HEADER,
  HBB_LIMITS,
  HBB_TOTAL_CAPACITY,
  HbbLists,
  hbbSourceOf,
  type HbbEntry,
  renderHbbList,
  renderRepoList,
} from "../../src/render/renderHbb.js";
import { packageFileKind } from "../../src/routes/routeTable.js";
import { copyFixture, loadPackages, manifest, readTree, tempDir, writeFiles } from "../support/helpers.js";

const LIST = "hbb/homebrew_browser/listv036.txt";

async function buildFixture(catalogue: string, out: string) {
  const result = await buildCatalogue({ catalogueDir: catalogue, outDir: out });
  if (!result.built) throw new Error(JSON.stringify(result.problems));
  return result;
}

/** The Homebrew Browser's files at `out`, and the build's warnings of them, are what a full build of `catalogue` gives. */
async function expectFullBuildSurface(catalogue: string, out: string, problems: readonly Problem[]) {
  const fresh = join(tempDir(), "dist");
  const full = await buildFixture(catalogue, fresh);
  const surface = (dir: string) =>
    [...readTree(dir)].filter(([path]) => packageFileKind(path)?.startsWith("hbb-") === true);
  expect(surface(out)).toEqual(surface(fresh));
  const hbbWarnings = (list: readonly Problem[]) => list.filter((p) => p.code.startsWith("HBB_"));
  expect(hbbWarnings(problems)).toEqual(hbbWarnings(full.problems));
}

/**
 * A host's list as the build makes it of `packages`: each told to HbbLists as it passes, then the
 * list, with the packages' own warnings and the list's.
 */
function listOf(host: string, packages: readonly RenderedPackage[]): { entries: HbbEntry[]; problems: Problem[] } {
  const lists = new HbbLists();
  for (const p of packages) lists.add(host, hbbSourceOf(p));
  const list = lists.result(host);
  return { entries: list.entries, problems: [...lists.problems, ...list.problems] };
}

/** The package-files fixture with download counts, and a package with no controller. */
function fixture(): string {
  const catalogue = copyFixture("package-files");
  writeFiles(catalogue, {
    "stats/primary.json": { packages: { snake: { downloads: 77, rating: "4.5" }, tetris: { downloads: 3 } } },
  });
  const pong = JSON.parse(readFileSync(join(catalogue, "primary", "pong.json"), "utf8")) as Record<string, unknown>;
  writeFiles(catalogue, { "primary/pong.json": { ...pong, controllers: "", flags: ["writes_to_nand"] } });
  return catalogue;
}

/** A list's apps: each token line split, with its six text lines, by name. */
function entriesOf(text: string): Map<string, { tokens: string[]; lines: string[] }> {
  const lines = text.split("\r\n");
  const entries = new Map<string, { tokens: string[]; lines: string[] }>();
  for (let i = 1; i < lines.length; i++) {
    if (lines[i] === "" || /^=\w+=$/.test(lines[i]!)) continue;
    const tokens = lines[i]!.split(" ");
    entries.set(tokens[0]!, { tokens, lines: lines.slice(i + 1, i + 7) });
    i += 6;
  }
  return entries;
}

describe("the list the build writes", () => {
  it("is CRLF throughout, the Open Shop Channel's header, every footer once, and the same at both URLs", async () => {
    const out = join(tempDir(), "dist");
    await buildFixture(fixture(), out);
    const bytes = readFileSync(join(out, LIST));
    expect(readFileSync(join(out, "hbb/listv036.txt"))).toEqual(bytes);
    const text = bytes.toString("utf8");
    expect(isUtf8(bytes)).toBe(true);
    expect(text.endsWith("\r\n")).toBe(true);
    expect(text.replace(/\r\n/g, "")).not.toMatch(/[\r\n]/);
    const lines = text.split("\r\n");
    expect(lines[0]).toBe(HBB_HEADER);
    expect(lines.filter((l) => l.startsWith("="))).toEqual(HBB_CATEGORIES.map((c) => c.footer));
    expect(readFileSync(join(out, "hbb/repo_list.txt"), "latin1")).toBe(
      "1\r\nFixture\r\nhbb.example.org\r\n/hbb/homebrew_browser/listv036.txt\r\n/hbb/\r\n",
    );
    for (const [file, body] of [
      ["hbb/get_rating.php", "5"],
      ["hbb/update_rating.php", "5"],
      ["hbb/apps_check_new.php", "0 0"],
      ["hbb/hbb_download.php", ""],
      ["hbb_download.php", ""],
    ])
      expect(readFileSync(join(out, file!), "latin1"), file).toBe(body);
    // The browse site's home page links the list and the repository list.
    const home = readFileSync(join(out, "index.html"), "utf8");
    expect(home).toContain('<a href="hbb/homebrew_browser/listv036.txt">the list of apps</a>');
    expect(home).toContain('<a href="hbb/repo_list.txt">the repository list</a>');
  });

  it("is read back by `import hbb` into the same catalogue, as far as the list holds it", async () => {
    const catalogue = fixture();
    const out = join(tempDir(), "dist");
    await buildFixture(catalogue, out);
    const into = join(tempDir(), "catalogue");
    writeFiles(into, { "hosts.json": JSON.parse(readFileSync(join(catalogue, "hosts.json"), "utf8")) as unknown });
    const report = await importHbbList({ catalogueDir: into, force: false, file: join(out, LIST), host: "primary" });
    expect(report.summary?.skipped).toEqual([]);
    const built = await loadPackages(catalogue);
    const back = await loadPackages(into);
    expect(back.problems.filter((p) => p.severity === "error")).toEqual([]);
    const objects = (packages: readonly RenderedPackage[]) =>
      Object.fromEntries(packages.map((p) => [p.name, JSON.parse(p.json) as Package]));
    const expected = objects(built.packages!.get("primary")!);
    // What the list does not carry: one date (the release), no contributors and no rating; a long
    // description is one line, and the short one where it is empty (the fixture's are all short).
    for (const pkg of Object.values(expected)) {
      pkg.updated = pkg.release_date;
      pkg.contributors = "";
      pkg.rating = "";
      pkg.long_description = pkg.long_description.replace(/\n/g, " ") || pkg.short_description;
    }
    expect(objects(back.packages!.get("primary")!)).toEqual(expected);
    expect(expected.snake!.downloads).toBe(77);
    expect(expected.pong!.controllers).toBe("");
    // The caution before pong's long description is its flag again.
    expect(JSON.parse(readFileSync(join(into, "primary", "pong.json"), "utf8"))).toMatchObject({
      flags: ["writes_to_nand"],
    });
  });

  it("gives each app the bytes of the icon, binary and archive served at the Wii app's URLs, and temp_files.zip every icon", async () => {
    const out = join(tempDir(), "dist");
    await buildFixture(fixture(), out);
    const entries = entriesOf(readFileSync(join(out, LIST), "utf8"));
    expect([...entries.keys()].sort()).toEqual(["pong", "snake", "tetris"]);
    const icons = unzipSync(readFileSync(join(out, "hbb/homebrew_browser/temp_files.zip")));
    expect(Object.keys(icons)).toEqual(["pong.png", "snake.png", "tetris.png"]);
    for (const [name, { tokens }] of entries) {
      const [, , icon, binary, type, archive] = tokens;
      expect(Number(icon), name).toBe(statSync(join(out, "hbb", name, "icon.png")).size);
      expect(Number(binary), name).toBe(statSync(join(out, "unzipped_apps", name, "apps", name, `boot.${type}`)).size);
      expect(Number(archive), name).toBe(statSync(join(out, "hbb", name, `${name}.zip`)).size);
      expect(icons[`${name}.png`], name).toEqual(new Uint8Array(readFileSync(join(out, "hbb", name, "icon.png"))));
    }
    expect(entries.get("snake")!.tokens.slice(6)).toEqual([
      "77",
      "0",
      "wn",
      "/apps/snake/data;/apps/snake/data/levels;",
      ".",
      ".",
    ]);
    expect(entries.get("pong")!.tokens.slice(8)).toEqual([".", ".", ".", "."]);
  });

  it("is rewritten with temp_files.zip when a package changes, and the same bytes when nothing does", async () => {
    const catalogue = fixture();
    const out = join(tempDir(), "dist");
    await buildFixture(catalogue, out);
    const list = readFileSync(join(out, LIST));
    const zip = readFileSync(join(out, "hbb/homebrew_browser/temp_files.zip"));
    await buildFixture(catalogue, out);
    expect(readFileSync(join(out, LIST))).toEqual(list);
    expect(readFileSync(join(out, "hbb/homebrew_browser/temp_files.zip"))).toEqual(zip);

    const snake = JSON.parse(readFileSync(join(catalogue, "primary", "snake.json"), "utf8")) as Record<string, unknown>;
    writeFiles(catalogue, { "primary/snake.json": { ...snake, short_description: "Snake, now faster" } });
    // tetris's icon is another PNG now: the placeholder's bytes.
    const placeholder = readFileSync(join(out, "hbb", "pong", "icon.png"));
    copyFileSync(
      join(out, "hbb", "pong", "icon.png"),
      join(catalogue, "primary", "tetris", "apps", "tetris", "Icon.PNG"),
    );
    const result = await buildFixture(catalogue, out);
    expect(result.built!.filesWritten).toBeGreaterThan(0);
    const entries = entriesOf(readFileSync(join(out, LIST), "utf8"));
    expect(entries.get("snake")!.lines[4]).toBe("Snake, now faster");
    expect(Number(entries.get("tetris")!.tokens[2])).toBe(placeholder.length);
    const icons = unzipSync(readFileSync(join(out, "hbb/homebrew_browser/temp_files.zip")));
    expect(icons["tetris.png"]).toEqual(new Uint8Array(placeholder));
    // The rebuild is incremental, and its surface and warnings are a full build's.
    expect(result.built!.mode.kind).toBe("incremental");
    await expectFullBuildSurface(catalogue, out, result.problems);

    // A package gone: its entry and icon leave the list and the archive, and its warnings go.
    for (const file of ["pong.json", "pong.zip"]) rmSync(join(catalogue, "primary", file));
    const removed = await buildFixture(catalogue, out);
    expect(removed.built!.mode.kind).toBe("incremental");
    expect(entriesOf(readFileSync(join(out, LIST), "utf8")).has("pong")).toBe(false);
    await expectFullBuildSurface(catalogue, out, removed.problems);
  });

  it("leaves temp_files.zip in place when a rebuild changes the list but no icon", async () => {
    const catalogue = fixture();
    const out = join(tempDir(), "dist");
    await buildFixture(catalogue, out);
    const zip = join(out, "hbb/homebrew_browser/temp_files.zip");
    const before = { bytes: readFileSync(zip), ino: statSync(zip).ino };
    const snake = JSON.parse(readFileSync(join(catalogue, "primary", "snake.json"), "utf8")) as Record<string, unknown>;
    writeFiles(catalogue, { "primary/snake.json": { ...snake, short_description: "Snake, now faster" } });
    const result = await buildFixture(catalogue, out);
    expect(result.built!.mode.kind).toBe("incremental");
    expect(entriesOf(readFileSync(join(out, LIST), "utf8")).get("snake")!.lines[4]).toBe("Snake, now faster");
    // The archive made again holds the same bytes: the live file is kept, not replaced.
    expect(statSync(zip).ino).toBe(before.ino);
    expect(readFileSync(zip)).toEqual(before.bytes);
  });

  it("cautions first, in the long description, of an app that writes to the NAND, as the Open Shop Channel does", async () => {
    const out = join(tempDir(), "dist");
    await buildFixture(fixture(), out);
    const entries = entriesOf(readFileSync(join(out, LIST), "utf8"));
    expect(entries.get("pong")!.lines[5]).toMatch(/^\[CAUTION! Writes to NAND!\] ./);
    expect(entries.get("snake")!.lines[5]).not.toContain("CAUTION");
  });

  it("is not written, nor any file of the surface, for a catalogue without package files", async () => {
    const out = join(tempDir(), "dist");
    await buildFixture(copyFixture("basic"), out);
    for (const file of [LIST, "hbb/repo_list.txt", "hbb/get_rating.php", "hbb_download.php"])
      expect(existsSync(join(out, file)), file).toBe(false);
    expect(readFileSync(join(out, "index.html"), "utf8")).not.toContain("Homebrew Browser");
  });

  it("leaves out, with a warning naming it, a package without files and one of a category the app does not know", async () => {
    const catalogue = fixture();
    writeFiles(catalogue, { "primary/plain.json": manifest("plain") });
    const { problems } = await validateCatalogue(catalogue);
    expect(problems.filter((p) => p.code === "HBB_LEFT_OUT").map((p) => p.file)).toEqual(["primary/plain.json"]);
    const themed = (await loadPackages(catalogue))
      .packages!.get("primary")!
      .map((p) =>
        p.name === "snake" ? { ...p, json: p.json.replace('"category":"games"', '"category":"themes"') } : p,
      );
    const list = listOf("primary", themed);
    expect(list.entries.map((e) => e.name)).toEqual(["pong", "tetris"]);
    expect(list.problems.map((p) => [p.code, p.file])).toEqual([
      ["HBB_LEFT_OUT", "primary/plain.json"],
      ["HBB_LEFT_OUT", "primary/snake.json"],
    ]);
  });
});

describe("`validate` of a catalogue with package files", () => {
  it("reports the problems a build reports, the lists' warnings included, and counts every package", async () => {
    const catalogue = fixture();
    const read = (path: string) => JSON.parse(readFileSync(join(catalogue, path), "utf8")) as Record<string, unknown>;
    const hosts = read("hosts.json") as { hosts: Record<string, string>[] };
    // A host name the repository list cuts, a coder the list cuts, a package without files it leaves out.
    hosts.hosts[0]!.name = "ü".repeat(100);
    writeFiles(catalogue, {
      "hosts.json": hosts,
      "primary/snake.json": { ...read("primary/snake.json"), coder: "c".repeat(120) },
      "primary/plain.json": manifest("plain"),
    });
    const validated = await validateCatalogue(catalogue);
    const built = await buildCatalogue({ catalogueDir: catalogue, outDir: join(tempDir(), "dist") });
    const lists = validated.problems.filter((p) => p.code.startsWith("HBB_"));
    expect(lists.map((p) => [p.code, p.file, p.pointer])).toEqual([
      ["HBB_VALUE_CUT", "hosts.json", "/hosts/0/name"],
      ["HBB_LEFT_OUT", "primary/plain.json", ""],
      ["HBB_VALUE_CUT", "primary/snake.json", "/coder"],
    ]);
    expect(validated.problems).toEqual(built.problems);
    expect(validated.valid).toEqual({ hosts: 1, packages: 4 });
    // --strict fails on the lists' warnings, as `build --strict` does.
    const strict = await validateCatalogue(catalogue, { strict: true });
    expect(strict.valid).toBeUndefined();
    expect(strict.problems.filter((p) => p.code.startsWith("HBB_")).map((p) => p.severity)).toEqual([
      "error",
      "error",
      "error",
    ]);
  });
});

/** A package with files whose every text is as long as a manifest allows, in letters of 1 to 4 UTF-8 bytes. */
function largePackage(name: string, category: string, downloads: number): RenderedPackage {
  const long = (length: number) => [..."aé€😀 x\n".repeat(length)].slice(0, length).join("");
  const pkg: Manifest = {
    ...(manifest(name, {
      category,
      coder: long(128),
      display_name: long(128),
      version: long(64),
      short_description: long(256),
      long_description: long(5000),
      controllers: "wwwwncgkzs",
    }) as unknown as Manifest),
  };
  const folders = Array.from({ length: 200 }, (_, i) => `/apps/${name}/${"d".repeat(i % 3 === 0 ? 150 : 20)}${i}`);
  return {
    name,
    json: renderPackage(pkg, { downloads, rating: "" }),
    category,
    coder: pkg.coder,
    today: todayPackageOf(pkg, { downloads, rating: "" }),
    files: {
      zipSize: 123456,
      icon: true,
      iconSize: 4321,
      binarySize: 654321,
      subdirectories: [...folders, `/apps/${name}/with space`],
    },
  };
}

describe("a list of a large catalogue", () => {
  const packages = [
    ...Array.from({ length: 700 }, (_, i) => largePackage(`game${String(i).padStart(4, "0")}`, "games", i)),
    ...Array.from({ length: 450 }, (_, i) => largePackage(`demo${String(i).padStart(4, "0")}`, "demos", 1000 + i)),
    ...Array.from({ length: 20 }, (_, i) => largePackage(`tool${String(i).padStart(4, "0")}`, "utilities", 5)),
  ];
  const { entries, problems } = listOf("primary", packages);
  const bytes = Buffer.from(renderHbbList(entries), "utf8");
  const lines = bytes.toString("utf8").split("\r\n").slice(0, -1);

  it("keeps every line within fgets' buffer and every value within its buffer, cut at a character", () => {
    expect(isUtf8(bytes)).toBe(true);
    for (const line of lines) expect(Buffer.byteLength(line) + 2).toBeLessThan(HBB_LIMITS.line);
    const limits = [
      HBB_LIMITS.displayName,
      HBB_LIMITS.coder,
      HBB_LIMITS.version,
      HBB_LIMITS.line,
      HBB_LIMITS.shortDescription,
      HBB_LIMITS.longDescription,
    ];
    for (const [name, { tokens, lines: text }] of entriesOf(bytes.toString("utf8"))) {
      expect(Buffer.byteLength(name)).toBeLessThan(HBB_LIMITS.name);
      expect(tokens).toHaveLength(12);
      expect(Buffer.byteLength(tokens[8]!)).toBeLessThan(HBB_LIMITS.controllers);
      expect(tokens[6]!.length).toBeLessThan(HBB_LIMITS.downloads);
      const folders = tokens[9]!;
      expect(folders.length).toBeLessThan(HBB_LIMITS.folders);
      const each = folders.split(";").filter((f) => f !== "");
      expect(each.length).toBeGreaterThan(0);
      expect(each.length).toBeLessThanOrEqual(HBB_LIMITS.folderCount);
      for (const folder of each) expect(folder.length).toBeLessThan(HBB_LIMITS.folder);
      text.forEach((value, i) => expect(Buffer.byteLength(value), `${name} line ${i + 1}`).toBeLessThan(limits[i]!));
      // Cut, not dropped: each long text fills its buffer nearly (a character of up to 4 bytes short).
      expect(Buffer.byteLength(text[0]!)).toBeGreaterThan(HBB_LIMITS.displayName - 5);
    }
  });

  it("holds no more apps per category and in all than the app's arrays, the most downloaded, and warns once a category of those it leaves out", () => {
    const counts = new Map<string, number>();
    for (const e of entries) counts.set(e.category, (counts.get(e.category) ?? 0) + 1);
    expect(entries.length).toBeLessThanOrEqual(HBB_TOTAL_CAPACITY);
    for (const { category, capacity } of HBB_CATEGORIES)
      expect(counts.get(category) ?? 0, category).toBeLessThanOrEqual(capacity);
    // The demos are downloaded more: 300 fill their category, the games take the rest of 600.
    expect(counts.get("demos")).toBe(300);
    expect(counts.get("games")).toBe(HBB_TOTAL_CAPACITY - 300 - (counts.get("utilities") ?? 0));
    expect(entries.filter((e) => e.category === "demos").map((e) => e.name)[0]).toBe("demo0150");
    // Each category's entries are the most downloaded of it, in name order.
    for (const { category } of HBB_CATEGORIES) {
      const names = entries.filter((e) => e.category === category).map((e) => e.name);
      expect(names).toEqual([...names].sort());
    }
    expect(entries.filter((e) => e.category === "games").map((e) => e.name)[0]).toBe("game0400");
    // One warning a category that lost apps, on the host, with how many of how many; none a package.
    const leftOut = problems.filter((p) => p.code === "HBB_LEFT_OUT");
    expect(leftOut.every((p) => p.file === "primary" && p.severity === "warning")).toBe(true);
    const candidates = new Map<string, number>();
    for (const p of packages) candidates.set(p.category, (candidates.get(p.category) ?? 0) + 1);
    expect(leftOut.map((p) => p.message)).toEqual(
      HBB_CATEGORIES.filter((c) => (candidates.get(c.category) ?? 0) > (counts.get(c.category) ?? 0)).map((c) =>
        expect.stringContaining(
          `leaves out ${candidates.get(c.category)! - (counts.get(c.category) ?? 0)} of the ${candidates.get(c.category)} apps in ${c.category}:`,
        ),
      ),
    );
    expect(leftOut).toHaveLength(3);
    expect(leftOut[0]!.message).toContain("the least of those kept has 1150 downloads");
  });

  it("gives the games at most 400 places, the most the Open Shop Channel says the app keeps a category", () => {
    const games = Array.from({ length: 450 }, (_, i) => largePackage(`g${String(i).padStart(4, "0")}`, "games", i));
    const list = listOf("primary", games);
    expect(list.entries).toHaveLength(400);
    expect(list.entries.map((e) => e.name)).not.toContain("g0049");
    expect(list.entries.map((e) => e.name)).toContain("g0050");
  });

  it("warns of every value it cuts, naming the package and the field", () => {
    const cut = problems.filter((p) => p.code === "HBB_VALUE_CUT" && p.file === "primary/game0699.json");
    expect(cut.map((p) => p.pointer).sort()).toEqual(["", "/coder", "/display_name", "/short_description", "/version"]);
    expect(problems.every((p) => p.severity === "warning")).toBe(true);
  });

  it("reads back by the importer with every kept app", () => {
    const source = parseHbbList(bytes, "primary");
    expect(source.skipped).toEqual([]);
    expect(source.packages.map((p) => p.name).sort()).toEqual(entries.map((e) => e.name).sort());
  });
});

describe("the repository list", () => {
  it("names every host, the default first as the app's repository 0, each at its folder, and cuts a long name", () => {
    const host = (id: string, name = id) => ({ id, name, host: `${id}.example.org`, description: "" });
    const { text, problems } = renderRepoList([host("themes", "ü".repeat(150)), host("primary")], "primary");
    const lines = text.split("\r\n");
    expect(lines.slice(0, 5)).toEqual([
      "1",
      "primary",
      "primary.example.org",
      "/hbb/homebrew_browser/listv036.txt",
      "/hbb/",
    ]);
    expect(Buffer.byteLength(lines[5]!)).toBeLessThan(HBB_LIMITS.repositoryName);
    expect(lines.slice(6)).toEqual([
      "themes.example.org",
      "/hosts/themes/hbb/homebrew_browser/listv036.txt",
      "/hosts/themes/hbb/",
      "",
    ]);
    expect(problems.map((p) => [p.code, p.pointer])).toEqual([["HBB_VALUE_CUT", "/hosts/0/name"]]);
  });

  it("warns of what it leaves out and cuts once, after a no-op and after a rebuild that read hosts.json again, as a full build does", async () => {
    const catalogue = copyFixture("package-files");
    const hostsFile = join(catalogue, "hosts.json");
    const hosts = JSON.parse(readFileSync(hostsFile, "utf8")) as { hosts: Record<string, string>[] };
    // A host whose domain the list cannot carry, and one whose name it cuts.
    const domain = `${"a".repeat(60)}.${"b".repeat(60)}.example.org`;
    hosts.hosts.push({ id: "themes", name: "Themes", host: domain, description: "" });
    hosts.hosts.push({ id: "extra", name: "ü".repeat(100), host: "extra.example.org", description: "" });
    writeFileSync(hostsFile, JSON.stringify(hosts));
    for (const id of ["themes", "extra"]) mkdirSync(join(catalogue, id));
    const out = join(tempDir(), "dist");
    const first = await buildCatalogue({ catalogueDir: catalogue, outDir: out, site: false });
    const repoList = (ps: readonly Problem[]) =>
      ps.filter((p) => p.file === "hosts.json").map((p) => [p.code, p.pointer]);
    expect(repoList(first.problems)).toEqual([
      ["HBB_LEFT_OUT", "/hosts/1/host"],
      ["HBB_VALUE_CUT", "/hosts/2/name"],
    ]);
    // Nothing moved: the warnings are the state's.
    const noop = await buildCatalogue({ catalogueDir: catalogue, outDir: out, site: false });
    expect(noop.built?.mode.kind).toBe("unchanged");
    expect(noop.problems).toEqual(first.problems);
    hosts.hosts[0]!.description = "read again";
    writeFileSync(hostsFile, JSON.stringify(hosts));
    const again = await buildCatalogue({ catalogueDir: catalogue, outDir: out, site: false });
    expect(again.built?.mode.kind).toBe("incremental");
    const full = await buildCatalogue({ catalogueDir: catalogue, outDir: join(tempDir(), "full"), site: false });
    expect(again.problems).toEqual(full.problems);
    expect(repoList(again.problems)).toEqual(repoList(first.problems));
  });
});
