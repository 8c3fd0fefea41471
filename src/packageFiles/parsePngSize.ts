// The width and height of a PNG, from its signature and IHDR chunk (the first 24 bytes).

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** The bytes parsePngSize needs. */
export const PNG_HEADER_BYTES = 24;

/** Width and height of a PNG, or undefined when the bytes do not start like a PNG. */
export function parsePngSize(head: Uint8Array): { width: number; height: number } | undefined {
  if (head.length < PNG_HEADER_BYTES) return undefined;
  if (PNG_SIGNATURE.some((b, i) => head[i] !== b)) return undefined;
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
  const type = String.fromCharCode(head[12]!, head[13]!, head[14]!, head[15]!);
  if (type !== "IHDR") return undefined;
  return { width: view.getUint32(16), height: view.getUint32(20) };
}

/** The Homebrew Channel's icon size. */
export const ICON_WIDTH = 128;
export const ICON_HEIGHT = 48;
