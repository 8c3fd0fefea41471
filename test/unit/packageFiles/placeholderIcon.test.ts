import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PLACEHOLDER_ICON } from "../../../src/packageFiles/placeholderIcon.js";
import { parsePngSize } from "../../../src/packageFiles/parsePngSize.js";

const ROOT = join(import.meta.dirname, "..", "..", "..");

describe("the placeholder icon", () => {
  it("is a 128x48 PNG in assets/, which the npm package ships", () => {
    expect(PLACEHOLDER_ICON).toBe(join(ROOT, "assets", "placeholder-icon.png"));
    expect(parsePngSize(readFileSync(PLACEHOLDER_ICON))).toEqual({ width: 128, height: 48 });
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { files: string[] };
    expect(pkg.files).toContain("assets");
  });
});

describe("parsePngSize", () => {
  it("refuses what does not start like a PNG", () => {
    const png = readFileSync(PLACEHOLDER_ICON);
    expect(parsePngSize(png.subarray(0, 23))).toBe(undefined);
    expect(parsePngSize(Buffer.concat([Buffer.from([0xff, 0xd8]), png.subarray(2)]))).toBe(undefined);
    const noIhdr = Buffer.from(png);
    noIhdr.write("IDAT", 12, "latin1");
    expect(parsePngSize(noIhdr)).toBe(undefined);
  });
});
