// A folder the build zips is checked by what it read as it zipped it (checkFolderZip.ts), not by
// reading its archive back: what that gives must be what inspecting the archive gives, the served
// entries included, for good folders and for each kind of flaw a folder can carry into its archive.
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { zipAndCheckFolder } from "../../../src/packageFiles/checkFolderZip.js";
import { inspectPackageZip } from "../../../src/packageFiles/inspectPackageZip.js";
import { DEFAULT_ZIP_LIMITS } from "../../../src/packageFiles/zipLimits.js";
import { dol, elf, png } from "../../fixtures/package-files/fixture-bytes.mjs";

const FIXTURES = join(import.meta.dirname, "..", "..", "fixtures", "package-files", "catalogue", "primary");
let work: string;
beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), "shopfront-folder-zip-"));
});
afterEach(() => rmSync(work, { recursive: true, force: true }));

const icon = png(128, 48, (x, y) => [x, y, 7]);
const meta = Buffer.from("<app version='1'><name>Snake</name><coder>Jane</coder><version>1.0</version></app>");

/** Folders as a catalogue holds them, by package name `snake` unless the fixture is another's: file path -> bytes. */
const FOLDERS: Record<string, Record<string, Buffer>> = {
  "binary of several reads": {
    "apps/snake/boot.dol": dol(3 * 1024 * 1024 + 77, 3),
    "apps/snake/icon.png": icon,
    "apps/snake/meta.xml": meta,
  },
  "elf, sub-folders and another root folder": {
    "apps/snake/boot.elf": elf(5000),
    "apps/snake/data/levels/1.bin": Buffer.alloc(300, 1),
    "apps/snake/meta.xml": meta,
    "wad/snake.wad": Buffer.alloc(100, 2),
  },
  "a binary that deflates past the ratio limit": {
    "apps/snake/boot.dol": Buffer.concat([dol(64, 1), Buffer.alloc(12 * 1024 * 1024)]),
    "apps/snake/meta.xml": meta,
  },
  "an unreadable meta.xml and an icon that is no PNG": {
    "apps/snake/boot.dol": dol(2000, 5),
    "apps/snake/icon.png": Buffer.from("GIF89a"),
    "apps/snake/meta.xml": Buffer.from("<app><name>Snake"),
  },
  "a meta.xml past its limit and an icon of the wrong size": {
    "apps/snake/boot.dol": dol(2000, 5),
    "apps/snake/icon.png": png(64, 64, () => [0, 0, 0]),
    "apps/snake/meta.xml": Buffer.concat([meta, Buffer.alloc(DEFAULT_ZIP_LIMITS.maxMetaXml, 0x20)]),
  },
  "a binary that cannot load": {
    "apps/snake/boot.dol": Buffer.alloc(100, 0xff),
    "apps/snake/meta.xml": meta,
  },
  "two binaries": {
    "apps/snake/boot.dol": dol(100, 1),
    "apps/snake/boot.elf": elf(100),
  },
  "no binary": { "apps/snake/meta.xml": meta, "apps/snake/empty.txt": Buffer.alloc(0) },
  "another app's folder": { "apps/other/boot.dol": dol(100, 1) },
};

function writeFolder(files: Record<string, Buffer>): string {
  const dir = join(work, "folder");
  for (const [path, bytes] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), bytes);
  }
  return dir;
}

/** Every file under `dir` by its path there, its bytes' SHA-256. */
function filesUnder(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  if (!existsSync(dir)) return files;
  const names = readdirSync(dir);
  for (const name of names)
    files[name] = createHash("sha256")
      .update(readFileSync(join(dir, name)))
      .digest("hex");
  return files;
}

/** The folder checked as the build checks it, and its archive inspected as a zip in the catalogue is. */
async function bothWays(dir: string, name: string) {
  const archive = join(work, `${name}.zip`);
  const zipped = await zipAndCheckFolder(dir, archive, name, {
    limits: DEFAULT_ZIP_LIMITS,
    unpackTo: join(work, "from-folder"),
  });
  const inspected = await inspectPackageZip(archive, name, { unpackTo: join(work, "from-zip") });
  return { zipped, inspected };
}

describe("checking a zipped folder by what was read as it was zipped", () => {
  it.each(Object.keys(FOLDERS))("derives and reports what inspecting its archive does: %s", async (kind) => {
    const { zipped, inspected } = await bothWays(writeFolder(FOLDERS[kind]!), "snake");
    expect(zipped.report).toEqual(inspected);
    expect(filesUnder(join(work, "from-folder"))).toEqual(filesUnder(join(work, "from-zip")));
  });

  it.each(["snake", "tetris"])(
    "gives the same for the fixture folder %s (cased names, a data folder)",
    async (name) => {
      const dir = join(work, name);
      cpSync(join(FIXTURES, name), dir, { recursive: true });
      const { zipped, inspected } = await bothWays(dir, name);
      expect(zipped.report?.derived).toBeDefined();
      expect(zipped.report).toEqual(inspected);
      expect(filesUnder(join(work, "from-folder"))).toEqual(filesUnder(join(work, "from-zip")));
    },
  );

  it("writes nothing and reports the folder's own error for a folder zipping refuses", async () => {
    const dir = writeFolder({ "apps/snake/boot.dol": dol(100, 1) });
    mkdirSync(join(dir, "apps", "snake", "empty"));
    writeFileSync(join(dir, "apps", "snake", "link-target"), "x");
    const { symlinkSync } = await import("node:fs");
    symlinkSync("link-target", join(dir, "apps", "snake", "link"));
    const result = await zipAndCheckFolder(dir, join(work, "snake.zip"), "snake", {
      limits: DEFAULT_ZIP_LIMITS,
      unpackTo: join(work, "from-folder"),
    });
    expect(result.report).toBeUndefined();
    expect(result.findings.map((f) => f.code)).toContain("SYMLINK");
    expect(readdirSync(work).sort()).toEqual(["folder"]);
  });
});
