import { describe, expect, it } from "vitest";
import { crc32 } from "../../../src/packageFiles/crc32.js";

describe("crc32", () => {
  it("gives the standard check value, in one piece and chunk by chunk", () => {
    const bytes = Buffer.from("123456789");
    expect(crc32(bytes)).toBe(0xcbf43926);
    expect(crc32(bytes.subarray(4), crc32(bytes.subarray(0, 4)))).toBe(0xcbf43926);
    expect(crc32(new Uint8Array(0))).toBe(0);
  });
});
