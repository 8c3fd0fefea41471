// The entries served beside a package's archive (the binary, icon.png, meta.xml) are unpacked as the
// archive is checked, once (inspectPackageZip's unpackTo): byte for byte the package's own files.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { inspectPackageZip } from "../../../src/packageFiles/inspectPackageZip.js";
import { readPackageFiles } from "../../../src/packageFiles/readPackageFiles.js";

const FIXTURES = join(import.meta.dirname, "..", "..", "fixtures", "package-files");
let work: string;
beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), "shopfront-unpack-"));
});
afterEach(() => rmSync(work, { recursive: true, force: true }));

describe("unpacking the served entries while checking the archive", () => {
  it("writes the binary, icon and meta.xml of a zipped folder byte for byte, and nothing else", async () => {
    const catalogue = join(FIXTURES, "catalogue");
    const out = join(work, "tetris");
    const { derived, problems } = await readPackageFiles(catalogue, "primary", "tetris", {
      workDir: join(work, "zips"),
      unpackTo: out,
    });
    expect(problems.filter((p) => p.severity === "error")).toEqual([]);
    expect(derived!.package_type).toBe("elf");
    const app = join(catalogue, "primary", "tetris", "apps", "tetris");
    expect(readdirSync(out).sort()).toEqual(["boot.elf", "icon.png", "meta.xml"]);
    expect(readFileSync(join(out, "boot.elf")).equals(readFileSync(join(app, "boot.elf")))).toBe(true);
    expect(readFileSync(join(out, "icon.png")).equals(readFileSync(join(app, "Icon.PNG")))).toBe(true);
    expect(readFileSync(join(out, "meta.xml")).equals(readFileSync(join(app, "META.XML")))).toBe(true);
  });

  it("reports a lying entry as an error as it unpacks, so the build stores nothing of the archive", async () => {
    const out = join(work, "bomb");
    const report = await inspectPackageZip(join(FIXTURES, "hostile", "bomb-lying.zip"), "snake", { unpackTo: out });
    const bomb = report.findings.find((f) => f.code === "ZIP_BOMB");
    expect(bomb?.severity).toBe("error");
  });
});
