// CRC-32 (the zip's checksum, polynomial 0xEDB88320), updated chunk by chunk: node:zlib's where it
// has one (from Node 20.15 on; several times as fast), else this table-driven one.
import * as zlib from "node:zlib";

const TABLE = new Uint32Array(256).map((_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

/** The CRC-32 of `bytes` following a CRC-32 `previous` (0 to start), in JavaScript. */
export function crc32InJs(bytes: Uint8Array, previous = 0): number {
  let c = ~previous >>> 0;
  for (let i = 0; i < bytes.length; i++) c = TABLE[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
  return ~c >>> 0;
}

/** The CRC-32 of `bytes` following a CRC-32 `previous` (0 to start). */
export const crc32: (bytes: Uint8Array, previous?: number) => number =
  typeof zlib.crc32 === "function" ? (bytes, previous = 0) => zlib.crc32(bytes, previous) : crc32InJs;
