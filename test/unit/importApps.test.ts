// `shopfront import apps`: a made-up SD card (test/fixtures/sd-card/) shaped like real packs: names
// with spaces, capitals, a quote; a meta.xml with a BOM, one without a date, one with a date that
// cannot be read, an app without meta.xml, an icon under another name. Every app is imported or named
// with what to do; the build serves them all; a re-run skips them; a failed run writes nothing.
import { cpSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { strToU8, unzipSync, zipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { proposeName } from "../../src/catalogue/names.js";
import { buildCatalogue } from "../../src/engine/buildCatalogue.js";
import { importApps } from "../../src/import/importCatalogue.js";
import { validateCatalogue } from "../../src/load/validateCatalogue.js";
import { defaultImportHost } from "../../src/import/defaultHost.js";
import { guessReleaseDate } from "../../src/packageFiles/guessReleaseDate.js";
import { createManifest } from "../../src/scaffold/createManifest.js";
import { UsageError } from "../../src/util/errors.js";
import { dolBytes } from "../support/binaries.js";
import { copyFixture, FIXTURES, readJson, readTree, shopfront, tempDir, writeFiles } from "../support/helpers.js";

const NOW = Date.UTC(2026, 0, 2, 3, 4, 5);

/** The Homebrew Browser's list on the SD card fixture. */
const CARD_LIST = join("apps", "homebrew_browser", "listv036.txt");

/**
 * A copy of the SD card fixture, with the folder a quote is in (Windows cannot check such a name
 * out); without its Homebrew Browser's list when `list` is false.
 */
function card(list = true): string {
  const dir = join(tempDir(), "card");
  cpSync(join(FIXTURES, "sd-card"), dir, { recursive: true });
  renameSync(join(dir, "apps", "radiow"), join(dir, "apps", '"radiow'));
  if (!list) rmSync(join(dir, CARD_LIST));
  return dir;
}

/** The manifest import apps wrote for `name`. */
function written(catalogue: string, name: string, host = "primary"): Record<string, unknown> {
  return readJson(join(catalogue, host, `${name}.json`)) as Record<string, unknown>;
}

describe("proposeName", () => {
  it.each([
    ["DOP-Mii WiiBrew Edition", "dop-mii-wiibrew-edition"],
    ["Multi Mod Manager", "multi-mod-manager"],
    ['"radiow', "radiow"],
    ["Café 'Wii' Player!", "cafe-wii-player"],
    ["..hidden-ish.", "hidden-ish"],
    ["con", "con-app"],
    ["***", undefined],
  ])("%j -> %j", (folder, name) => {
    expect(proposeName(folder)).toBe(name);
  });
});

describe("guessReleaseDate", () => {
  it("keeps a guess below every dated package of the host, so it never leads Newest releases", () => {
    expect(guessReleaseDate(2_000_000_000, [1_300_000_000, 1_200_000_000], NOW / 1000).date).toBe(1_199_999_999);
    expect(guessReleaseDate(1_000_000_000, [1_300_000_000], NOW / 1000).date).toBe(1_000_000_000);
    expect(guessReleaseDate(undefined, [], 42).date).toBe(42);
  });
});

describe("import apps", () => {
  it("imports every app of a card's root, renaming, completing and warning, and the build serves them all", async () => {
    const catalogue = copyFixture("basic");
    const dir = card(false);
    const report = await importApps({ dir, catalogueDir: catalogue, force: false, now: () => NOW });
    expect(report.host).toBe("primary");
    expect(report.problems).toEqual([]);
    expect(report.summary!.skipped).toEqual([]);
    const names = [
      "WiiMC",
      "dop-mii-wiibrew-edition",
      "ftpii",
      "homebrew_browser",
      "multi-mod-manager",
      "radiow",
      "snes9xgx",
    ];
    expect([...report.summary!.written].sort()).toEqual(names.map((n) => `primary/${n}.json`));
    // The folder inside the package is renamed to the package's name.
    expect(readdirSync(join(catalogue, "primary", "dop-mii-wiibrew-edition", "apps"))).toEqual([
      "dop-mii-wiibrew-edition",
    ]);
    expect(report.warnings.join("\n")).toMatch(
      /DOP-Mii WiiBrew Edition\/ is imported as dop-mii-wiibrew-edition .*sd:\/apps\/dop-mii-wiibrew-edition\/, not sd:\/apps\/DOP-Mii WiiBrew Edition\//,
    );
    expect(report.warnings.join("\n")).toMatch(/"radiow\/ is imported as radiow/);
    // The BOM'd meta.xml is read; Icon.PNG is the icon; icon_hd.png is copied to icon.png.
    const dop = readJson(join(catalogue, "primary", "dop-mii-wiibrew-edition.json")) as Record<string, unknown>;
    expect(dop).toMatchObject({ display_name: "DOP-Mii: WiiBrew Edition", coder: "Arikado" });
    expect(report.warnings).toContain(
      "WiiMC/: its icon is icon_hd.png; copied to icon.png, the name the Homebrew Channel reads",
    );
    // The app without meta.xml gets a minimal one, shown.
    expect(report.metaWritten).toEqual([
      {
        file: "primary/snes9xgx/apps/snes9xgx/meta.xml",
        text: expect.stringContaining("<name>snes9xgx</name>") as string,
      },
    ]);
    // What an app wrote on the card for its user is left out, each named.
    for (const left of [
      "WiiMC/settings.xml",
      "WiiMC/restore_points",
      "homebrew_browser/settings.xml",
      "homebrew_browser/temp/",
    ])
      expect(
        report.summary!.notes.some((n) => n.startsWith(`${left} is left out: `)),
        left,
      ).toBe(true);
    // No silent "now": each guessed date is marked in its manifest, which validate names, and sorts
    // below every dated package: the host's and this import's.
    const guessed = ["ftpii", "homebrew_browser", "radiow", "snes9xgx"];
    const dated = ["WiiMC", "dop-mii-wiibrew-edition", "multi-mod-manager", "snake"];
    const oldest = Math.min(...dated.map((n) => written(catalogue, n).release_date as number));
    for (const app of guessed) {
      const m = written(catalogue, app);
      expect(m.$release_date_guessed, app).toBe(m.release_date);
      expect(m.release_date as number).toBeLessThan(oldest);
    }
    expect(
      report.validation!.problems.filter((p) => p.code === "RELEASE_DATE_GUESSED").map((p) => [p.file, p.pointer]),
    ).toEqual(guessed.map((app) => [`primary/${app}.json`, "/release_date"]));
    // With no list, nothing names a category: one line says which apps were filed under the default.
    expect(report.warnings.filter((w) => w.includes("by default"))).toEqual([
      expect.stringMatching(/^7 apps were filed under utilities by default, no Homebrew Browser list naming them/),
    ]);
    expect(report.summary!.notes.join("\n")).toMatch(/the card's README\.md, private\/ are not imported/);
    expect(report.validation?.valid).toBeTruthy();

    const out = join(catalogue, "..", "dist");
    const built = shopfront(join(catalogue, ".."), "build", "--catalogue", catalogue, "--out", out);
    expect(built.code, built.stderr).toBe(0);
    for (const name of names) expect(readTree(join(out, "hbb", name)).has(`${name}.zip`), name).toBe(true);
    const home = readFileSync(join(out, "index.html"), "utf8");
    const newest = home.slice(home.indexOf("Newest releases"));
    const first = newest.indexOf("Multi Mod Manager");
    expect(first).toBeGreaterThan(0);
    for (const app of ["snes9xgx", "RadioW", "ftpii", "Homebrew Browser"]) {
      const at = newest.indexOf(app);
      expect(at === -1 || at > first, app).toBe(true);
    }
  });

  it("skips the apps already there on a re-run, and --force overwrites them", async () => {
    const catalogue = copyFixture("basic");
    const dir = card();
    await importApps({ dir, catalogueDir: catalogue, force: false, now: () => NOW });
    writeFileSync(join(catalogue, "primary", "ftpii.json"), readFileSync(join(catalogue, "primary", "ftpii.json")));
    const before = readTree(catalogue);
    const again = await importApps({ dir, catalogueDir: catalogue, force: false, now: () => NOW });
    expect(again.summary!.written).toEqual([]);
    expect(again.summary!.skipped).toEqual([]);
    expect(again.alreadyThere).toHaveLength(7);
    expect(readTree(catalogue)).toEqual(before);
    const forced = await importApps({ dir, catalogueDir: catalogue, force: true, now: () => NOW });
    expect(forced.summary!.written).toHaveLength(7);
  });

  it("names the one thing to do for what it cannot import, and imports the rest", async () => {
    const catalogue = copyFixture("basic");
    const dir = join(tempDir(), "apps");
    cpSync(join(FIXTURES, "sd-card", "apps", "WiiMC"), join(dir, "WiiMC"), { recursive: true });
    writeFiles(dir, {
      "notes/readme.txt": "x",
      "nested/apps/x/boot.dol": "x",
      "two.zip": zipSync({ "apps/a/boot.dol": strToU8("a"), "apps/b/boot.dol": strToU8("b") }),
    });
    writeFileSync(
      join(dir, "pong.zip"),
      zipSync({
        "apps/pong/boot.dol": dolBytes(),
        "apps/pong/meta.xml": strToU8("<app><name>Pong</name><release_date>20100101</release_date></app>"),
      }),
    );
    mkdirSync(join(dir, "***"));
    writeFileSync(join(dir, "***", "boot.dol"), "x");
    const report = await importApps({ dir, catalogueDir: catalogue, force: false, host: "themes", now: () => NOW });
    expect(report.summary!.written).toEqual(["themes/WiiMC.json", "themes/pong.json"]);
    const reasons = Object.fromEntries(report.summary!.skipped.map((s) => [s.source, s.reasons.join("; ")]));
    expect(reasons["***/"]).toMatch(/rename the folder/);
    expect(reasons["nested/"]).toMatch(/import it on its own, npx shopfront import apps .*nested/);
    expect(reasons["notes/"]).toMatch(/no app folder/);
    expect(reasons["two.zip"]).toMatch(/holds 2 apps .*unzip it/);
  });

  it("writes nothing when the run fails", async () => {
    const catalogue = copyFixture("basic");
    writeFileSync(join(catalogue, "hosts.json"), "{ not json");
    const before = readTree(catalogue);
    const report = await importApps({ dir: card(), catalogueDir: catalogue, force: false, now: () => NOW });
    expect(report.problems.map((p) => p.code)).toContain("JSON_SYNTAX");
    expect(readTree(catalogue)).toEqual(before);
    await expect(importApps({ dir: join(tempDir(), "none"), catalogueDir: catalogue, force: false })).rejects.toThrow(
      UsageError,
    );
    expect(readTree(catalogue)).toEqual(before);
  });

  it("puts apps on primary, else on hosts.json's only host", async () => {
    const catalogue = copyFixture("basic");
    expect(await defaultImportHost(catalogue)).toBe("primary");
    writeFiles(catalogue, {
      "hosts.json": { default: "games", hosts: [{ id: "games", name: "G", host: "g.example.org", description: "d" }] },
    });
    expect(await defaultImportHost(catalogue)).toBe("games");
    expect(await defaultImportHost(join(tempDir(), "empty"))).toBe("primary");
  });

  it("runs from the binary, showing the meta.xml it wrote", () => {
    const catalogue = copyFixture("basic");
    const result = shopfront(join(catalogue, ".."), "import", "apps", card(), "--catalogue", catalogue);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(
      /wrote catalogue\/primary\/snes9xgx\/apps\/snes9xgx\/meta\.xml \(the app had none\): complete it\n {2}<\?xml/,
    );
    expect(result.stderr).toMatch(/^warning: Multi Mod Manager\/ is imported as multi-mod-manager/m);
    // Where each field came from, per app; what was left out of whose folder, per file.
    expect(result.stdout).toMatch(
      /^ftpii\/: category, release_date, controllers from apps\/homebrew_browser\/listv036\.txt line 40; display_name, coder, version, short_description, long_description from meta\.xml$/m,
    );
    expect(result.stdout).toMatch(/^note: homebrew_browser\/settings\.xml is left out: /m);
    // Where each field came from, per app; what was left out of whose folder, per file.
    expect(result.stdout).toMatch(
      /^ftpii\/: category, release_date, controllers from apps\/homebrew_browser\/listv036\.txt line 40; display_name, coder, version, short_description, long_description from meta\.xml$/m,
    );
    expect(result.stdout).toMatch(/^note: homebrew_browser\/settings\.xml is left out: /m);
  });
});

describe("new --from an app folder", () => {
  it("takes an app's own folder, renamed to the package's name", async () => {
    const catalogue = copyFixture("basic");
    const app = join(card(), "apps", "Multi Mod Manager");
    const result = await createManifest({
      catalogueDir: catalogue,
      host: "primary",
      name: "mmm",
      projectDir: ".",
      from: app,
      now: () => NOW,
    });
    expect(result).toMatchObject({ file: "primary/mmm.json", files: "primary/mmm/", renamedFrom: "Multi Mod Manager" });
    expect(readdirSync(join(catalogue, "primary", "mmm", "apps"))).toEqual(["mmm"]);
  });

  it("leaves out what the app wrote on the card for its user, naming each", async () => {
    const catalogue = copyFixture("basic");
    const result = await createManifest({
      catalogueDir: catalogue,
      host: "primary",
      name: "homebrew_browser",
      projectDir: ".",
      from: join(card(), "apps", "homebrew_browser"),
      now: () => NOW,
    });
    expect(result.leftOut?.map((l) => l.entry).sort()).toEqual(["listv036.txt", "settings.xml", "temp/"]);
    expect(readdirSync(join(catalogue, "primary", "homebrew_browser", "apps", "homebrew_browser")).sort()).toEqual([
      "boot.dol",
      "icon.png",
      "meta.xml",
    ]);
    // Its date is guessed, and marked so in the manifest.
    const m = written(catalogue, "homebrew_browser");
    expect(m.$release_date_guessed).toBe(m.release_date);
  });

  it("warns of a guessed date instead of using now", async () => {
    const catalogue = copyFixture("basic");
    const app = join(card(), "apps", "snes9xgx");
    const result = await createManifest({
      catalogueDir: catalogue,
      host: "primary",
      name: "snes9xgx",
      projectDir: ".",
      from: app,
      now: () => NOW,
    });
    expect(result.metaWritten?.text).toContain("<name>snes9xgx</name>");
    expect(result.problems.map((p) => [p.code, p.file])).toEqual([
      ["RELEASE_DATE_GUESSED", "primary/snes9xgx/apps/snes9xgx/meta.xml"],
    ]);
    const date = (readJson(join(catalogue, "primary", "snes9xgx.json")) as { release_date: number }).release_date;
    expect(date).toBeLessThan(NOW / 1000 - 86400);
  });

  it("names what it looked for and the fix when the folder holds neither", async () => {
    const catalogue = copyFixture("basic");
    const dir = card();
    const attempt = createManifest({
      catalogueDir: catalogue,
      host: "primary",
      name: "wiidoom",
      projectDir: ".",
      from: dir,
    });
    await expect(attempt).rejects.toThrow(
      /is neither an app's folder \(it holds no boot\.dol, boot\.elf or meta\.xml\) nor an SD card tree holding apps\/wiidoom\/; its apps\/ holds .*give the app's folder, --from /,
    );
  });
});

describe("a binary the Homebrew Channel cannot load", () => {
  /** A card whose WiiMC has `bytes` as its boot.dol. */
  function cardWith(bytes: Uint8Array | string): string {
    const dir = card();
    writeFileSync(join(dir, "apps", "WiiMC", "boot.dol"), bytes);
    return dir;
  }

  it.each([
    ["0 bytes", "", /^apps\/WiiMC\/boot\.dol is empty \(0 bytes\)/],
    ["text, no DOL", "DOL WiiMC\0\0\0\0", /^apps\/WiiMC\/boot\.dol is .*shorter than a DOL's 256-byte header/],
  ])("of %s is refused by import apps, naming the file; nothing of it is written", async (_, bytes, reason) => {
    const catalogue = copyFixture("basic");
    const report = await importApps({ dir: cardWith(bytes), catalogueDir: catalogue, force: false, now: () => NOW });
    const skipped = report.summary!.skipped.find((s) => s.source === "WiiMC/");
    expect(skipped?.reasons.join("\n")).toMatch(reason);
    expect(readdirSync(join(catalogue, "primary")).filter((f) => f.startsWith("WiiMC"))).toEqual([]);
  });

  it.each([
    ["0 bytes", ""],
    ["text, no DOL", "DOL WiiMC\0\0\0\0"],
  ])("of %s is refused by new --from, naming the file; nothing is written", async (_, bytes) => {
    const catalogue = copyFixture("basic");
    const before = readTree(catalogue);
    const result = await createManifest({
      catalogueDir: catalogue,
      host: "primary",
      name: "wiimc",
      projectDir: ".",
      from: join(cardWith(bytes), "apps", "WiiMC"),
      now: () => NOW,
    });
    expect(result.problems.map((p) => [p.code, p.file])).toEqual([
      ["PACKAGE_BAD_BINARY", "primary/wiimc/apps/wiimc/boot.dol"],
    ]);
    expect(readTree(catalogue)).toEqual(before);
  });

  it.each([
    ["folder", "of 0 bytes", ""],
    ["folder", "an ELF named boot.dol", "\x7fELF\x01\x02\x01"],
    ["zip", "of 0 bytes", ""],
  ])("in a package %s, %s is an error of validate naming the file", async (kind, _, bytes) => {
    const catalogue = copyFixture("basic");
    await importApps({ dir: card(), catalogueDir: catalogue, force: false, now: () => NOW });
    const app = join(catalogue, "primary", "WiiMC", "apps", "WiiMC");
    writeFileSync(join(app, "boot.dol"), bytes);
    let file = "primary/WiiMC/apps/WiiMC/boot.dol";
    if (kind === "zip") {
      const files = Object.fromEntries(
        readdirSync(app).map((f) => [`apps/WiiMC/${f}`, new Uint8Array(readFileSync(join(app, f)))]),
      );
      writeFileSync(join(catalogue, "primary", "WiiMC.zip"), zipSync(files));
      rmSync(join(catalogue, "primary", "WiiMC"), { recursive: true });
      file = "primary/WiiMC.zip";
    }
    const { problems } = await validateCatalogue(catalogue);
    const bad = problems.filter((p) => p.code === "PACKAGE_BAD_BINARY");
    expect(bad.map((p) => [p.file, p.severity])).toEqual([[file, "error"]]);
    // A folder's problem is the file's own, so its message does not name the file again.
    expect(bad[0]!.message).toMatch(kind === "zip" ? /^apps\/WiiMC\/boot\.dol is / : /^is /);
  });
});

describe("import apps with the card's Homebrew Browser list", () => {
  /** The fixture list's entries for the card's apps, as its lines say (test/fixtures/sd-card/apps/homebrew_browser/listv036.txt). */
  const LISTED = {
    WiiMC: { category: "media", release_date: 1325376000, controllers: "wgc", line: 32 },
    ftpii: { category: "utilities", release_date: 1240737630, controllers: "gws", line: 40 },
    radiow: { category: "media", release_date: 1247316428, controllers: "w", line: 25 },
    snes9xgx: { category: "emulators", release_date: 1253352330, controllers: "wwwwgncs", line: 17 },
  };

  it("takes every listed app's category, date and controllers from it, and meta.xml's words first", async () => {
    const catalogue = join(tempDir(), "catalogue");
    const report = await importApps({ dir: card(), catalogueDir: catalogue, force: false, now: () => NOW });
    expect(report.summary!.skipped).toEqual([]);
    expect(report.hbbList).toBe("apps/homebrew_browser/listv036.txt");
    for (const [name, { line, ...fields }] of Object.entries(LISTED)) {
      expect(written(catalogue, name), name).toMatchObject({ ...fields, updated: fields.release_date });
      expect(written(catalogue, name)).not.toHaveProperty("$release_date_guessed");
      const origin = report.origins.find((o) => o.startsWith(name === "radiow" ? '"radiow/' : `${name}/`));
      expect(origin).toContain(
        `category, release_date, controllers${name === "snes9xgx" ? ", display_name, coder, version, short_description, long_description" : ""} from apps/homebrew_browser/listv036.txt line ${line}`,
      );
    }
    // meta.xml is the author's word: the list fills in only what it lacks (snes9xgx has no meta.xml).
    expect(written(catalogue, "radiow")).toMatchObject({ display_name: "RadioW", coder: "someone" });
    expect(written(catalogue, "snes9xgx")).toMatchObject({
      display_name: "Snes9X GX",
      coder: "Tantric",
      version: "4.0.11",
    });
    expect(report.metaWritten[0]!.text).toContain("<name>Snes9X GX</name>");
    // The apps the list does not name: one line, with how many and which.
    expect(report.warnings.filter((w) => w.includes("by default"))).toEqual([
      "3 apps were filed under utilities by default, apps/homebrew_browser/listv036.txt not naming them: dop-mii-wiibrew-edition, multi-mod-manager, homebrew_browser; set category in each manifest (demos, emulators, games, media, utilities)",
    ]);
    // The one app dated by nothing: guessed below every date the host now has.
    const browser = written(catalogue, "homebrew_browser");
    expect(browser.$release_date_guessed).toBe(browser.release_date);
    expect(browser.release_date as number).toBeLessThan(Math.min(...Object.values(LISTED).map((l) => l.release_date)));
    // ftpii has no icon of its own: the one the Homebrew Browser downloaded for it.
    expect(
      readFileSync(join(catalogue, "primary", "ftpii", "apps", "ftpii", "icon.png")).equals(
        readFileSync(join(FIXTURES, "sd-card", "apps", "homebrew_browser", "temp", "ftpii.png")),
      ),
    ).toBe(true);
  });

  it("reads a list from elsewhere with --hbb-list", async () => {
    const dir = card(false);
    const list = join(tempDir(), "listv036.txt");
    cpSync(join(FIXTURES, "sd-card", CARD_LIST), list);
    const catalogue = join(tempDir(), "catalogue");
    const report = await importApps({ dir, catalogueDir: catalogue, force: false, now: () => NOW, hbbList: list });
    expect(report.hbbList).toBe(list);
    for (const [name, { line: _, ...fields }] of Object.entries(LISTED))
      expect(written(catalogue, name), name).toMatchObject(fields);
  });

  it("builds a store whose newest are real dates, publishes none of the card owner's data, and passes --strict once the guesses are set", async () => {
    const catalogue = join(tempDir(), "catalogue");
    await importApps({ dir: card(), catalogueDir: catalogue, force: false, now: () => NOW });
    const out = join(tempDir(), "dist");
    const result = await buildCatalogue({ catalogueDir: catalogue, outDir: out });
    expect(result.built, JSON.stringify(result.problems)).toBeTruthy();
    const guessed = "homebrew_browser";
    const guessedName = written(catalogue, guessed).display_name as string;

    // No guessed date leads the home page's newest, the feeds, or the v4 list by date.
    const home = readFileSync(join(out, "index.html"), "utf8");
    const newest = home.slice(home.indexOf("Newest releases"));
    expect(newest.indexOf("WiiMC")).toBeGreaterThan(0);
    expect(newest.indexOf(guessedName) === -1 || newest.indexOf(guessedName) > newest.indexOf("WiiMC")).toBe(true);
    const feed = readJson(join(out, "browse", "primary", "feed.jsonfeed")) as {
      items: { _shopfront: { name: string } }[];
    };
    expect(feed.items[0]!._shopfront.name).not.toBe(guessed);
    expect(feed.items.at(-1)!._shopfront.name).toBe(guessed);
    // The build publishes the guess as 0, "unknown": older than any date the host has or gets later.
    const v1 = readJson(join(out, "v1", "primary", "packages")) as { internal_name: string }[];
    expect(v1.find((p) => p.internal_name === guessed)).toMatchObject({ release_date: 0, updated: 0 });
    expect(readFileSync(join(out, "browse", "primary", "package", guessed, "index.html"), "utf8")).toContain(
      "<dt>Released</dt><dd>Unknown</dd>",
    );
    const v4 = readJson(join(out, "api", "v4", "contents")) as { slug: string; release_date: number }[];
    expect([...v4].sort((a, b) => b.release_date - a.release_date)[0]!.slug).not.toBe(guessed);

    // The Homebrew Browser's published zip holds its app, none of what it wrote for its user.
    const entries = Object.keys(unzipSync(readFileSync(join(out, "hbb", guessed, `${guessed}.zip`))));
    expect(entries.sort()).toEqual([
      "apps/homebrew_browser/boot.dol",
      "apps/homebrew_browser/icon.png",
      "apps/homebrew_browser/meta.xml",
    ]);

    // validate names the guessed date until it is set; --strict fails on it, and on nothing a maintainer cannot fix.
    const strict = await validateCatalogue(catalogue, { strict: true });
    expect(strict.problems.filter((p) => p.severity === "error").map((p) => [p.code, p.file, p.pointer])).toEqual([
      ["PLACEHOLDER_TEXT", "hosts.json", "/hosts/0/description"],
      ["META_BAD_DATE", "primary/ftpii/apps/ftpii/meta.xml", ""],
      ["RELEASE_DATE_GUESSED", "primary/homebrew_browser.json", "/release_date"],
    ]);
    expect(strict.problems.filter((p) => p.code === "HBB_LEFT_OUT").map((p) => [p.severity, p.file])).toEqual([
      ["notice", "primary/homebrew_browser.json"],
    ]);
    // Each advice followed: the real date written, and ftpii's meta.xml date in the form it names.
    const browser = join(catalogue, "primary", `${guessed}.json`);
    writeFileSync(
      browser,
      JSON.stringify({ ...written(catalogue, guessed), release_date: 1587806643, updated: 1587806643 }),
    );
    const ftpiiMeta = join(catalogue, "primary", "ftpii", "apps", "ftpii", "meta.xml");
    writeFileSync(ftpiiMeta, readFileSync(ftpiiMeta, "utf8").replace("sometime in 2009", "20090426000000"));
    // The host the import declared with placeholders, named.
    const hostsFile = readJson(join(catalogue, "hosts.json")) as { hosts: Record<string, string>[] };
    Object.assign(hostsFile.hosts[0]!, {
      name: "My Wii Apps",
      host: "wii.example.net",
      description: "Apps from my card.",
    });
    writeFileSync(join(catalogue, "hosts.json"), JSON.stringify(hostsFile));
    const fixed = await validateCatalogue(catalogue, { strict: true });
    expect(fixed.problems.filter((p) => p.severity !== "notice")).toEqual([]);
    expect(fixed.valid).toBeTruthy();
  });

  it("refuses a --host that hosts.json does not declare, writing nothing", async () => {
    const catalogue = copyFixture("basic");
    const before = readTree(catalogue);
    await expect(
      importApps({ dir: card(), catalogueDir: catalogue, force: false, host: "nosuch", now: () => NOW }),
    ).rejects.toThrow(/hosts\.json declares no host nosuch \(it declares primary, themes\)/);
    expect(readTree(catalogue)).toEqual(before);
    const cli = shopfront(
      join(catalogue, ".."),
      "import",
      "apps",
      card(),
      "--host",
      "nosuch",
      "--catalogue",
      catalogue,
    );
    expect(cli.code).toBe(2);
    expect(readTree(catalogue)).toEqual(before);
  });
});
