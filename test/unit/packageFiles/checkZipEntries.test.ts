import { describe, expect, it } from "vitest";
import { checkZipEntries, unsafePathReason, type ZipEntryInfo } from "../../../src/packageFiles/checkZipEntries.js";
import { DEFAULT_ZIP_LIMITS } from "../../../src/packageFiles/zipLimits.js";

const file = (name: string, size = 10, packed = size): ZipEntryInfo => ({
  name,
  compressedSize: packed,
  uncompressedSize: size,
  compressionMethod: 8,
  encrypted: false,
  unixMode: 0o100644,
});
const SOUND = [file("apps/snake/boot.dol", 300), file("apps/snake/meta.xml", 40), file("apps/snake/icon.png", 90)];
const codes = (entries: ZipEntryInfo[], limits = DEFAULT_ZIP_LIMITS): string[] =>
  checkZipEntries(entries, "snake", limits).findings.map((f) => f.code);

describe("unsafePathReason", () => {
  it.each([
    ["../x", "climbs out with .."],
    ["apps/../../x", "climbs out with .."],
    ["/etc/passwd", "is absolute"],
    ["C:/x", "starts with a drive letter"],
    ["c:x", "starts with a drive letter"],
    ["apps\\snake\\boot.dol", "holds a backslash"],
    ["apps/sn\u0000ake", "holds a control character"],
    ["apps//snake", "has an empty or . segment"],
    ["./apps/snake", "has an empty or . segment"],
  ])("refuses %j: %s", (name, reason) => {
    expect(unsafePathReason(name)).toBe(reason);
  });

  it.each(["apps/snake/boot.dol", "apps/snake/", "private/snake/..data", "apps/snake/a..b"])("accepts %j", (name) => {
    expect(unsafePathReason(name)).toBe(undefined);
  });
});

describe("checkZipEntries", () => {
  it("finds the layout: files under apps/<name>/, every folder under it, the other root folders", () => {
    const check = checkZipEntries(
      [
        ...SOUND,
        file("apps/snake/data/levels/1.dat", 7),
        { ...file("apps/snake/saves/", 0), unixMode: 0o040755 },
        file("private/snake/x.bin", 1000),
        file("wiiflow/plugins/a.ini", 1000),
        file("readme.txt", 1000),
      ],
      "snake",
      DEFAULT_ZIP_LIMITS,
    );
    expect(check.findings.map((f) => [f.code, f.severity])).toEqual([["ZIP_FOLDER_ENTRY", "warning"]]);
    expect(check.layout).toEqual({
      appFolder: "apps/snake/",
      binary: { entry: "apps/snake/boot.dol", type: "dol" },
      meta: "apps/snake/meta.xml",
      icon: "apps/snake/icon.png",
      extracted: 300 + 40 + 90 + 7,
      subdirectories: ["/apps/snake/data", "/apps/snake/data/levels", "/apps/snake/saves"],
      rootFolders: ["private", "wiiflow"],
    });
    // Folder entries hold no data to unpack.
    expect(check.unpack).toEqual([0, 1, 2, 3, 5, 6, 7]);
  });

  it("warns of folder entries once, naming them and the clients they break, and still reads the package", () => {
    const folder = (name: string): ZipEntryInfo => ({ ...file(name, 0), unixMode: 0o040755 });
    const check = checkZipEntries(
      [folder("apps/"), folder("apps/snake/"), ...SOUND, folder("apps/snake/data/"), folder("private/")],
      "snake",
      DEFAULT_ZIP_LIMITS,
    );
    expect(check.findings).toEqual([
      {
        code: "ZIP_FOLDER_ENTRY",
        severity: "warning",
        pointer: "",
        message: expect.stringMatching(
          /^the archive holds folder entries \(apps\/, apps\/snake\/, apps\/snake\/data\/, \.\.\. \(4 in all\)\): libreshop-client and the Wii's libfat-based extractors open every entry as a file/,
        ) as string,
      },
    ]);
    expect(check.layout?.binary).toEqual({ entry: "apps/snake/boot.dol", type: "dol" });
    expect(codes(SOUND)).toEqual([]);
  });

  it("matches apps/<name>/ and the file names ignoring case, as FAT and the Homebrew Channel do", () => {
    const check = checkZipEntries(
      [file("APPS/Snake/Boot.ELF"), file("APPS/Snake/META.XML"), file("APPS/Snake/ICON.png")],
      "snake",
      DEFAULT_ZIP_LIMITS,
    );
    expect(check.findings).toEqual([]);
    expect(check.layout).toMatchObject({
      appFolder: "APPS/Snake/",
      binary: { entry: "APPS/Snake/Boot.ELF", type: "elf" },
      meta: "APPS/Snake/META.XML",
      icon: "APPS/Snake/ICON.png",
    });
  });

  it("does not take a binary from a subfolder", () => {
    expect(codes([file("apps/snake/old/boot.dol"), SOUND[1]!, SOUND[2]!])).toEqual(["PACKAGE_NO_BINARY"]);
  });

  it("counts entry limits on declared sizes, each limit configurable", () => {
    expect(codes(SOUND, { ...DEFAULT_ZIP_LIMITS, maxTotalUnpacked: 429 })).toEqual(["ZIP_BOMB"]);
    expect(codes(SOUND, { ...DEFAULT_ZIP_LIMITS, maxTotalUnpacked: 430 })).toEqual([]);
    expect(codes(SOUND, { ...DEFAULT_ZIP_LIMITS, maxEntries: 2 })).toEqual(["ZIP_BOMB"]);
    const big = 10 * 1024 * 1024 + 1;
    expect(codes([...SOUND, file("apps/snake/a.bin", big, Math.ceil(big / 100))])).toEqual([]);
    expect(codes([...SOUND, file("apps/snake/a.bin", big, Math.floor(big / 100))])).toEqual(["ZIP_BOMB"]);
    expect(codes([...SOUND, file("apps/snake/a.bin", 10 * 1024 * 1024, 1)])).toEqual([]);
    expect(codes([...SOUND, file("apps/snake/a.bin", big, 0)])).toEqual(["ZIP_BOMB"]);
  });

  it("keeps flawed entries out of the unpacking and out of the layout", () => {
    const check = checkZipEntries(
      [
        ...SOUND,
        file("../boot.dol"),
        { ...file("apps/snake/link"), unixMode: 0o120777 },
        { ...file("apps/snake/e.bin"), encrypted: true },
        { ...file("apps/snake/m.bin"), compressionMethod: 14 },
      ],
      "snake",
      DEFAULT_ZIP_LIMITS,
    );
    expect(check.findings.map((f) => [f.code, f.entry])).toEqual([
      ["ZIP_UNSAFE_PATH", "../boot.dol"],
      ["ZIP_SYMLINK", "apps/snake/link"],
      ["ZIP_ENCRYPTED", "apps/snake/e.bin"],
      ["ZIP_UNSUPPORTED_COMPRESSION", "apps/snake/m.bin"],
    ]);
    expect(check.unpack).toEqual([0, 1, 2]);
    expect(check.layout?.extracted).toBe(300 + 40 + 90 + 10 + 10);
  });

  it("reports folders that differ only in case, once", () => {
    const findings = checkZipEntries(
      [...SOUND, file("apps/snake/Data/a"), file("apps/snake/data/b"), file("apps/snake/DATA/c")],
      "snake",
      DEFAULT_ZIP_LIMITS,
    ).findings;
    expect(findings.map((f) => f.message)).toEqual(["apps/snake/Data and apps/snake/data differ only in case"]);
  });
});
