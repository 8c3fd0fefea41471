// The records of a zip archive as PKWARE's APPNOTE.TXT lays them out (4.3: the records; 4.4: their
// fields; 4.5.3: the ZIP64 extended information extra field), for deflated files whose CRC-32 and
// sizes are known before they are written, so no data descriptor follows them. Pure: each record
// is returned as bytes. A field too small for its value holds all ones and the value goes in a ZIP64
// record, and only then: an archive within the classic limits stays a classic archive, which every
// reader takes. A value equal to the all-ones marker counts as too small, since a reader takes the
// marker to mean "in the ZIP64 record" (65,535 entries, or a size or offset of 4 GiB less one byte).
import { ZIP_SETTINGS } from "./zipPackageFolder.js";

/** What the records say of one entry. */
export interface ZipEntryInfo {
  /** The name as stored: its UTF-8 bytes. */
  name: Uint8Array;
  crc: number;
  compressedSize: number;
  /** The size unpacked. */
  size: number;
}

const SIGNATURE = {
  local: 0x04034b50,
  central: 0x02014b50,
  zip64End: 0x06064b50,
  zip64Locator: 0x07064b50,
  end: 0x06054b50,
} as const;

/** The largest value of a 2-byte and of a 4-byte field: all ones, which also marks a value held elsewhere. */
const MAX16 = 0xffff;
const MAX32 = 0xffffffff;

/** Version needed to extract (4.4.3.2): 2.0 for deflate, 4.5 for the ZIP64 extensions. */
const VERSION_DEFLATE = 20;
const VERSION_ZIP64 = 45;
/** Version made by's upper byte (4.4.2.2): Unix, whose mode the external attributes carry. */
const UNIX = 3;
const DEFLATE = 8;
/** General purpose bits 1 and 2 for deflate at "maximum" (level 9), as fflate sets them. */
const FLAG_MAXIMUM = 0x0002;
/** Bit 11, the name is UTF-8 (4.4.4): fflate sets it when the name has a byte beyond ASCII. */
const FLAG_UTF8 = 0x0800;
/** The ZIP64 extended information extra field's header ID. */
const ZIP64_EXTRA = 0x0001;

const LOCAL_HEADER_SIZE = 30;
const CENTRAL_RECORD_SIZE = 46;
const END_SIZE = 22;
const ZIP64_END_SIZE = 56;
const ZIP64_LOCATOR_SIZE = 20;

/** The DOS date of ZIP_SETTINGS.mtime (4.4.6: years from 1980, month, day); its time is midnight, 0. */
const DOS_DATE = ((ZIP_SETTINGS.mtime.year - 1980) << 9) | (ZIP_SETTINGS.mtime.month << 5) | ZIP_SETTINGS.mtime.day;
const DOS_TIME = 0;

function flagsOf(name: Uint8Array): number {
  return name.some((byte) => byte >= 0x80) ? FLAG_MAXIMUM | FLAG_UTF8 : FLAG_MAXIMUM;
}

/** The ZIP64 extra field holding `values`, 8 bytes each, in the order 4.5.3 fixes; empty for none. */
function zip64Extra(values: readonly number[]): Buffer {
  if (values.length === 0) return Buffer.alloc(0);
  const extra = Buffer.alloc(4 + 8 * values.length);
  extra.writeUInt16LE(ZIP64_EXTRA, 0);
  extra.writeUInt16LE(8 * values.length, 2);
  values.forEach((value, i) => extra.writeBigUInt64LE(BigInt(value), 4 + 8 * i));
  return extra;
}

function checkName(name: Uint8Array): void {
  if (name.length > MAX16)
    throw new RangeError(`a zip entry's name is ${name.length} bytes, over the ${MAX16} its field holds`);
}

/**
 * The local file header of `entry`. Past either size's field, both sizes are in a ZIP64 extra field
 * (4.5.3: the local header's holds both or neither).
 */
export function localHeader(entry: ZipEntryInfo): Buffer {
  checkName(entry.name);
  const zip64 = entry.size >= MAX32 || entry.compressedSize >= MAX32;
  const extra = zip64Extra(zip64 ? [entry.size, entry.compressedSize] : []);
  const header = Buffer.alloc(LOCAL_HEADER_SIZE + entry.name.length + extra.length);
  header.writeUInt32LE(SIGNATURE.local, 0);
  header.writeUInt16LE(zip64 ? VERSION_ZIP64 : VERSION_DEFLATE, 4);
  header.writeUInt16LE(flagsOf(entry.name), 6);
  header.writeUInt16LE(DEFLATE, 8);
  header.writeUInt16LE(DOS_TIME, 10);
  header.writeUInt16LE(DOS_DATE, 12);
  header.writeUInt32LE(entry.crc, 14);
  header.writeUInt32LE(zip64 ? MAX32 : entry.compressedSize, 18);
  header.writeUInt32LE(zip64 ? MAX32 : entry.size, 22);
  header.writeUInt16LE(entry.name.length, 26);
  header.writeUInt16LE(extra.length, 28);
  header.set(entry.name, LOCAL_HEADER_SIZE);
  extra.copy(header, LOCAL_HEADER_SIZE + entry.name.length);
  return header;
}

/**
 * The central directory record of `entry`, whose local header is at `offset`. Each of the sizes and
 * the offset past its field is in a ZIP64 extra field, and only those (4.5.3).
 */
export function centralRecord(entry: ZipEntryInfo, offset: number): Buffer {
  checkName(entry.name);
  const wide = (value: number): boolean => value >= MAX32;
  const extra = zip64Extra([entry.size, entry.compressedSize, offset].filter(wide));
  const version = extra.length > 0 ? VERSION_ZIP64 : VERSION_DEFLATE;
  const record = Buffer.alloc(CENTRAL_RECORD_SIZE + entry.name.length + extra.length);
  record.writeUInt32LE(SIGNATURE.central, 0);
  record.writeUInt16LE((UNIX << 8) | version, 4);
  record.writeUInt16LE(version, 6);
  record.writeUInt16LE(flagsOf(entry.name), 8);
  record.writeUInt16LE(DEFLATE, 10);
  record.writeUInt16LE(DOS_TIME, 12);
  record.writeUInt16LE(DOS_DATE, 14);
  record.writeUInt32LE(entry.crc, 16);
  record.writeUInt32LE(Math.min(entry.compressedSize, MAX32), 20);
  record.writeUInt32LE(Math.min(entry.size, MAX32), 24);
  record.writeUInt16LE(entry.name.length, 28);
  record.writeUInt16LE(extra.length, 30);
  // Bytes 32 to 37 (comment length, disk number start, internal attributes) stay 0.
  record.writeUInt32LE((ZIP_SETTINGS.fileMode << 16) >>> 0, 38);
  record.writeUInt32LE(Math.min(offset, MAX32), 42);
  record.set(entry.name, CENTRAL_RECORD_SIZE);
  extra.copy(record, CENTRAL_RECORD_SIZE + entry.name.length);
  return record;
}

/** Where the central directory is: how many records it holds, its size and its offset in the archive. */
export interface ZipDirectory {
  count: number;
  size: number;
  offset: number;
}

/**
 * What ends the archive after its central directory: the end of central directory record, after
 * the ZIP64 end of central directory record and its locator when one of its fields overflows
 * (4.3.14 to 4.3.16; one disk, no comment).
 */
export function endRecords(directory: ZipDirectory): Buffer {
  const { count, size, offset } = directory;
  const end = Buffer.alloc(END_SIZE);
  end.writeUInt32LE(SIGNATURE.end, 0);
  // Bytes 4 to 7 (this disk, the directory's disk) stay 0.
  end.writeUInt16LE(Math.min(count, MAX16), 8);
  end.writeUInt16LE(Math.min(count, MAX16), 10);
  end.writeUInt32LE(Math.min(size, MAX32), 12);
  end.writeUInt32LE(Math.min(offset, MAX32), 16);
  if (count < MAX16 && size < MAX32 && offset < MAX32) return end;

  const record = Buffer.alloc(ZIP64_END_SIZE);
  record.writeUInt32LE(SIGNATURE.zip64End, 0);
  // The record's size counts neither its signature nor this field (4.3.14.1).
  record.writeBigUInt64LE(BigInt(ZIP64_END_SIZE - 12), 4);
  record.writeUInt16LE((UNIX << 8) | VERSION_ZIP64, 12);
  record.writeUInt16LE(VERSION_ZIP64, 14);
  record.writeBigUInt64LE(BigInt(count), 24);
  record.writeBigUInt64LE(BigInt(count), 32);
  record.writeBigUInt64LE(BigInt(size), 40);
  record.writeBigUInt64LE(BigInt(offset), 48);
  const locator = Buffer.alloc(ZIP64_LOCATOR_SIZE);
  locator.writeUInt32LE(SIGNATURE.zip64Locator, 0);
  locator.writeBigUInt64LE(BigInt(offset + size), 8);
  locator.writeUInt32LE(1, 16);
  return Buffer.concat([record, locator, end]);
}
