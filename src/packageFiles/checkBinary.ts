// Whether a package's boot.dol or boot.elf can be a program the Homebrew Channel loads, by its
// header alone: a 0-byte file (a copy cut short, a placeholder) or one of another kind would be
// published as downloadable and fail on every Wii. Pure: the first bytes and the size in.
//
// A DOL starts with a 0x100-byte header of big-endian words: the file offsets of 7 text and 11 data
// sections, their load addresses, their sizes, then the BSS address and size and the entry point
// (the layout devkitPPC's elf2dol writes and the Homebrew Channel reads). An ELF starts with 0x7f 'E'
// 'L' 'F'.

/** The bytes of a DOL's header, which the check reads. */
export const DOL_HEADER_BYTES = 0x100;

const TEXT_SECTIONS = 7;
const SECTIONS = 18;
const OFFSETS = 0x00;
const ADDRESSES = 0x48;
const SIZES = 0x90;
const ENTRY_POINT = 0xe0;
const ELF_MAGIC = [0x7f, 0x45, 0x4c, 0x46];

/** The Wii's memory a section may load into: MEM1 (24 MiB) and MEM2 (64 MiB), by cached address. */
const MEMORY: readonly [number, number][] = [
  [0x80000000, 0x81800000],
  [0x90000000, 0x94000000],
];

function inMemory(address: number, size = 1): boolean {
  return MEMORY.some(([start, end]) => address >= start && address + size <= end);
}

function hex(n: number): string {
  return `0x${n.toString(16).padStart(8, "0")}`;
}

function isElf(head: Uint8Array): boolean {
  return ELF_MAGIC.every((b, i) => head[i] === b);
}

/** Why a DOL's header cannot be one, or undefined when it can. */
function dolProblem(head: Uint8Array, size: number): string | undefined {
  if (size < DOL_HEADER_BYTES) return `is ${size} bytes long, shorter than a DOL's ${DOL_HEADER_BYTES}-byte header`;
  const view = new DataView(head.buffer, head.byteOffset, DOL_HEADER_BYTES);
  let texts = 0;
  for (let i = 0; i < SECTIONS; i++) {
    const length = view.getUint32(SIZES + i * 4);
    if (length === 0) continue;
    const offset = view.getUint32(OFFSETS + i * 4);
    const address = view.getUint32(ADDRESSES + i * 4);
    const what = i < TEXT_SECTIONS ? `text section ${i}` : `data section ${i - TEXT_SECTIONS}`;
    if (offset < DOL_HEADER_BYTES || offset + length > size)
      return `is no DOL: its header puts ${what} (${length} bytes at offset ${hex(offset)}) outside the file's ${size} bytes`;
    if (!inMemory(address, length))
      return `is no DOL: its header loads ${what} at ${hex(address)}, outside the Wii's memory`;
    if (i < TEXT_SECTIONS) texts++;
  }
  if (texts === 0) return "is no DOL: its header names no text section (no code to run)";
  const entry = view.getUint32(ENTRY_POINT);
  if (!inMemory(entry)) return `is no DOL: its entry point ${hex(entry)} is outside the Wii's memory`;
  return undefined;
}

/**
 * Why the binary `type` (its file's extension) whose first bytes are `head` (at least
 * DOL_HEADER_BYTES of them when it is that long) and whose length is `size` cannot be loaded, as a
 * phrase after its path; undefined when its header is one of its kind.
 */
export function binaryProblem(head: Uint8Array, size: number, type: "dol" | "elf"): string | undefined {
  if (size === 0) return "is empty (0 bytes): copy the app's real binary in";
  if (type === "elf") {
    if (isElf(head)) return undefined;
    return `is no ELF (it does not start with 0x7f "ELF")${dolProblem(head, size) === undefined ? ": it is a DOL, so name it boot.dol" : ""}`;
  }
  if (isElf(head)) return "is an ELF, not a DOL: name it boot.elf";
  return dolProblem(head, size);
}
