import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { extractPackageEntries } from "../../../src/packageFiles/extractPackageEntries.js";
import { readPackageFiles } from "../../../src/packageFiles/readPackageFiles.js";

const FIXTURES = join(import.meta.dirname, "..", "..", "fixtures", "package-files");
let work: string;
beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), "shopfront-extract-"));
});
afterEach(() => rmSync(work, { recursive: true, force: true }));

describe("extractPackageEntries", () => {
  it("writes the entries the API serves beside the archive, byte for byte", async () => {
    const catalogue = join(FIXTURES, "catalogue");
    const { archive, derived } = await readPackageFiles(catalogue, "primary", "tetris", {
      workDir: join(work, "zips"),
    });
    const out = join(work, "unzipped_apps", "tetris");
    await extractPackageEntries(archive!, [
      { entry: derived!.binary.entry, to: join(out, "apps", "tetris", "boot.elf") },
      { entry: derived!.icon!.entry, to: join(work, "tetris.png") },
    ]);
    const app = join(catalogue, "primary", "tetris", "apps", "tetris");
    expect(readFileSync(join(out, "apps", "tetris", "boot.elf")).equals(readFileSync(join(app, "boot.elf")))).toBe(
      true,
    );
    expect(readFileSync(join(work, "tetris.png")).equals(readFileSync(join(app, "Icon.PNG")))).toBe(true);
  });

  it("fails for an entry the archive lacks, and for one that unpacks beyond its declared size", async () => {
    const hostile = join(FIXTURES, "hostile");
    await expect(
      extractPackageEntries(join(hostile, "no-icon.zip"), [{ entry: "apps/snake/icon.png", to: join(work, "i.png") }]),
    ).rejects.toThrow("has no entry apps/snake/icon.png");
    await expect(
      extractPackageEntries(join(hostile, "bomb-lying.zip"), [{ entry: "apps/snake/small.bin", to: join(work, "s") }]),
    ).rejects.toThrow("too many bytes in the stream");
  });
});
