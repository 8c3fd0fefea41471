// The entries served beside a package's archive (the binary, icon.png, meta.xml) are unpacked as the
// archive is checked, once (inspectPackageZip's unpackTo): byte for byte the package's own files.
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { open } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { inspectPackageZip } from "../../../src/packageFiles/inspectPackageZip.js";
import { readPackageFiles } from "../../../src/packageFiles/readPackageFiles.js";
import { CHUNK_BYTES, readInChunks } from "../../../src/packageFiles/readInChunks.js";
import { dol, rawZip } from "../../fixtures/package-files/fixture-bytes.mjs";

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

describe("entries larger than a read", () => {
  // A binary of more than three of the reader's chunks (CHUNK_BYTES), so each buffer is read over.
  const size = 3 * CHUNK_BYTES + 12_345;
  const binary = dol(size, 7);
  const meta = Buffer.from("<app><name>Snake</name><coder>Jane</coder></app>");
  const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

  it.each([
    ["deflated", 8],
    ["stored", 0],
  ])("unpacks a %s one whole and in order, and hashes what it unpacked", async (_, method) => {
    const path = join(work, "snake.zip");
    writeFileSync(
      path,
      rawZip([
        { name: "apps/snake/boot.dol", data: binary, method },
        { name: "apps/snake/meta.xml", data: meta, method },
      ]),
    );
    const out = join(work, "served");
    const { derived, findings } = await inspectPackageZip(path, "snake", { unpackTo: out });
    expect(findings.filter((f) => f.severity === "error")).toEqual([]);
    expect(derived!.binary).toMatchObject({ size: binary.length, sha256: sha256(binary) });
    expect(sha256(readFileSync(join(out, "boot.dol")))).toBe(sha256(binary));
    expect(derived!.zip_sha256).toBe(sha256(readFileSync(path)));
  });

  it("stops one that unpacks to more than it declares past its first chunk", async () => {
    const path = join(work, "snake.zip");
    writeFileSync(
      path,
      rawZip([
        { name: "apps/snake/boot.dol", data: binary, method: 8, declaredSize: CHUNK_BYTES + 1 },
        { name: "apps/snake/meta.xml", data: meta },
      ]),
    );
    const { findings } = await inspectPackageZip(path, "snake", { unpackTo: join(work, "served") });
    expect(findings.map((f) => f.code)).toContain("ZIP_BOMB");
  });

  it("reads a file in order through two buffers, each read over only once its chunk is let go", async () => {
    const path = join(work, "bytes");
    writeFileSync(path, binary);
    const file = await open(path, "r");
    const seen: Buffer[] = [];
    try {
      await readInChunks(
        file,
        0,
        binary.length,
        // Copied only when let go, later: a buffer read over too soon would show in the copy.
        (chunk) => new Promise((resolve) => setTimeout(() => resolve(seen.push(Buffer.from(chunk)) > 0), 5)),
        () => new Error("short"),
      );
    } finally {
      await file.close();
    }
    expect(seen.length).toBe(4);
    expect(Buffer.concat(seen).equals(binary)).toBe(true);
  });
});

describe("a served copy that cannot be written", () => {
  it("ends the entry with what writing threw, never as an uncaught error", async () => {
    const path = join(work, "snake.zip");
    writeFileSync(
      path,
      rawZip([
        { name: "apps/snake/boot.dol", data: dol(3 * CHUNK_BYTES, 2), method: 8 },
        { name: "apps/snake/meta.xml", data: Buffer.from("<app><name>Snake</name></app>") },
      ]),
    );
    const out = join(work, "served");
    mkdirSync(out);
    // Opens, and then every write fails: a full disk.
    symlinkSync("/dev/full", join(out, "boot.dol"));
    const { derived, findings } = await inspectPackageZip(path, "snake", { unpackTo: out });
    expect(derived).toBeUndefined();
    expect(findings.find((f) => f.entry === "apps/snake/boot.dol")?.message).toMatch(/ENOSPC/);
  });
});
