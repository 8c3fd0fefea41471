import { describe, expect, it } from "vitest";
import { crc32, crc32InJs } from "../../../src/packageFiles/crc32.js";

describe("crc32", () => {
  it.each([
    ["node:zlib's, where there is one", crc32],
    ["the JavaScript one", crc32InJs],
  ])("gives the standard check value, in one piece and chunk by chunk: %s", (_, crc) => {
    const bytes = Buffer.from("123456789");
    expect(crc(bytes)).toBe(0xcbf43926);
    expect(crc(bytes.subarray(4), crc(bytes.subarray(0, 4)))).toBe(0xcbf43926);
    expect(crc(new Uint8Array(0))).toBe(0);
  });
});
