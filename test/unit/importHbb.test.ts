// `shopfront import hbb`: the real lists import and build; every malformed shape is reported with its
// line and skipped while the rest imports; values that break a rule are reported, not changed; and a
// catalogue written out as a list comes back with every field the list carries.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildCatalogue } from "../../src/engine/buildCatalogue.js";
import { loadCatalogue } from "../../src/load/loadCatalogue.js";
import { parseHbbList } from "../../src/import/parseHbbList.js";
import { writeImport, type ImportSource } from "../../src/import/writeImport.js";
import { importHbbList } from "../../src/import/importCatalogue.js";
import { defaultImportHost } from "../../src/import/defaultHost.js";
import { UsageError } from "../../src/util/errors.js";
import { FIXTURES, readJson, ROOT, tempDir, writeFiles } from "../support/helpers.js";

const HBB = join(FIXTURES, "hbb");

/** A package's token line and six text lines, as the Homebrew Browser writes them. */
function entry(name: string, over: { tokens?: string; text?: string[] } = {}): string[] {
  return [
    over.tokens ?? `${name} 1300000000 100 2000 dol 3000 42 4 wn . . .`,
    ...(over.text ?? [`Display ${name}`, "A Coder", "1.0", "4096", "Short words", "Long words."]),
  ];
}

function list(...lines: (string | string[])[]): Buffer {
  return Buffer.from(["Homebrew 2092896 v0.3.9e | notes", ...lines.flat()].join("\n") + "\n");
}

async function importInto(catalogueDir: string, source: ImportSource, force = false) {
  const result = await writeImport(source, { catalogueDir, force });
  if (!result.summary) throw new Error(`import failed: ${JSON.stringify(result.problems)}`);
  return result.summary;
}

const manifestOf = (dir: string, host: string, name: string) =>
  readJson(join(dir, host, `${name}.json`)) as Record<string, unknown>;

describe("the real lists", () => {
  it("import all 291 packages of listv035, each in the category its group's footer names, and build", async () => {
    const source = parseHbbList(readFileSync(join(HBB, "hbb-listv035-sample.txt")), "primary");
    expect(source.skipped).toEqual([]);
    const dir = join(tempDir(), "catalogue");
    const summary = await importInto(dir, source);
    expect(summary.written).toHaveLength(291);
    expect(summary.skipped).toEqual([]);
    // Footers come in the order Games, Emulators, Media, Utilities, Demos in this file.
    expect(manifestOf(dir, "primary", "simon").category).toBe("games");
    expect(manifestOf(dir, "primary", "dosbox").category).toBe("emulators");
    expect(manifestOf(dir, "primary", "Karaokii").category).toBe("media");
    const byCategory = new Map<string, number>();
    for (const file of readdirSync(join(dir, "primary"))) {
      const { category } = readJson(join(dir, "primary", file)) as { category: string };
      byCategory.set(category, (byCategory.get(category) ?? 0) + 1);
    }
    expect([...byCategory.keys()].sort()).toEqual(["demos", "emulators", "games", "media", "utilities"]);
    expect(manifestOf(dir, "primary", "simon")).toEqual({
      category: "games",
      coder: "teknecal",
      contributors: "",
      controllers: "ws",
      display_name: "Simon",
      extracted: 1654752,
      internal_name: "simon",
      long_description: expect.any(String),
      package_type: "dol",
      release_date: 1225449813,
      short_description: expect.any(String),
      updated: 1225449813,
      version: "0.3",
      zip_size: 382681,
    });
    expect(Object.fromEntries(summary.notCarriedOver)).toEqual({
      "binary size": 291,
      "icon size": 291,
      "extra folders": 119,
      "no-delete flag": 30,
      "no-extract flag": 2,
    });
    const built = await buildCatalogue({ catalogueDir: dir, outDir: join(tempDir(), "dist") });
    expect(built.problems.filter((p) => p.severity === "error")).toEqual([]);
    expect(built.built?.packages).toBe(291);
  });

  it("import the one package of listv036, in the group the footer after it names (empty groups around it)", async () => {
    const source = parseHbbList(readFileSync(join(HBB, "hbb-listv036-sample.txt")), "primary");
    expect(source.skipped).toEqual([]);
    expect(source.packages.map((p) => [p.name, p.manifest.category])).toEqual([["example_app", "games"]]);
  });
});

describe("text lines", () => {
  it("lose the spaces and tabs at their ends, as the original service stripped each line", () => {
    // listv035 as published: quadrax's short description ends in a space, meritous's long one in 23.
    const real = parseHbbList(readFileSync(join(HBB, "hbb-listv035-sample.txt")), "primary");
    const byName = new Map(real.packages.map((p) => [p.name, p.manifest]));
    expect(byName.get("quadrax")!.short_description).toBe("The Secrets of Pyramid");
    expect(byName.get("meritous")!.long_description).toMatch(/bring an end to themselves\.$/);
    for (const { manifest } of real.packages)
      for (const field of ["display_name", "coder", "version", "short_description", "long_description"])
        expect(manifest[field]).toBe((manifest[field] as string).trim());
    // The shape of USB Loader GX's entry in today's listv036: a space before the display name, a tab
    // after the short description, CRLF line ends.
    const source = parseHbbList(
      Buffer.from(
        [
          "Homebrew 2092896 v0.3.9e | notes",
          "usbloader_gx 1618329005 6436 4305984 dol 3906085 0 0 wg /apps/usbloader_gx/images . .",
          " USB Loader GX",
          "USB Loader GX Team ",
          " r1281\t",
          "\t10581301 ",
          "Load games from USB-devices\t",
          "USB Loader GX is a libwiigui based USB iso loader with a wii-like GUI.\t ",
          "=Utilities=",
          "",
        ].join("\r\n"),
      ),
      "primary",
    );
    expect(source.skipped).toEqual([]);
    expect(source.packages[0]!.manifest).toMatchObject({
      display_name: "USB Loader GX",
      coder: "USB Loader GX Team",
      version: "r1281",
      extracted: 10581301,
      short_description: "Load games from USB-devices",
      long_description: "USB Loader GX is a libwiigui based USB iso loader with a wii-like GUI.",
    });
  });
});

describe("malformed lists", () => {
  it("skip a package line with too few tokens, with its line, and import the rest", () => {
    const source = parseHbbList(
      list(entry("good"), entry("short", { tokens: "short 1300000000 100 2000 dol" }), entry("after"), "=Games="),
      "primary",
    );
    expect(source.packages.map((p) => p.name)).toEqual(["good", "after"]);
    expect(source.skipped).toEqual([{ source: "line 9", reasons: [expect.stringContaining("has 5 tokens")] }]);
  });

  it("skip a package whose text lines run short at the end of the file", () => {
    const source = parseHbbList(
      list(entry("good"), "=Games=", "cut 1300000000 100 2000 dol 3000 0 0 w . . .", "Cut"),
      "primary",
    );
    expect(source.packages.map((p) => p.name)).toEqual(["good"]);
    expect(source.skipped).toEqual([
      {
        source: "line 10",
        reasons: [expect.stringMatching(/has 1 of its 6 text lines .* before the end of the file/)],
      },
    ]);
  });

  it("skip a package whose text lines run into a footer, and keep the footer", () => {
    const source = parseHbbList(
      list(entry("good"), "cut 1300000000 100 2000 dol 3000 0 0 w . . .", "Cut", "=Games=", entry("next"), "=Media="),
      "primary",
    );
    expect(source.packages.map((p) => [p.name, p.manifest.category])).toEqual([
      ["good", "games"],
      ["next", "media"],
    ]);
    expect(source.skipped[0]!.reasons[0]).toMatch(/before the footer on line 11/);
  });

  it("read a folder list with spaces as extra folders, not carried over", () => {
    const source = parseHbbList(
      list(
        entry("spaced", { tokens: "spaced 1300000000 100 2000 dol 3000 0 0 w /apps/My Game/data;/apps/x . ." }),
        "=Games=",
      ),
      "primary",
    );
    expect(source.skipped).toEqual([]);
    expect(source.packages[0]!.manifest).toMatchObject({ controllers: "w", zip_size: 3000 });
    expect(source.notCarriedOver.get("extra folders")).toBe(1);
  });

  it("read CRLF and LF alike", () => {
    const lf = list(entry("a"), "=Games=", entry("b"), "=Demos=");
    const crlf = Buffer.from(lf.toString().replaceAll("\n", "\r\n"));
    expect(parseHbbList(crlf, "primary")).toEqual(parseHbbList(lf, "primary"));
  });

  it("give the last group without a footer the one category no footer named, and say so", () => {
    const source = parseHbbList(
      list(entry("d"), "=Demos=", entry("e"), "=Emulators=", entry("g"), "=Games=", entry("m"), "=Media=", entry("u")),
      "primary",
    );
    expect(source.packages.map((p) => [p.name, p.manifest.category])).toEqual([
      ["d", "demos"],
      ["e", "emulators"],
      ["g", "games"],
      ["m", "media"],
      ["u", "utilities"],
    ]);
    expect(source.notes).toEqual([expect.stringContaining("they are utilities")]);
  });

  it("skip the last group without a footer when its category could be several", () => {
    const source = parseHbbList(list(entry("g"), "=Games=", entry("lost")), "primary");
    expect(source.packages.map((p) => p.name)).toEqual(["g"]);
    expect(source.skipped).toEqual([
      {
        source: "line 10",
        host: "primary",
        name: "lost",
        reasons: [expect.stringContaining("no footer line follows it")],
      },
    ]);
  });

  it("read a line that is not UTF-8 as Windows-1252, and say which", () => {
    const bytes = Buffer.concat([
      list(entry("cafe", { text: ["Caf\u00e9", "Andr\u00e9 \u2013 \u20ac", "1.0", "4096", "Short", "Long"] })).subarray(
        0,
        0,
      ),
      Buffer.from("Homebrew 1 notes\ncafe 1300000000 1 2 dol 3 0 0 w . . .\nCaf", "latin1"),
      Buffer.from([0xe9]),
      Buffer.from("\nAndr", "latin1"),
      Buffer.from([0xe9, 0x20, 0x96, 0x20, 0x80]),
      Buffer.from("\n1.0\n4096\nShort\nLong\n=Games=\n", "latin1"),
    ]);
    const source = parseHbbList(bytes, "primary");
    expect(source.packages[0]!.manifest).toMatchObject({ display_name: "Café", coder: "André – €" });
    expect(source.notes).toEqual(["lines 3, 4 are not UTF-8: read as Windows-1252"]);
  });

  it("keep UTF-8 lines as UTF-8", () => {
    const source = parseHbbList(
      list(entry("j", { text: ["Jānis", "Jānis Rūcis", "1", "2", "s", "l"] }), "=Games="),
      "primary",
    );
    expect(source.packages[0]!.manifest).toMatchObject({ coder: "Jānis Rūcis" });
    expect(source.notes).toEqual([]);
  });

  it("report the header when it is missing, and read the first line as a package", () => {
    const text = [...entry("first"), "=Games="].join("\n");
    const source = parseHbbList(Buffer.from(text), "primary");
    expect(source.packages.map((p) => p.name)).toEqual(["first"]);
    expect(source.skipped).toEqual([{ source: "line 1", reasons: [expect.stringContaining("header")] }]);
  });
});

describe("values that break a rule", () => {
  it("are reported with the package and what to fix, and the package is skipped, not changed", async () => {
    const source = parseHbbList(
      list(
        entry("ok"),
        entry("badctl", { tokens: "badctl 1300000000 100 2000 dol 3000 0 0 wx . . ." }),
        entry("control", { text: ["Bell\u0007", "A Coder", "1.0", "4096", "Short", "Long"] }),
        // A name with a space shifts every token: the list cannot say where the name ends.
        entry("my app", { tokens: "my app 1300000000 100 2000 dol 3000 0 0 w . . ." }),
        entry("badnum", { tokens: "badnum 13e8 100 2000 dol 3000 many 0 w . . ." }),
        entry("../up", { tokens: "../up 1300000000 100 2000 dol 3000 0 0 w . . ." }),
        "=Games=",
      ),
      "primary",
    );
    const dir = join(tempDir(), "catalogue");
    const summary = await importInto(dir, source);
    expect(summary.written).toEqual(["primary/ok.json"]);
    const reasons = Object.fromEntries(summary.skipped.map((s) => [s.name, s.reasons]));
    expect(reasons.badctl).toEqual([expect.stringMatching(/^\/controllers must only hold controller letters/)]);
    expect(reasons.control).toEqual([
      expect.stringMatching(/^\/display_name must be one line without control characters/),
    ]);
    expect(reasons.my).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^\/release_date must be integer/),
        expect.stringMatching(/^\/package_type/),
      ]),
    );
    expect(reasons.badnum).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^\/release_date must be integer \(is string "13e8"\)/),
        expect.stringMatching(/^\/downloads must be integer/),
      ]),
    );
    expect(reasons["../up"]).toEqual([expect.stringContaining("cannot be a package name")]);
    expect(existsSync(join(dir, "up.json"))).toBe(false);
    expect(existsSync(join(dir, "..", "up.json"))).toBe(false);
    // The host the import declared knowing only its id is a placeholder until it is named.
    expect((await loadCatalogue(dir)).problems.map((p) => [p.code, p.pointer])).toEqual([
      ["PLACEHOLDER_TEXT", "/hosts/0/description"],
    ]);
  });

  it("two names that differ only in case: the first is imported, the second reported", async () => {
    const source = parseHbbList(list(entry("Snake"), entry("snake"), "=Games="), "primary");
    const summary = await importInto(join(tempDir(), "catalogue"), source);
    expect(summary.written).toEqual(["primary/Snake.json"]);
    expect(summary.skipped[0]!.reasons).toEqual([expect.stringContaining("differs only in case from Snake")]);
  });
});

describe("an existing catalogue", () => {
  it("keeps its manifests, stats and hosts unless --force, and declares a new host with placeholders", async () => {
    const dir = join(tempDir(), "catalogue");
    writeFiles(dir, {
      "hosts.json": {
        default: "primary",
        hosts: [{ id: "primary", name: "Mine", host: "hbb1.example.org", description: "Kept." }],
      },
      "primary/a.json": {
        ...(readJson(join(FIXTURES, "basic", "catalogue", "primary", "snake.json")) as object),
        internal_name: "a",
      },
      "stats/primary.json": { packages: { a: { downloads: 5, rating: "3" }, other: { downloads: 1 } } },
    });
    const before = readFileSync(join(dir, "primary", "a.json"), "utf8");
    const source = parseHbbList(list(entry("a"), entry("b"), "=Games="), "primary");
    const kept = await importInto(dir, source);
    expect(kept.written).toEqual(["primary/b.json"]);
    expect(kept.skipped).toEqual([
      { source: "line 2", host: "primary", name: "a", reasons: ["primary/a.json exists (--force overwrites it)"] },
    ]);
    expect(readFileSync(join(dir, "primary", "a.json"), "utf8")).toBe(before);
    expect(readJson(join(dir, "stats", "primary.json"))).toEqual({
      packages: { a: { downloads: 5, rating: "3" }, b: { downloads: 42, rating: "4" }, other: { downloads: 1 } },
    });
    expect(kept.hostsFile).toBe("kept");

    const forced = await importInto(dir, source, true);
    expect(forced.written).toEqual(["primary/a.json", "primary/b.json"]);
    expect(manifestOf(dir, "primary", "a").display_name).toBe("Display a");
    expect((readJson(join(dir, "stats", "primary.json")) as { packages: object }).packages).toMatchObject({
      a: { downloads: 42, rating: "4" },
    });

    const themes = await importInto(dir, parseHbbList(list(entry("t"), "=Games="), "themes"));
    expect(themes.hostsFile).toBe("hosts added");
    expect(themes.placeholderHosts).toEqual(["themes"]);
    expect((readJson(join(dir, "hosts.json")) as { hosts: { id: string; name: string }[] }).hosts).toEqual([
      { id: "primary", name: "Mine", host: "hbb1.example.org", description: "Kept." },
      expect.objectContaining({ id: "themes", host: "themes.example.org" }),
    ]);
    // The import kept the entry of a package the host does not have, as a build reports it.
    expect((await loadCatalogue(dir)).problems.map((p) => [p.code, p.pointer])).toEqual([
      ["PLACEHOLDER_TEXT", "/hosts/1/description"],
      ["STATS_UNKNOWN_PACKAGE", "/packages/other"],
    ]);
  });

  it("refuses to add to an invalid stats file, and writes nothing", async () => {
    const dir = join(tempDir(), "catalogue");
    writeFiles(dir, { "stats/primary.json": { packages: { a: { downloads: -1 } } } });
    const result = await writeImport(parseHbbList(list(entry("a"), "=Games="), "primary"), {
      catalogueDir: dir,
      force: false,
    });
    expect(result.problems.map((p) => [p.code, p.file, p.pointer])).toEqual([
      ["OUT_OF_RANGE", "stats/primary.json", "/packages/a/downloads"],
    ]);
    expect(existsSync(join(dir, "primary"))).toBe(false);
    expect(existsSync(join(dir, "hosts.json"))).toBe(false);
  });
});

/** A host's manifests a list can hold: tokens are split on spaces, so no empty controllers. */
function listable(catalogueDir: string, host: string): string[] {
  return readdirSync(join(catalogueDir, host))
    .filter((file) => (readJson(join(catalogueDir, host, file)) as { controllers: string }).controllers !== "")
    .sort();
}

/** A Homebrew Browser list of a catalogue's host, as the original tools wrote one (CRLF). */
function writeList(catalogueDir: string, host: string): Buffer {
  const stats = existsSync(join(catalogueDir, "stats", `${host}.json`))
    ? (
        readJson(join(catalogueDir, "stats", `${host}.json`)) as {
          packages: Record<string, { downloads?: number; rating?: string }>;
        }
      ).packages
    : {};
  const groups = new Map<string, string[]>();
  for (const file of listable(catalogueDir, host)) {
    const m = readJson(join(catalogueDir, host, file)) as Record<string, string | number>;
    const s = stats[String(m.internal_name)] ?? {};
    const lines = [
      [
        m.internal_name,
        m.updated,
        1234,
        5678,
        m.package_type,
        m.zip_size,
        s.downloads ?? 0,
        s.rating || 0,
        m.controllers,
        ".",
        ".",
        ".",
      ].join(" "),
      m.display_name,
      m.coder,
      m.version,
      m.extracted,
      m.short_description,
      String(m.long_description).replaceAll("\n", " "),
    ].map(String);
    groups.set(String(m.category), [...(groups.get(String(m.category)) ?? []), ...lines]);
  }
  // Footers in an order of their own, as real files have them.
  const order = ["utilities", "games", "demos", "media", "emulators", "themes"];
  const body = order.flatMap((c) => [...(groups.get(c) ?? []), `=${c[0]!.toUpperCase()}${c.slice(1)}=`]);
  return Buffer.from(["Homebrew 2092896 v0.3.9e | round trip", ...body].join("\r\n") + "\r\n");
}

describe("round trip through the list format", () => {
  it("gives back every field the list carries, and the numbers", async () => {
    const original = join(ROOT, "catalogue");
    const dir = join(tempDir(), "catalogue");
    for (const host of ["primary", "themes"]) {
      const source = parseHbbList(writeList(original, host), host);
      expect(source.skipped).toEqual([]);
      const summary = await importInto(dir, source);
      expect(summary.skipped).toEqual([]);
    }
    const carried = (m: Record<string, unknown>) => ({
      ...m,
      // What the list cannot hold: release_date (it has one timestamp), contributors, line breaks.
      release_date: m.updated,
      contributors: "",
      long_description: String(m.long_description).replaceAll("\n", " "),
    });
    for (const host of ["primary", "themes"]) {
      const names = listable(original, host);
      expect(names.length).toBeGreaterThan(2);
      expect(readdirSync(join(dir, host)).sort()).toEqual(names);
      for (const file of names)
        expect(readJson(join(dir, host, file)), file).toEqual(
          carried(readJson(join(original, host, file)) as Record<string, unknown>),
        );
      const effective = (d: string) => {
        const path = join(d, "stats", `${host}.json`);
        const packages = existsSync(path) ? (readJson(path) as { packages: Record<string, object> }).packages : {};
        return Object.fromEntries(
          names.map((f) => f.slice(0, -5)).map((n) => [n, { downloads: 0, rating: "", ...packages[n] }]),
        );
      };
      expect(effective(dir)).toEqual(effective(original));
    }
  });
});

describe("import hbb --files (a mirror's archives)", () => {
  it("copies each archive the mirror has in as package files, checked against the list's size", async () => {
    const mirror = tempDir();
    const pong = readFileSync(join(FIXTURES, "package-files", "catalogue", "primary", "pong.zip"));
    writeFiles(mirror, {
      "hbb/pong/pong.zip": pong,
      // The mirror's own icons are not taken: the archive's is what the build serves.
      "hbb/pong.png": "not read",
      "hbb/stale/stale.zip": pong,
    });
    writeFileSync(
      join(mirror, "listv036.txt"),
      list(
        entry("pong", { tokens: `pong 1230768000 100 2000 dol ${pong.length} 7 0 w . . .` }),
        entry("stale", { tokens: `stale 1230768000 100 2000 dol ${pong.length + 1} 0 0 w . . .` }),
        entry("gone"),
        entry("../up", { tokens: "../up 1230768000 100 2000 dol 10 0 0 w . . ." }),
        "=Games=",
      ),
    );
    const catalogueDir = join(tempDir(), "catalogue");
    const report = await importHbbList({
      file: join(mirror, "listv036.txt"),
      files: mirror,
      host: "primary",
      catalogueDir,
      force: false,
    });
    expect(report.summary).toMatchObject({
      written: ["primary/pong.json", "primary/gone.json"],
      archives: ["primary/pong.zip"],
      notes: ["the mirror has no hbb/<name>/<name>.zip for gone: imported without files"],
    });
    expect(report.summary!.skipped.map((s) => [s.name, s.reasons])).toEqual([
      [
        "stale",
        [
          `${join(mirror, "hbb", "stale", "stale.zip")} has ${pong.length} bytes, not the ${pong.length + 1} the list states`,
        ],
      ],
      ["../up", [expect.stringMatching(/^its name "\.\.\/up" cannot be a package name/)]],
    ]);
    expect(readFileSync(join(catalogueDir, "primary", "pong.zip"))).toEqual(pong);
    // The archive gives zip_size, extracted and package_type; the package without one keeps the list's.
    expect(manifestOf(catalogueDir, "primary", "pong")).not.toHaveProperty("zip_size");
    expect(manifestOf(catalogueDir, "primary", "gone")).toMatchObject({ zip_size: 3000, extracted: 4096 });
    expect(readdirSync(join(catalogueDir, "primary")).sort()).toEqual(["gone.json", "pong.json", "pong.zip"]);
    expect(report.validation?.problems.filter((p) => p.severity === "error")).toEqual([]);

    await expect(
      importHbbList({
        file: join(mirror, "listv036.txt"),
        files: join(mirror, "hbb"),
        host: "primary",
        catalogueDir,
        force: false,
      }),
    ).rejects.toThrow(/--files .*: it has no hbb\/ folder/);
  });
});

describe("importHbbList (one call: read, write, validate)", () => {
  it("reads the list file, writes it and validates the catalogue as it now is", async () => {
    const cwd = tempDir();
    const catalogueDir = join(cwd, "catalogue");
    mkdirSync(catalogueDir);
    writeFileSync(join(cwd, "list.txt"), list(entry("one"), entry("two", { tokens: "two 1 2" }), "=Games="));
    const report = await importHbbList({ file: join(cwd, "list.txt"), host: "primary", catalogueDir, force: false });
    expect(report.problems).toEqual([]);
    expect(report.summary).toMatchObject({ written: ["primary/one.json"], skipped: [expect.anything()] });
    expect(report.validation).toMatchObject({
      problems: [expect.objectContaining({ code: "PLACEHOLDER_TEXT", file: "hosts.json" })],
      valid: { hosts: 1, packages: 1 },
    });
    expect(report.validation!.ms).toBeGreaterThan(0);
    await expect(
      importHbbList({ file: join(cwd, "missing.txt"), host: "primary", catalogueDir, force: false }),
    ).rejects.toThrow(UsageError);
  });
});

describe("the host an import puts packages on without --host", () => {
  const hostsJson = (ids: string[]) => ({
    default: ids[0],
    hosts: ids.map((id) => ({ id, name: id, host: `${id}.example.org`, description: "" })),
  });

  it("is primary when hosts.json declares it or there is none, else the only host; several without primary: a usage error", async () => {
    const catalogue = (ids?: string[]) => {
      const dir = join(tempDir(), "catalogue");
      mkdirSync(dir);
      if (ids) writeFileSync(join(dir, "hosts.json"), JSON.stringify(hostsJson(ids)));
      return dir;
    };
    expect(await defaultImportHost(catalogue())).toBe("primary");
    expect(await defaultImportHost(catalogue(["themes", "primary"]))).toBe("primary");
    expect(await defaultImportHost(catalogue(["themes"]))).toBe("themes");
    await expect(defaultImportHost(catalogue(["themes", "games"]))).rejects.toThrow(
      new UsageError(
        "give --host: hosts.json declares themes, games and no host primary, so the packages could go on any of them",
      ),
    );
  });

  it("is used by import hbb: the packages of a list go on the catalogue's only host", async () => {
    const cwd = tempDir();
    const catalogueDir = join(cwd, "catalogue");
    mkdirSync(catalogueDir);
    writeFileSync(join(catalogueDir, "hosts.json"), JSON.stringify(hostsJson(["themes"])));
    writeFileSync(join(cwd, "list.txt"), list(entry("one"), "=Games="));
    const report = await importHbbList({ file: join(cwd, "list.txt"), catalogueDir, force: false });
    expect(report.summary).toMatchObject({ written: ["themes/one.json"], skipped: [], hostsFile: "kept" });
  });
});

describe("shopfront import hbb (the binary)", () => {
  const run = (cwd: string, ...args: string[]) =>
    spawnSync(process.execPath, [join(ROOT, "lib", "cli.js"), "import", "hbb", ...args], {
      cwd,
      encoding: "utf8",
      env: { ...process.env, NO_COLOR: "1" },
    });

  it("imports, validates, and exits 1 when something was skipped", () => {
    const cwd = tempDir();
    mkdirSync(join(cwd, "catalogue"));
    writeFileSync(join(cwd, "list.txt"), list(entry("one"), entry("two", { tokens: "two 1 2" }), "=Games="));
    const first = run(cwd, "list.txt", "--host", "primary");
    expect(first.status).toBe(1);
    expect(first.stdout).toContain("imported 1 package into catalogue; skipped 1");
    expect(first.stdout).toContain("skipped line 9:\n  has 3 tokens");
    expect(first.stdout).toContain("valid: 1 host, 1 package");
    const again = run(cwd, join(HBB, "hbb-listv036-sample.txt"), "--host", "primary");
    expect(again.status).toBe(0);
    expect(again.stdout).toContain("imported 1 package into catalogue");
    expect(run(cwd, "list.txt", "--host", "a b").status).toBe(2);
    expect(run(cwd, "missing.txt", "--host", "primary").stderr).toMatch(/^error: cannot read the list missing.txt/);
  });
});
