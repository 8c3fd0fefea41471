// `shopfront import oscmeta`: the Open Shop Channel's 294 real oscmeta files import, with package
// files made here in the three layouts a files folder may have, validate and build; the values are
// the ones its server publishes (the oscmeta's name and author, meta.xml's version where it says
// "auto", the `meta.set` treatments, the fallbacks); a file its schema refuses refuses the import with
// file and pointer; an app without package files is named and skipped; nothing is overwritten without --force.
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { strToU8, zipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { buildCatalogue } from "../../src/engine/buildCatalogue.js";
import { importOscmeta } from "../../src/import/importCatalogue.js";
import { NO_SHORT_DESCRIPTION, oscmetaManifest, UNKNOWN_VERSION, type Oscmeta } from "../../src/import/parseOscmeta.js";
import type { MetaXml } from "../../src/packageFiles/parseMetaXml.js";
import { PLACEHOLDER_ICON } from "../../src/packageFiles/placeholderIcon.js";
import { UsageError } from "../../src/util/errors.js";
import { dolBytes } from "../support/binaries.js";
import { FIXTURES, readJson, ROOT, tempDir, writeFiles } from "../support/helpers.js";

const REPOSITORY = join(FIXTURES, "oscmeta");
const NAMES = readdirSync(join(REPOSITORY, "contents"))
  .filter((f) => f.endsWith(".oscmeta"))
  .map((f) => f.slice(0, -".oscmeta".length))
  .sort();
/** The import's clock: 2026-01-02T03:04:05Z. */
const NOW = Date.UTC(2026, 0, 2, 3, 4, 5);
const ICON = readFileSync(PLACEHOLDER_ICON);

const escapeXml = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

function metaXml(fields: Record<string, string>): string {
  const body = Object.entries(fields)
    .map(([tag, text]) => `  <${tag}>${escapeXml(text)}</${tag}>`)
    .join("\n");
  return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<app version="1">\n${body}\n</app>\n`;
}

/** The SD card tree of app `name`: apps/<name>/boot.dol, meta.xml, icon.png. */
function tree(name: string, meta: string): Record<string, Uint8Array> {
  const dol = dolBytes(512 + name.length);
  return { [`apps/${name}/boot.dol`]: dol, [`apps/${name}/meta.xml`]: strToU8(meta), [`apps/${name}/icon.png`]: ICON };
}

const zip = (name: string, meta: string) => zipSync(tree(name, meta), { level: 6, mtime: new Date(2020, 0, 1) });

type Layout = "zip" | "tree" | "hbb";

/** Writes app `name`'s files into `filesDir` in one of the layouts a files folder may have. */
function writePackage(filesDir: string, name: string, meta: string, layout: Layout): void {
  if (layout === "zip") writeFiles(filesDir, { [`${name}.zip`]: zip(name, meta) });
  else if (layout === "hbb") writeFiles(filesDir, { [`hbb/${name}/${name}.zip`]: zip(name, meta) });
  else
    writeFiles(
      filesDir,
      Object.fromEntries(Object.entries(tree(name, meta)).map(([path, bytes]) => [`${name}/${path}`, bytes])),
    );
}

/** The meta.xml fields made for the app at `index`: some without a release date, a version or a short description. */
function metaFieldsOf(name: string, index: number): Record<string, string> {
  const fields: Record<string, string> = { name: `Meta ${name}`, coder: "Meta Coder" };
  if (index % 7 !== 0) fields.version = `${index}.0`;
  if (index % 4 !== 0) fields.release_date = "20200102030405";
  if (index % 5 !== 0) fields.short_description = `Short words ${index}`;
  fields.long_description = `Long words for ${name}.\nSecond line.`;
  return fields;
}

/** Most as zips; every tenth an SD card tree (which each step zips again: slower), every tenth an HBB mirror's zip. */
const layoutOf = (index: number): Layout => (index % 10 === 1 ? "tree" : index % 10 === 2 ? "hbb" : "zip");

/** A files folder with every real app's package, in the three layouts. */
function realFiles(): { filesDir: string; meta: Map<string, Record<string, string>> } {
  const filesDir = join(tempDir(), "files");
  const meta = new Map<string, Record<string, string>>();
  NAMES.forEach((name, i) => {
    const fields = metaFieldsOf(name, i);
    meta.set(name, fields);
    writePackage(filesDir, name, metaXml(fields), layoutOf(i));
  });
  return { filesDir, meta };
}

const manifestOf = (dir: string, name: string) => readJson(join(dir, "osc", `${name}.json`)) as Record<string, unknown>;

describe("the Open Shop Channel's 294 oscmeta files", () => {
  it("import with their package files, validate and build; what cannot be carried is named once", async () => {
    expect(NAMES).toHaveLength(294);
    const { filesDir, meta } = realFiles();
    const catalogueDir = join(tempDir(), "catalogue");
    const report = await importOscmeta({
      dir: REPOSITORY,
      filesDir,
      host: "osc",
      catalogueDir,
      force: false,
      now: () => NOW,
    });
    expect(report.problems).toEqual([]);
    const summary = report.summary!;
    expect(summary.skipped).toEqual([]);
    expect(summary.written).toHaveLength(294);
    expect(Object.fromEntries(summary.notCarriedOver)).toEqual({
      source: 294,
      treatments: 139,
      "information.author_preferred_contacts": 19,
      "information.comment": 1,
      "information.note": 53,
      "information.supported platforms": 1,
    });
    expect(summary.notes).toEqual([
      "repository.json's provider is not carried over: a host in hosts.json has no such field",
      "host osc's name and description are the source's; the rest are placeholders",
    ]);
    // hosts.json from repository.json: its name and description; the host name is a placeholder to edit.
    expect(readJson(join(catalogueDir, "hosts.json"))).toEqual({
      default: "osc",
      hosts: [
        {
          id: "osc",
          name: "Homebrew Apps",
          host: "osc.example.org",
          description: "Open Shop Channel's homebrew apps repository.",
        },
      ],
    });
    expect(summary.placeholderHosts).toEqual(["osc"]);
    // Each package's files beside its manifest, as the files folder had them: a zip, or an SD card tree.
    const hostFolder = readdirSync(join(catalogueDir, "osc"));
    expect(hostFolder.filter((f) => f.endsWith(".json"))).toHaveLength(294);
    expect(hostFolder.filter((f) => f.endsWith(".zip"))).toHaveLength(264);
    expect(existsSync(join(catalogueDir, "osc", NAMES[1]!, "apps", NAMES[1]!, "boot.dol"))).toBe(true);

    // The oscmeta's version, and its meta.set's release date over meta.xml's.
    expect(manifestOf(catalogueDir, "240pSuite")).toEqual({
      category: "utilities",
      coder: "Artemio Urbina",
      contributors: "",
      controllers: "w",
      display_name: "240p Test Suite GX",
      internal_name: "240pSuite",
      long_description: "Long words for 240pSuite.\nSecond line.",
      peripherals: ["wii_remote"],
      release_date: Date.UTC(2024, 7, 1) / 1000,
      short_description: meta.get("240pSuite")!.short_description ?? NO_SHORT_DESCRIPTION,
      supported_platforms: ["wii", "vwii", "wii_mini"],
      updated: Date.UTC(2024, 7, 1) / 1000,
      version: "1.20",
    });
    // "auto": meta.xml's version; the flags; no supported_platforms is the default.
    const arcme = manifestOf(catalogueDir, "ARCME");
    expect(arcme).toMatchObject({ coder: "Various", flags: ["writes_to_nand"], controllers: "w" });
    expect(arcme.version).toBe(meta.get("ARCME")!.version ?? UNKNOWN_VERSION);
    expect(arcme).not.toHaveProperty("supported_platforms");
    // A meta.set of the version over meta.xml's; authors; four Wii Remotes and the rest as letters.
    expect(manifestOf(catalogueDir, "Nintendont")).toMatchObject({
      version: "Newer than 4.431",
      authors: ["crediar"],
      controllers: "wwwwncgks",
      peripherals: [
        "wii_remote",
        "wii_remote",
        "wii_remote",
        "wii_remote",
        "nunchuk",
        "classic_controller",
        "gamecube_controller",
        "sdhc",
        "usb_keyboard",
      ],
    });
    expect(manifestOf(catalogueDir, "megazeux")).toMatchObject({
      authors: ["Gilead Kutnick", "Alistair Strachan", "Alice Rowan"],
      contributors: "And others",
    });
    // The misspelt "supported platforms" is not carried (named above): the default holds.
    expect(manifestOf(catalogueDir, "WiiLink-WFC-Patcher")).not.toHaveProperty("supported_platforms");
    // Release dates: meta.xml's where it has one, else the time of the import (as the server's first index).
    for (const [i, name] of NAMES.entries()) {
      const { release_date, version, short_description } = manifestOf(catalogueDir, name);
      const oscmeta = readJson(join(REPOSITORY, "contents", `${name}.oscmeta`)) as Oscmeta;
      const set = (oscmeta.treatments ?? []).some(
        (t) => t.treatment === "meta.set" && t.arguments?.[0] === "release_date",
      );
      if (!set) expect(release_date, name).toBe(i % 4 !== 0 ? Date.UTC(2020, 0, 2, 3, 4, 5) / 1000 : NOW / 1000);
      if (oscmeta.information.version !== "auto") expect(version, name).toBe(oscmeta.information.version);
      expect(short_description, name).toBe(i % 5 !== 0 ? `Short words ${i}` : NO_SHORT_DESCRIPTION);
    }

    expect(report.validation!.problems.filter((p) => p.severity === "error")).toEqual([]);
    expect(report.validation!.valid).toEqual({ hosts: 1, packages: 294 });
    const built = await buildCatalogue({ catalogueDir, outDir: join(tempDir(), "dist") });
    expect(built.problems.filter((p) => p.severity === "error")).toEqual([]);
    expect(built.built?.packages).toBe(294);
  });
});

/** A repository with the given oscmeta files (values are written as JSON, strings as they are). */
function repository(files: Record<string, unknown>): string {
  const dir = join(tempDir(), "Apps");
  writeFiles(
    dir,
    Object.fromEntries(Object.entries(files).map(([name, content]) => [`contents/${name}.oscmeta`, content])),
  );
  return dir;
}

const app = (changes: Record<string, unknown> = {}) => ({
  information: {
    name: "An App",
    author: "Someone",
    category: "games",
    peripherals: ["Wii Remote", "Nunchuk"],
    version: "auto",
    ...changes,
  },
  source: { type: "url", location: "https://example.org/app.zip", format: "zip" },
});

describe("a refused oscmeta", () => {
  it("refuses the import with each file and pointer, all in one run, and writes nothing", async () => {
    const dir = repository({
      good: app(),
      noname: {
        information: { author: "A", category: "games", peripherals: [], version: "1" },
        source: { type: "url" },
      },
      wrongtypes: {
        information: { name: "X", author: "A", category: "games", peripherals: "Wii Remote", version: 2 },
        source: { type: "url" },
        treatments: [{ arguments: ["a"] }],
      },
      twolines: app({ name: "Line one\nline two" }),
      nosource: { information: app().information },
      broken: '{ "information": { "name": "x", }',
    });
    const filesDir = join(tempDir(), "files");
    for (const name of ["good", "noname", "wrongtypes", "twolines", "nosource", "broken"])
      writePackage(filesDir, name, metaXml({ version: "1.0" }), "zip");
    const catalogueDir = join(tempDir(), "catalogue");
    const report = await importOscmeta({ dir, filesDir, host: "osc", catalogueDir, force: false });
    expect(report.summary).toBeUndefined();
    const file = (name: string) => relative(catalogueDir, join(dir, "contents", `${name}.oscmeta`));
    expect(report.problems.map((p) => [p.file, p.pointer, p.code])).toEqual([
      [file("broken"), "", "JSON_SYNTAX"],
      [file("noname"), "/information/name", "MISSING_FIELD"],
      [file("nosource"), "/source", "MISSING_FIELD"],
      [file("twolines"), "/information/name", "BAD_FORMAT"],
      [file("wrongtypes"), "/information/peripherals", "WRONG_TYPE"],
      [file("wrongtypes"), "/information/version", "WRONG_TYPE"],
      [file("wrongtypes"), "/treatments/0/treatment", "MISSING_FIELD"],
    ]);
    expect(report.problems.find((p) => p.code === "BAD_FORMAT")!.message).toContain("must be one line");
    expect(existsSync(catalogueDir)).toBe(false);
  });

  it("accepts what the repository's schema accepts: fields it does not define; ignores what is no .oscmeta file", async () => {
    const dir = repository({ extra: { ...app({ extra_field: 1 }), another: true } });
    writeFiles(dir, { "contents/README.md": "# Apps\n" });
    const filesDir = join(tempDir(), "files");
    writePackage(filesDir, "extra", metaXml({ version: "1.0" }), "zip");
    const report = await importOscmeta({
      dir,
      filesDir,
      host: "osc",
      catalogueDir: join(tempDir(), "c"),
      force: false,
    });
    expect(report.problems).toEqual([]);
    expect(report.summary!.written).toEqual(["osc/extra.json"]);
    expect(Object.fromEntries(report.summary!.notCarriedOver)).toEqual({
      another: 1,
      "information.extra_field": 1,
      source: 1,
    });
    expect(report.summary!.notes).toEqual([
      "contents/ holds an entry that is no .oscmeta file, ignored as the Open Shop Channel's server ignores it: README.md",
      expect.stringMatching(/ has no repository\.json: host osc, if new, is declared with placeholders$/),
    ]);
  });
});

describe("apps that cannot become packages", () => {
  it("an app whose package files are missing is named and skipped; the rest import", async () => {
    const dir = repository({ here: app(), gone: app() });
    const filesDir = join(tempDir(), "files");
    writePackage(filesDir, "here", metaXml({ version: "2.5", short_description: "Here it is" }), "tree");
    const catalogueDir = join(tempDir(), "catalogue");
    const report = await importOscmeta({ dir, filesDir, host: "osc", catalogueDir, force: false, now: () => NOW });
    expect(report.problems).toEqual([]);
    expect(report.summary!.written).toEqual(["osc/here.json"]);
    expect(report.summary!.skipped).toEqual([
      {
        source: "contents/gone.oscmeta",
        host: "osc",
        name: "gone",
        reasons: [expect.stringMatching(/^its package files are missing: none of .*gone\.zip, .*gone\/apps\/gone\//)],
      },
    ]);
    expect(existsSync(join(catalogueDir, "osc", "gone.json"))).toBe(false);
    expect(manifestOf(catalogueDir, "here")).toMatchObject({ version: "2.5", release_date: NOW / 1000 });
    expect(report.validation!.valid).toEqual({ hosts: 1, packages: 1 });
  });

  it("package files the build would refuse, a peripheral no client knows, a category the catalogue has not: skipped with why", async () => {
    const dir = repository({
      nobinary: app(),
      balance: app({ peripherals: ["Wii Remote", "Balance Board"] }),
      none: app({ peripherals: [] }),
      odd: app({ category: "toys" }),
      upper: app({ category: "Games" }),
    });
    const filesDir = join(tempDir(), "files");
    for (const name of ["balance", "none", "odd", "upper"]) writePackage(filesDir, name, metaXml({}), "zip");
    writeFiles(filesDir, { "nobinary.zip": zipSync({ "apps/nobinary/meta.xml": strToU8(metaXml({})) }) });
    const catalogueDir = join(tempDir(), "catalogue");
    const report = await importOscmeta({ dir, filesDir, host: "osc", catalogueDir, force: false });
    const reasons = Object.fromEntries(report.summary!.skipped.map((s) => [s.name, s.reasons]));
    expect(reasons).toEqual({
      balance: [
        expect.stringMatching(/^\/information\/peripherals\/1 "Balance Board" is not a peripheral: Wii Remote, /),
      ],
      none: ["/information/peripherals names none: an app needs at least one"],
      nobinary: [expect.stringMatching(/^its package files: .*PACKAGE_NO_BINARY/)],
      odd: [expect.stringMatching(/^\/category must be one of/)],
    });
    // The server matches a category ignoring case.
    expect(report.summary!.written).toEqual(["osc/upper.json"]);
    expect(manifestOf(catalogueDir, "upper")).toMatchObject({
      category: "games",
      controllers: "wn",
      version: UNKNOWN_VERSION,
      short_description: NO_SHORT_DESCRIPTION,
      long_description: "",
    });
  });
});

describe("nothing outside the catalogue", () => {
  it("a package folder that is or holds a symbolic link is refused, never copied", async () => {
    const dir = repository({ linked: app(), holds: app() });
    const filesDir = join(tempDir(), "files");
    const elsewhere = join(tempDir(), "elsewhere");
    writePackage(elsewhere, "linked", metaXml({ version: "1.0" }), "tree");
    mkdirSync(filesDir);
    symlinkSync(join(elsewhere, "linked"), join(filesDir, "linked"));
    writePackage(filesDir, "holds", metaXml({ version: "1.0" }), "tree");
    symlinkSync(elsewhere, join(filesDir, "holds", "apps", "holds", "data"));
    const catalogueDir = join(tempDir(), "catalogue");
    const report = await importOscmeta({ dir, filesDir, host: "osc", catalogueDir, force: false });
    const reasons = Object.fromEntries(report.summary!.skipped.map((s) => [s.name, s.reasons]));
    expect(reasons).toEqual({
      linked: [expect.stringMatching(/linked is a symbolic link \(not followed/)],
      holds: [expect.stringMatching(/^its package files: apps\/holds\/data: .* \(SYMLINK\)$/)],
    });
    // Nothing could be imported, so nothing was written: not even the catalogue folder.
    expect(report.summary!.failed).toBe(true);
    expect(existsSync(catalogueDir)).toBe(false);
  });

  it("a host id that breaks the name rule is a usage error", async () => {
    const catalogueDir = join(tempDir(), "catalogue");
    await expect(importOscmeta({ dir: REPOSITORY, host: "../x", catalogueDir, force: false })).rejects.toThrow(
      UsageError,
    );
    expect(existsSync(catalogueDir)).toBe(false);
  });
});

describe("importing again", () => {
  it("keeps manifests and package files unless --force, which keeps a release date nothing else gives", async () => {
    const dir = repository({ one: app() });
    const filesDir = join(tempDir(), "files");
    writePackage(filesDir, "one", metaXml({ version: "1.0" }), "tree");
    const catalogueDir = join(tempDir(), "catalogue");
    const first = await importOscmeta({ dir, filesDir, host: "osc", catalogueDir, force: false, now: () => NOW });
    expect(first.summary!.written).toEqual(["osc/one.json"]);

    // Now the files are a zip with a new version: without --force nothing changes.
    rmSync(join(filesDir, "one"), { recursive: true });
    writePackage(filesDir, "one", metaXml({ version: "2.0" }), "zip");
    const later = () => NOW + 86_400_000;
    const again = await importOscmeta({ dir, filesDir, host: "osc", catalogueDir, force: false, now: later });
    expect(again.summary!.written).toEqual([]);
    expect(again.summary!.skipped[0]!.reasons).toEqual(["osc/one.json exists (--force overwrites it)"]);
    expect(manifestOf(catalogueDir, "one").version).toBe("1.0");

    const forced = await importOscmeta({ dir, filesDir, host: "osc", catalogueDir, force: true, now: later });
    expect(forced.summary!.written).toEqual(["osc/one.json"]);
    // The folder gave way to the zip; the release date of the first import stays.
    expect(readdirSync(join(catalogueDir, "osc")).sort()).toEqual(["one.json", "one.zip"]);
    expect(manifestOf(catalogueDir, "one")).toMatchObject({ version: "2.0", release_date: NOW / 1000 });
    expect(forced.validation!.valid).toEqual({ hosts: 1, packages: 1 });

    // A package's files alone (its manifest removed) are not overwritten either.
    rmSync(join(catalogueDir, "osc", "one.json"));
    const files = await importOscmeta({ dir, filesDir, host: "osc", catalogueDir, force: false, now: later });
    expect(files.summary!.skipped[0]!.reasons).toEqual(["osc/one.zip exists (--force overwrites it)"]);
  });

  it("declares the host in a catalogue that has other hosts, with repository.json's name and description", async () => {
    const dir = repository({ one: app() });
    writeFiles(dir, { "repository.json": { name: "Apps", provider: "Someone", description: "Some apps." } });
    const filesDir = join(tempDir(), "files");
    writePackage(filesDir, "one", metaXml({ version: "1.0" }), "hbb");
    const catalogueDir = join(tempDir(), "catalogue");
    cpSync(join(FIXTURES, "basic", "catalogue"), catalogueDir, { recursive: true });
    const before = readJson(join(catalogueDir, "hosts.json")) as { default: string; hosts: unknown[] };
    const report = await importOscmeta({ dir, filesDir, host: "osc", catalogueDir, force: false });
    expect(report.summary!.hostsFile).toBe("hosts added");
    expect(readJson(join(catalogueDir, "hosts.json"))).toEqual({
      default: before.default,
      hosts: [...before.hosts, { id: "osc", name: "Apps", host: "osc.example.org", description: "Some apps." }],
    });
  });
});

describe("oscmetaManifest", () => {
  const meta = (fields: Partial<MetaXml>): MetaXml => ({
    no_ios_reload: false,
    ahb_access: false,
    encoding: "utf-8",
    ...fields,
  });

  it("takes meta.xml's values as the treatments leave them, the last meta.set winning", () => {
    const oscmeta = {
      ...app({ contributors: ["A", "B"], authors: [] }),
      treatments: [
        { treatment: "meta.set", arguments: ["release_date", "19990101"] },
        { treatment: "meta.set", arguments: ["release_date", "202001021504"] },
        { treatment: "meta.set", arguments: ["short_description", "Set short"] },
      ],
    } as Oscmeta;
    const { manifest, reasons } = oscmetaManifest(
      "x",
      oscmeta,
      meta({ version: "3", short_description: "Meta short", release_date: 5 }),
      7,
    );
    expect(reasons).toEqual([]);
    expect(manifest).toMatchObject({
      contributors: "A, B",
      release_date: Date.UTC(2020, 0, 2, 15, 4) / 1000,
      short_description: "Set short",
      version: "3",
    });
    // An empty list of authors is the default (the coder).
    expect(manifest).not.toHaveProperty("authors");
  });

  it("falls back as the server does: a release date it cannot read, no meta.xml", () => {
    const bad = { ...app(), treatments: [{ treatment: "meta.set", arguments: ["release_date", "soon"] }] } as Oscmeta;
    expect(oscmetaManifest("x", bad, meta({ release_date: 5 }), 7).manifest.release_date).toBe(7);
    expect(oscmetaManifest("x", app() as Oscmeta, undefined, 7).manifest).toMatchObject({
      release_date: 7,
      version: UNKNOWN_VERSION,
      short_description: NO_SHORT_DESCRIPTION,
      long_description: "",
    });
  });
});

describe("shopfront import oscmeta (the binary)", () => {
  const run = (cwd: string, ...args: string[]) =>
    spawnSync(process.execPath, [join(ROOT, "lib", "cli.js"), "import", "oscmeta", ...args], {
      cwd,
      encoding: "utf8",
      env: { ...process.env, NO_COLOR: "1" },
    });

  it("imports, names what is not carried once, validates, and exits 1 when an app was skipped", () => {
    const cwd = tempDir();
    const dir = repository({ one: app(), two: app({ name: "Two" }), gone: app() });
    for (const name of ["one", "two"]) writePackage(join(cwd, "files"), name, metaXml({ version: "1.0" }), "zip");
    const first = run(cwd, dir, "--host", "osc", "--files", "files");
    // The only warning: the host it declared, whose description is the import's placeholder.
    expect(first.stderr).toMatch(
      /^catalogue\/hosts\.json: \/hosts\/0\/description is the placeholder "Imported by shopfront; .*\(warning\)\n1 warning in 1 file\n$/,
    );
    expect(first.status).toBe(1);
    expect(first.stdout).toContain("imported 2 packages into catalogue; skipped 1");
    expect(first.stdout).toContain("skipped osc/gone (contents/gone.oscmeta):\n  its package files are missing");
    expect(first.stdout.match(/source \(3 packages\)/g)).toHaveLength(1);
    expect(first.stdout).toContain("valid: 1 host, 2 packages");

    writeFileSync(join(dir, "contents", "bad.oscmeta"), "[]");
    const refused = run(cwd, dir, "--host", "osc", "--files", "files", "--force");
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain("contents/bad.oscmeta: must be object");
    expect(refused.stderr).toContain("nothing was imported");

    mkdirSync(join(cwd, "empty"));
    expect(run(cwd, "empty", "--host", "osc").status).toBe(2);
    expect(run(cwd, dir, "--host", "a b").status).toBe(2);
  });

  it("is a usage error without contents/ or with a files folder that is none", async () => {
    const catalogueDir = join(tempDir(), "catalogue");
    await expect(importOscmeta({ dir: tempDir(), host: "osc", catalogueDir, force: false })).rejects.toThrow(
      UsageError,
    );
    await expect(
      importOscmeta({ dir: REPOSITORY, filesDir: join(tempDir(), "nothing"), host: "osc", catalogueDir, force: false }),
    ).rejects.toThrow(UsageError);
  });
});
