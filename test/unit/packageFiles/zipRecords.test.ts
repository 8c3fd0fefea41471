// A zip's records (PKWARE's APPNOTE.TXT): classic while each field holds its value, and the value in
// a ZIP64 record exactly when one does not, as far as 4 GiB and 65,535 entries, too large an archive
// to write in a test but for one whose entries lie past a hole in a sparse file, which Python's
// zipfile and unzip read back.
import { closeSync, openSync, writeSync } from "node:fs";
import { join } from "node:path";
import { deflateRawSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { crc32 } from "../../../src/packageFiles/crc32.js";
import { ZIP_SETTINGS } from "../../../src/packageFiles/zipPackageFolder.js";
import { centralRecord, endRecords, localHeader, type ZipEntryInfo } from "../../../src/packageFiles/zipRecords.js";
import { tempDir } from "../../support/helpers.js";
import { contentDigest, readWithPython, testWithUnzip } from "../../support/readZip.js";

const GiB = 2 ** 30;
const MAX32 = 0xffffffff;

const NAME = Buffer.from("a.png");
const entry = (size: number, compressedSize: number): ZipEntryInfo => ({
  name: NAME,
  crc: 0x12345678,
  size,
  compressedSize,
});

/** The extra field after a record's fixed fields and NAME: its header ID and its 8-byte values. */
function extraOf(record: Buffer, fixed: number): { id: number; values: number[] } | undefined {
  const at = fixed + NAME.length;
  if (record.length === at) return undefined;
  const size = record.readUInt16LE(at + 2);
  expect(record.length).toBe(at + 4 + size);
  const values = Array.from({ length: size / 8 }, (_, i) => Number(record.readBigUInt64LE(at + 4 + 8 * i)));
  return { id: record.readUInt16LE(at), values };
}

describe("localHeader", () => {
  it("is classic within 4 GiB: version 2.0, both sizes, no extra field", () => {
    const header = localHeader(entry(100, 50));
    expect(header.readUInt16LE(4)).toBe(20);
    expect([header.readUInt32LE(18), header.readUInt32LE(22)]).toEqual([50, 100]);
    expect(extraOf(header, 30)).toBeUndefined();
  });

  it("holds both sizes in a ZIP64 extra field when either passes its field, version 4.5", () => {
    for (const [size, compressed] of [
      [5 * GiB, 1000],
      [MAX32, MAX32 - 1],
    ]) {
      const header = localHeader(entry(size!, compressed!));
      expect(header.readUInt16LE(4)).toBe(45);
      expect([header.readUInt32LE(18), header.readUInt32LE(22)]).toEqual([MAX32, MAX32]);
      expect(extraOf(header, 30)).toEqual({ id: 1, values: [size, compressed] });
    }
  });
});

describe("centralRecord", () => {
  it("is classic within 4 GiB: made by Unix 2.0, mode 0644, its offset, no extra field", () => {
    const record = centralRecord(entry(100, 50), MAX32 - 1);
    expect([record.readUInt16LE(4), record.readUInt16LE(6)]).toEqual([0x0314, 20]);
    expect(record.readUInt32LE(38) >>> 16).toBe(ZIP_SETTINGS.fileMode);
    expect(record.readUInt32LE(42)).toBe(MAX32 - 1);
    expect(extraOf(record, 46)).toBeUndefined();
  });

  it("holds only the values past their fields in a ZIP64 extra field, in APPNOTE's order", () => {
    const cases: [ZipEntryInfo, number, number[]][] = [
      [entry(5 * GiB, 1000), 10, [5 * GiB]],
      [entry(100, 50), 6 * GiB, [6 * GiB]],
      [entry(5 * GiB, 1000), 6 * GiB, [5 * GiB, 6 * GiB]],
      [entry(6 * GiB, 5 * GiB), 7 * GiB, [6 * GiB, 5 * GiB, 7 * GiB]],
      // All ones marks a value held in the ZIP64 field: the value itself must go there.
      [entry(100, 50), MAX32, [MAX32]],
    ];
    for (const [info, offset, values] of cases) {
      const record = centralRecord(info, offset);
      expect([record.readUInt16LE(4), record.readUInt16LE(6)]).toEqual([0x032d, 45]);
      expect(record.readUInt32LE(20)).toBe(Math.min(info.compressedSize, MAX32));
      expect(record.readUInt32LE(24)).toBe(Math.min(info.size, MAX32));
      expect(record.readUInt32LE(42)).toBe(Math.min(offset, MAX32));
      expect(extraOf(record, 46)).toEqual({ id: 1, values });
    }
  });
});

describe("endRecords", () => {
  it("is the classic record alone up to 65,534 entries and under 4 GiB", () => {
    const end = endRecords({ count: 65_534, size: MAX32 - 1, offset: MAX32 - 1 });
    expect(end.length).toBe(22);
    expect(end.readUInt32LE(0)).toBe(0x06054b50);
    expect([end.readUInt16LE(8), end.readUInt16LE(10)]).toEqual([65_534, 65_534]);
    expect([end.readUInt32LE(12), end.readUInt32LE(16)]).toEqual([MAX32 - 1, MAX32 - 1]);
  });

  it("adds the ZIP64 record and its locator from 65,535 entries or a directory at or past 4 GiB", () => {
    for (const directory of [
      { count: 65_535, size: 100, offset: 1000 },
      { count: 3, size: MAX32, offset: 1000 },
      { count: 3, size: 100, offset: 5 * GiB },
    ]) {
      const end = endRecords(directory);
      expect(end.length).toBe(56 + 20 + 22);
      const record = end.subarray(0, 56);
      expect(record.readUInt32LE(0)).toBe(0x06064b50);
      expect(Number(record.readBigUInt64LE(4))).toBe(44);
      expect([record.readUInt16LE(12), record.readUInt16LE(14)]).toEqual([0x032d, 45]);
      expect([24, 32, 40, 48].map((at) => Number(record.readBigUInt64LE(at)))).toEqual([
        directory.count,
        directory.count,
        directory.size,
        directory.offset,
      ]);
      const locator = end.subarray(56, 76);
      expect(locator.readUInt32LE(0)).toBe(0x07064b50);
      // The ZIP64 record follows the directory; one disk.
      expect(Number(locator.readBigUInt64LE(8))).toBe(directory.offset + directory.size);
      expect(locator.readUInt32LE(16)).toBe(1);
      // The classic record keeps what fits and marks what does not.
      const classic = end.subarray(76);
      expect(classic.readUInt16LE(10)).toBe(Math.min(directory.count, 0xffff));
      expect(classic.readUInt32LE(12)).toBe(Math.min(directory.size, MAX32));
      expect(classic.readUInt32LE(16)).toBe(Math.min(directory.offset, MAX32));
    }
  });
});

describe("an archive whose second entry and directory lie past 4 GiB", () => {
  it("reads back whole in Python's zipfile and unzip", () => {
    const file = join(tempDir("shopfront-zip64-"), "sparse.zip");
    const icons = [
      { name: "first.png", bytes: Buffer.from("an icon at the start"), offset: 0 },
      // After a hole, which takes no disk on Linux's file systems.
      { name: "second.png", bytes: Buffer.from("an icon past 4 GiB ".repeat(10)), offset: 5 * GiB },
    ];
    const fd = openSync(file, "w");
    let at = 0;
    const write = (bytes: Uint8Array) => {
      writeSync(fd, bytes, 0, bytes.length, at);
      at += bytes.length;
    };
    const records: Buffer[] = [];
    try {
      for (const icon of icons) {
        const data = deflateRawSync(icon.bytes, { level: ZIP_SETTINGS.level, memLevel: ZIP_SETTINGS.mem });
        const info = { name: Buffer.from(icon.name), crc: crc32(icon.bytes), size: icon.bytes.length };
        at = icon.offset;
        write(localHeader({ ...info, compressedSize: data.length }));
        write(data);
        records.push(centralRecord({ ...info, compressedSize: data.length }, icon.offset));
      }
      const directory = Buffer.concat(records);
      const offset = at;
      write(directory);
      write(endRecords({ count: icons.length, size: directory.length, offset }));
    } finally {
      closeSync(fd);
    }
    expect(at).toBeGreaterThan(5 * GiB);
    // The second entry's offset and the directory's are read from the ZIP64 fields: their classic fields hold all ones.
    const read = readWithPython(file);
    expect(read.names).toEqual(icons.map((i) => i.name));
    expect(read.digest).toBe(contentDigest(icons.map((i) => i.bytes)));
    expect(testWithUnzip(file)).toEqual({ status: 0, output: "" });
  });
});
