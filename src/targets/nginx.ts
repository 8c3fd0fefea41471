// Over 300 lines: one host's whole config; its comments explain each rule, and splitting a target would scatter them.
// nginx: a server block to include in http { }, with the maps that read the v2 query parameters
// and the coders. nginx matches locations against the decoded path ($uri), where `%2F` has become a
// `/`, and cannot hex-encode a value, so a coder is read as sent ($request_uri, $args) and looked up
// in a list of the catalogue's coders, each as the pattern of every way it may be sent.
import { NAME_PATTERN_BODY } from "../catalogue/names.js";
import { renderMethodNotAllowed } from "../render/renderApi.js";
import {
  NOT_FOUND_FILE,
  PREFLIGHT_HEADERS,
  RESPONSE_HEADERS,
  SHORT_CACHE_HEADERS,
  routePaths,
  SITE,
  SITE_TYPES,
  type Route,
  type RoutePath,
} from "../routes/routeTable.js";
import { PARAM_KINDS, type Param, type RouteQuery } from "../routes/routeParams.js";
import { fillTemplate, paramOf, pathPattern } from "../routes/routeSyntax.js";
import { UsageError } from "../util/errors.js";
import { VERSION } from "../util/version.js";
import { ALLOWED_METHOD_REGEX, headersExceptContentType, quote } from "./shared/configText.js";
import { listedCoders, listedCodersNote } from "./shared/listedCoders.js";
import { paramQueryPatterns, queryDecisions, queryKeys } from "./shared/queryDecisions.js";
import { parseServerOptions } from "./shared/serverOptions.js";
import { fileHeaders, fileRules } from "./shared/fileRules.js";
import type { CatalogueNames } from "../render/catalogueNames.js";
import { banner, type ServerOptions, type Target, type TargetFile } from "./target.js";
import { appendAll } from "../util/appendAll.js";

/** nginx's own variable `$host` is the request's Host, so every variable here has a prefix. */
const PREFIX = "shopfront_";

/** nginx reads a config parameter (a quoted regex) into a buffer of this many bytes, and refuses a longer one. */
const MAX_PARAMETER = 4096;

/**
 * What a map gives for a value that names no file: no folder of the build has this name (coders'
 * folders are hex, categories are names), so try_files goes on to the route's fallback.
 */
const NO_FILE = "-";

/** The prefix of the locations only a rewrite reaches; no API path starts with a dot. */
const INTERNAL = ".shopfront";

function variable(name: string): string {
  return `$${PREFIX}${name}`;
}

function identifier(id: string): string {
  return id.replace(/-/g, "_");
}

/** A regex as a map's source value, refused if nginx could not read it. */
function mapRegex(regex: string, what: string): string {
  const value = `~${regex}`;
  if (value.length >= MAX_PARAMETER)
    throw new UsageError(
      `${what} makes a regex of ${value.length} bytes, and nginx reads at most ${MAX_PARAMETER - 1}: ` +
        "nginx cannot list it (a coder this long is mostly non-ASCII); shorten it, or use another server",
    );
  return quote(value);
}

/** The one parameter of kind `text` in a path, if any (the table has at most one per path). */
function textParam(path: RoutePath): Param | undefined {
  const texts = path.segments.map(paramOf).filter((p): p is Param => p !== undefined && PARAM_KINDS[p] === "text");
  if (texts.length > 1) throw new Error(`internal: /${path.segments.join("/")} has more than one text parameter`);
  return texts[0];
}

/**
 * A path as sent, then its query if any: a name as the name pattern, a text as any one segment, a
 * label as a name (`labelAsName`) or any one segment. Each parameter is one capture group.
 */
function rawPathRegex(
  path: RoutePath,
  labelAsName: boolean,
): { regex: string; params: Param[]; group: (param: Param) => number } {
  const { pattern, params, group } = pathPattern(path.segments, (param) =>
    PARAM_KINDS[param] === "name" || (labelAsName && PARAM_KINDS[param] === "label")
      ? `(${NAME_PATTERN_BODY})`
      : "([^/?]+)",
  );
  return { regex: `^${pattern}(?:\\?.*)?$`, params, group };
}

/**
 * The maps that read a path that holds a coder as sent ($request_uri): in $uri a coder's %2F is a /
 * like any other and `..` is resolved. The route of the path as sent (so /v1/x/coder/a/b/packages is
 * none), each of its parameters (a label that is not a name: NO_FILE), and the coder's folder.
 */
function rawPathMaps(paths: readonly RoutePath[], coders: ReturnType<typeof listedCoders>): string[] {
  if (paths.length === 0) return [];
  const out = [
    `map $request_uri ${variable("raw_route")} {`,
    `    default "";`,
    ...paths.map((path) => `    ${quote(`~${rawPathRegex(path, false).regex}`)} ${path.plain!.id};`),
    `}`,
  ];
  const params = [...new Set(paths.flatMap((path) => rawPathRegex(path, false).params))];
  for (const param of params) {
    out.push(`map $request_uri ${variable(`raw_${param}`)} {`, `    default "";`);
    for (const path of paths.filter((p) => rawPathRegex(p, false).params.includes(param))) {
      const { regex, group } = rawPathRegex(path, true);
      out.push(`    ${quote(`~${regex}`)} $${group(param)};`);
      if (PARAM_KINDS[param] === "label") out.push(`    ${quote(`~${rawPathRegex(path, false).regex}`)} ${NO_FILE};`);
    }
    out.push(`}`);
    if (PARAM_KINDS[param] === "text")
      appendAll(out, keyMap(variable(`raw_${param}`), variable(`raw_${param}_key`), coders, "path"));
  }
  return out;
}

/** A map from a coder as sent to its folder; NO_FILE for a value that is no listed coder. */
function keyMap(
  source: string,
  target: string,
  coders: ReturnType<typeof listedCoders>,
  where: "path" | "query",
): string[] {
  return [
    `map ${source} ${target} {`,
    `    default ${NO_FILE};`,
    ...coders.map(
      (c) => `    ${mapRegex(`^${c[where]}$`, `the coder with folder ${c.key.slice(0, 24)}...`)} ${quote(c.key)};`,
    ),
    `}`,
  ];
}

/** How a query route's file names each parameter: the query's map, or the location's capture. */
function queryValue(query: RouteQuery): string {
  const kind = PARAM_KINDS[query.param];
  return kind === "text" ? variable(`arg_${query.key}_key`) : variable(`arg_${query.key}`);
}

/** The maps that read each query key: its state ("-" absent, "1" present once, "!" a 404), and its value. */
function queryMaps(path: RoutePath, coders: ReturnType<typeof listedCoders>): string[] {
  const out: string[] = [];
  for (const query of queryKeys(path)) {
    const kind = PARAM_KINDS[query.param];
    const capture = kind === "name" || kind === "label" ? `(${NAME_PATTERN_BODY})` : "([^&]+)";
    const patterns = paramQueryPatterns(query, capture);
    out.push(
      `# ?${query.key}= as sent: "-" absent${kind === "name" ? "" : " (or empty)"}, "1" once, "!" repeated${kind === "name" ? " or not a name" : ""}.`,
      `map $args ${variable(`has_${query.key}`)} {`,
      `    default "-";`,
      `    ${quote(`~^${patterns.repeated}`)} "!";`,
      `    ${quote(`~^${patterns.valid}`)} "1";`,
      `    ${quote(`~^${patterns.present}`)} "${kind === "name" ? "!" : "1"}";`,
      `}`,
    );
    if (kind === "search") continue;
    out.push(
      kind === "label"
        ? `# Its value when it is a name; any other is one no package has.`
        : `# Its value${kind === "name" ? ", checked against the name pattern so ?package=../../x names no file outside the API" : ", as sent"}.`,
      `map $args ${variable(`arg_${query.key}`)} {`,
      `    default ${kind === "label" ? NO_FILE : '""'};`,
      `    ${quote(`~^${patterns.valid}`)} $1;`,
      `}`,
    );
    if (kind === "text")
      appendAll(out, keyMap(variable(`arg_${query.key}`), variable(`arg_${query.key}_key`), coders, "query"));
  }
  return out;
}

/** The route a path's query names, by the steps of queryDecisions over the keys' states; then its file and fallback. */
function decisionMaps(path: RoutePath, name: string, location: (param: Param) => string): string[] {
  const keys = queryKeys(path);
  const state = (present: readonly RouteQuery[], bad?: RouteQuery) =>
    `~^${keys.map((k) => (k.key === bad?.key ? "!" : present.some((p) => p.key === k.key) ? "1" : ".")).join("")}$`;
  const out = [
    `# Which route answers, in the route table's order: 404 for a repeated or invalid parameter, and for`,
    `# a search (?query=), which needs code at request time.`,
    `map "${keys.map((k) => variable(`has_${k.key}`)).join("")}" ${variable(`${name}_route`)} {`,
    `    default ${path.plain?.id ?? "404"};`,
  ];
  for (const step of queryDecisions(path)) {
    const answer = "route" in step && !step.route.search ? step.route.id : "404";
    out.push(`    ${quote(state(step.present, "bad" in step ? step.bad : undefined))} ${answer};`);
  }
  out.push(`}`);
  const routes: Route[] = [...path.queries.filter((r) => !r.search), ...(path.plain ? [path.plain] : [])];
  const fileOf = (route: Route, template: string) =>
    `/${fillTemplate(template, (param) => {
      const query = route.query?.find((q) => q.param === param);
      return query ? queryValue(query) : location(param);
    })}`;
  for (const [suffix, template] of [
    ["file", (r: Route) => r.file],
    ["fallback", (r: Route) => r.fallback ?? r.file],
  ] as const) {
    out.push(`map ${variable(`${name}_route`)} ${variable(`${name}_${suffix}`)} {`, `    default "";`);
    for (const route of routes) out.push(`    ${route.id} ${quote(fileOf(route, template(route)))};`);
    out.push(`}`);
  }
  return out;
}

/** What a long coder list costs, for the note at the top. */
const SCALING = [
  "Each coder is one regex in each of two maps; nginx tries a map's regexes in order, only for a",
  "request that names a coder, so such a request costs up to one regex match per coder (a few",
  "thousand coders is fine).",
];

export function renderNginx(options: ServerOptions, names: CatalogueNames): string {
  const { root, listen } = parseServerOptions(options);
  const paths = routePaths();
  const coders = listedCoders(names);
  const out: string[] = [
    banner("#", "nginx", VERSION),
    "# Include it inside http { }. It serves the static API built in the root below.",
    ...listedCodersNote("#", "nginx", coders.length, SCALING),
    "",
  ];
  const capture = (param: Param) => `(?<${PREFIX}${param}>${NAME_PATTERN_BODY})`;
  const location = (param: Param) => variable(param);
  const rawPaths = paths.filter((path) => textParam(path) !== undefined);
  const raw = (param: Param) => variable(PARAM_KINDS[param] === "text" ? `raw_${param}_key` : `raw_${param}`);

  // Maps belong to http { }, outside the server.
  appendAll(out, rawPathMaps(rawPaths, coders)).push("");
  for (const path of paths.filter((p) => p.queries.length > 0)) {
    const name = identifier(path.plain?.id ?? path.queries[0]!.id);
    appendAll(appendAll(out, queryMaps(path, coders)), decisionMaps(path, name, location)).push("");
  }

  out.push(
    `server {`,
    `    listen ${listen.host}:${listen.port};`,
    `    root ${quote(root)};`,
    "",
    `    # Every response is JSON, whatever the file name looks like (chart.js, json, html).`,
    `    types { }`,
    `    default_type ${RESPONSE_HEADERS["Content-Type"]};`,
  );
  for (const [header, value] of Object.entries(
    headersExceptContentType({ ...RESPONSE_HEADERS, ...SHORT_CACHE_HEADERS, ...PREFLIGHT_HEADERS }),
  )) {
    out.push(`    add_header ${header} ${quote(value)} always;`);
  }
  out.push(
    "",
    `    if ($request_method = OPTIONS) { return 204; }`,
    `    if ($request_method !~ ${ALLOWED_METHOD_REGEX}) {`,
    `        return 405 '${renderMethodNotAllowed()}';`,
    `    }`,
    "",
    // A named location: nginx goes to it without running the server's rewrites again.
    `    error_page 404 @${PREFIX}not_found;`,
    `    location @${PREFIX}not_found { try_files /${NOT_FOUND_FILE} =404; }`,
    "",
  );
  if (rawPaths.length > 0)
    out.push(
      `    # A path that holds a coder goes by its form as sent, before nginx decodes and resolves it.`,
      `    if (${variable("raw_route")}) { rewrite ^ /${INTERNAL}/${variable("raw_route")} last; }`,
      "",
    );
  for (const path of rawPaths) {
    const route = path.plain!;
    const fallback = route.fallback ? ` /${fillTemplate(route.fallback, raw)}` : "";
    out.push(
      `    location = /${INTERNAL}/${route.id} {`,
      `        internal;`,
      `        try_files /${fillTemplate(route.file, raw)}${fallback} =404;`,
      `    }`,
    );
  }
  for (const path of paths.filter((p) => textParam(p) === undefined)) {
    out.push(`    location ~ ${quote(`^${pathPattern(path.segments, capture).pattern}$`)} {`);
    if (path.queries.length > 0) {
      const name = identifier(path.plain?.id ?? path.queries[0]!.id);
      out.push(
        `        if (${variable(`${name}_route`)} = 404) { return 404; }`,
        `        try_files ${variable(`${name}_file`)} ${variable(`${name}_fallback`)} =404;`,
        `    }`,
      );
      continue;
    }
    const route = path.plain!;
    const fallback = route.fallback ? ` /${fillTemplate(route.fallback, location)}` : "";
    out.push(`        try_files /${fillTemplate(route.file, location)}${fallback} =404;`, `    }`);
    if (route.fallback && path.segments.some((s) => paramOf(s) && PARAM_KINDS[paramOf(s)!] === "label")) {
      // A label that is not a name (a category no package can have): the fallback.
      const anyLabel = (param: Param) => (PARAM_KINDS[param] === "label" ? "[^/]+" : capture(param));
      out.push(
        `    location ~ ${quote(`^${pathPattern(path.segments, anyLabel).pattern}$`)} {`,
        `        try_files /${fillTemplate(route.fallback, location)} =404;`,
        `    }`,
      );
    }
  }
  out.push(...fileLocations(), ...siteLocations(), `    location / { return 404; }`, `}`, "");
  return out.join("\n");
}

/**
 * The package files (FILE_ROUTES): each URL, matched on the decoded path with every name checked,
 * rewritten onto its stored file, typed and given its cache lifetime. An add_header in a location
 * replaces the server's, so the API's CORS and nosniff are repeated; a missing file goes to the
 * server's 404, which has them.
 */
function fileLocations(): string[] {
  return [
    `    # The package files: each URL onto its stored file, typed, with its cache lifetime.`,
    ...fileRules().flatMap((rule) => [
      `    location ~ ${quote(rule.regex)} {`,
      `        default_type ${rule.type};`,
      ...Object.entries(fileHeaders(rule)).map(
        ([header, value]) => `        add_header ${header} ${quote(value)} always;`,
      ),
      `        try_files ${rule.file((group) => `$${group}`)} =404;`,
      `    }`,
    ]),
  ];
}

/**
 * The site's locations (SITE in the route table): `/`, the root files, and the files and folder
 * pages of the site folders, matched on the decoded path with every segment a name, each typed by
 * its extension. A URL ending in `/` answers the folder's index page; a file of another type is a 404.
 */
function siteLocations(): string[] {
  const types = [
    `        types { ${Object.entries(SITE_TYPES)
      .map(([extension, type]) => `${type} ${extension};`)
      .join(" ")} }`,
    `        charset utf-8;`,
  ];
  const folders = `/(?:${SITE.folders.join("|")})`;
  const extensions = `\\.(?:${Object.keys(SITE_TYPES).join("|")})$`;
  return [
    `    # The browse site and the OpenAPI document: plain files, typed by their extension.`,
    `    location = / {`,
    ...types,
    `        try_files /${SITE.index} =404;`,
    `    }`,
    ...SITE.files.flatMap((file) => [
      `    location = /${file} {`,
      ...types,
      `        try_files /${file} =404;`,
      `    }`,
    ]),
    `    location ~ ${quote(`^${folders}(?:/${NAME_PATTERN_BODY})*/$`)} {`,
    ...types,
    `        try_files \${uri}${SITE.index} =404;`,
    `    }`,
    `    location ~ ${quote(`^${folders}(?:/${NAME_PATTERN_BODY})+$`)} {`,
    `        location ~ ${quote(extensions)} {`,
    ...types.map((line) => `    ${line}`),
    `            try_files $uri =404;`,
    `        }`,
    `        return 404;`,
    `    }`,
  ];
}

export const nginx: Target = {
  id: "nginx",
  title: "nginx",
  kind: "server",
  packageFiles: "rewrite",
  cannot: {
    "v2-query":
      "a search filters a list at request time, and nginx serves files only: it answers 404 to any request with a non-empty ?query=",
  },
  config: (options, names): TargetFile[] => [{ path: "shopfront.nginx.conf", content: renderNginx(options, names) }],
  hbb: "yes: the generated server answers plain HTTP where --listen says; a redirect to HTTPS the operator adds must leave /hbb/ and /hbb_download.php out",
  usage: "`npx shopfront config nginx --root /srv/api/dist --listen 0.0.0.0:80 > /etc/nginx/conf.d/shopfront.conf`",
};
