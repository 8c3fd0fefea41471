// The zip written one entry at a time (the Homebrew Browser's icon archive): read back whole by
// Python's zipfile and unzip, a classic archive while the classic fields hold it and ZIP64 records
// past 65,535 entries, the same bytes for the same entries.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { writeZipFile, type ZipEntry } from "../../../src/packageFiles/zipStream.js";
import { tempDir } from "../../support/helpers.js";
import { contentDigest, readWithPython, testWithUnzip } from "../../support/readZip.js";

const ZIP64_END = Buffer.from([0x50, 0x4b, 0x06, 0x06]);
const ZIP64_LOCATOR = Buffer.from([0x50, 0x4b, 0x06, 0x07]);

/** Every entry as the fixed settings write it: the DOS epoch, mode 0644, deflate at "maximum", no extra field, no comment. */
const kind = (flags: number): string => JSON.stringify([[1980, 1, 1, 0, 0, 0], "0o100644", 8, flags, 0, 0]);

/** The end of central directory record's entry count. */
const endCount = (zip: Buffer): number => zip.readUInt16LE(zip.length - 22 + 10);

function written(entries: readonly ZipEntry[]): { file: string; bytes: Buffer } {
  const file = join(tempDir("shopfront-zipstream-"), "archive.zip");
  writeZipFile(file, entries);
  return { file, bytes: readFileSync(file) };
}

describe("writeZipFile", () => {
  const small: ZipEntry[] = [
    { name: "a.png", bytes: Buffer.from("first icon") },
    { name: "b/c.png", bytes: new Uint8Array(1000).fill(7) },
    // Decomposed, as macOS hands a name over: the entry's name is its NFC form.
    { name: "cafe\u0301.png", bytes: new Uint8Array(0) },
  ];

  it("writes a few entries as a classic zip that Python and unzip read back whole", () => {
    const { file, bytes } = written(small);
    expect(bytes.includes(ZIP64_END)).toBe(false);
    expect(bytes.includes(ZIP64_LOCATOR)).toBe(false);
    expect(endCount(bytes)).toBe(3);
    const read = readWithPython(file);
    expect(read.names).toEqual(["a.png", "b/c.png", "caf\u00e9.png"]);
    expect(read.digest).toBe(contentDigest(small.map((e) => e.bytes)));
    // The name beyond ASCII alone is marked UTF-8 (bit 11), as fflate marks it.
    expect(read.kinds).toEqual([kind(0x0002), kind(0x0802)]);
    expect(testWithUnzip(file)).toEqual({ status: 0, output: "" });
  });

  it("gives the same entries the same bytes every time", () => {
    expect(written(small).bytes).toEqual(written(small).bytes);
  });

  it("writes 70,000 entries with the ZIP64 end records, read back whole by Python and unzip", () => {
    const count = 70_000;
    const entries = Array.from({ length: count }, (_, i) => ({
      name: `icon${String(i).padStart(5, "0")}.png`,
      bytes: Buffer.from(`icon ${i} `.repeat(1 + (i % 5))),
    }));
    const { file, bytes } = written(entries);
    // The classic end record holds the marker; the ZIP64 record and its locator, just before it, the count.
    expect(endCount(bytes)).toBe(0xffff);
    const locator = bytes.length - 22 - 20;
    expect(bytes.subarray(locator, locator + 4)).toEqual(ZIP64_LOCATOR);
    const record = Number(bytes.readBigUInt64LE(locator + 8));
    expect(record).toBe(locator - 56);
    expect(bytes.subarray(record, record + 4)).toEqual(ZIP64_END);
    expect(Number(bytes.readBigUInt64LE(record + 32))).toBe(count);

    const read = readWithPython(file);
    expect(read.names).toEqual(entries.map((e) => e.name));
    expect(read.digest).toBe(contentDigest(entries.map((e) => e.bytes)));
    // No entry needs a ZIP64 extra field: every offset and size fits its classic field.
    expect(read.kinds).toEqual([kind(0x0002)]);
    expect(testWithUnzip(file)).toEqual({ status: 0, output: "" });
  });
});
