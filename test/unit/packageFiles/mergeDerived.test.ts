import { describe, expect, it } from "vitest";
import type { Manifest } from "../../../src/catalogue/fields.js";
import type { DerivedFiles } from "../../../src/packageFiles/inspectPackageZip.js";
import { mergeDerived } from "../../../src/packageFiles/mergeDerived.js";

const DERIVED: DerivedFiles = {
  zip_size: 4000,
  zip_md5: "m",
  zip_sha256: "s",
  extracted: 9000,
  package_type: "elf",
  binary: { entry: "apps/snake/boot.elf", size: 8000, md5: "bm", sha256: "bs" },
  subdirectories: [],
  root_folders: [],
  meta: {
    name: "Snake",
    coder: "Jane",
    version: "1.0",
    release_date: 1230768000,
    short_description: "Eat apples",
    long_description: "Line one.\nLine two.",
    no_ios_reload: false,
    ahb_access: false,
    encoding: "utf-8",
  },
};

const MANIFEST: Partial<Manifest> = {
  category: "games",
  coder: "Jane",
  contributors: "",
  controllers: "w",
  display_name: "Snake",
  internal_name: "snake",
  long_description: "Line one.\r\n  Line two.  ",
  package_type: "elf",
  release_date: 1230768000,
  short_description: "Eat  apples",
  updated: 1230768000,
  version: "1.0",
};

const merge = (manifest: Partial<Manifest>, derived: DerivedFiles = DERIVED) =>
  mergeDerived(manifest, derived, "primary/snake.json");

describe("mergeDerived", () => {
  it("fills in what the files give and ignores differences of white space only", () => {
    expect(merge(MANIFEST)).toEqual({ package: { ...MANIFEST, zip_size: 4000, extracted: 9000 }, problems: [] });
  });

  it("refuses stated sizes and a type that the files contradict, with the manifest's file and pointer", () => {
    const { problems } = merge({ ...MANIFEST, zip_size: 4001, extracted: 9000, package_type: "dol" });
    expect(problems).toEqual([
      {
        file: "primary/snake.json",
        code: "FILES_MISMATCH",
        severity: "error",
        pointer: "/zip_size",
        message: "is 4001, the package files say 4000",
      },
      {
        file: "primary/snake.json",
        code: "FILES_MISMATCH",
        severity: "error",
        pointer: "/package_type",
        message: `is "dol", the package files say "elf"`,
      },
    ]);
    expect(merge({ ...MANIFEST, extracted: 1 }).problems.map((p) => p.pointer)).toEqual(["/extracted"]);
  });

  it("warns where meta.xml says otherwise, and keeps the manifest's value", () => {
    const manifest = {
      ...MANIFEST,
      display_name: "Snake!",
      coder: "J. Doe",
      version: "1.1",
      short_description: "Apples",
      long_description: "Other.",
    };
    const { package: merged, problems } = merge(manifest);
    expect(problems.map((p) => [p.code, p.severity, p.pointer])).toEqual([
      ["META_MISMATCH", "warning", "/display_name"],
      ["META_MISMATCH", "warning", "/coder"],
      ["META_MISMATCH", "warning", "/version"],
      ["META_MISMATCH", "warning", "/short_description"],
      ["META_MISMATCH", "warning", "/long_description"],
    ]);
    expect(problems[0]!.message).toBe(`is "Snake!", meta.xml's <name> says "Snake"`);
    expect(merged.display_name).toBe("Snake!");
  });

  it("takes meta.xml's values for what the manifest leaves out", () => {
    const { package: merged, problems } = merge({ category: "games", internal_name: "snake" });
    expect(problems).toEqual([]);
    expect(merged).toEqual({
      category: "games",
      internal_name: "snake",
      zip_size: 4000,
      extracted: 9000,
      package_type: "elf",
      display_name: "Snake",
      coder: "Jane",
      version: "1.0",
      short_description: "Eat apples",
      long_description: "Line one.\nLine two.",
      release_date: 1230768000,
    });
  });

  it("falls back as the Open Shop Channel does, and asks for what nothing gives", () => {
    const { package: merged, problems } = merge(
      { internal_name: "snake" },
      { ...DERIVED, meta: { no_ios_reload: false, ahb_access: false, encoding: "utf-8" } },
    );
    expect(merged).toMatchObject({ version: "Unknown", short_description: "", long_description: "" });
    expect(problems.map((p) => [p.code, p.pointer])).toEqual([
      ["MISSING_FIELD", "/display_name"],
      ["MISSING_FIELD", "/coder"],
      ["MISSING_FIELD", "/release_date"],
    ]);
    const { meta: _unread, ...withoutMeta } = DERIVED;
    expect(merge(MANIFEST, withoutMeta).problems).toEqual([]);
  });
});
