import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { findPackageFiles } from "../../../src/packageFiles/findPackageFiles.js";

let catalogue: string;
beforeEach(() => {
  catalogue = mkdtempSync(join(tmpdir(), "shopfront-find-"));
  mkdirSync(join(catalogue, "primary"));
});
afterEach(() => rmSync(catalogue, { recursive: true, force: true }));

const find = (name: string) => findPackageFiles(catalogue, "primary", name);

describe("findPackageFiles", () => {
  it("finds <name>.zip", async () => {
    writeFileSync(join(catalogue, "primary", "snake.zip"), "PK");
    expect(await find("snake")).toEqual({
      files: { kind: "zip", path: join(catalogue, "primary", "snake.zip"), file: "primary/snake.zip" },
      problems: [],
    });
  });

  it("finds the folder <name>/", async () => {
    mkdirSync(join(catalogue, "primary", "snake"));
    expect(await find("snake")).toEqual({
      files: { kind: "folder", path: join(catalogue, "primary", "snake"), file: "primary/snake/" },
      problems: [],
    });
  });

  it("finds nothing for a package that has no files, and does not take another package's", async () => {
    writeFileSync(join(catalogue, "primary", "snake2.zip"), "PK");
    expect(await find("snake")).toEqual({ files: { kind: "none" }, problems: [] });
  });

  it("refuses both at once", async () => {
    writeFileSync(join(catalogue, "primary", "snake.zip"), "PK");
    mkdirSync(join(catalogue, "primary", "snake"));
    const { files, problems } = await find("snake");
    expect(files).toEqual({ kind: "none" });
    expect(problems).toEqual([
      {
        file: "primary/snake/",
        code: "PACKAGE_FILES_TWICE",
        severity: "error",
        pointer: "",
        message: "both primary/snake.zip and primary/snake/ hold the package's files: keep one",
      },
    ]);
  });

  it("refuses a symbolic link and the wrong kind of entry", async () => {
    symlinkSync("/etc/hostname", join(catalogue, "primary", "snake.zip"));
    writeFileSync(join(catalogue, "primary", "pong"), "not a folder");
    expect((await find("snake")).problems.map((p) => [p.file, p.code])).toEqual([["primary/snake.zip", "SYMLINK"]]);
    expect((await find("pong")).problems.map((p) => [p.file, p.code])).toEqual([["primary/pong", "UNEXPECTED_ENTRY"]]);
  });
});
