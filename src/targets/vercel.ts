// Vercel: `vercel.json` in the deployed folder. Rewrites run only after the filesystem found no file
// (hosting.md, trap 3), which the build's layout allows for: v2 has no files of its own, so every v2
// URL reaches the rewrites, and a trailing-slash URL names no file either. Every parameter of a
// source and every query value is constrained to the name pattern or to one catalogue value, so no
// other value reaches a path: a value no package has meets a catch-all whose destination is a fixed
// file (the host's empty list).
//
// Coders. A coder's list is a hex-named file, so each coder has its own rewrites. In a path, Vercel
// matches a source against the path as sent (still percent-encoded), so the coder's segment is
// valuePattern's regex of every encoding of its bytes. In a query, `has` matches the value decoded
// (`+` a space), as Next.js's matchHas that Vercel's docs describe: valuePattern does not apply, and
// the value is written as a regex of its characters, each but letters and digits as `\xHH`. Only
// ASCII has an escape that JavaScript, PCRE and RE2 all read alike, and a coder never goes into a
// config raw, so a coder with other characters has no `?coder=` rewrite (the target says so).
//
// matchHas also treats an empty value as absent (`has` fails, `missing` holds), as the API does, and
// reads the last of a repeated parameter. Searches need code: a request with a `query` meets no
// rewrite, so Vercel answers it with 404.html, the JSON error body.
//
// The browse site and the OpenAPI document are files at their own paths, which the filesystem
// serves before any rewrite (a folder's index.html at the folder's URL, the home page at `/`); their
// types come from `headers` (vercelHeaders).
import { assertValidName, NAME_PATTERN_BODY } from "../catalogue/names.js";
import { renderNotFound } from "../render/renderApi.js";
import {
  extensionOf,
  FILE_ROUTES,
  SITE_FEEDS,
  fileFor,
  PACKAGE_FILE_TYPES,
  packageCacheControl,
  type FileRoute,
  RESPONSE_HEADERS,
  routePaths,
  SITE,
  SITE_HEADERS,
  SHORT_CACHE_HEADERS,
  SITE_TYPES,
  type Route,
  type RouteParams,
} from "../routes/routeTable.js";
import { PARAM_KINDS, type Param } from "../routes/routeParams.js";
import {
  escapeRegex,
  fillByPosition,
  fillTemplate,
  filePathPattern,
  paramOf,
  pathPattern,
  segmentsOf,
} from "../routes/routeSyntax.js";
import { valuePattern } from "../routes/valuePattern.js";
import { UsageError } from "../util/errors.js";
import type { CatalogueNames } from "../render/catalogueNames.js";
import type { Target, TargetFile } from "./target.js";
import { appendAll } from "../util/appendAll.js";

/** What @vercel/routing-utils' schema allows: rewrites in vercel.json, and characters in a source or a `has` value. */
export const MAX_VERCEL_REWRITES = 2048;
export const MAX_VERCEL_PATTERN = 4096;

interface Condition {
  type: "query";
  key: string;
  value?: string;
}

interface Rewrite {
  source: string;
  destination: string;
  has?: Condition[];
  missing?: Condition[];
}

/** Every query key of the table: a path's plain rewrite requires them all absent. */
const QUERY_KEYS = [...new Set(routePaths().flatMap((p) => p.queries.flatMap((r) => r.query.map((q) => q.key))))];

/**
 * What a query rewrite requires absent: the search's parameters, since no rewrite answers a search.
 * The other routes before it in the table need no exclusion: their catch-alls match first.
 */
const NOT_SEARCH: Condition[] = routePaths()
  .flatMap((p) => p.queries)
  .filter((r) => r.search)
  .flatMap((r) => r.query.map((q) => ({ type: "query" as const, key: q.key })));

/**
 * A route path as a Vercel source (path-to-regexp) with one trailing slash optional. Each parameter
 * is `value(param)`, or matches any value of its kind: `:host(NAME)` (a name fills the destination),
 * an unnamed group for the rest, which never reaches one.
 */
function source(route: Route, value: (param: Param) => string | undefined = () => undefined): string {
  return pathPattern(
    route.path.split("/").slice(1),
    (param) => value(param) ?? (PARAM_KINDS[param] === "name" ? `:${param}(${NAME_PATTERN_BODY})` : "([^/]+)"),
    "{/}?",
  ).pattern;
}

/** A route's file as a Vercel destination: `{host}` becomes `:host`. */
function destination(file: string): string {
  return `/${fillTemplate(file, (param) => `:${param}`)}`;
}

/** A decoded value as a regex of exactly it: letters and digits as themselves, other ASCII as `\xHH`; undefined beyond ASCII. */
function decodedPattern(value: string): string | undefined {
  if (!/^[\x20-\x7e]+$/.test(value)) return undefined;
  return [...value]
    .map((c) => (/[A-Za-z0-9]/.test(c) ? c : `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`))
    .join("");
}

/**
 * A path parameter's value in a source: a name or label as itself (it passes the name rule, whose
 * characters path-to-regexp takes literally), a coder as an unnamed group of every encoding of its bytes.
 */
function pathValue(param: Param, value: string): string {
  return PARAM_KINDS[param] === "text" ? `(${valuePattern(value, "path")})` : assertValidName(value, param);
}

/** The values of a host that the build wrote a file for, for each combination of a filter route's parameters. */
function combinations(route: Route, host: string, names: CatalogueNames): RouteParams[] {
  const params = new Set([
    ...route.path.split("/").flatMap((s) => paramOf(s) ?? []),
    ...(route.query ?? []).map((q) => q.param),
  ]);
  const categories = names.categories.get(host) ?? new Map<string, readonly string[]>();
  if (params.has("category") && params.has("coder"))
    return [...categories].flatMap(([category, coders]) => coders.map((coder) => ({ host, category, coder })));
  if (params.has("category")) return [...categories.keys()].map((category) => ({ host, category }));
  return (names.coders.get(host) ?? []).map((coder) => ({ host, coder }));
}

/** The rewrites of one filter route: each value the build wrote a list for, then any other value to the empty list. */
function filterRewrites(route: Route, names: CatalogueNames): Rewrite[] {
  const rewrites: Rewrite[] = [];
  const missing = route.query ? { missing: NOT_SEARCH } : {};
  for (const host of names.hosts) {
    for (const params of combinations(route, host, names)) {
      const has = (route.query ?? []).map((q) => ({
        type: "query" as const,
        key: q.key,
        value: PARAM_KINDS[q.param] === "text" ? decodedPattern(params[q.param]!) : escapeRegex(params[q.param]!),
      }));
      if (has.some((c) => c.value === undefined)) continue;
      rewrites.push({
        source: source(route, (param) => (param === "query" ? undefined : pathValue(param, params[param]!))),
        ...(has.length > 0 ? { has: has.map((c) => ({ ...c, value: `^${c.value!}$` })) } : {}),
        ...missing,
        destination: `/${fileFor(route.id, params)}`,
      });
    }
  }
  rewrites.push({
    source: source(route),
    ...(route.query ? { has: route.query.map((q) => ({ type: "query" as const, key: q.key })) } : {}),
    ...missing,
    destination: destination(route.fallback!),
  });
  return rewrites;
}

export function renderVercelConfig(names: CatalogueNames): string {
  const rewrites: Rewrite[] = [];
  for (const path of routePaths()) {
    for (const route of path.queries) {
      if (route.search) continue;
      if (route.fallback !== undefined) {
        appendAll(rewrites, filterRewrites(route, names));
        continue;
      }
      const { key, param } = route.query[0]!;
      rewrites.push({
        source: source(route),
        // The named group fills the destination's parameter of that name; the anchors make the whole value match.
        has: [{ type: "query", key, value: `^(?<${param}>${NAME_PATTERN_BODY})$` }],
        missing: NOT_SEARCH,
        destination: destination(route.file),
      });
    }
    const plain = path.plain;
    if (!plain) continue;
    if (plain.fallback !== undefined) appendAll(rewrites, filterRewrites(plain, names));
    else if (plain.path === `/${plain.file}`) {
      // Served by the filesystem as it is; only the trailing-slash form needs a rule.
      rewrites.push({
        source: pathPattern(path.segments, (param) => `:${param}(${NAME_PATTERN_BODY})`, "/").pattern,
        destination: destination(plain.file),
      });
    } else {
      const missing =
        path.queries.length > 0 ? { missing: QUERY_KEYS.map((key) => ({ type: "query" as const, key })) } : {};
      rewrites.push({ source: source(plain), ...missing, destination: destination(plain.file) });
    }
  }
  rewrites.push(...fileRewrites());
  if (rewrites.length > MAX_VERCEL_REWRITES)
    throw new UsageError(
      `the catalogue needs ${rewrites.length} Vercel rewrites (2 per category, coder and category-coder pair), more than the ${MAX_VERCEL_REWRITES} vercel.json may hold; serve it with the cloudflare or cloudfront target`,
    );
  const long = rewrites.find((r) =>
    [r.source, ...(r.has ?? []).map((c) => c.value ?? "")].some((p) => p.length > MAX_VERCEL_PATTERN),
  );
  if (long)
    throw new UsageError(
      `a coder's pattern for ${long.destination} is longer than the ${MAX_VERCEL_PATTERN} characters vercel.json allows; serve the catalogue with the cloudflare or cloudfront target`,
    );
  return `${JSON.stringify({ rewrites, headers: vercelHeaders() }, null, 2)}\n`;
}

/**
 * A package file's URL (FILE_ROUTES) as a source: each parameter named by its place (`:p0`, `:p1`;
 * path-to-regexp takes a name once) and held to the name pattern, each suffix escaped.
 */
function fileSource(route: FileRoute): string {
  return filePathPattern(segmentsOf(route.path), (_, index) => `:p${index}(${NAME_PATTERN_BODY})`).pattern;
}

/**
 * The package files' aliases, each onto its stored file (the filesystem serves a stored file at its
 * own URL): the n-th name of the source fills the n-th of the file, so a mismatched pair names no file.
 */
function fileRewrites(): Rewrite[] {
  return FILE_ROUTES.filter((route) => route.alias).map((route) => ({
    source: fileSource(route),
    destination: `/${fillByPosition(route.file, (index) => `:p${index}`)}`,
  }));
}

/**
 * The `headers` of vercel.json. Vercel matches a source against the URL asked for, whatever answers
 * it (a file, a rewrite's file, 404.html), and types a file by its extension where no header sets
 * one. So: CORS and nosniff on every path; the API's type on every path but those that a site file
 * of another type may answer (`/`, such a file at the root, and in a site folder a URL ending in `/`
 * or in such an extension), so that every other 404, 404.html's JSON body, is typed JSON; and the
 * site's type on a script, which Vercel types by the name before RFC 9239. A site URL that names no
 * file is the one 404 left typed text/html (see `cannot`). The negative lookahead is what Vercel's
 * docs write for "every path but" (`/((?!api/).*)`).
 */
function vercelHeaders(): { source: string; headers: { key: string; value: string }[] }[] {
  const json = RESPONSE_HEADERS["Content-Type"];
  const own = Object.keys(SITE_TYPES).filter((extension) => SITE_TYPES[extension] !== json);
  const atRoot = [SITE.index, ...SITE.files].filter((file) => own.includes(extensionOf(file)!));
  const folders = `(?:${SITE.folders.map(escapeRegex).join("|")})`;
  const ownTyped = `(?:${atRoot.map(escapeRegex).join("|")})?$|${folders}/(?:.*/)?(?:[^/]+\\.(?:${own.join("|")}))?$`;
  const entries = (headers: Record<string, string>) => Object.entries(headers).map(([key, value]) => ({ key, value }));
  return [
    // The short lifetime everywhere; the package files' rules below replace it.
    { source: "/(.*)", headers: entries({ ...SITE_HEADERS, ...SHORT_CACHE_HEADERS }) },
    { source: `/((?!${ownTyped}).*)`, headers: entries({ "Content-Type": json }) },
    { source: `/(${folders}/(?:.*/)?[^/]+\\.js)`, headers: entries({ "Content-Type": SITE_TYPES.js! }) },
    // Each host's feeds, whose extensions Vercel does not type so.
    ...Object.values(SITE_FEEDS).map((file) => ({
      source: `/${file.split("{host}").map(escapeRegex).join(`:host(${NAME_PATTERN_BODY})`)}`,
      headers: entries({ "Content-Type": SITE_TYPES[extensionOf(file)!]! }),
    })),
    // The package files at each URL, after the API's type, which they replace: their type and
    // lifetime. Where two match, the later wins: in reverse, so the first of FILE_ROUTES does (the
    // Homebrew Browser's temp_files.zip has the shape of an archive's path).
    ...[...FILE_ROUTES].reverse().map((route) => ({
      source: fileSource(route),
      headers: entries({
        "Content-Type": PACKAGE_FILE_TYPES[route.kind],
        "Cache-Control": packageCacheControl(route.kind),
      }),
    })),
  ];
}

function vercelFiles(names: CatalogueNames): TargetFile[] {
  return [
    { path: "vercel.json", content: renderVercelConfig(names) },
    // Vercel answers a miss in a static deployment with 404.html: the JSON error body.
    { path: "404.html", content: renderNotFound() },
  ];
}

export const vercel: Target = {
  id: "vercel",
  title: "Vercel",
  kind: "platform",
  packageFiles: "rewrite",
  cannot: {
    "v2-query": "a search needs code at request time, which rewrites cannot run: ?query= answers 404",
    "v2-coder":
      "has matches the decoded value, and a coder reaches vercel.json only escaped, as \\xHH, which reads alike in every regex engine only for ASCII: a coder with other characters (Jānis) answers [] to ?coder=, like an unknown one (its /v1 path works)",
    "v2-category-coder": "as for ?coder=, a coder with characters beyond ASCII answers []",
    "trailing-slash": "the trailing-slash form of ?coder= has the limits of ?coder=",
    "not-found":
      "a has condition reads the last of a repeated parameter and counts an empty one as absent, so ?package=a&package=a answers a and ?package= the whole list; /404.json, a file of the build, answers 200 (files come before rewrites)",
    "package-files":
      "a header's source matches the URL, not what answers it: a missing package file's 404 (404.html, the JSON error body) carries the type of the file it would be; every package file of the build is served right, each alias by a rewrite onto the stored file",
    hbb: "a header's source matches the URL, not what answers it: a missing file of the Homebrew Browser's (another host's list) answers the JSON 404 typed as the file it would be; every file of the build and every stub is served right",
    site: "a header's source matches the URL, not what answers it, and a URL of the site's pages and assets must carry its file's type: where the build has no such file, the 404 (404.html, the JSON error body) is text/html; every page and asset of the build is served right",
  },
  config: (_options, names) => vercelFiles(names),
  deployFiles: vercelFiles,
  hbb: "no: Vercel redirects every plain HTTP request to HTTPS (308), and nothing turns that off (Vercel's documentation); serve /hbb/ from another host",
  usage:
    "`npx shopfront build --target vercel`, then `vercel deploy dist` (`vercel.json` and `404.html` are in its root)",
};
