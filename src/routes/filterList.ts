// A search's answer at request time: a list file of the build keeping only the packages whose
// internal_name contains the search bytes (a case-sensitive substring, as the original matched).
// The preview server calls it and the Cloudflare worker embeds its source verbatim, so it is written
// in the JavaScript that CloudFront Functions accept, like matchRequest.ts. Its output has the bytes
// the build would write for the same list: compact JSON, keys in their order, non-ASCII as \uXXXX.

import { escapeNonAscii } from "../util/asciiJson.js";

/** `list` (a list file's text) with only the packages whose internal_name contains `search` (a byte string). */
export function filterList(list: string, search: string): string {
  const packages = JSON.parse(list) as { internal_name: string }[];
  const kept: string[] = [];
  for (let i = 0; i < packages.length; i++) {
    // Names are ASCII, so a byte string compares with them as text; a byte above 127 never matches.
    if (packages[i]!.internal_name.indexOf(search) >= 0) kept.push(JSON.stringify(packages[i]));
  }
  return escapeNonAscii(`[${kept.join(",")}]`);
}
