// Binaries for tests that build an app in memory: the headers of a DOL and an ELF as the Homebrew
// Channel reads them (test/fixtures/package-files/fixture-bytes.mjs writes the same for the
// fixture scripts), so that a package passes the binary check (src/packageFiles/checkBinary.ts).

/** A DOL: one text section of `size` bytes loaded at 0x80003100, its entry point there. */
export function dolBytes(size = 64, fill = 0x60): Uint8Array {
  const bytes = new Uint8Array(0x100 + size).fill(fill, 0x100);
  const view = new DataView(bytes.buffer);
  view.setUint32(0x00, 0x100); // text0 file offset
  view.setUint32(0x48, 0x80003100); // text0 load address
  view.setUint32(0x90, size); // text0 size
  view.setUint32(0xe0, 0x80003100); // entry point
  return bytes;
}

/** A 32-bit big-endian PowerPC ELF header and `size` bytes. */
export function elfBytes(size = 64): Uint8Array {
  const bytes = new Uint8Array(0x34 + size).fill(0x60, 0x34);
  bytes.set([0x7f, 0x45, 0x4c, 0x46, 1, 2, 1], 0);
  return bytes;
}
