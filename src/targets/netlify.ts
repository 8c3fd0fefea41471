// Netlify: `_redirects` and `_headers` in the deploy root.
//
// Netlify's placeholders cannot check a value against a pattern, nor turn a coder into its hex key:
// `package=:name` would rewrite `?package=../../hosts` into a path. So every rule that names a file
// is explicit, written from the catalogue: one per host, package, category, coder and category-coder
// pair, in each route form of the table. A value that no rule names meets a catch-all placeholder
// rule that answers what the route answers for it (the host's empty list for a filter, the 404 for
// a package or a search), never a path built from it. Every rewrite is forced (`200!`), so a file can
// never shadow it (hosting.md, trap 3), and Netlify matches a rule with or without a trailing slash.
// The browse site and the OpenAPI document need no rule: Netlify serves a file at its own path (a
// folder's index.html at the folder's URL, the home page at `/`) before the last rule, which is not
// forced, answers 404; `_headers` leaves their types to their extensions (shared/headersFile.ts).
// Today's API (routes/todayRoutes.ts) needs none either: each of its URLs is its file's path. Rules
// from the catalogue's names would also name files the build may not have (a host's featured app
// when none qualifies, the default host's files under `/hosts/<host>/`, which stand at the root);
// without them such a URL meets the last rule's 404, as any URL with no file does. So does today's
// URL with a trailing slash, which names no file (nginx and the other servers answer it; the
// conformance suite asks a trailing slash of the v1 and v2 routes only).
//
// Paths: Netlify's docs ask for special characters in a rule's path to be URL-encoded, and a request
// for the same path written another way is served the same when deployed (netlify/cli#2990). A
// coder's segment is written fully encoded, `!'()*` too (a `*` is a splat), one form per coder.
// Query values: the engine compares a rule's text, as written, with the request's value decoded
// (`+` a space), so a coder can be a query condition only where its full encoding is itself
// (letters, digits, `-_.!~*'()`); any other goes to the catch-all, and the target says so in `cannot`.
//
// The cost is the number of rules: 2 per package, per category and per category-coder pair, 1 or 2
// per coder, 10 per host and 4 more. Netlify's engine tries them in order (as netlify-redirector,
// matching the last of 10,009 rules took 97 ms here, linear in the count), and Netlify's docs ask
// for placeholders from 10,000 rules on, which cannot check names: past that, the target refuses.
import { UsageError } from "../util/errors.js";
import { assertValidName } from "../catalogue/names.js";
import {
  fallbackFor,
  fileFor,
  NOT_FOUND_FILE,
  pathFor,
  routePaths,
  type Route,
  type RouteParams,
} from "../routes/routeTable.js";
import { PARAM_KINDS, type Param } from "../routes/routeParams.js";
import { fillTemplate, paramOf } from "../routes/routeSyntax.js";
import { TODAY_ROUTES } from "../routes/todayRoutes.js";
import { VERSION } from "../util/version.js";
import { renderHeadersFile } from "./shared/headersFile.js";
import type { CatalogueNames } from "../render/catalogueNames.js";
import { banner, type Target, type TargetFile } from "./target.js";
import { appendAll } from "../util/appendAll.js";

/** Netlify's threshold for recommending placeholders over explicit rules. */
export const MAX_NETLIFY_RULES = 10_000;

/** A path with every character but letters, digits and `-._~` percent-encoded: pathFor's, with `!'()*` too. */
function rulePath(path: string): string {
  return path.replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/**
 * A value as a query condition: itself for a name or label (they pass the name rule), a coder only
 * where its full encoding is itself, since the engine compares the decoded request value with the
 * rule's text. Undefined where no condition can name the value.
 */
function queryValue(param: Param, value: string): string | undefined {
  if (PARAM_KINDS[param] !== "text") return assertValidName(value, param);
  return encodeURIComponent(value) === value ? value : undefined;
}

function rule(from: string, to: string, status: string, query: readonly string[] = []): string {
  return [from, ...query, to, status].join("  ");
}

/** Every value combination of a route's parameters that the build wrote a file for, for one host. */
function combinations(route: Route, host: string, names: CatalogueNames): RouteParams[] {
  const params = new Set<Param>([
    ...route.path.split("/").flatMap((s) => paramOf(s) ?? []),
    ...(route.query ?? []).map((q) => q.param),
  ]);
  const categories = names.categories.get(host) ?? new Map<string, readonly string[]>();
  const base: RouteParams = params.has("host") ? { host } : {};
  if (params.has("query")) return [];
  if (params.has("name")) return (names.packages.get(host) ?? []).map((name) => ({ ...base, name }));
  if (params.has("category") && params.has("coder"))
    return [...categories].flatMap(([category, coders]) => coders.map((coder) => ({ ...base, category, coder })));
  if (params.has("category")) return [...categories.keys()].map((category) => ({ ...base, category }));
  if (params.has("coder")) return (names.coders.get(host) ?? []).map((coder) => ({ ...base, coder }));
  return [base];
}

/** The rules of one route for one host: each file it names, then what answers any other value. */
function routeRules(route: Route, host: string, names: CatalogueNames): string[] {
  const rules: string[] = [];
  const hostParams: RouteParams = route.path.includes("{host}") ? { host } : {};
  for (const params of route.search ? [] : combinations(route, host, names)) {
    const query = (route.query ?? []).map((q) => queryValue(q.param, params[q.param]!));
    if (query.some((value) => value === undefined)) continue;
    rules.push(
      rule(
        rulePath(pathFor(route.id, params)),
        `/${fileFor(route.id, params)}`,
        "200!",
        (route.query ?? []).map((q, i) => `${q.key}=${query[i]!}`),
      ),
    );
  }
  // A route without a fallback or query leaves any other value to the last rule's 404.
  if (route.fallback === undefined && route.query === undefined) return rules;
  // Any other value, a hostile one included: the route's answer for a value no package has, as a
  // fixed file; the placeholders only match, they never reach the destination.
  const from = rulePath(
    fillTemplate(route.path, (param) => (param === "host" ? assertValidName(host, "host") : `:${param}`)),
  );
  const to =
    route.search || route.fallback === undefined ? `/${NOT_FOUND_FILE}` : `/${fallbackFor(route.id, hostParams)}`;
  const status = to === `/${NOT_FOUND_FILE}` ? "404!" : "200!";
  rules.push(
    rule(
      from,
      to,
      status,
      (route.query ?? []).map((q) => `${q.key}=:${q.param}`),
    ),
  );
  return rules;
}

/** Today's routes: each URL is its file's path, served without a rule (see the top). */
const OWN_PATH_ROUTES: ReadonlySet<string> = new Set(TODAY_ROUTES.map((route) => route.id));

export function renderNetlifyRedirects(names: CatalogueNames): string {
  const rules: string[] = [];
  for (const path of routePaths((route) => !OWN_PATH_ROUTES.has(route.id))) {
    const hosts = path.segments.some((s) => paramOf(s) === "host") ? names.hosts : [""];
    for (const host of hosts) {
      for (const route of [...path.queries, ...(path.plain ? [path.plain] : [])])
        appendAll(rules, routeRules(route, host, names));
    }
  }
  // 404.json is a file of the build, but no route.
  rules.push(rule(`/${NOT_FOUND_FILE}`, `/${NOT_FOUND_FILE}`, "404!"), rule("/*", `/${NOT_FOUND_FILE}`, "404"));
  if (rules.length > MAX_NETLIFY_RULES) {
    throw new UsageError(
      `the catalogue needs ${rules.length} Netlify rules (2 per package, category and category-coder pair, 1 or 2 per coder), more than the ${MAX_NETLIFY_RULES} from which Netlify asks for placeholders, which cannot check names; serve it with the cloudflare or cloudfront target`,
    );
  }
  return [
    banner("#", "netlify", VERSION),
    "# Netlify reads it from the deploy root. First match wins; 200! rewrites even where a file exists.",
    ...rules,
    "",
  ].join("\n");
}

function netlifyFiles(names: CatalogueNames): TargetFile[] {
  return [
    { path: "_redirects", content: renderNetlifyRedirects(names) },
    { path: "_headers", content: renderHeadersFile() },
  ];
}

export const netlify: Target = {
  id: "netlify",
  title: "Netlify",
  kind: "platform",
  packageFiles: "copies",
  cannot: {
    "v2-query": "a search needs code at request time, which rules cannot run: ?query= answers 404",
    "v2-coder":
      "a query condition compares the decoded value with the rule's text as written, and a coder reaches the rules only encoded, so ?coder= names only coders whose encoding is themselves (letters, digits, -_.!~*'()); any other coder answers [] like an unknown one",
    "v2-category-coder":
      "as for ?coder=, a pair names only coders whose encoding is themselves (any other answers []), and an empty value (?coder=) counts as sent, so it answers [] rather than the other parameters' list",
    "trailing-slash": "the trailing-slash form of ?coder= has the limits of ?coder=",
    "v2-packages":
      "an empty filter value counts as sent: ?coder= answers [] and ?query= a 404 rather than the whole list",
    "not-found":
      "a rule's query condition reads one value, so a repeated parameter answers the last one, and ?package with no = counts as absent and answers the list",
    "package-files":
      "_headers types by path and applies to a 404 too, so a missing package file's 404 (the JSON error body) carries the type of the file it would be; every package file of the build is served right, each alias from a copy at its path (a placeholder cannot check a name, and a rule per package would pass the rule limit sooner)",
    hbb: "_headers types by path and applies to a 404 too, so a missing file of the Homebrew Browser's (another host's list, a trailing slash) answers the JSON 404 typed text/plain; every file of the build and every stub is served right",
    site: "_headers types by path and applies to a 404 too, so a script under /assets/ that the build does not have answers the JSON 404 typed text/javascript; every page and asset of the build is served right, but for the page of a package named feed.atom or feed.jsonfeed, which the feeds' rules (whose `*` spans folders) type as a feed",
  },
  config: (_options, names) => netlifyFiles(names),
  deployFiles: netlifyFiles,
  hbb: "no: Netlify redirects every plain HTTP request to HTTPS once the site has its certificate, and nothing turns that off (Netlify's documentation); serve /hbb/ from another host",
  usage:
    "`npx shopfront build --target netlify`, then deploy `dist/` as the publish folder (`_redirects` and `_headers` are in its root)",
};
