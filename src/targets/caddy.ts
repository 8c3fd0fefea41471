// Over 300 lines: one host's whole config; its comments explain each rule, and splitting a target would scatter them.
// Caddy 2: a site block for the Caddyfile. Every route is matched on the request-target as sent
// ({http.request.orig_uri}: the path placeholders are decoded and cleaned, so a `%2F` in a coder
// would read as a `/`). map turns each query parameter of the v2 form into a state and its raw
// value, and each coder, as sent, into its folder; expression picks the first route whose
// parameters are there, in the table's order; try_files answers a filter's fallback when no
// package has the value; header forces the headers, and handle_errors answers with the JSON 404.
import { NAME_PATTERN_BODY } from "../catalogue/names.js";
import { renderMethodNotAllowed } from "../render/renderApi.js";
import {
  ALLOWED_METHODS,
  describeRoute,
  NOT_FOUND_FILE,
  PREFLIGHT_HEADERS,
  RESPONSE_HEADERS,
  SHORT_CACHE_HEADERS,
  routePaths,
  SITE,
  SITE_TYPES,
  type Route,
} from "../routes/routeTable.js";
import { PARAM_KINDS, type Param, type RouteQuery } from "../routes/routeParams.js";
import { VERSION } from "../util/version.js";
import {
  fillTemplate,
  filterQueryPatterns,
  escapeRegex,
  NAME_CAPTURE,
  paramOf,
  pathPattern,
  queryPatterns,
  type QueryPatterns,
} from "../routes/routeSyntax.js";
import { quote } from "./shared/configText.js";
import { listedCoders, listedCodersNote, type ListedCoder } from "./shared/listedCoders.js";
import { parseServerOptions } from "./shared/serverOptions.js";
import type { CatalogueNames } from "../render/catalogueNames.js";
import { fileHeaders, fileRules } from "./shared/fileRules.js";
import { banner, type ServerOptions, type Target, type TargetFile } from "./target.js";

/** The request-target exactly as the client sent it. */
const RAW_TARGET = "{http.request.orig_uri}";
/** The raw query string: `{query}` and `{query.package}` are percent-decoded. */
const RAW_QUERY = "{http.request.uri.query}";
/**
 * What a label that is not a name, or a coder that is not listed, becomes in a file path: a
 * segment no build writes (names never start with a dot, keys are hex), so the fallback answers.
 */
const NO_VALUE = ".none";
/** A path segment as sent, whatever it holds. */
const ANY_SEGMENT = "([^/?]*)";

/** States of a query parameter, as its map names them. */
type QueryState = "absent" | "bad" | "ok";

function matcherName(route: Route, suffix = ""): string {
  return `${route.id.replace(/-/g, "_")}${suffix}`;
}

/** The placeholders that hold a query parameter's state and raw value. */
function queryPlaceholders(key: string): { state: string; value: string; coderKey: string } {
  const name = `shopfront_q_${key.replace(/\W/g, "_")}`;
  return { state: `{${name}_state}`, value: `{${name}}`, coderKey: `{${name}_key}` };
}

/** The variable that holds a text parameter's path segment as sent, and the placeholder of its key. */
function pathVariable(param: Param): { name: string; coderKey: string } {
  return { name: `shopfront_path_${param}`, coderKey: `{shopfront_path_${param}_key}` };
}

function headerBlock(headers: Record<string, string>, indent: string): string[] {
  return [
    `${indent}header {`,
    ...Object.entries(headers).map(([name, value]) => `${indent}\t${name} ${quote(value)}`),
    `${indent}}`,
  ];
}

/**
 * One map per query parameter of the table: its state (absent, bad: repeated or an invalid name,
 * ok) and its value as sent. A label that is not a name is ok, with a value no folder has.
 */
function queryMap({ key, param }: RouteQuery): string[] {
  const kind = PARAM_KINDS[param];
  const { state, value } = queryPlaceholders(key);
  const patterns: QueryPatterns =
    kind === "name" ? queryPatterns(key) : filterQueryPatterns(key, kind === "label" ? NAME_CAPTURE : "([^&]+)");
  const entry = (pattern: string, to: QueryState, output: string) => `\t\t~^${pattern} ${quote(to)} ${quote(output)}`;
  return [
    `\tmap ${RAW_QUERY} ${state} ${value} {`,
    entry(patterns.repeated, "bad", ""),
    entry(patterns.valid, "ok", "${1}"),
    ...(kind === "name" ? [entry(patterns.present, "bad", "")] : []),
    ...(kind === "label" ? [entry(patterns.present, "ok", NO_VALUE)] : []),
    `\t\tdefault ${quote("absent")} ""`,
    "\t}",
  ];
}

/** A map from a coder as sent (`source`) to its key, or NO_VALUE for a coder not listed. */
function coderMap(source: string, destination: string, coders: readonly ListedCoder[], where: "path" | "query") {
  // valuePattern writes every character but letters and digits as \xHH, so a brace (a placeholder
  // to Caddy) can never come from a coder; this keeps it that way.
  const braced = coders.find((coder) => /[{}\s"]/.test(coder[where] + coder.key));
  if (braced) throw new Error(`internal: a coder pattern holds Caddyfile syntax: ${braced[where]}`);
  return [
    `\tmap ${source} ${destination} {`,
    ...coders.map((coder) => `\t\t~^(?:${coder[where]})$ ${quote(coder.key)}`),
    `\t\tdefault ${quote(NO_VALUE)}`,
    "\t}",
  ];
}

/** What a route's path params become in its file: a name or label is its capture, a text its mapped key. */
function pathReference(matcher: string, group: (param: Param) => number) {
  return (param: Param) =>
    PARAM_KINDS[param] === "text" ? pathVariable(param).coderKey : `{re.${matcher}.${group(param)}}`;
}

/**
 * Serves `file` (or `fallback` when no such file exists), with the text parameters of the path
 * first stored for their maps.
 */
function serve(matcher: string, texts: { param: Param; group: number }[], file: string, fallback?: string): string[] {
  return [
    `\thandle @${matcher} {`,
    ...texts.map(({ param, group }) => `\t\tvars ${pathVariable(param).name} {re.${matcher}.${group}}`),
    fallback === undefined ? `\t\trewrite * /${file}` : `\t\ttry_files /${file} /${fallback} =404`,
    "\t\tfile_server {",
    "\t\t\tdisable_canonical_uris",
    "\t\t}",
    "\t}",
  ];
}

function notFound(matcher: string): string[] {
  return [`\thandle @${matcher} {`, "\t\terror 404", "\t}"];
}

/**
 * A route path as a regex over the request-target, query included. With `labels` "name", a label
 * segment must be a name; with "any", it may be anything (the route then answers its fallback).
 */
function targetPattern(segments: readonly string[], labels: "name" | "any") {
  const path = pathPattern(segments, (param) =>
    PARAM_KINDS[param] === "name" || (PARAM_KINDS[param] === "label" && labels === "name") ? NAME_CAPTURE : ANY_SEGMENT,
  );
  return { ...path, regex: `^${path.pattern}(?:\\?.*)?$` };
}

function condition(parts: string[]): string {
  return `\t\texpression \`${parts.join(" && ")}\``;
}

function stateIs(query: RouteQuery, state: QueryState): string {
  return `${queryPlaceholders(query.key).state} == ${JSON.stringify(state)}`;
}

function renderRoutes(): string[] {
  const out: string[] = [];
  for (const path of routePaths()) {
    const hasLabel = path.segments.some((s) => {
      const param = paramOf(s);
      return param !== undefined && PARAM_KINDS[param] === "label";
    });
    const strict = targetPattern(path.segments, "name");
    const loose = targetPattern(path.segments, "any");
    const texts = strict.params
      .filter((p) => PARAM_KINDS[p] === "text")
      .map((param) => ({ param, group: strict.group(param) }));
    const routes = [...path.queries, ...(path.plain ? [path.plain] : [])];
    for (const route of routes) {
      const name = matcherName(route);
      const queries = route.query ?? [];
      out.push("", `\t# GET ${describeRoute(route)}`);
      // A parameter repeated (or a name that is not valid) is a 404 once the ones before it are there.
      queries.forEach((query, i) => {
        out.push(
          `\t@${name}_bad_${query.key} {`,
          `\t\tvars_regexp ${RAW_TARGET} ${loose.regex}`,
          condition([...queries.slice(0, i).map((q) => stateIs(q, "ok")), stateIs(query, "bad")]),
          "\t}",
          ...notFound(`${name}_bad_${query.key}`),
        );
      });
      const file = (reference: (param: Param) => string) =>
        fillTemplate(route.file, (param) => {
          const query = queries.find((q) => q.param === param);
          if (query === undefined) return reference(param);
          const { value, coderKey } = queryPlaceholders(query.key);
          return PARAM_KINDS[param] === "text" ? coderKey : value;
        });
      const variants = hasLabel ? [strict, loose] : [strict];
      variants.forEach((variant, v) => {
        const matcher = v === 0 ? name : `${name}_other`;
        out.push(
          `\t@${matcher} {`,
          `\t\tvars_regexp ${matcher} ${RAW_TARGET} ${variant.regex}`,
          ...(queries.length > 0 ? [condition(queries.map((q) => stateIs(q, "ok")))] : []),
          "\t}",
        );
        const reference = pathReference(matcher, variant.group);
        if (route.search) {
          // Finding the packages whose name holds a text needs code at request time.
          out.push(...notFound(matcher));
        } else if (v === 0) {
          const fallback = route.fallback && fillTemplate(route.fallback, reference);
          out.push(...serve(matcher, texts, file(reference), fallback));
        } else {
          out.push(...serve(matcher, [], fillTemplate(route.fallback!, reference), undefined));
        }
      });
    }
  }
  return out;
}

/**
 * The site (SITE in the route table), matched on the target as sent with every segment a name:
 * `/` and each folder's index page, then each type's files. Each handle types its file; a missing
 * file is the JSON 404 like any other.
 */
function renderSite(): string[] {
  const folders = `(?:${SITE.folders.join("|")})(?:/${NAME_PATTERN_BODY})*`;
  const query = "(?:\\?.*)?$";
  const kinds = [
    {
      name: "site_index",
      regex: `^/((?:${folders}/)?)${query}`,
      file: `{re.site_index.1}${SITE.index}`,
      extension: "html",
    },
    ...Object.keys(SITE_TYPES).map((extension) => {
      const files = SITE.files.filter((f) => f.endsWith(`.${extension}`)).map(escapeRegex);
      return {
        name: `site_${extension}`,
        regex: `^/(${[`${folders}/${NAME_PATTERN_BODY}\\.${extension}`, ...files].join("|")})${query}`,
        file: `{re.site_${extension}.1}`,
        extension,
      };
    }),
  ];
  return [
    "",
    "\t# The browse site and the OpenAPI document: plain files, typed by their extension.",
    ...kinds.flatMap(({ name, regex, file, extension }) => [
      `\t@${name} vars_regexp ${name} ${RAW_TARGET} ${regex}`,
      `\thandle @${name} {`,
      `\t\theader Content-Type ${quote(SITE_TYPES[extension]!)}`,
      `\t\trewrite * /${file}`,
      "\t\tfile_server {",
      "\t\t\tdisable_canonical_uris",
      "\t\t}",
      "\t}",
    ]),
  ];
}

/**
 * The package files (FILE_ROUTES), matched on the target as sent with every name checked, each
 * rewritten onto its stored file, typed, with its cache lifetime (which handle_errors removes again).
 */
function renderFiles(): string[] {
  return [
    "",
    "\t# The package files: each URL onto its stored file, typed, with its cache lifetime.",
    ...fileRules().flatMap((rule, index) => {
      const name = `file_${index}`;
      return [
        `\t@${name} vars_regexp ${name} ${RAW_TARGET} ${rule.regex.slice(0, -1)}(?:\\?.*)?$`,
        `\thandle @${name} {`,
        ...headerBlock({ "Content-Type": rule.type, ...fileHeaders(rule) }, "\t\t"),
        `\t\trewrite * ${rule.file((group) => `{re.${name}.${group}}`)}`,
        "\t\tfile_server {",
        "\t\t\tdisable_canonical_uris",
        "\t\t}",
        "\t}",
      ];
    }),
  ];
}

/** What a long coder list costs (measured with 18-character coders on Caddy 2.6), for the note at the top. */
const SCALING = [
  "Each coder takes two map entries, some 500 bytes (0.5 MB for 1,000 coders, 2.7 MB for 5,000).",
  "Caddy compiles every pattern when it loads the file (about 5 s for 5,000 coders); a request that",
  "names a coder tries them in order with Go's linear-time regexps (a few ms at 5,000 coders).",
];

export function renderCaddy(options: ServerOptions, names: CatalogueNames): string {
  const { root, listen } = parseServerOptions(options);
  const coders = listedCoders(names);
  const paths = routePaths();
  const queries = new Map<string, RouteQuery>(
    paths.flatMap((p) => p.queries.flatMap((r) => r.query.map((q) => [q.key, q]))),
  );
  const textInPath = [...new Set(paths.flatMap((p) => p.segments.map(paramOf)))].filter(
    (param): param is Param => param !== undefined && PARAM_KINDS[param] === "text",
  );
  const out = [
    banner("#", "caddy", VERSION),
    ...listedCodersNote("#", "caddy", coders.length, SCALING),
    "# A site block for the Caddyfile (Debian: /etc/caddy/Caddyfile). The address has no host name, so",
    "# Caddy answers every request on it whatever its Host, and http:// keeps it from asking for a",
    "# certificate; bind is the interface to listen on.",
    `http://:${listen.port} {`,
    `\tbind ${listen.host}`,
    `\troot * ${quote(root)}`,
    "",
    "\t# On every response, errors included: header runs before rewrite and before handle_errors.",
    ...headerBlock({ ...RESPONSE_HEADERS, ...SHORT_CACHE_HEADERS }, "\t"),
    "",
    "\t# Each query parameter of the v2 form, read from the query as sent: absent (an empty filter",
    "\t# value counts as absent), bad (repeated, or a package name that is not valid) or ok, and its",
    "\t# value as sent. Maps are evaluated only when a route reads them.",
    ...[...queries.values()].flatMap(queryMap),
    "",
    "\t# Each listed coder, as sent in a path segment or a query value, to its folder.",
    ...textInPath.flatMap((param) =>
      coderMap(`{vars.${pathVariable(param).name}}`, pathVariable(param).coderKey, coders, "path"),
    ),
    ...[...queries.values()]
      .filter((q) => PARAM_KINDS[q.param] === "text")
      .flatMap((q) => coderMap(queryPlaceholders(q.key).value, queryPlaceholders(q.key).coderKey, coders, "query")),
    "",
    "\t@preflight method OPTIONS",
    "\thandle @preflight {",
    ...headerBlock(PREFLIGHT_HEADERS, "\t\t"),
    "\t\trespond 204",
    "\t}",
    `\t@not_allowed not method ${ALLOWED_METHODS.join(" ")}`,
    "\thandle @not_allowed {",
    ...headerBlock(PREFLIGHT_HEADERS, "\t\t"),
    `\t\trespond \`${renderMethodNotAllowed()}\` 405`,
    "\t}",
    "",
    "\t# Each route rewrites to its file, in the table's order: the first whose parameters a request",
    "\t# has decides. The rewrite drops a trailing slash, and file_server would redirect such a",
    "\t# request to the path without it unless told not to (disable_canonical_uris).",
    ...renderRoutes(),
    ...renderSite(),
    ...renderFiles(),
    "",
    `\t# Anything else, /${NOT_FOUND_FILE} itself included.`,
    "\thandle {",
    "\t\terror 404",
    "\t}",
    "\thandle_errors {",
    "\t\t@not_found expression {err.status_code} == 404",
    "\t\thandle @not_found {",
    "\t\t\t# A site file's type may be set already.",
    `\t\t\theader Content-Type ${quote(RESPONSE_HEADERS["Content-Type"])}`,
    "\t\t\t# So may a package file's lifetime.",
    ...headerBlock(SHORT_CACHE_HEADERS, "\t\t\t"),
    `\t\t\trewrite * /${NOT_FOUND_FILE}`,
    "\t\t\tfile_server",
    "\t\t}",
    "\t}",
    "}",
    "",
  ];
  return out.join("\n");
}

export const caddy: Target = {
  id: "caddy",
  title: "Caddy",
  kind: "server",
  packageFiles: "rewrite",
  cannot: {
    "v2-query":
      "a search filters a list at request time, and a Caddyfile without plugins runs no code: Caddy answers 404",
  },
  config: (options, names): TargetFile[] => [{ path: "shopfront.Caddyfile", content: renderCaddy(options, names) }],
  hbb: "yes: the generated site is `http://:<port>`, which Caddy serves without automatic HTTPS or a redirect",
  usage:
    "`npx shopfront config caddy --root /srv/api/dist --listen 0.0.0.0:80 > /etc/caddy/Caddyfile` (a site block is a whole Caddyfile)",
};
