// Over 300 lines: one host's whole config; its comments explain each rule, and splitting a target would scatter them.
// lighttpd 1.4: a config fragment that opens a socket and serves the API on it. mod_rewrite routes
// on the whole request-target (normalized: hex in upper case, unreserved characters decoded, a %2F
// kept), each listed coder by its own rules; a filter's file that does not exist answers the host's
// empty list through a per-host 404 handler; mod_redirect gives the statuses rewriting cannot (204, 405), the
// error bodies are files the build writes next to the API (`shopfront build --target lighttpd`),
// and mod_setenv adds the headers.
import { assertValidName, NAME_PATTERN_BODY } from "../catalogue/names.js";
import { renderMethodNotAllowed, renderNotFound } from "../render/renderApi.js";
import {
  describeRoute,
  NOT_FOUND_FILE,
  PREFLIGHT_HEADERS,
  RESERVED_HOST_IDS,
  RESPONSE_HEADERS,
  SHORT_CACHE_HEADERS,
  ROUTES,
  routePaths,
  SITE,
  SITE_TYPES,
  type Route,
} from "../routes/routeTable.js";
import { PARAM_KINDS, type Param, type RouteQuery } from "../routes/routeParams.js";
import { VERSION } from "../util/version.js";
import { fileHeaders, fileRules } from "./shared/fileRules.js";
import {
  escapeRegex,
  fillTemplate,
  filterQueryPatterns,
  NAME_CAPTURE,
  paramOf,
  pathPattern,
  queryPatterns,
  segmentsOf,
  type QueryPatterns,
} from "../routes/routeSyntax.js";
import { ALLOWED_METHOD_REGEX, headersExceptContentType, quote } from "./shared/configText.js";
import { listedCoders, listedCodersNote, type ListedCoder } from "./shared/listedCoders.js";
import { parseServerOptions } from "./shared/serverOptions.js";
import type { CatalogueNames } from "../render/catalogueNames.js";
import { banner, type ServerOptions, type Target, type TargetFile } from "./target.js";

/**
 * lighttpd sends `<prefix><status>.html` as the body of an error, with the error's status; these
 * files are written into the output, where no route can name them (names never start with a dot).
 */
const ERROR_FILE_PREFIX = ".shopfront-error-";

/** The statuses whose bodies the build writes (deployFiles). */
const ERROR_BODIES = { 404: renderNotFound, 405: renderMethodNotAllowed };

/**
 * The error files' type, first in every condition that types files its own way (a package file's,
 * the site's). lighttpd types the error file by the conditions of the request that fails, then
 * keeps that type in its stat cache for every error until the entry is refreshed: typed by a
 * missing icon's condition, the API's next 404 was image/png. Named whole, the error files are
 * JSON under every condition (with fewer than 16 keys the first key the name ends with wins,
 * with more the whole name is looked up first); no package or site file has such a name.
 */
function errorFileTypes(): string {
  return Object.keys(ERROR_BODIES)
    .map((status) => `${quote(`${ERROR_FILE_PREFIX}${status}.html`)} => ${quote(RESPONSE_HEADERS["Content-Type"])}, `)
    .join("");
}

/**
 * server.http-parseopts: those of Debian's lighttpd.conf but two. A %2F stays %2F, so a coder
 * holding a / is told from two path segments. A control character sent as %00 or %0A is let in:
 * refused, it got a bare 400 without the API's headers where the API answers [] (no coder holds
 * one); let in, lighttpd still turns one in a path into `_` before it names a file (tested), and
 * in a query it stays encoded, as nginx and Apache pass it on.
 */
const PARSE_OPTIONS = {
  "header-strict": "enable",
  "host-strict": "enable",
  "host-normalize": "enable",
  "url-normalize-unreserved": "enable",
  "url-normalize-required": "enable",
  "url-ctrls-reject": "disable",
  "url-path-2f-decode": "disable",
  "url-path-dotseg-remove": "enable",
};

/** A path segment as sent, whatever it holds. */
const ANY_SEGMENT = "([^/?]*)";

/** Where a request that is no route is sent: a path no build writes, so the answer is the 404. */
const NO_FILE = "/.shopfront-no-such-file";

function pairs(headers: Record<string, string>, indent: string): string[] {
  return Object.entries(headers).map(([name, value]) => `${indent}${quote(name)} => ${quote(value)},`);
}

/**
 * The name pattern for `{host}`, minus the reserved host ids: each is a file (v1/hosts), and
 * lighttpd would serve it for /v1/hosts/packages, taking the rest of the path for path-info.
 */
function nameCapture(param: Param): string {
  const reserved = RESERVED_HOST_IDS.map(escapeRegex).join("|");
  return param === "host" && reserved ? `(?!(?:${reserved})/)${NAME_CAPTURE}` : NAME_CAPTURE;
}

/** How each query parameter of the v2 form is tested, from the query as sent (lighttpd's PCRE has look-ahead). */
function queryTests({ key, param }: RouteQuery): QueryPatterns {
  return PARAM_KINDS[param] === "name" ? queryPatterns(key) : filterQueryPatterns(key, "([^&]+)");
}

/**
 * The rules of one route, in the order lighttpd must try them. Query parameters are look-aheads
 * after the `?`, so they match in any order; the path's and each look-ahead's one capture group
 * number the captures. A coder becomes one rule per listed coder, then one for any other value.
 */
function routeRules(route: Route, segments: readonly string[], coders: readonly ListedCoder[]): [string, string][] {
  const rules: [string, string][] = [];
  const queries = route.query ?? [];
  const loose = pathPattern(segments, (param) => (PARAM_KINDS[param] === "name" ? nameCapture(param) : ANY_SEGMENT));
  const present = (query: RouteQuery) => `(?=${queryTests(query).present})`;
  const after = (path: string, lookaheads: string[]) =>
    lookaheads.length > 0 ? `^${path}\\?${lookaheads.join("")}` : `^${path}(?:\\?.*)?$`;

  // A parameter repeated (or a name that is not valid) is a 404 once the ones before it are there.
  queries.forEach((query, i) => {
    const before = queries.slice(0, i).map(present);
    rules.push([after(loose.pattern, [...before, `(?=${queryTests(query).repeated})`]), NO_FILE]);
    if (PARAM_KINDS[query.param] === "name")
      rules.push([after(loose.pattern, [...before, present(query), `(?!${queryTests(query).valid})`]), NO_FILE]);
  });
  if (route.search) {
    // Finding the packages whose name holds a text needs code at request time.
    rules.push([after(loose.pattern, queries.map(present)), NO_FILE]);
    return rules;
  }

  // Every listed coder of each text parameter, with every label a name, names the route's file.
  const texts = [...loose.params, ...queries.map((q) => q.param)].filter((p) => PARAM_KINDS[p] === "text");
  const choices = texts.reduce<Map<Param, ListedCoder>[]>(
    (combos, param) => combos.flatMap((combo) => coders.map((coder) => new Map(combo).set(param, coder))),
    [new Map()],
  );
  for (const choice of choices) {
    const path = pathPattern(segments, (param) => {
      const coder = choice.get(param);
      return coder === undefined ? nameCapture(param) : `(${coder.path})`;
    });
    let group = path.params.length;
    const numbers = new Map<Param, string>(path.params.map((p) => [p, `$${path.group(p)}`]));
    const lookaheads = queries.map((query) => {
      const coder = choice.get(query.param);
      if (coder !== undefined) return `(?=${filterQueryPatterns(query.key, `(${coder.query})`).valid})`;
      numbers.set(query.param, `$${++group}`);
      return `(?=${(PARAM_KINDS[query.param] === "name" ? queryPatterns : filterQueryPatterns)(query.key, NAME_CAPTURE).valid})`;
    });
    const file = fillTemplate(route.file, (param) => {
      const coder = choice.get(param);
      return coder === undefined ? numbers.get(param)! : coder.key;
    });
    rules.push([after(path.pattern, lookaheads), `/${file}`]);
  }
  // Any other coder, or a label that is not a name: no package has it.
  if (route.fallback !== undefined) {
    rules.push([
      after(loose.pattern, queries.map(present)),
      `/${fillTemplate(route.fallback, (param) => `$${loose.group(param)}`)}`,
    ]);
  }
  return rules;
}

function rewriteRules(coders: readonly ListedCoder[]): string[] {
  const out: string[] = [];
  out.push(...siteRules(), ...fileRewrites());
  // lighttpd refuses a regex twice; the first already decides, as the same test in an earlier route.
  const seen = new Set<string>();
  for (const path of routePaths()) {
    for (const route of [...path.queries, ...(path.plain ? [path.plain] : [])]) {
      out.push(`\t\t# GET ${describeRoute(route)}`);
      for (const [regex, target] of routeRules(route, path.segments, coders)) {
        if (!seen.has(regex)) out.push(`\t\t${quote(regex)} => ${quote(target)},`);
        seen.add(regex);
      }
    }
  }
  out.push(`\t\t# Anything else, /${NOT_FOUND_FILE} itself included.`);
  out.push(`\t\t"" => ${quote(NO_FILE)},`);
  return out;
}

/** The site's rules (SITE in the route table): `/`, the root files, the site folders' files and index pages. */
function siteRules(): string[] {
  const folders = `(?:${SITE.folders.join("|")})(?:/${NAME_PATTERN_BODY})*`;
  const query = "(?:\\?.*)?$";
  const extensions = `\\.(?:${Object.keys(SITE_TYPES).join("|")})`;
  return [
    "\t\t# The browse site and the OpenAPI document: plain files, every segment a name.",
    `\t\t${quote(`^/${query}`)} => ${quote(`/${SITE.index}`)},`,
    ...SITE.files.map((file) => `\t\t${quote(`^/${escapeRegex(file)}${query}`)} => ${quote(`/${file}`)},`),
    `\t\t${quote(`^/(${folders}/)${query}`)} => ${quote(`/$1${SITE.index}`)},`,
    `\t\t${quote(`^/(${folders}/${NAME_PATTERN_BODY}${extensions})${query}`)} => "/$1",`,
  ];
}

/** The package files (FILE_ROUTES): each URL, every name checked, onto its stored file. */
function fileRewrites(): string[] {
  return [
    "\t\t# The package files: each URL onto its stored file.",
    ...fileRules().map(
      (rule) => `\t\t${quote(`${rule.regex.slice(0, -1)}(?:\\?.*)?$`)} => ${quote(rule.file((group) => `$${group}`))},`,
    ),
  ];
}

/**
 * The package files' types and cache lifetimes: a condition on the stored file's path, which the
 * rules rewrote to. lighttpd applies it to the 404 of a missing file as well: its Cache-Control,
 * and the type of the error file, which is named to stay JSON. Where two match, the later block's
 * values win, so the rules go in reverse: the first of FILE_ROUTES that matches wins, as in the
 * rewrites (the Homebrew Browser's temp_files.zip has the shape of an archive's path).
 */
function fileTypes(): string[] {
  return fileRules()
    .filter((rule) => !rule.route.alias)
    .reverse()
    .flatMap((rule) => [
      `\t$HTTP["url"] =~ ${quote(rule.regex)} {`,
      `\t\tmimetype.assign = (${errorFileTypes()}"" => ${quote(rule.type)})`,
      "\t\tsetenv.set-response-header = (",
      ...pairs({ "Cache-Control": fileHeaders(rule)["Cache-Control"]! }, "\t\t\t"),
      "\t\t)",
      "\t}",
    ]);
}

/**
 * The site's files, typed by their extension: a condition on the path the rules rewrote to, which
 * only a site URL reaches (an API file named index.html stays JSON).
 */
function siteTypes(): string[] {
  const site = `(?:${SITE.folders.join("|")})/.+|${[SITE.index, ...SITE.files].map(escapeRegex).join("|")}`;
  return [
    `\t$HTTP["url"] =~ ${quote(`^/(?:${site})$`)} {`,
    `\t\tmimetype.assign = (${errorFileTypes()}${Object.entries(SITE_TYPES)
      .map(([extension, type]) => `${quote(`.${extension}`)} => ${quote(type)}`)
      .join(", ")})`,
    "\t}",
  ];
}

/**
 * A filter's file that does not exist (no package of the host has the value) answers the host's
 * empty list: lighttpd serves the 404 handler with status 200. One condition per host, on the
 * path the rules rewrote to.
 */
function fallbackHandlers(hosts: readonly string[]): string[] {
  const templates = [
    ...new Map(ROUTES.filter((r) => r.fallback !== undefined).map((r) => [r.file, r.fallback!])).entries(),
  ];
  return hosts.flatMap((host) =>
    [...new Set(templates.map(([, fallback]) => fallback))].flatMap((fallback) => {
      assertValidName(host, "host");
      const files = templates
        .filter(([, f]) => f === fallback)
        .map(([file]) =>
          segmentsOf(file)
            .map((segment) => {
              const param = paramOf(segment);
              if (param === undefined) return escapeRegex(segment);
              if (param === "host") return escapeRegex(host);
              return PARAM_KINDS[param] === "text" ? "[0-9a-f]+(?:/[0-9a-f]+)*" : "[^/]+";
            })
            .join("/"),
        );
      return [
        `\t$HTTP["url"] =~ ${quote(`^/(?:${files.join("|")})$`)} {`,
        `\t\tserver.error-handler-404 = ${quote(`/${fillTemplate(fallback, () => host)}`)}`,
        "\t}",
      ];
    }),
  );
}

/** What a long coder list costs (measured with 18-character coders on lighttpd 1.4.69), for the note at the top. */
const SCALING = [
  "Each coder takes four rewrite rules, some 1.7 KB (1.7 MB for 1,000 coders, 8.8 MB for 5,000).",
  "lighttpd tries the rules in order, so a request that names a coder no rule lists walks them all:",
  "at 5,000 coders some 7 ms for a v1 path and 150 ms for a v2 query. Past a few thousand coders,",
  "prefer Caddy or nginx.",
];

export function renderLighttpd(options: ServerOptions, names: CatalogueNames): string {
  const { root, listen } = parseServerOptions(options);
  const coders = listedCoders(names);
  return [
    banner("#", "lighttpd", VERSION),
    ...listedCodersNote("#", "lighttpd", coders.length, SCALING),
    "# A fragment for lighttpd.conf (Debian: /etc/lighttpd/conf-enabled/50-shopfront.conf). Build with",
    "# `shopfront build --target lighttpd`: it writes the 404 and 405 bodies this config sends.",
    "",
    "# Include it after the main config's server.modules line. mod_setenv goes first: a module that",
    "# answers a request (mod_redirect below, which Debian's lighttpd.conf loads early) keeps the",
    "# modules after it from adding their response headers.",
    'server.modules := ("mod_setenv") + server.modules + ("mod_access", "mod_rewrite", "mod_redirect")',
    "",
    "# Server-wide, as lighttpd reads it nowhere else: Debian's defaults but two. A %2F in a path stays",
    "# %2F, so a coder holding a / (sent as %2F) is told from two path segments; a control character",
    "# sent as %00 or %0A is let in, so it gets the API's answer rather than a bare 400 (in a path",
    "# lighttpd still turns it into _ before naming a file).",
    `server.http-parseopts := (${Object.entries(PARSE_OPTIONS)
      .map(([name, value]) => `${quote(name)} => ${quote(value)}`)
      .join(", ")})`,
    "",
    "# The condition adds this address to the server's sockets and keeps every setting below to it.",
    `$SERVER["socket"] == ${quote(`${listen.host}:${listen.port}`)} {`,
    `\tserver.document-root = ${quote(root)}`,
    "\t# Every file is JSON, whatever its name (chart.js, index.html, setup.php).",
    `\tmimetype.assign = ("" => ${quote(RESPONSE_HEADERS["Content-Type"])})`,
    "\t# Debian's lighttpd.conf refuses names ending in ~ or .inc and will not send .php, .pl or .fcgi",
    "\t# files as they are; here every file is API data.",
    "\turl.access-deny = ()",
    "\tstatic-file.exclude-extensions = ()",
    "\t# The body of an error with status N is the file <prefix>N.html, sent with that status.",
    `\tserver.errorfile-prefix = ${quote(`${root}/${ERROR_FILE_PREFIX}`)}`,
    "\tsetenv.add-response-header = (",
    ...pairs(headersExceptContentType(), "\t\t"),
    "\t)",
    "\t# The short lifetime, which a package file's own replaces (set after add).",
    "\tsetenv.set-response-header = (",
    ...pairs(SHORT_CACHE_HEADERS, "\t\t"),
    "\t)",
    "\t# Matched against the whole request-target, path and query as sent (after lighttpd's own",
    "\t# normalization); the first rule that matches wins. A host is never a reserved id: v1/hosts is a",
    "\t# file, which lighttpd would serve for /v1/hosts/packages, taking the rest for path-info.",
    "\turl.rewrite-once = (",
    ...rewriteRules(coders),
    "\t)",
    ...fallbackHandlers(names.hosts),
    ...siteTypes(),
    ...fileTypes(),
    "",
    "\t# mod_redirect answers with whatever status it is given; these two are no redirects, so a 204",
    "\t# drops the Location it would send (a 405 gets the error file instead).",
    '\t$HTTP["request-method"] == "OPTIONS" {',
    '\t\turl.redirect = ("" => "/")',
    "\t\turl.redirect-code = 204",
    '\t\tsetenv.set-response-header = ("Location" => "")',
    "\t\tsetenv.add-response-header += (",
    ...pairs(PREFLIGHT_HEADERS, "\t\t\t"),
    "\t\t)",
    "\t}",
    `\t$HTTP["request-method"] !~ ${quote(ALLOWED_METHOD_REGEX)} {`,
    '\t\turl.redirect = ("" => "/")',
    "\t\turl.redirect-code = 405",
    "\t\tsetenv.add-response-header += (",
    ...pairs(PREFLIGHT_HEADERS, "\t\t\t"),
    "\t\t)",
    "\t}",
    "}",
    "",
  ].join("\n");
}

export const lighttpd: Target = {
  id: "lighttpd",
  title: "lighttpd",
  kind: "server",
  packageFiles: "rewrite",
  cannot: {
    "v2-query":
      "a search filters a list at request time, and lighttpd without mod_magnet runs no code: lighttpd answers 404",
  },
  config: (options, names): TargetFile[] => [
    { path: "shopfront.lighttpd.conf", content: renderLighttpd(options, names) },
  ],
  deployFiles: () =>
    Object.entries(ERROR_BODIES).map(([status, render]) => ({
      path: `${ERROR_FILE_PREFIX}${status}.html`,
      content: render(),
    })),
  hbb: "yes: the generated config answers plain HTTP where --listen says; a redirect to HTTPS the operator adds must leave /hbb/ and /hbb_download.php out",
  usage:
    "`npx shopfront build --target lighttpd`, then `npx shopfront config lighttpd --root /srv/api/dist --listen 0.0.0.0:80 > /etc/lighttpd/conf-enabled/50-shopfront.conf`",
};
