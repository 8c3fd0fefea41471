// The fixture catalogue end to end: find the files, zip a folder, check and derive; every derived
// value is compared with one computed another way (fs.stat, crypto over the served bytes, fflate).
import { createHash } from "node:crypto";
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, unlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { unzipSync } from "fflate";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Manifest } from "../../../src/catalogue/fields.js";
import { mergeDerived } from "../../../src/packageFiles/mergeDerived.js";
import { readPackageFiles } from "../../../src/packageFiles/readPackageFiles.js";

const CATALOGUE = join(import.meta.dirname, "..", "..", "fixtures", "package-files", "catalogue");
let work: string;
beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), "shopfront-pkg-"));
});
afterEach(() => rmSync(work, { recursive: true, force: true }));

const hash = (algorithm: string, bytes: Uint8Array): string => createHash(algorithm).update(bytes).digest("hex");

/** Files (bytes) and folders under `dir`, by path relative to it. */
function walk(dir: string, rel = ""): { files: string[]; folders: string[] } {
  const out = { files: [] as string[], folders: [] as string[] };
  for (const e of readdirSync(join(dir, rel), { withFileTypes: true })) {
    const path = rel === "" ? e.name : `${rel}/${e.name}`;
    if (e.isDirectory()) {
      out.folders.push(path);
      const inner = walk(dir, path);
      out.files.push(...inner.files);
      out.folders.push(...inner.folders);
    } else out.files.push(path);
  }
  return out;
}

const manifestOf = (name: string): Partial<Manifest> =>
  JSON.parse(readFileSync(join(CATALOGUE, "primary", `${name}.json`), "utf8")) as Partial<Manifest>;

describe("readPackageFiles on the fixture catalogue", () => {
  it("zips the folder package snake and derives what the files say", async () => {
    const result = await readPackageFiles(CATALOGUE, "primary", "snake", { workDir: work });
    expect(result.problems).toEqual([]);
    expect(result.archive).toBe(join(work, "primary", "snake.zip"));
    const served = readFileSync(result.archive!);
    const folder = join(CATALOGUE, "primary", "snake");
    const app = join(folder, "apps", "snake");
    const tree = walk(app);
    const binary = readFileSync(join(app, "boot.dol"));
    expect(result.derived).toEqual({
      zip_size: statSync(result.archive!).size,
      zip_md5: hash("md5", served),
      zip_sha256: hash("sha256", served),
      extracted: tree.files.reduce((sum, f) => sum + statSync(join(app, f)).size, 0),
      package_type: "dol",
      binary: {
        entry: "apps/snake/boot.dol",
        size: binary.length,
        md5: hash("md5", binary),
        sha256: hash("sha256", binary),
      },
      icon: { entry: "apps/snake/icon.png", size: statSync(join(app, "icon.png")).size, width: 128, height: 48 },
      subdirectories: tree.folders.map((f) => `/apps/snake/${f}`).sort(),
      root_folders: readdirSync(folder).filter((f) => f !== "apps"),
      meta: {
        name: "Snake",
        coder: "Jane & Joe",
        version: "1.0",
        release_date: Date.UTC(2009, 0, 1) / 1000,
        short_description: "Snake for up to 2 players",
        long_description: "A snake game.\nFor up to two players <and> a cat.",
        no_ios_reload: false,
        ahb_access: true,
        encoding: "utf-8",
      },
      metaEntry: "apps/snake/meta.xml",
    });
    expect(result.derived!.subdirectories).toEqual(["/apps/snake/data", "/apps/snake/data/levels"]);
    expect(result.derived!.root_folders).toEqual(["private"]);
  });

  it("reads tetris: boot.elf, META.XML in Windows-1252, Icon.PNG", async () => {
    const result = await readPackageFiles(CATALOGUE, "primary", "tetris", { workDir: work });
    expect(result.problems).toEqual([]);
    expect(result.derived).toMatchObject({
      package_type: "elf",
      icon: { entry: "apps/tetris/Icon.PNG", width: 128, height: 48 },
      meta: {
        name: "Tétris",
        coder: "Zoë Müller",
        version: "2.1",
        release_date: Date.UTC(2010, 0, 1) / 1000,
        long_description: "Blöcke\nfallen.",
        no_ios_reload: true,
        encoding: "windows-1252",
      },
    });
  });

  it("serves the zip package pong byte for byte and warns about its missing icon", async () => {
    const zip = join(CATALOGUE, "primary", "pong.zip");
    const result = await readPackageFiles(CATALOGUE, "primary", "pong", { workDir: work });
    expect(result.archive).toBe(zip);
    expect(readdirSync(work)).toEqual([]);
    expect(result.problems.map((p) => [p.file, p.code, p.severity])).toEqual([
      ["primary/pong.zip", "ICON_MISSING", "warning"],
    ]);
    const bytes = readFileSync(zip);
    const files = unzipSync(bytes);
    const binary = files["apps/pong/boot.dol"]!;
    expect(result.derived).toMatchObject({
      zip_size: bytes.length,
      zip_md5: hash("md5", bytes),
      extracted: Object.values(files).reduce((sum, f) => sum + f.length, 0),
      binary: { size: binary.length, md5: hash("md5", binary), sha256: hash("sha256", binary) },
    });
    expect(result.derived!.icon).toBe(undefined);
  });

  it("names the file inside a folder package that has the problem", async () => {
    const catalogue = join(work, "catalogue");
    cpSync(CATALOGUE, catalogue, { recursive: true });
    symlinkSync("/etc", join(catalogue, "primary", "snake", "apps", "snake", "etc"));
    unlinkSync(join(catalogue, "primary", "tetris", "apps", "tetris", "META.XML"));
    const snake = await readPackageFiles(catalogue, "primary", "snake", { workDir: join(work, "out") });
    expect(snake.problems.map((p) => [p.file, p.code])).toEqual([["primary/snake/apps/snake/etc", "SYMLINK"]]);
    expect(snake.archive).toBe(undefined);
    const tetris = await readPackageFiles(catalogue, "primary", "tetris", { workDir: join(work, "out") });
    expect(tetris.problems.map((p) => [p.file, p.code])).toEqual([["primary/tetris/", "PACKAGE_NO_META"]]);
  });

  it("has nothing to say about a package without files", async () => {
    expect(await readPackageFiles(CATALOGUE, "primary", "chess", { workDir: work })).toEqual({
      files: { kind: "none" },
      problems: [],
    });
  });

  it("merges: a manifest that leaves out zip_size and extracted gets them; meta.xml's differences are warnings", async () => {
    const snake = await readPackageFiles(CATALOGUE, "primary", "snake", { workDir: work });
    const merged = mergeDerived(manifestOf("snake"), snake.derived!, "primary/snake.json");
    expect(merged.problems).toEqual([]);
    expect(merged.package).toEqual({
      ...manifestOf("snake"),
      zip_size: snake.derived!.zip_size,
      extracted: snake.derived!.extracted,
    });
    const tetris = await readPackageFiles(CATALOGUE, "primary", "tetris", { workDir: work });
    const mergedTetris = mergeDerived(manifestOf("tetris"), tetris.derived!, "primary/tetris.json");
    expect(mergedTetris.problems).toEqual([
      {
        file: "primary/tetris.json",
        code: "META_MISMATCH",
        severity: "warning",
        pointer: "/long_description",
        message: `is "Blöcke fallen.", meta.xml's <long_description> says "Blöcke\\nfallen."`,
      },
    ]);
  });
});
