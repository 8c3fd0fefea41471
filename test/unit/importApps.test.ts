// `shopfront import apps`: a made-up SD card (test/fixtures/sd-card/) shaped like real packs: names
// with spaces, capitals, a quote; a meta.xml with a BOM, one without a date, one with a date that
// cannot be read, an app without meta.xml, an icon under another name. Every app is imported or named
// with what to do; the build serves them all; a re-run skips them; a failed run writes nothing.
import { cpSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { strToU8, zipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { proposeName } from "../../src/catalogue/names.js";
import { importApps } from "../../src/import/importCatalogue.js";
import { validateCatalogue } from "../../src/load/validateCatalogue.js";
import { defaultImportHost } from "../../src/import/defaultHost.js";
import { guessReleaseDate } from "../../src/packageFiles/guessReleaseDate.js";
import { createManifest } from "../../src/scaffold/createManifest.js";
import { UsageError } from "../../src/util/errors.js";
import { dolBytes } from "../support/binaries.js";
import { copyFixture, FIXTURES, readJson, readTree, shopfront, tempDir, writeFiles } from "../support/helpers.js";

const NOW = Date.UTC(2026, 0, 2, 3, 4, 5);

/** A copy of the SD card fixture, with the folder a quote is in (Windows cannot check such a name out). */
function card(): string {
  const dir = join(tempDir(), "card");
  cpSync(join(FIXTURES, "sd-card"), dir, { recursive: true });
  renameSync(join(dir, "apps", "radiow"), join(dir, "apps", '"radiow'));
  return dir;
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
    const dir = card();
    const report = await importApps({ dir, catalogueDir: catalogue, force: false, now: () => NOW });
    expect(report.host).toBe("primary");
    expect(report.problems).toEqual([]);
    expect(report.summary!.skipped).toEqual([]);
    const names = ["WiiMC", "dop-mii-wiibrew-edition", "ftpii", "multi-mod-manager", "radiow", "snes9xgx"];
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
    // No silent "now": each guessed date is a warning naming the file, and sorts below every dated package.
    for (const app of ["radiow", "snes9xgx", "ftpii"]) {
      expect(report.warnings.some((w) => w.includes(`${app}/meta.xml`) && w.includes(`primary/${app}.json`))).toBe(
        true,
      );
      const date = (readJson(join(catalogue, "primary", `${app}.json`)) as { release_date: number }).release_date;
      expect(date).toBeLessThan(Date.UTC(2009, 0, 1) / 1000);
    }
    expect(report.summary!.notes.join("\n")).toMatch(/the card's README\.md, private\/ are not imported/);
    expect(report.validation?.valid).toBeTruthy();

    const out = join(catalogue, "..", "dist");
    const built = shopfront(join(catalogue, ".."), "build", "--catalogue", catalogue, "--out", out);
    expect(built.code, built.stderr).toBe(0);
    for (const name of names) expect(readTree(join(out, "hbb", name)).has(`${name}.zip`), name).toBe(true);
    const home = readFileSync(join(out, "index.html"), "utf8");
    const newest = home.slice(home.indexOf("Newest releases"));
    const dated = newest.indexOf("Multi Mod Manager");
    expect(dated).toBeGreaterThan(0);
    for (const guessed of ["snes9xgx", "RadioW", "ftpii"]) {
      const at = newest.indexOf(guessed);
      expect(at === -1 || at > dated, guessed).toBe(true);
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
    expect(again.alreadyThere).toHaveLength(6);
    expect(readTree(catalogue)).toEqual(before);
    const forced = await importApps({ dir, catalogueDir: catalogue, force: true, now: () => NOW });
    expect(forced.summary!.written).toHaveLength(6);
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
    expect(bad[0]!.message).toMatch(/^apps\/WiiMC\/boot\.dol is/);
  });
});
