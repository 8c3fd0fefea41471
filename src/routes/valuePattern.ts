// A filter value (a coder) as a regex over the request as sent, for the hosts that cannot decode or
// hex-encode at request time and so list the catalogue's coders in their config (nginx, Apache,
// Caddy, lighttpd). The pattern matches every way a client may send the value's bytes, and nothing
// else: each byte as `%HH` (either case of hex), or, where the byte may stand for itself, as itself.
// In a query a space may also be `+`, while a raw `+` is a space and a raw `&` ends the value, so
// the request reads as the original service read it. A raw `/` in a path ends the segment.
//
// The pattern is written in a small alphabet that every config syntax takes as it is: ASCII letters
// and digits, and `\xHH`, `(?:`, `|`, `)`, `[`, `]`. Every other character of the value, whatever it
// is (`"`, `;`, `}`, `$`, `%`, a newline), appears only as `\xHH`, so a coder can never become
// config syntax or a capture reference. It has no capture group of its own.
import { utf8Bytes } from "./filterValue.js";

/** Characters a client sends as themselves in a path segment (RFC 3986 pchar but `%`). */
const RAW_IN_PATH = /^[A-Za-z0-9\-._~!$&'()*+,;=:@]$/;
/** In a query value: the same but `&` (ends the value) and `+` (a space), and `/` and `?`, which a query may hold. */
const RAW_IN_QUERY = /^[A-Za-z0-9\-._~!$'()*,;=:@/?]$/;

function hexDigit(digit: string): string {
  return /[a-f]/.test(digit) ? `[${digit}${digit.toUpperCase()}]` : digit;
}

function escapedByte(byte: number): string {
  const hex = byte.toString(16).padStart(2, "0");
  return `\\x25${hexDigit(hex[0]!)}${hexDigit(hex[1]!)}`;
}

function literal(char: string): string {
  return /^[A-Za-z0-9]$/.test(char) ? char : `\\x${char.charCodeAt(0).toString(16).padStart(2, "0")}`;
}

/**
 * `value`'s bytes as sent in a path segment (`where` "path") or a query value ("query"), as a regex
 * without anchors that matches exactly the encodings of those bytes.
 */
export function valuePattern(value: string, where: "path" | "query"): string {
  const raw = where === "path" ? RAW_IN_PATH : RAW_IN_QUERY;
  let pattern = "";
  for (const char of utf8Bytes(value)) {
    const byte = char.charCodeAt(0);
    const forms = [escapedByte(byte)];
    if (raw.test(char)) forms.unshift(literal(char));
    if (where === "query" && char === " ") forms.unshift(literal("+"));
    pattern += forms.length === 1 ? forms[0] : `(?:${forms.join("|")})`;
  }
  return pattern;
}
