import { createHash } from "node:crypto";
import {
  chmodSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { deflateRawSync } from "node:zlib";
import { unzipSync } from "fflate";
import { afterEach, describe, expect, it } from "vitest";
import yauzl from "yauzl";
import {
  compareCodePoints,
  digestPackageFolder,
  listPackageFolder,
  writeFolderZip,
  zipPackageFolder,
  ZIP_WRITER,
} from "../../../src/packageFiles/zipPackageFolder.js";

const SNAKE = join(import.meta.dirname, "..", "..", "fixtures", "package-files", "catalogue", "primary", "snake");
const temps: string[] = [];
const temp = (): string => {
  const dir = mkdtempSync(join(tmpdir(), "shopfront-zip-"));
  temps.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const sha256 = (bytes: Uint8Array): string => createHash("sha256").update(bytes).digest("hex");

/** Copies a tree writing its entries in reverse order, so that the directory order on disk differs. */
function copyReversed(from: string, to: string): void {
  mkdirSync(to, { recursive: true });
  for (const entry of readdirSync(from, { withFileTypes: true }).reverse()) {
    if (entry.isDirectory()) copyReversed(join(from, entry.name), join(to, entry.name));
    else writeFileSync(join(to, entry.name), readFileSync(join(from, entry.name)));
  }
}

/** Every tree under `dir` with other times and modes. */
function disturb(dir: string, when: Date, fileMode: number, folderMode: number): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      disturb(path, when, fileMode, folderMode);
      chmodSync(path, folderMode);
    } else chmodSync(path, fileMode);
    utimesSync(path, when, when);
  }
}

interface CentralEntry {
  name: string;
  madeBy: number;
  flags: number;
  method: number;
  time: number;
  date: number;
  extraLength: number;
  commentLength: number;
  attrs: number;
}

/** The central directory, read field by field (independently of the zip libraries). */
function centralDirectory(zip: Buffer): CentralEntry[] {
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const entries: CentralEntry[] = [];
  for (let i = 0; i < count; i++) {
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    entries.push({
      name: zip.toString("utf8", at + 46, at + 46 + nameLength),
      madeBy: zip.readUInt16LE(at + 4),
      flags: zip.readUInt16LE(at + 8),
      method: zip.readUInt16LE(at + 10),
      time: zip.readUInt16LE(at + 12),
      date: zip.readUInt16LE(at + 14),
      extraLength,
      commentLength,
      attrs: zip.readUInt32LE(at + 38),
    });
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

async function zipOf(dir: string): Promise<Buffer> {
  const out = join(temp(), "out.zip");
  const { findings } = await zipPackageFolder(dir, out);
  expect(findings).toEqual([]);
  return readFileSync(out);
}

describe("zipPackageFolder", () => {
  it("throws what writing the archive throws, with reads still in flight, and nothing goes unhandled", async () => {
    const dir = temp();
    // Several reads long, so that the failed write has the next chunk's read beside it.
    writeFileSync(join(dir, "big.bin"), createHash("sha512").update("x").digest().toString("hex").repeat(80_000));
    let writes = 0;
    const failing = async () => {
      if (++writes > 1) throw new Error("the disk is full");
    };
    const { entries } = await listPackageFolder(dir);
    await expect(writeFolderZip(dir, entries, failing)).rejects.toThrow("the disk is full");
    // An unhandled rejection would have been reported by now, failing the run.
    await new Promise((resolve) => setTimeout(resolve, 50));
  });

  it("gives the same bytes for the same tree, whatever its times, modes, directory order and hidden files", async () => {
    const a = join(temp(), "snake");
    cpSync(SNAKE, a, { recursive: true });
    disturb(a, new Date("2001-02-03T04:05:06Z"), 0o644, 0o755);
    const b = join(temp(), "snake");
    copyReversed(SNAKE, b);
    writeFileSync(join(b, ".DS_Store"), "Finder was here");
    writeFileSync(join(b, "apps", "snake", ".gitkeep"), "");
    disturb(b, new Date("2024-12-31T23:59:58Z"), 0o600, 0o700);
    const [zipA, zipB] = [await zipOf(a), await zipOf(b)];
    expect(sha256(zipB)).toBe(sha256(zipA));
    expect(zipB.equals(zipA)).toBe(true);
  });

  // Node's zlib writes the deflated bytes: they hold for one zlib build, whose name ZIP_WRITER gives
  // (and every package's content digest includes). A Node with another zlib is checked by the test
  // after this one; add its bytes here when CI moves to it.
  it.runIf(ZIP_WRITER in GOLDEN_SNAKE_SHA256)(
    `gives the bytes it gave when this test was written (${ZIP_WRITER})`,
    async () => {
      expect(sha256(await zipOf(SNAKE))).toBe(GOLDEN_SNAKE_SHA256[ZIP_WRITER]);
    },
  );

  it("deflates each file as zlib does in one call, at level 9 and memory level 8, whatever the chunks read", async () => {
    const zip = await zipOf(SNAKE);
    const boot = readFileSync(join(SNAKE, "apps", "snake", "boot.dol"));
    const deflated = deflateRawSync(boot, { level: 9, memLevel: 8 });
    expect(zip.indexOf(deflated)).toBeGreaterThan(0);
  });

  it("does not depend on the machine's time zone", async () => {
    const saved = process.env.TZ;
    try {
      process.env.TZ = "Pacific/Kiritimati";
      const east = await zipOf(SNAKE);
      process.env.TZ = "America/Los_Angeles";
      const west = await zipOf(SNAKE);
      expect(west.equals(east)).toBe(true);
    } finally {
      if (saved === undefined) delete process.env.TZ;
      else process.env.TZ = saved;
    }
  });

  it("writes sorted file entries only, the DOS epoch, a fixed mode, deflate, no extra fields", async () => {
    const zip = await zipOf(SNAKE);
    const entries = centralDirectory(zip);
    expect(entries.map((e) => e.name)).toEqual([
      "apps/snake/boot.dol",
      "apps/snake/data/levels/level1.dat",
      "apps/snake/data/readme.txt",
      "apps/snake/icon.png",
      "apps/snake/meta.xml",
      "private/snake/scores.dat",
    ]);
    for (const e of entries) {
      expect(e).toMatchObject({ madeBy: (3 << 8) | 20, time: 0, date: (0 << 9) | (1 << 5) | 1, method: 8 });
      expect(e.extraLength + e.commentLength).toBe(0);
      expect(e.attrs >>> 16).toBe(0o100644);
    }
    // Another reader finds the folder's bytes.
    const files = unzipSync(zip);
    expect(
      Buffer.from(files["apps/snake/boot.dol"]!).equals(readFileSync(join(SNAKE, "apps", "snake", "boot.dol"))),
    ).toBe(true);
  });

  it("gives libreshop-client and libfat no folder entry: read back entry by entry, no name ends in /", async () => {
    const dir = join(temp(), "snake");
    cpSync(SNAKE, dir, { recursive: true });
    mkdirSync(join(dir, "apps", "snake", "themes", "dark"), { recursive: true });
    writeFileSync(join(dir, "apps", "snake", "themes", "dark", "theme.ini"), "dark");
    const out = join(temp(), "out.zip");
    await zipPackageFolder(dir, out);
    const names: string[] = [];
    const zipfile = await yauzl.openPromise(out, { lazyEntries: true });
    try {
      for await (const entry of zipfile.eachEntry()) names.push(entry.fileName);
    } finally {
      zipfile.close();
    }
    expect(names).toContain("apps/snake/themes/dark/theme.ini");
    expect(names.filter((name) => name.endsWith("/"))).toEqual([]);
  });

  it("leaves an empty folder out with a warning, and still writes the archive", async () => {
    const dir = join(temp(), "snake");
    cpSync(SNAKE, dir, { recursive: true });
    mkdirSync(join(dir, "apps", "snake", "saves", "slot1"), { recursive: true });
    writeFileSync(join(dir, "apps", "snake", "saves", ".gitkeep"), "");
    const out = join(temp(), "out.zip");
    const { findings } = await zipPackageFolder(dir, out);
    expect(findings.map((f) => [f.code, f.severity, f.entry])).toEqual([
      ["EMPTY_FOLDER", "warning", "apps/snake/saves/slot1/"],
    ]);
    expect(readFileSync(out).equals(await zipOf(SNAKE))).toBe(true);
  });

  it("sorts by code point, not by UTF-16 unit", async () => {
    expect(["apps/\u{1F600}", "apps/\uFF21", "apps/a"].sort(compareCodePoints)).toEqual([
      "apps/a",
      "apps/\uFF21",
      "apps/\u{1F600}",
    ]);
  });

  it("writes names in NFC, whatever the file system gave", async () => {
    const [nfc, nfd] = [temp(), temp()];
    writeFileSync(join(nfc, "caf\u00e9.txt"), "x");
    writeFileSync(join(nfd, "cafe\u0301.txt"), "x");
    const zip = await zipOf(nfd);
    expect(centralDirectory(zip).map((e) => e.name)).toEqual(["caf\u00e9.txt"]);
    expect(zip.equals(await zipOf(nfc))).toBe(true);
  });

  it("refuses a symbolic link, without following it, and writes nothing", async () => {
    const dir = join(temp(), "snake");
    cpSync(SNAKE, dir, { recursive: true });
    symlinkSync("/etc", join(dir, "apps", "snake", "etc"));
    const out = join(temp(), "out.zip");
    const { findings } = await zipPackageFolder(dir, out);
    expect(findings).toEqual([
      {
        code: "SYMLINK",
        severity: "error",
        pointer: "",
        entry: "apps/snake/etc",
        message: "apps/snake/etc is a symbolic link (not followed: it could point outside)",
      },
    ]);
    expect(readdirSync(join(out, ".."))).toEqual([]);
  });

  it("takes the folder's content digest as it zips, the same as reading it alone; another byte moves it", async () => {
    const dir = join(temp(), "snake");
    cpSync(SNAKE, dir, { recursive: true });
    const zipped = await zipPackageFolder(dir, join(temp(), "out.zip"));
    expect(zipped.digest).toMatch(/^folder:[0-9a-f]{64}$/);
    expect(await digestPackageFolder(dir)).toBe(zipped.digest);
    const copy = join(temp(), "snake");
    copyReversed(SNAKE, copy);
    expect(await digestPackageFolder(copy)).toBe(zipped.digest);
    writeFileSync(
      join(dir, "apps", "snake", "meta.xml"),
      `${readFileSync(join(dir, "apps", "snake", "meta.xml"), "utf8")} `,
    );
    expect(await digestPackageFolder(dir)).not.toBe(zipped.digest);
  });

  it("gives the written archive's size, hashes and central directory", async () => {
    const out = join(temp(), "out.zip");
    const { zip } = await zipPackageFolder(SNAKE, out);
    const bytes = readFileSync(out);
    expect(zip!.size).toBe(bytes.length);
    expect(zip!.hashes).toEqual({ md5: createHash("md5").update(bytes).digest("hex"), sha256: sha256(bytes) });
    // As a reader finds it in the archive.
    const archive = await yauzl.openPromise(out, { lazyEntries: true, decodeStrings: true });
    const read: object[] = [];
    await new Promise<void>((resolve, reject) => {
      archive.on("entry", (e: yauzl.Entry) => {
        read.push({
          name: e.fileName,
          compressedSize: e.compressedSize,
          uncompressedSize: e.uncompressedSize,
          compressionMethod: e.compressionMethod,
          encrypted: false,
          unixMode: e.externalFileAttributes >>> 16,
        });
        archive.readEntry();
      });
      archive.on("end", resolve);
      archive.on("error", reject);
      archive.readEntry();
    });
    archive.close();
    expect(read.length).toBeGreaterThan(1);
    expect(zip!.entries).toEqual(read);
  });

  it("lists hidden entries out", async () => {
    const dir = temp();
    mkdirSync(join(dir, ".git"));
    writeFileSync(join(dir, ".DS_Store"), "");
    writeFileSync(join(dir, "a"), "");
    expect((await listPackageFolder(dir)).entries).toEqual([{ path: "a" }]);
  });
});

const GOLDEN_SNAKE_SHA256: Record<string, string> = {
  "zlib 1.3.1-e00f703 x64": "fab73890f4876ebb4cd9d126104a3bedb8c4ab3688e4779d4dbcd80a8db2e728",
};
