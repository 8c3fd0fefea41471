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
 * The caller's handler calls it as `matchRequest(TABLE, method, target)`. With `files`, the table
 * keeps the package files' routes and matchFileRequest comes too, which the handler calls first; a
 * host that serves the package files without the router (CloudFront) leaves both out.
 */
export function embedRouter(constants: Record<string, unknown>, files = true): string[] {
  const table: PortableRoutes = files ? PORTABLE_ROUTES : { ...PORTABLE_ROUTES, files: [] };
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
 * Embedded source without indentation, blank lines or whole-line comments, for a host that limits a
 * function's size (CloudFront: 10 KB, and the router's indentation alone is a fifth of it). Safe for
 * the embedded functions: none holds a string or template literal that spans lines.
 */
export function compactSource(lines: readonly string[]): string[] {
  return lines
    .flatMap((text) => text.split("\n"))
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("//"));
}
