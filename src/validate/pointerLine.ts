// Where a problem is in its file, for reports that point at a line (GitHub annotations, editors):
// walks a JSON text along a JSON pointer, without parsing what lies off the path.
import { pointerToken } from "../catalogue/problems.js";
import { lineAndColumn, scanJson } from "./parseJson.js";

export interface Position {
  line: number;
  column: number;
}

/**
 * The line and column where the value `pointer` names starts in `text`. A pointer to something the
 * text does not have (a missing field) gives its nearest ancestor that it has; a key given twice
 * gives its last occurrence, the one JSON.parse keeps. Undefined when the text is no JSON value.
 */
export function pointerPosition(text: string, pointer: string): Position | undefined {
  const body = withoutByteOrderMark(text);
  let at = skipSpace(body, 0);
  if (at >= body.length) return undefined;
  const tokens = pointer === "" ? [] : pointer.slice(1).split("/");
  for (const token of tokens) {
    const child = childStart(body, at, token);
    if (child === undefined) break;
    at = child;
  }
  return lineAndColumn(body, at);
}

/** Where the first syntax error of `text` is, as the JSON_SYNTAX problem's message names it. */
export function syntaxErrorPosition(text: string): Position | undefined {
  const body = withoutByteOrderMark(text);
  const error = scanJson(body).error;
  return error && lineAndColumn(body, error.offset);
}

// parseJson drops a byte order mark before it counts lines and columns; so does this module.
function withoutByteOrderMark(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** Where the member `token` (a pointer token, still escaped) of the container at `at` starts. */
function childStart(text: string, at: number, token: string): number | undefined {
  const open = text[at];
  if (open !== "{" && open !== "[") return undefined;
  let found: number | undefined;
  let i = skipSpace(text, at + 1);
  for (let index = 0; i < text.length && text[i] !== "}" && text[i] !== "]"; index++) {
    let matches = String(index) === token;
    if (open === "{") {
      const keyEnd = stringEnd(text, i);
      if (keyEnd === undefined) return found;
      matches = pointerToken(decodeKey(text.slice(i, keyEnd))) === token;
      i = skipSpace(text, keyEnd);
      if (text[i] !== ":") return found;
      i = skipSpace(text, i + 1);
    }
    if (matches) {
      // The last key of that name wins, as in JSON.parse; an array's index is found once.
      found = i;
      if (open === "[") return found;
    }
    const end = valueEnd(text, i);
    if (end === undefined) return found;
    i = skipSpace(text, end);
    if (text[i] !== ",") break;
    i = skipSpace(text, i + 1);
  }
  return found;
}

function decodeKey(quoted: string): string {
  try {
    return JSON.parse(quoted) as string;
  } catch {
    // An escape JSON.parse refuses: the key as written, which only places a problem's line.
    return quoted.slice(1, -1);
  }
}

/** The offset just past the string whose opening quote is at `at`. */
function stringEnd(text: string, at: number): number | undefined {
  if (text[at] !== '"') return undefined;
  for (let i = at + 1; i < text.length; i++) {
    const c = text[i];
    if (c === "\\") i++;
    else if (c === '"') return i + 1;
  }
  return undefined;
}

/** The offset just past the value that starts at `at`, skipping nested values without recursion. */
function valueEnd(text: string, at: number): number | undefined {
  const c = text[at];
  if (c === '"') return stringEnd(text, at);
  if (c === "{" || c === "[") {
    let depth = 0;
    for (let i = at; i < text.length;) {
      const d = text[i];
      if (d === '"') {
        const end = stringEnd(text, i);
        if (end === undefined) return undefined;
        i = end;
        continue;
      }
      if (d === "{" || d === "[") depth++;
      else if (d === "}" || d === "]") depth--;
      i++;
      if (depth === 0) return i;
    }
    return undefined;
  }
  let i = at;
  while (i < text.length && !",}] \t\r\n".includes(text[i]!)) i++;
  return i > at ? i : undefined;
}

function skipSpace(text: string, at: number): number {
  let i = at;
  while (i < text.length && " \t\r\n".includes(text[i]!)) i++;
  return i;
}
