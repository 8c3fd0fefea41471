// How a route of the table is written in a host's syntax. The route table's helpers, the edge
// functions' table and every target translate routes here, and each caller only says what a
// parameter becomes (a checked name, `$1`, `{re.x.1}`, `:host`), so a parameter added to the table
// needs no change in this module. Regexes use no look-around, so PCRE and RE2 read them alike.
// Names go in only as NAME_PATTERN_BODY, which has no capturing group of its own
// (test/servers/serverTargets.test.ts checks that), so a config can number its captures: $1, %1, {re.x.1}.
import { NAME_PATTERN_BODY } from "../catalogue/names.js";
import type { Param, RouteQuery } from "./routeParams.js";

const PLACEHOLDER = /\{(\w+)\}/g;
const PARAM_SEGMENT = /^\{(\w+)\}$/;

/** A name, as one capture group. */
export const NAME_CAPTURE = `(${NAME_PATTERN_BODY})`;

/** A path (`/v1/{host}/packages`) or file (`v1/{host}/packages`) template as its segments. */
export function segmentsOf(template: string): string[] {
  return (template.startsWith("/") ? template.slice(1) : template).split("/");
}

/** The parameter a segment stands for (`{host}`: host); undefined for a literal segment. */
export function paramOf(segment: string): Param | undefined {
  return PARAM_SEGMENT.exec(segment)?.[1] as Param | undefined;
}

/**
 * A segment that holds a parameter, alone (`{name}`) or followed by a fixed suffix (`{name}.zip`,
 * for the package files' routes): the parameter and the suffix (`""` when alone). Undefined for a
 * literal segment.
 */
export function segmentParam(segment: string): { param: Param; suffix: string } | undefined {
  const match = /^\{(\w+)\}(\.[a-z]+)?$/.exec(segment);
  return match ? { param: match[1] as Param, suffix: match[2] ?? "" } : undefined;
}

/** The parameters of a template (path or file) in the order they appear, repeats included. */
export function paramsInOrder(template: string): Param[] {
  return [...template.matchAll(PLACEHOLDER)].map((m) => m[1] as Param);
}

/**
 * `template` with its n-th `{param}` replaced by `valueOf(n)`: how a route whose path names a
 * parameter twice (`/api/contents/{name}/{name}.zip`) maps each occurrence onto the file's
 * occurrence at the same place, so a request whose two names differ names a file that does not exist.
 */
export function fillByPosition(template: string, valueOf: (index: number, param: Param) => string): string {
  let index = 0;
  return template.replace(PLACEHOLDER, (_, param: string) => valueOf(index++, param as Param));
}

/** `template` with each `{param}` replaced by `valueOf(param)`. */
export function fillTemplate(template: string, valueOf: (param: Param) => string): string {
  return template.replace(PLACEHOLDER, (_, param: string) => valueOf(param as Param));
}

/**
 * What each parameter of a query route's file becomes: `value` (the host's reference to the query
 * value) for the parameter the query carries, `path(param)` for those of the path.
 */
export function withQueryValue(
  query: RouteQuery,
  value: string,
  path: (param: Param) => string,
): (param: Param) => string {
  return (param) => (param === query.param ? value : path(param));
}

/** A literal (a path segment, a file name, a query key) as a regex that matches exactly it. */
export function escapeRegex(literal: string): string {
  return literal.replace(/[\\^$.*+?()[\]{}|]/g, "\\$&");
}

export interface PathPattern {
  /** The path without anchors: `/v1/(NAME)/packages/?` with the default trailing slash. */
  pattern: string;
  /** The parameter of each capture, in order: capture 1 is `params[0]`. */
  params: Param[];
  /** The number of `param`'s capture group, for hosts that refer to captures by number. */
  group(param: Param): number;
}

/**
 * A route's URL path as a pattern: each parameter segment becomes `capture(param, index)`, which
 * holds exactly one capture group (by default the name pattern, numbered), and literal segments are
 * escaped. `trailingSlash` is the host's way to say "one optional trailing slash".
 */
export function pathPattern(
  segments: readonly string[],
  capture: (param: Param, index: number) => string = () => NAME_CAPTURE,
  trailingSlash = "/?",
): PathPattern {
  const params: Param[] = [];
  const parts = segments.map((segment) => {
    const param = paramOf(segment);
    if (param === undefined) return escapeRegex(segment);
    params.push(param);
    return capture(param, params.length - 1);
  });
  const group = (param: Param) => {
    const index = params.indexOf(param);
    if (index < 0) throw new Error(`internal: the path /${segments.join("/")} has no {${param}}`);
    return index + 1;
  };
  return { pattern: `/${parts.join("/")}${trailingSlash}`, params, group };
}

export interface QueryPatterns {
  /** The parameter more than once, with or without values. */
  repeated: string;
  /** The parameter once with a valid name, which is the capture. Test `repeated` first. */
  valid: string;
  /** The parameter present at all. Tested after the other two, it means: present, but not a valid name. */
  present: string;
}

/**
 * Regexes over a query string as sent (`a=1&package=snake`) for a route's query parameter `key`.
 * Each one matches from wherever the query starts to its end: put `^` in front to match a query
 * string alone, or the path and `\?` to match a whole request-target. `capture` holds the value's
 * one capture group.
 */
export function queryPatterns(key: string, capture = NAME_CAPTURE): QueryPatterns {
  const literal = escapeRegex(key);
  const before = "(?:.*&)?";
  return {
    repeated: `${before}${literal}(?:=[^&]*)?&(?:.*&)?${literal}(?:[=&].*)?$`,
    valid: `${before}${literal}=${capture}(?:&.*)?$`,
    present: `${before}${literal}(?:[=&].*)?$`,
  };
}

/**
 * queryPatterns for a filter's parameter (`category`, `coder`, `query`), where an empty value
 * counts as absent: only `key=` followed by at least one character is the parameter. `capture`
 * holds the value's one capture group; `present` (tested after the other two) is the parameter
 * once with a value `capture` does not match.
 */
export function filterQueryPatterns(key: string, capture = "([^&]+)"): QueryPatterns {
  const pair = `${escapeRegex(key)}=[^&]+`;
  return {
    repeated: `(?:.*&)?${pair}&(?:.*&)?${pair}(?:&.*)?$`,
    valid: `(?:.*&)?${escapeRegex(key)}=${capture}(?:&.*)?$`,
    present: `(?:.*&)?${pair}(?:&.*)?$`,
  };
}

/**
 * A file route's URL path (segments that may be `{name}.zip`) as a pattern with no trailing slash
 * (a file's URL has none): each parameter is `capture(param, index)` (one capture group) followed
 * by its suffix, escaped; literal segments are escaped. The captures are numbered in path order.
 */
export function filePathPattern(
  segments: readonly string[],
  capture: (param: Param, index: number) => string = () => NAME_CAPTURE,
): { pattern: string; params: Param[] } {
  const params: Param[] = [];
  const parts = segments.map((segment) => {
    const found = segmentParam(segment);
    if (found === undefined) return escapeRegex(segment);
    params.push(found.param);
    return `${capture(found.param, params.length - 1)}${escapeRegex(found.suffix)}`;
  });
  return { pattern: `/${parts.join("/")}`, params };
}
