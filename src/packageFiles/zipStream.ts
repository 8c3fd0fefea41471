// Writes a zip one entry at a time, for archives of any number of entries and any size (the Homebrew
// Browser's icon archive of a host: one entry a package). Each entry is deflated whole and written
// at once, its local header before it; only its central directory record is kept, in one buffer
// grown as needed (some 60 bytes an entry), until end() writes them and the end records. ZIP64
// records are written only where the classic fields overflow (zipRecords.ts). fflate's writer, which
// a package folder's archive is made with, records at most 65,535 entries.
//
// The entries get the fixed settings of a package folder's archive (zipPackageFolder.ts's
// ZIP_SETTINGS: the DOS epoch, a fixed Unix mode, deflate at level 9 with memory level 8 by Node's
// zlib, NFC names, no extra field but ZIP64's, no comment), so the same entries in the same order
// give the same bytes for one zlib build.
import { createHash } from "node:crypto";
import { closeSync, openSync, writeSync } from "node:fs";
import { deflateRawSync } from "node:zlib";
import { crc32 } from "./crc32.js";
import { ZIP_SETTINGS } from "./zipPackageFolder.js";
import { centralRecord, endRecords, localHeader } from "./zipRecords.js";

/** One file of an archive: its name (a `/`-separated path) and its bytes. */
export interface ZipEntry {
  name: string;
  bytes: Uint8Array;
}

/** The central directory's buffer starts at this many bytes, and doubles when full. */
const DIRECTORY_START = 64 * 1024;

export class ZipStream {
  readonly #write: (bytes: Uint8Array) => void;
  /** Bytes written so far: where the next local header is. */
  #offset = 0;
  #count = 0;
  #directory = Buffer.alloc(DIRECTORY_START);
  #directorySize = 0;

  /** Hands the archive's bytes to `write`, in order, as they are made. */
  constructor(write: (bytes: Uint8Array) => void) {
    this.#write = write;
  }

  /** Writes one entry. */
  add(entry: ZipEntry): void {
    const name = Buffer.from(entry.name.normalize("NFC"), "utf8");
    const data = deflateRawSync(entry.bytes, { level: ZIP_SETTINGS.level, memLevel: ZIP_SETTINGS.mem });
    const info = { name, crc: crc32(entry.bytes), compressedSize: data.length, size: entry.bytes.length };
    const record = centralRecord(info, this.#offset);
    this.#emit(localHeader(info));
    this.#emit(data);
    this.#keep(record);
    this.#count++;
  }

  /** Writes the central directory and the end records: the archive is whole. */
  end(): void {
    const directory = { count: this.#count, size: this.#directorySize, offset: this.#offset };
    this.#emit(this.#directory.subarray(0, this.#directorySize));
    this.#emit(endRecords(directory));
  }

  #emit(bytes: Uint8Array): void {
    this.#write(bytes);
    this.#offset += bytes.length;
  }

  #keep(record: Buffer): void {
    if (this.#directorySize + record.length > this.#directory.length) {
      const grown = Buffer.alloc(Math.max(2 * this.#directory.length, this.#directorySize + record.length));
      this.#directory.copy(grown, 0, 0, this.#directorySize);
      this.#directory = grown;
    }
    record.copy(this.#directory, this.#directorySize);
    this.#directorySize += record.length;
  }
}

/**
 * Writes `entries`, taken one at a time in the order given, as a zip at `path`; returns its size and
 * SHA-256, taken as it was written (the file index's, which need not read it back). A failure leaves
 * the file as far as it got: the caller writes it where it is removed (a build's work folder).
 */
export function writeZipFile(path: string, entries: Iterable<ZipEntry>): { size: number; sha256: string } {
  const fd = openSync(path, "w");
  const hash = createHash("sha256");
  let size = 0;
  try {
    const zip = new ZipStream((bytes) => {
      hash.update(bytes);
      size += bytes.length;
      for (let done = 0; done < bytes.length;) done += writeSync(fd, bytes, done, bytes.length - done);
    });
    for (const entry of entries) zip.add(entry);
    zip.end();
  } finally {
    closeSync(fd);
  }
  return { size, sha256: hash.digest("hex") };
}
