// Over 300 lines: one small recursive-descent parser; split, its scanner and grammar would only call each other.
// Turns a file's bytes into a JSON value, or into findings a maintainer can act on: empty files,
// invalid UTF-8, syntax errors with line and column, and duplicate keys (JSON.parse silently keeps
// the last one, so a reviewer could read one value while the build publishes another).
import { isUtf8 } from "node:buffer";
import { finding, pointerToken, type Finding } from "../catalogue/problems.js";
import { appendAll } from "../util/appendAll.js";

export type ParsedJson = { value: unknown; findings: Finding[] } | { value?: undefined; findings: Finding[] };

export function parseJson(bytes: Uint8Array): ParsedJson {
  if (!isUtf8(bytes)) {
    const offset = invalidUtf8Offset(bytes);
    const line = countLines(bytes, offset);
    return {
      findings: [
        finding(
          "INVALID_UTF8",
          "",
          `is not valid UTF-8: byte 0x${hex(bytes[offset]!)} at line ${line}, byte offset ${offset}`,
        ),
      ],
    };
  }
  let text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8");
  const findings: Finding[] = [];
  if (text.charCodeAt(0) === 0xfeff) {
    findings.push(
      finding(
        "BYTE_ORDER_MARK",
        "",
        "starts with a UTF-8 byte order mark; it is ignored, but better removed",
        "warning",
      ),
    );
    text = text.slice(1);
  }
  if (text.trim() === "")
    return { findings: [...findings, finding("EMPTY_FILE", "", "is empty: expected a JSON object")] };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // Not JSON: scanJson says where and why in words of its own (JSON.parse's message varies by version).
    const scan = scanJson(text);
    const at = scan.error ?? { offset: text.length, message: "is not valid JSON" };
    const { line, column } = lineAndColumn(text, at.offset);
    return { findings: [...findings, finding("JSON_SYNTAX", "", `line ${line}, column ${column}: ${at.message}`)] };
  }
  // Cheap test first: only when the text has more keys than the parsed value does the slow scan
  // look for the duplicates.
  if (countKeyTokens(text) !== countKeys(value)) {
    for (const pointer of scanJson(text).duplicates) {
      findings.push(
        finding("DUPLICATE_KEY", pointer, "appears more than once in its object; JSON parsers keep only one of them"),
      );
    }
  }
  return { value, findings };
}

/**
 * The numbers of a valid JSON file whose text JSON.parse does not keep (`1.0` parses as 1, `1e3`
 * as 1000), by JSON pointer: so a message can quote a value as the file has it.
 */
export function numbersAsWritten(bytes: Uint8Array): Map<string, string> {
  const numbers = new Map<string, string>();
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8");
  scanJson(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text, numbers);
  return numbers;
}

function hex(byte: number): string {
  return byte.toString(16).padStart(2, "0");
}

function countLines(bytes: Uint8Array, end: number): number {
  let line = 1;
  for (let i = 0; i < end; i++) if (bytes[i] === 0x0a) line++;
  return line;
}

/** Offset of the first byte that does not start a valid UTF-8 sequence. */
export function invalidUtf8Offset(bytes: Uint8Array): number {
  for (let i = 0; i < bytes.length;) {
    const lead = bytes[i]!;
    if (lead < 0x80) {
      i++;
      continue;
    }
    const [length, min] =
      lead >= 0xc2 && lead <= 0xdf
        ? [2, 0x80]
        : lead >= 0xe0 && lead <= 0xef
          ? [3, 0x800]
          : lead >= 0xf0 && lead <= 0xf4
            ? [4, 0x10000]
            : [0, 0];
    if (length === 0 || i + length > bytes.length) return i;
    let codePoint = lead & (0xff >> (length + 1));
    for (let k = 1; k < length; k++) {
      const next = bytes[i + k]!;
      if ((next & 0xc0) !== 0x80) return i;
      codePoint = (codePoint << 6) | (next & 0x3f);
    }
    if (codePoint < min || codePoint > 0x10ffff || (codePoint >= 0xd800 && codePoint <= 0xdfff)) return i;
    i += length;
  }
  return -1;
}

export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf("\n"); i !== -1 && i < offset; i = text.indexOf("\n", i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: offset - lineStart + 1 };
}

/**
 * Number of keys in a valid JSON text: strings followed by ':'. Jumps from quote to quote with
 * indexOf, which is several times faster than visiting every character.
 */
function countKeyTokens(text: string): number {
  let keys = 0;
  for (let open = text.indexOf('"'); open !== -1;) {
    let close = text.indexOf('"', open + 1);
    while (isEscaped(text, close)) close = text.indexOf('"', close + 1);
    let next = close + 1;
    while (isSpace(text.charCodeAt(next))) next++;
    if (text.charCodeAt(next) === 0x3a) keys++;
    open = text.indexOf('"', close + 1);
  }
  return keys;
}

/** Whether the quote at `at` is preceded by an odd number of backslashes. */
function isEscaped(text: string, at: number): boolean {
  let backslashes = 0;
  for (let i = at - 1; text.charCodeAt(i) === 0x5c; i--) backslashes++;
  return backslashes % 2 === 1;
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** Number of keys in all objects of a parsed value (iterative: values may nest deeply). */
function countKeys(value: unknown): number {
  let keys = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (Array.isArray(v)) appendAll(stack, v);
    else if (v !== null && typeof v === "object") {
      const values = Object.values(v);
      keys += values.length;
      appendAll(stack, values);
    }
  }
  return keys;
}

export const MAX_SCAN_DEPTH = 512;

interface ScanResult {
  error?: { offset: number; message: string };
  duplicates: string[];
}

class ScanError {
  constructor(
    readonly offset: number,
    readonly message: string,
  ) {}
}

/**
 * A strict JSON scanner (RFC 8259, the grammar JSON.parse accepts) that explains the first error
 * where JSON.parse's message would not, and lists the pointers of duplicate keys. Only used on the
 * slow path: a file that failed to parse, or one with more keys than its parsed value. Given
 * `numbers`, it also records there, by pointer, each number whose text JSON.parse does not keep.
 */
export function scanJson(text: string, numbers?: Map<string, string>): ScanResult {
  const duplicates: string[] = [];
  let i = 0;
  const n = text.length;

  const describe = (): string => {
    if (i >= n) return "the end of the file";
    const c = text.charCodeAt(i);
    return c < 0x20 || c === 0x7f
      ? `control character U+${c.toString(16).padStart(4, "0").toUpperCase()}`
      : `'${text[i]}'`;
  };
  const fail = (message: string): never => {
    throw new ScanError(i, message);
  };
  const skipSpace = (): void => {
    for (; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return;
    }
  };
  const readString = (): string => {
    let out = "";
    let start = ++i;
    for (;;) {
      if (i >= n) fail("unterminated string: expected a closing '\"'");
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        out += text.slice(start, i++);
        return out;
      }
      if (c < 0x20)
        fail(
          `${describe()} inside a string: write it as an escape such as \\n or \\u${c.toString(16).padStart(4, "0")}`,
        );
      if (c === 0x5c) {
        out += text.slice(start, i);
        const e = text[i + 1];
        const simple: Record<string, string> = {
          '"': '"',
          "\\": "\\",
          "/": "/",
          b: "\b",
          f: "\f",
          n: "\n",
          r: "\r",
          t: "\t",
        };
        if (e !== undefined && e in simple) {
          out += simple[e];
          i += 2;
        } else if (e === "u" && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) {
          out += String.fromCharCode(parseInt(text.slice(i + 2, i + 6), 16));
          i += 6;
        } else {
          fail(
            e === "u"
              ? "invalid \\u escape: expected four hexadecimal digits"
              : `invalid escape '\\${e ?? ""}' in a string`,
          );
        }
        start = i;
        continue;
      }
      i++;
    }
  };
  const numberPattern = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
  const readValue = (pointer: string, depth: number): void => {
    skipSpace();
    if (depth > MAX_SCAN_DEPTH) fail(`values nest deeper than ${MAX_SCAN_DEPTH} levels`);
    const c = text[i];
    if (c === "{") {
      i++;
      skipSpace();
      if (text[i] === "}") {
        i++;
        return;
      }
      const keys = new Set<string>();
      for (;;) {
        skipSpace();
        if (text[i] !== '"')
          fail(
            text[i] === "}"
              ? "trailing comma before '}' (JSON does not allow one)"
              : `expected a property name in double quotes, found ${describe()}`,
          );
        const key = readString();
        const keyPointer = `${pointer}/${pointerToken(key)}`;
        if (keys.has(key)) duplicates.push(keyPointer);
        keys.add(key);
        skipSpace();
        if (text[i] !== ":") fail(`expected ':' after the property name "${key}", found ${describe()}`);
        i++;
        readValue(keyPointer, depth + 1);
        skipSpace();
        if (text[i] === ",") i++;
        else if (text[i] === "}") {
          i++;
          return;
        } else fail(`expected ',' or '}' after the value of "${key}", found ${describe()}`);
      }
    }
    if (c === "[") {
      i++;
      skipSpace();
      if (text[i] === "]") {
        i++;
        return;
      }
      for (let index = 0; ; index++) {
        skipSpace();
        if (text[i] === "]") fail("trailing comma before ']' (JSON does not allow one)");
        readValue(`${pointer}/${index}`, depth + 1);
        skipSpace();
        if (text[i] === ",") i++;
        else if (text[i] === "]") {
          i++;
          return;
        } else fail(`expected ',' or ']' after an array element, found ${describe()}`);
      }
    }
    if (c === '"') {
      readString();
      return;
    }
    numberPattern.lastIndex = i;
    if (numberPattern.test(text)) {
      const written = text.slice(i, numberPattern.lastIndex);
      if (numbers && String(Number(written)) !== written) numbers.set(pointer, written);
      i = numberPattern.lastIndex;
      return;
    }
    for (const literal of ["true", "false", "null"]) {
      if (text.startsWith(literal, i)) {
        i += literal.length;
        return;
      }
    }
    fail(c === "'" ? 'strings must be in double quotes, found "\'"' : `expected a value, found ${describe()}`);
  };

  try {
    readValue("", 0);
    skipSpace();
    if (i < n) fail(`unexpected ${describe()} after the end of the JSON value`);
    return { duplicates };
  } catch (e) {
    if (e instanceof ScanError) return { error: { offset: e.offset, message: e.message }, duplicates };
    throw e;
  }
}
