// Servers that cannot hex-encode a value at request time (nginx, Apache, Caddy, lighttpd) list the
// catalogue's coders in their config: each as the patterns of routes/valuePattern.ts, which match
// every way a client sends it, mapped to its folder (coderKey). A value that matches none is one
// no package has, and the route answers its fallback.
import { coderKey, utf8Bytes } from "../../routes/filterValue.js";
import { valuePattern } from "../../routes/valuePattern.js";
import type { CatalogueNames } from "../../render/catalogueNames.js";
import { compareCodePoints } from "../../util/codePoints.js";

export interface ListedCoder {
  /** Matches the coder's bytes as sent in a path segment, without anchors. */
  path: string;
  /** Matches the coder's bytes as sent in a query value, without anchors. */
  query: string;
  /** The coder's folder: lowercase hex, never anything a config would read as syntax. */
  key: string;
}

/**
 * Every coder of the catalogue once, whatever its host: a coder's key names the same folder under
 * every host, and a host without that coder has no such file, so it answers its fallback.
 */
export function listedCoders(names: CatalogueNames): ListedCoder[] {
  const coders = [...new Set([...names.coders.values()].flat())].sort(compareCodePoints);
  return coders.map((coder) => ({
    path: valuePattern(coder, "path"),
    query: valuePattern(coder, "query"),
    key: coderKey(utf8Bytes(coder)),
  }));
}

/** The note at the top of a config that lists coders, in the file's comment syntax. */
export function listedCodersNote(comment: string, target: string, count: number, scaling: readonly string[]): string[] {
  return [
    `${comment} It lists the catalogue's ${count} coder(s), each as the ways a client may send it, mapped to`,
    `${comment} its folder: regenerate it (shopfront config ${target} ...) whenever a coder is added or`,
    `${comment} renamed, or requests for the new coder answer [] as if it had no packages.`,
    ...scaling.map((line) => `${comment} ${line}`),
  ];
}
