// The catalogue's coders as a server config lists them. A server cannot hex-encode a value at
// request time, so its config maps each coder, as sent, to the folder its lists are stored under:
// every coder of every host, once (a host without that coder has no such folder, so its request
// falls back to the host's empty list as for any unknown coder). A coder reaches a config only as
// these: a pattern whose every character is escaped, and a hex key.
import { coderKey, utf8Bytes } from "../../routes/filterValue.js";
import { valuePattern } from "../../routes/valuePattern.js";
import type { CatalogueNames } from "../target.js";

export interface ListedCoder {
  /** The folder of the coder's lists: lowercase hex, maybe cut into folders. */
  key: string;
  /** Regex (no anchors, no capture group) of the coder as sent in a path segment. */
  path: string;
  /** Regex of the coder as sent in a query value. */
  query: string;
}

export function listedCoders(names: CatalogueNames): ListedCoder[] {
  const coders = [...new Set([...names.coders.values()].flat())].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return coders.map((coder) => ({
    key: coderKey(utf8Bytes(coder)),
    path: valuePattern(coder, "path"),
    query: valuePattern(coder, "query"),
  }));
}
