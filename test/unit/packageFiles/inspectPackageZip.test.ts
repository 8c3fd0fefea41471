// The hostile archives are written byte by byte by test/fixtures/package-files/make-hostile.mjs.
import { createHash } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { unzipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { inspectPackageZip } from "../../../src/packageFiles/inspectPackageZip.js";
import { DEFAULT_ZIP_LIMITS } from "../../../src/packageFiles/zipLimits.js";

const HOSTILE = join(import.meta.dirname, "..", "..", "fixtures", "package-files", "hostile");
const inspect = (file: string, limits = DEFAULT_ZIP_LIMITS) =>
  inspectPackageZip(join(HOSTILE, file), "snake", { limits });

describe("inspectPackageZip on hostile archives", () => {
  it.each([
    ["not-a-zip.zip", ["ZIP_INVALID"]],
    ["truncated.zip", ["ZIP_TRUNCATED"]],
    ["truncated-central.zip", ["ZIP_TRUNCATED"]],
    [
      "unsafe-paths.zip",
      ["ZIP_UNSAFE_PATH", "ZIP_UNSAFE_PATH", "ZIP_UNSAFE_PATH", "ZIP_UNSAFE_PATH", "ZIP_UNSAFE_PATH"],
    ],
    ["symlink.zip", ["ZIP_SYMLINK"]],
    ["case-collision.zip", ["ZIP_CASE_COLLISION", "ZIP_CASE_COLLISION"]],
    ["duplicate.zip", ["ZIP_CASE_COLLISION"]],
    ["encrypted.zip", ["ZIP_ENCRYPTED"]],
    ["strong-encryption.zip", ["ZIP_ENCRYPTED"]],
    ["unknown-compression.zip", ["ZIP_UNSUPPORTED_COMPRESSION"]],
    ["bomb-ratio.zip", ["ZIP_BOMB"]],
    ["bomb-total.zip", ["ZIP_BOMB", "ZIP_BOMB", "ZIP_BOMB", "ZIP_BOMB"]],
    ["bomb-lying.zip", ["ZIP_BOMB"]],
    ["short-entry.zip", ["ZIP_CORRUPT"]],
    ["bad-checksum.zip", ["ZIP_CORRUPT"]],
    ["two-names.zip", ["ZIP_CORRUPT"]],
    ["nested-app.zip", ["PACKAGE_NO_APP_FOLDER"]],
    ["other-app.zip", ["PACKAGE_NO_APP_FOLDER"]],
    ["extra-app.zip", ["PACKAGE_EXTRA_APP_FOLDER"]],
    ["no-binary.zip", ["PACKAGE_NO_BINARY"]],
    ["two-binaries.zip", ["PACKAGE_TWO_BINARIES"]],
    ["no-meta.zip", ["PACKAGE_NO_META"]],
    ["bad-meta.zip", ["META_UNREADABLE"]],
    ["icon-not-png.zip", ["ICON_NOT_PNG"]],
    ["icon-wrong-size.zip", ["ICON_WRONG_SIZE"]],
    ["no-icon.zip", ["ICON_MISSING"]],
    ["lenient-case.zip", []],
  ])("%s: %j", async (file, expected) => {
    const { findings } = await inspect(file);
    expect(findings.map((f) => f.code)).toEqual(expected);
  });

  it("reports every flaw of one archive in one run", async () => {
    const { findings, derived } = await inspect("many-flaws.zip");
    expect(findings.map((f) => [f.code, f.severity, f.entry])).toEqual([
      ["ZIP_UNSAFE_PATH", "error", "../up.txt"],
      ["ZIP_SYMLINK", "error", "apps/snake/link"],
      ["ZIP_ENCRYPTED", "error", "apps/snake/secret.bin"],
      ["ZIP_UNSUPPORTED_COMPRESSION", "error", "apps/snake/music.bin"],
      ["ZIP_CASE_COLLISION", "error", "apps/snake/readme"],
      ["PACKAGE_NO_BINARY", "error", undefined],
      ["PACKAGE_NO_META", "error", undefined],
      ["ICON_MISSING", "warning", undefined],
    ]);
    expect(derived).toBe(undefined);
  });

  it("names the way out of a nested or misnamed app folder", async () => {
    expect((await inspect("nested-app.zip")).findings[0]!.message).toContain(
      "snake-1.0/apps/snake/ is inside a folder",
    );
    expect((await inspect("other-app.zip")).findings[0]!.message).toContain("(it has apps/snake2/)");
  });

  it("stops an entry that inflates beyond its declared size", async () => {
    const { findings } = await inspect("bomb-lying.zip");
    expect(findings[0]).toMatchObject({
      entry: "apps/snake/small.bin",
      message: "apps/snake/small.bin unpacks to more than the 1000 bytes it declares",
    });
  });

  it("compares each local header with the central directory", async () => {
    expect((await inspect("two-names.zip")).findings[0]!.message).toBe(
      `apps/snake/readme.txt: its local header says "apps/snake/boot.dol", unlike the central directory`,
    );
  });

  it("checks each entry's CRC-32", async () => {
    expect((await inspect("bad-checksum.zip")).findings[0]!.message).toBe(
      "apps/snake/data.bin has the checksum ed82cd11, not the 12345678 it declares",
    );
  });

  it("counts the declared total against the limit, which a caller may lower", async () => {
    expect((await inspect("bomb-total.zip")).findings[0]!.message).toBe(
      "unpacks to 1258292136 bytes, more than the limit of 1073741824",
    );
    const lowered = await inspect("no-icon.zip", { ...DEFAULT_ZIP_LIMITS, maxTotalUnpacked: 100 });
    expect(lowered.findings.map((f) => f.code)).toEqual(["ZIP_BOMB", "ICON_MISSING"]);
  });

  it("stops before reading entries beyond the entry limit, and refuses a meta.xml beyond its limit", async () => {
    const fewEntries = await inspect("no-icon.zip", { ...DEFAULT_ZIP_LIMITS, maxEntries: 1 });
    expect(fewEntries.findings.map((f) => [f.code, f.message])).toEqual([
      ["ZIP_BOMB", "2 entries, more than the limit of 1"],
    ]);
    const smallMeta = await inspect("no-icon.zip", { ...DEFAULT_ZIP_LIMITS, maxMetaXml: 10 });
    expect(smallMeta.findings.map((f) => [f.code, f.message])).toEqual([
      ["ICON_MISSING", "apps/snake/ holds no icon.png; the placeholder icon is served"],
      ["META_UNREADABLE", "apps/snake/meta.xml is larger than 10 bytes"],
    ]);
    expect(smallMeta.derived?.meta).toBe(undefined);
  });

  it("accepts META.XML, Icon.Png and BOOT.DOL in other cases and derives from them", async () => {
    const { derived } = await inspect("lenient-case.zip");
    expect(derived).toMatchObject({
      package_type: "dol",
      binary: { entry: "Apps/Snake/BOOT.DOL" },
      icon: { entry: "Apps/Snake/Icon.Png", width: 128, height: 48 },
      meta: { name: "Snake", coder: "Jane", version: "1.0" },
    });
  });

  it("derives sizes and hashes equal to independent computations", async () => {
    const path = join(HOSTILE, "no-icon.zip");
    const bytes = readFileSync(path);
    const files = unzipSync(bytes);
    const binary = files["apps/snake/boot.dol"]!;
    const { derived } = await inspect("no-icon.zip");
    const hash = (algorithm: string, data: Uint8Array): string => createHash(algorithm).update(data).digest("hex");
    expect(derived).toEqual({
      zip_size: statSync(path).size,
      zip_md5: hash("md5", bytes),
      zip_sha256: hash("sha256", bytes),
      extracted: binary.length + files["apps/snake/meta.xml"]!.length,
      package_type: "dol",
      binary: {
        entry: "apps/snake/boot.dol",
        size: binary.length,
        md5: hash("md5", binary),
        sha256: hash("sha256", binary),
      },
      subdirectories: [],
      root_folders: [],
      meta: {
        name: "Snake",
        coder: "Jane",
        version: "1.0",
        no_ios_reload: false,
        ahb_access: false,
        encoding: "utf-8",
      },
      metaEntry: "apps/snake/meta.xml",
    });
  });
});
