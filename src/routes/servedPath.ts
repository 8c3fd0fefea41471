// The URL path a file of the build is served at, as the reference router answers it: the file's own
// path for most, `/` for the home page, a coder's list at its coder percent-encoded (its folder is
// the hex of the coder's bytes). A file no URL answers with 200 on its own (the 404 body, a host's
// empty list, a host's config file, a copy at an alias's path, which is another URL of the stored
// file) has none. The file index (src/trust/) lists each served file at this path.
import { matchFileRequest, matchRequest } from "./matchRequest.js";
import { PARAM_KINDS } from "./routeParams.js";
import { escapeRegex, fillTemplate, paramOf, segmentsOf } from "./routeSyntax.js";
import { PORTABLE_ROUTES, ROUTES, SITE } from "./routeTable.js";

/** A route's file template as a pattern capturing its parameters (a coder's hex may span folders), with its path. */
const TEMPLATES = ROUTES.filter((route) => route.query === undefined).map((route) => {
  const params = segmentsOf(route.file).flatMap((segment) => paramOf(segment) ?? []);
  const pattern = segmentsOf(route.file)
    .map((segment) => {
      const param = paramOf(segment);
      if (param === undefined) return escapeRegex(segment);
      return PARAM_KINDS[param] === "text" ? "([0-9a-f]+(?:/[0-9a-f]+)*)" : "([^/]+)";
    })
    .join("/");
  return { path: route.path, params, pattern: new RegExp(`^${pattern}$`) };
});

/** A coder's folder (the hex of its bytes, maybe cut into folders) as its bytes percent-encoded. */
function percentEncodedHex(hex: string): string {
  return hex.replaceAll("/", "").replace(/../g, (pair) => `%${pair.toUpperCase()}`);
}

/** The URL paths that could answer with `file`: its own path, `/` for the home page, a route's path filled from it. */
function candidates(file: string): string[] {
  const found = [file === SITE.index ? "/" : `/${file}`];
  for (const { path, params, pattern } of TEMPLATES) {
    const match = pattern.exec(file);
    if (match === null) continue;
    const values = new Map(params.map((param, i) => [param, match[i + 1]!]));
    found.push(
      fillTemplate(path, (param) =>
        PARAM_KINDS[param] === "text" ? percentEncodedHex(values.get(param)!) : values.get(param)!,
      ),
    );
  }
  return found;
}

/** The URL path (starting with `/`) that answers 200 with the bytes of `file`, a path of the built tree; undefined when none does. */
export function servedPathOf(file: string): string | undefined {
  return candidates(file).find((target) => {
    const match = matchFileRequest(PORTABLE_ROUTES, "GET", target) ?? matchRequest(PORTABLE_ROUTES, "GET", target);
    return match.status === 200 && match.file === file && match.search === undefined;
  });
}
