// Regular expressions for the server configs that route with regexes (Apache, Caddy, lighttpd),
// derived from the route table. They use no look-around, so PCRE and RE2 read them alike. Names go
// in only as NAME_PATTERN_BODY, which has no capturing group of its own (test/serverTargets.test.ts
// checks that), so a config can number its captures: $1, %1, {re.x.1}.
import { NAME_PATTERN_BODY } from "../catalogue/names.js";

export type Param = "host" | "name";

/** A name, as one capture group. */
export const NAME_CAPTURE = `(${NAME_PATTERN_BODY})`;

/** A literal (a path segment, a file name, a query key) as a regex that matches exactly it. */
export function escapeRegex(literal: string): string {
  return literal.replace(/[\\^$.*+?()[\]{}|]/g, "\\$&");
}

export interface PathPattern {
  /** The path without anchors: `/v1/(NAME)/packages/?`, one optional trailing slash. */
  pattern: string;
  /** The parameter of each capture group, in order: capture 1 is `params[0]`. */
  params: Param[];
}

/**
 * A route's URL path as a regex. `{host}` and `{name}` become `capture(param)`, a pattern with
 * exactly one capture group (by default the name pattern); literal segments are escaped.
 */
export function pathPattern(segments: readonly string[], capture: (param: Param) => string = () => NAME_CAPTURE): PathPattern {
  const params: Param[] = [];
  const parts = segments.map((segment) => {
    if (!segment.startsWith("{")) return escapeRegex(segment);
    const param = segment.slice(1, -1) as Param;
    params.push(param);
    return capture(param);
  });
  return { pattern: `/${parts.join("/")}/?`, params };
}

/** A route's file with each `{param}` replaced by `reference(param)`, such as `$1` or `{re.path.1}`. */
export function fileTemplate(file: string, reference: (param: Param) => string): string {
  return file.replace(/\{(host|name)\}/g, (_, param: Param) => reference(param));
}

export interface QueryPatterns {
  /** The parameter more than once, with or without values. */
  repeated: string;
  /** The parameter once with a valid name, which is capture 1. Test `repeated` first. */
  valid: string;
  /** The parameter present at all. Tested after the other two, it means: present, but not a valid name. */
  present: string;
}

/**
 * Regexes over a query string as sent (`a=1&package=snake`) for a route's query parameter. Each one
 * matches from wherever the query starts to its end: put `^` in front to match a query string alone,
 * or the path and `\?` to match a whole request-target.
 */
export function queryPatterns(param: string): QueryPatterns {
  const key = escapeRegex(param);
  const before = "(?:.*&)?";
  return {
    repeated: `${before}${key}(?:=[^&]*)?&(?:.*&)?${key}(?:[=&].*)?$`,
    valid: `${before}${key}=${NAME_CAPTURE}(?:&.*)?$`,
    present: `${before}${key}(?:[=&].*)?$`,
  };
}
