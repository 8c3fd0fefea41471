// The route table and the reference router as source text, for the code that routes at the edge
// (the CloudFront function, the Cloudflare worker) exactly like the preview server. Functions are
// embedded by their compiled source, so the edge runs the very code the preview server runs.
import { filterList } from "../../routes/filterList.js";
import { escapeNonAscii } from "../../util/asciiJson.js";
import { coderKey, decodeValue, KEY_CHUNK, utf8Bytes } from "../../routes/filterValue.js";
import { matchFileRequest, matchRequest } from "../../routes/matchRequest.js";
import { PORTABLE_ROUTES, type PortableRoutes } from "../../routes/routeTable.js";

/**
 * Declarations of TABLE (the route table), then of each of `constants` as JSON, then the function
 * matchRequest with the filterValue.ts functions and constant it calls, so the code stands alone.
 * The caller's handler calls it as `matchRequest(TABLE, method, target)`. When the table keeps the
 * package files' routes, matchFileRequest comes too, which the handler calls first; a host that
 * serves the package files without the router (CloudFront) passes a table without them (and
 * without any route its handler never lets reach the router), and matchFileRequest stays out.
 */
export function embedRouter(constants: Record<string, unknown>, table: PortableRoutes = PORTABLE_ROUTES): string[] {
  const files = table.files.length > 0;
  return [
    `const TABLE = ${JSON.stringify(table)};`,
    `const KEY_CHUNK = ${JSON.stringify(KEY_CHUNK)};`,
    ...Object.entries(constants).map(([name, value]) => `const ${name} = ${JSON.stringify(value)};`),
    ...[matchRequest, ...(files ? [matchFileRequest] : []), decodeValue, utf8Bytes, coderKey].flatMap((f) => [
      "",
      String(f),
    ]),
  ];
}

/**
 * The function filterList with the one it calls, for code that answers a search: it calls
 * `filterList(text of the list, match.search)`. Only for hosts that can read a file at request time.
 */
export function embedFilterList(): string[] {
  return [filterList, escapeNonAscii].flatMap((f) => ["", String(f)]);
}

/**
 * Embedded source as small as it goes without renaming anything, for a host that limits a
 * function's size (CloudFront: 10 KB): each piece (one function, one declaration) on one line,
 * without indentation, blank lines, whole-line comments or the spaces no token needs. A line that
 * may end in a comment (it holds `//` or `/*`) keeps its line break. Compacting a list is compacting
 * each piece. Safe for the embedded code: no string, template literal or regular expression in it
 * holds a space or a quote it would mistake, none spans lines, and every statement ends in `;` or `}`
 * (test/servers/cloudfront.test.ts checks that compacting changes no function).
 */
export function compactSource(pieces: readonly string[]): string[] {
  return pieces
    .map((piece) =>
      piece
        .split("\n")
        .map((line) => line.trim())
        .filter((line) => line !== "" && !line.startsWith("//"))
        .map(squeeze)
        .reduce((code, line) => code + joint(code, line) + line, ""),
    )
    .filter((piece) => piece !== "");
}

/** What goes between two lines of a piece: nothing, a space where tokens would merge, a line break after a possible comment. */
function joint(code: string, line: string): string {
  if (code === "") return "";
  const last = code.slice(code.lastIndexOf("\n") + 1);
  if (last.includes("//") || last.includes("/*")) return "\n";
  return spaceNeeded(code.charAt(code.length - 1), line.charAt(0)) ? " " : "";
}

const WORD = /[\w$]/;

/** True when a space must stay between these two characters: two words, or two that would form `++`, `--`, `//` or `/*`. */
function spaceNeeded(before: string, after: string): boolean {
  if (WORD.test(before) && WORD.test(after)) return true;
  return (before === after && "+-/".includes(before)) || (before === "/" && after === "*");
}

/** One line without the spaces between tokens that no token needs; string and template literals stay as they are. */
function squeeze(line: string): string {
  let out = "";
  let i = 0;
  while (i < line.length) {
    const c = line[i]!;
    if (c === '"' || c === "'" || c === "`") {
      let end = i + 1;
      while (end < line.length && line[end] !== c) end += line[end] === "\\" ? 2 : 1;
      out += line.slice(i, end + 1);
      i = end + 1;
    } else if (c === " ") {
      while (line[i] === " ") i++;
      if (spaceNeeded(out.charAt(out.length - 1), line.charAt(i))) out += " ";
    } else {
      out += c;
      i++;
    }
  }
  return out;
}
