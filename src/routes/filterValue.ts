// Filter values (a coder, a category, a search string) from a manifest or a request, as bytes, and
// the one mapping from a coder to the folder its list is stored under: the coder's UTF-8 bytes as
// lowercase hex. Hex holds only [0-9a-f], so whatever a coder holds (`/`, `..`, quotes, `;}`, NUL,
// letters that differ only in case) it never names a path outside the output, breaks a file name,
// differs from another key only in case, or needs quoting in a config. A key longer than one file
// name may be (a 128-character coder is up to 512 bytes) is cut into folders of KEY_CHUNK characters.
//
// Values are handled as byte strings (one character per byte, 0-255), so a request's bytes compare
// with a coder's UTF-8 bytes without ever being decoded as UTF-8: a request that is not valid UTF-8
// simply names no coder. The edge functions embed this source verbatim, so it is written in the
// JavaScript that CloudFront Functions (runtime 2.0) accept, like matchRequest.ts.

/** Hex characters per folder of a coder's key, well under the 255 bytes a file name may have. */
export const KEY_CHUNK = 192;

/** `text` (a JavaScript string) as its UTF-8 bytes; a lone surrogate becomes U+FFFD, as TextEncoder does. */
export function utf8Bytes(text: string): string {
  let bytes = "";
  for (let i = 0; i < text.length; i++) {
    let c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const low = text.charCodeAt(i + 1);
      if (low >= 0xdc00 && low <= 0xdfff) {
        c = 0x10000 + ((c - 0xd800) << 10) + (low - 0xdc00);
        i++;
      }
    }
    if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd;
    if (c < 0x80) bytes += String.fromCharCode(c);
    else if (c < 0x800) bytes += String.fromCharCode(0xc0 | (c >> 6), 0x80 | (c & 63));
    else if (c < 0x10000) bytes += String.fromCharCode(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
    else
      bytes += String.fromCharCode(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
  }
  return bytes;
}

/**
 * A value as sent in a URL, decoded to bytes: `%XX` is a byte, and in a query (`form`) `+` is a
 * space, as a web form is decoded (Flask's rule). A `%` not followed by two hex digits stays itself,
 * as Werkzeug leaves it. A raw character above ASCII (a server hands raw bytes over as latin1) is the
 * byte it stands for; one above U+00FF is its UTF-8.
 */
export function decodeValue(raw: string, form: boolean): string {
  let bytes = "";
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charAt(i);
    if (c === "%" && /^[0-9A-Fa-f]{2}$/.test(raw.substr(i + 1, 2))) {
      bytes += String.fromCharCode(parseInt(raw.substr(i + 1, 2), 16));
      i += 2;
    } else if (c === "+" && form) bytes += " ";
    else if (raw.charCodeAt(i) < 256) bytes += c;
    else {
      let run = c;
      while (i + 1 < raw.length && raw.charCodeAt(i + 1) >= 256) run += raw.charAt(++i);
      bytes += utf8Bytes(run);
    }
  }
  return bytes;
}

/** The folder a coder's lists are stored under, from the coder's bytes: lowercase hex, cut into KEY_CHUNK folders. */
export function coderKey(bytes: string): string {
  let hex = "";
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes.charCodeAt(i);
    hex += (b < 16 ? "0" : "") + b.toString(16);
    if ((i + 1) % (KEY_CHUNK / 2) === 0 && i + 1 < bytes.length) hex += "/";
  }
  return hex;
}
