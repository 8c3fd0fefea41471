// The binary check by header: a DOL's sections inside the file and in the Wii's memory, an ELF's
// magic, and nothing of 0 bytes.
import { describe, expect, it } from "vitest";
import { binaryProblem } from "../../../src/packageFiles/checkBinary.js";
import { dolBytes, elfBytes } from "../../support/binaries.js";

function check(bytes: Uint8Array, type: "dol" | "elf"): string | undefined {
  return binaryProblem(bytes.subarray(0, 0x100), bytes.length, type);
}

function withWord(bytes: Uint8Array, at: number, value: number): Uint8Array {
  const copy = bytes.slice();
  new DataView(copy.buffer).setUint32(at, value);
  return copy;
}

describe("binaryProblem", () => {
  it("accepts a DOL and an ELF by their headers", () => {
    expect(check(dolBytes(), "dol")).toBeUndefined();
    expect(check(elfBytes(), "elf")).toBeUndefined();
  });

  it("refuses a file of 0 bytes of either kind", () => {
    expect(check(new Uint8Array(0), "dol")).toMatch(/is empty \(0 bytes\)/);
    expect(check(new Uint8Array(0), "elf")).toMatch(/is empty \(0 bytes\)/);
  });

  it.each([
    ["text shorter than a header", new TextEncoder().encode("DOL ftpii"), /shorter than a DOL's 256-byte header/],
    ["a header of zeros", new Uint8Array(0x200), /names no text section/],
    ["a section past the file's end", withWord(dolBytes(64), 0x90, 65), /outside the file's 320 bytes/],
    ["a section inside the header", withWord(dolBytes(64), 0x00, 0x10), /text section 0 .*outside the file/],
    ["a section loaded outside memory", withWord(dolBytes(64), 0x48, 0x00003100), /loads text section 0 at 0x00003100/],
    ["an entry point outside memory", withWord(dolBytes(64), 0xe0, 0x12345678), /entry point 0x12345678/],
    ["text of 0x60 bytes", new Uint8Array(600).fill(0x60), /outside the file/],
  ])("refuses a boot.dol that is %s", (_, bytes, reason) => {
    expect(check(bytes, "dol")).toMatch(reason);
  });

  it("names the right extension for a binary of the other kind", () => {
    expect(check(elfBytes(), "dol")).toBe("is an ELF, not a DOL: name it boot.elf");
    expect(check(dolBytes(), "elf")).toMatch(/is no ELF .*: it is a DOL, so name it boot\.dol/);
    expect(check(new Uint8Array(300).fill(1), "elf")).toBe('is no ELF (it does not start with 0x7f "ELF")');
  });
});
