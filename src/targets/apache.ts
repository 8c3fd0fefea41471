// Over 300 lines: one host's whole config (server and .htaccess), each rule beside the comment that explains it.
// Apache httpd 2.4: a <VirtualHost> for the server config, and the same rules as a .htaccess for
// shared hosting. mod_rewrite routes, mod_headers adds the headers, ErrorDocument gives the JSON 404.
import { dirname } from "node:path";
import { NAME_PATTERN_BODY } from "../catalogue/names.js";
import { renderMethodNotAllowed } from "../render/renderApi.js";
import {
  describeRoute,
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
import { PARAM_KINDS, type Param } from "../routes/routeParams.js";
import { VERSION } from "../util/version.js";
import { escapeRegex, fillTemplate, NAME_CAPTURE, paramOf, pathPattern } from "../routes/routeSyntax.js";
import { ALLOWED_METHOD_REGEX, headersExceptContentType, quote } from "./shared/configText.js";
import { listedCoders, listedCodersNote, type ListedCoder } from "./shared/listedCoders.js";
import { paramQueryPatterns, queryDecisions, queryKeys } from "./shared/queryDecisions.js";
import { parseServerOptions } from "./shared/serverOptions.js";
import type { CatalogueNames } from "../render/catalogueNames.js";
import { fileHeaders, fileRules } from "./shared/fileRules.js";
import { banner, type ServerOptions, type Target, type TargetFile } from "./target.js";
import { appendAll } from "../util/appendAll.js";

/** Where the rewrite rules run: they see URL paths in the server config, paths relative to the folder in a .htaccess. */
interface RuleContext {
  slash: "/" | "";
  /** Flags of a rule that hands a request to a file. */
  serve: string;
}

// PT: the target is a URL path, mapped through DocumentRoot like any request.
const IN_SERVER: RuleContext = { slash: "/", serve: "PT,END" };
// DPI: a .htaccess rule sees the path-info (the trailing slash after a file) and would append it
// again; END: the request Apache makes for the new target is not rewritten a second time.
const IN_HTACCESS: RuleContext = { slash: "", serve: "DPI,END" };

const HTACCESS = ".htaccess";

/** Why a .htaccess alone cannot serve a path that holds a coder with a `/`. */
const ENCODED_SLASH =
  "a coder with a / is sent as %2F in a path, which Apache refuses with its own HTML 404, without the API's headers, before it reads a .htaccess; only AllowEncodedSlashes in the server config (the <VirtualHost>) lets it through";

/** What the API's folder allows; the same in the <Directory> block and in the .htaccess. */
function folderRules(): string[] {
  return [
    "# Files only: no listings, no negotiation (MultiViews would answer .../package/chart with",
    "# chart.js), no CGI, no server-side includes. mod_rewrite needs FollowSymLinks in a .htaccess.",
    "Options FollowSymLinks",
    "# /v1/hosts/packages must not answer with the file v1/hosts.",
    "AcceptPathInfo Off",
    "# Every file is JSON whatever its name (chart.js, index.html, setup.php), and no handler the",
    "# server maps to a file name (PHP, type maps) ever runs on one.",
    `<Files "*">`,
    `    ForceType ${RESPONSE_HEADERS["Content-Type"]}`,
    "    SetHandler default-handler",
    "</Files>",
    ...siteTypeRules(),
  ];
}

/**
 * The site's files (SITE in the route table) are typed by their extension; the rules below reach
 * them only by a site URL. An API file named like a page (index.html) stays JSON: these match the
 * URL, not the file name.
 */
function siteTypeRules(): string[] {
  const site = `(?:(?:${SITE.folders.join("|")})/.+|${[SITE.index, ...SITE.files].map(escapeRegex).join("|")})`;
  return [
    "# The browse site and the OpenAPI document: each file typed by its extension.",
    ...Object.entries(SITE_TYPES).flatMap(([extension, type]) => [
      `<If "%{REQUEST_URI} =~ m#^/${site}$# && %{REQUEST_URI} =~ m#\\.${extension}$#">`,
      `    ForceType ${type}`,
      "</If>",
    ]),
  ];
}

/** The rules that serve the site: `/`, the root files, the site folders' files and their index pages. */
function siteRewriteRules(context: RuleContext): string[] {
  const { slash, serve } = context;
  const folders = `(?:${SITE.folders.join("|")})`;
  const extensions = `\\.(?:${Object.keys(SITE_TYPES).join("|")})`;
  return [
    "# The browse site and the OpenAPI document: `/`, the files at the root and in the site folders,",
    "# every segment a name, and a folder's index page for a URL ending in `/`.",
    `RewriteRule ^${slash}$ ${slash}${SITE.index} [${serve}]`,
    ...SITE.files.map((file) => `RewriteRule ^${slash}${escapeRegex(file)}$ ${slash}${file} [${serve}]`),
    `RewriteRule ^${slash}(${folders}(?:/${NAME_PATTERN_BODY})*/)$ ${slash}$1${SITE.index} [${serve}]`,
    `RewriteRule ^${slash}(${folders}(?:/${NAME_PATTERN_BODY})*/${NAME_PATTERN_BODY}${extensions})$ ${slash}$1 [${serve}]`,
  ];
}

/** The variable a package file's rule sets to its route's kind; after a .htaccess rewrite Apache renames it REDIRECT_... */
const FILE_KIND = "SHOPFRONT_FILE";

/**
 * The package files (FILE_ROUTES): each URL onto its stored file, every name checked, marking the
 * request with the file's kind for its type and cache lifetime (fileTypeRules). A missing file is
 * the server's 404.
 */
function fileRewriteRules(context: RuleContext): string[] {
  const { slash, serve } = context;
  return [
    "# The package files: each URL onto its stored file; a missing one is a 404.",
    ...fileRules().map(
      (rule) =>
        `RewriteRule ^${slash}${rule.regex.slice(2)} ${slash}${rule.file((group) => `$${group}`).slice(1)} [E=${FILE_KIND}:${rule.route.kind},${serve}]`,
    ),
  ];
}

/** The type and cache lifetime of a package file answered 200, by the kind its rule set. */
function fileTypeRules(): string[] {
  const kinds = new Map(fileRules().map((rule) => [rule.route.kind, rule]));
  return [
    "# A package file answered 200: its type and cache lifetime (a 404 stays the API's JSON).",
    ...[...kinds].flatMap(([kind, rule]) => {
      const when = `"expr=%{REQUEST_STATUS} == 200 && (reqenv('${FILE_KIND}') == '${kind}' || reqenv('REDIRECT_${FILE_KIND}') == '${kind}')"`;
      return [
        `Header always set Content-Type ${quote(rule.type)} ${when}`,
        `Header always set Cache-Control ${quote(fileHeaders(rule)["Cache-Control"]!)} ${when}`,
      ];
    }),
  ];
}

/** The headers and error bodies; `always` puts them on error responses too. */
function responseRules(): string[] {
  const preflight = `"expr=%{REQUEST_METHOD} == 'OPTIONS' || %{REQUEST_STATUS} == 405"`;
  const out = ["# Every response, 404s included."];
  // The short lifetime; a package file's own replaces it below.
  for (const [name, value] of Object.entries(headersExceptContentType({ ...RESPONSE_HEADERS, ...SHORT_CACHE_HEADERS })))
    out.push(`Header always set ${name} ${quote(value)}`);
  out.push("# The answer to OPTIONS (a CORS preflight) and to any method the API does not answer.");
  for (const [name, value] of Object.entries(PREFLIGHT_HEADERS))
    out.push(`Header always set ${name} ${quote(value)} ${preflight}`);
  out.push(
    "# Apache sends the 405 message below as text/html.",
    `Header always set Content-Type ${quote(RESPONSE_HEADERS["Content-Type"])} "expr=%{REQUEST_STATUS} == 405"`,
    `ErrorDocument 404 /${NOT_FOUND_FILE}`,
    `ErrorDocument 405 '${renderMethodNotAllowed()}'`,
    ...fileTypeRules(),
  );
  return out;
}

/** An environment variable of the rules: SHOPFRONT_RAW_CODER, SHOPFRONT_ARG_CODER_KEY. */
function env(name: string): string {
  return `SHOPFRONT_${name.toUpperCase()}`;
}

/** The one parameter of kind `text` in a path, if any (the table has at most one per path). */
function textParam(path: RoutePath): Param | undefined {
  const texts = path.segments.map(paramOf).filter((p): p is Param => p !== undefined && PARAM_KINDS[p] === "text");
  if (texts.length > 1) throw new Error(`internal: /${path.segments.join("/")} has more than one text parameter`);
  return texts[0];
}

/**
 * Rules that set SHOPFRONT_<to> to the folder of the coder in SHOPFRONT_<from> (a coder as sent),
 * one rule per listed coder; none when the variable is empty, by skipping them all.
 */
function keyRules(from: string, to: string, coders: readonly ListedCoder[], where: "path" | "query"): string[] {
  return [
    `RewriteCond %{ENV:${env(from)}} ^$`,
    `RewriteRule ^ - [S=${coders.length}]`,
    ...coders.flatMap((c) => [
      `RewriteCond %{ENV:${env(from)}} ^${c[where]}$`,
      `RewriteRule ^ - [E=${env(to)}:${c.key}]`,
    ]),
  ];
}

/** A file of the build, tested before it is served: where its route falls back when it does not exist. */
function exists(file: string): string {
  return `RewriteCond %{DOCUMENT_ROOT}/${file} -f`;
}

function rewriteRules(context: RuleContext, names: CatalogueNames): string[] {
  const { slash, serve } = context;
  const coders = listedCoders(names);
  const paths = routePaths();
  const out = [
    "RewriteEngine On",
    `# ErrorDocument fetches /${NOT_FOUND_FILE} with a request of its own, which must reach the file.`,
    "RewriteCond %{ENV:REDIRECT_STATUS} =404",
    `RewriteRule ^${slash}${escapeRegex(NOT_FOUND_FILE)}$ - [END]`,
    "RewriteCond %{REQUEST_METHOD} =OPTIONS",
    "RewriteRule ^ - [R=204]",
    `RewriteCond %{REQUEST_METHOD} !${ALLOWED_METHOD_REGEX}`,
    "RewriteRule ^ - [R=405]",
    ...siteRewriteRules(context),
    ...fileRewriteRules(context),
  ];

  // A path that holds a coder is read from the request line as sent: Apache decodes the path it
  // matches rules against, so a coder's %2F would be a / like any other.
  const rawPaths = paths.filter((path) => textParam(path) !== undefined);
  const rawParams = new Set<Param>();
  for (const path of rawPaths) {
    const { pattern, params, group } = pathPattern(path.segments, (param) =>
      PARAM_KINDS[param] === "name" ? NAME_CAPTURE : "([^/?\\x20]+)",
    );
    params.forEach((param) => rawParams.add(param));
    out.push(
      `# GET ${describeRoute(path.plain!)}, as sent.`,
      `RewriteCond %{THE_REQUEST} ^[^\\x20]+\\x20${pattern}(?:\\?[^\\x20]*)?\\x20`,
      `RewriteRule ^ - [${[`E=${env("raw_route")}:${path.plain!.id}`, ...params.map((p) => `E=${env(`raw_${p}`)}:%${group(p)}`)].join(",")}]`,
    );
  }
  for (const param of rawParams)
    if (PARAM_KINDS[param] === "text") {
      out.push(`# The folder of the ${param} in the path: ${coders.length} coders of the catalogue, tried in order.`);
      appendAll(out, keyRules(`raw_${param}`, `raw_${param}_key`, coders, "path"));
    }

  // Each query parameter as sent: a name or label when it is one, a text as it is, then its folder.
  const queryPaths = paths.filter((path) => path.queries.length > 0);
  for (const query of new Map(queryPaths.flatMap((path) => queryKeys(path)).map((q) => [q.key, q])).values()) {
    const kind = PARAM_KINDS[query.param];
    if (kind === "search") continue;
    const patterns = paramQueryPatterns(query, kind === "text" ? undefined : NAME_CAPTURE);
    out.push(`RewriteCond %{QUERY_STRING} ^${patterns.valid}`, `RewriteRule ^ - [E=${env(`arg_${query.key}`)}:%1]`);
    if (kind === "text") {
      out.push(`# The folder of ?${query.key}=: ${coders.length} coders of the catalogue, tried in order.`);
      appendAll(out, keyRules(`arg_${query.key}`, `arg_${query.key}_key`, coders, "query"));
    }
  }

  /** Serves `route`'s file when `conditions` hold and it exists, else its fallback; without a fallback, the file. */
  const answer = (route: Route, rule: string, conditions: string[], ready: string[], value: (p: Param) => string) => {
    const file = fillTemplate(route.file, value);
    if (!route.fallback) return [...conditions, `RewriteRule ${rule} ${slash}${file} [${serve}]`];
    return [
      ...conditions,
      ...ready,
      exists(file),
      `RewriteRule ${rule} ${slash}${file} [${serve}]`,
      ...conditions,
      `RewriteRule ${rule} ${slash}${fillTemplate(route.fallback, value)} [${serve}]`,
    ];
  };
  const nameCheck = (ref: string) => `RewriteCond ${ref} ^${NAME_PATTERN_BODY}$`;

  for (const path of rawPaths) {
    const route = path.plain!;
    const text = textParam(path)!;
    const params = path.segments.map(paramOf).filter((p): p is Param => p !== undefined);
    const value = (p: Param) => `%{ENV:${env(PARAM_KINDS[p] === "text" ? `raw_${p}_key` : `raw_${p}`)}}`;
    out.push(
      `# GET ${describeRoute(route)}`,
      ...answer(
        route,
        "^",
        [`RewriteCond %{ENV:${env("raw_route")}} =${route.id}`],
        [
          ...params.filter((p) => PARAM_KINDS[p] === "label").map((p) => nameCheck(`%{ENV:${env(`raw_${p}`)}}`)),
          `RewriteCond %{ENV:${env(`raw_${text}_key`)}} .`,
        ],
        value,
      ),
    );
  }

  for (const path of paths.filter((p) => textParam(p) === undefined)) {
    const { pattern, group } = pathPattern(path.segments, (param) =>
      PARAM_KINDS[param] === "label" ? "([^/]+)" : NAME_CAPTURE,
    );
    const rule = `^${slash}${pattern.slice(1)}$`;
    const labels = path.segments.map(paramOf).filter((p): p is Param => p !== undefined && PARAM_KINDS[p] === "label");
    const capture = (param: Param) => `$${group(param)}`;
    for (const step of queryDecisions(path)) {
      const present = step.present.map((q) => `RewriteCond %{QUERY_STRING} ^${paramQueryPatterns(q).present}`);
      if ("bad" in step) {
        const bad = paramQueryPatterns(step.bad);
        out.push(
          `# ?${step.bad.key}= repeated${PARAM_KINDS[step.bad.param] === "name" ? " or not a name" : ""}: 404.`,
          ...present,
          ...(PARAM_KINDS[step.bad.param] === "name"
            ? [
                `RewriteCond %{QUERY_STRING} ^${bad.present}`,
                `RewriteCond %{QUERY_STRING} ^${bad.repeated} [OR]`,
                `RewriteCond %{QUERY_STRING} !^${bad.valid}`,
              ]
            : [`RewriteCond %{QUERY_STRING} ^${bad.repeated}`]),
          `RewriteRule ${rule} - [R=404]`,
        );
        continue;
      }
      const { route } = step;
      if (route.search) {
        out.push(
          `# GET ${describeRoute(route)}: a search needs code at request time, 404.`,
          ...present,
          `RewriteRule ${rule} - [R=404]`,
        );
        continue;
      }
      const value = (param: Param) => {
        const query = route.query.find((q) => q.param === param);
        if (!query) return capture(param);
        return `%{ENV:${env(PARAM_KINDS[param] === "text" ? `arg_${query.key}_key` : `arg_${query.key}`)}}`;
      };
      const ready = route.query
        .filter((q) => PARAM_KINDS[q.param] !== "name")
        .map(
          (q) => `RewriteCond %{ENV:${env(PARAM_KINDS[q.param] === "text" ? `arg_${q.key}_key` : `arg_${q.key}`)}} .`,
        );
      out.push(`# GET ${describeRoute(route)}`, ...answer(route, rule, present, ready, value));
    }
    if (path.plain)
      out.push(
        `# GET ${describeRoute(path.plain)}`,
        ...answer(
          path.plain,
          rule,
          [],
          labels.map((p) => nameCheck(capture(p))),
          capture,
        ),
      );
  }
  out.push(`# Anything else, /${NOT_FOUND_FILE} itself included.`, "RewriteRule ^ - [R=404]");
  return out;
}

function indent(lines: readonly string[], by = "    "): string[] {
  return lines.map((line) => `${by}${line}`);
}

/** What the top of both files says about the coders they list. */
/** What a long coder list costs, for the note at the top. */
const SCALING = [
  "Each coder is one rule in each of two lists; a request that names a coder runs through them in",
  "order (one regex match per coder, a few thousand is fine) and any other request skips them. The",
  "build with --target apache writes the .htaccess again by itself.",
];

function codersNote(names: CatalogueNames): string[] {
  return listedCodersNote("#", "apache", listedCoders(names).length, SCALING);
}

export function renderApacheVirtualHost(options: ServerOptions, names: CatalogueNames): string {
  const { root, listen } = parseServerOptions(options);
  const address = `${listen.host}:${listen.port}`;
  return [
    banner("#", "apache", VERSION),
    "# A virtual host for the server config (Debian: /etc/apache2/sites-available/shopfront.conf, then",
    "# a2ensite shopfront). It needs mod_rewrite and mod_headers (a2enmod rewrite headers).",
    ...codersNote(names),
    "",
    "# Apache must listen on this address. Drop this line if a Listen line for this port exists already",
    "# (Debian: ports.conf): two Listen lines for one port stop Apache from starting.",
    `Listen ${address}`,
    "",
    `<VirtualHost ${address}>`,
    `    DocumentRoot ${quote(root)}`,
    "    # With TRACE on, Apache names it in the Allow header of every 405.",
    "    TraceEnable Off",
    "    # A coder may hold a / (sent as %2F), which Apache otherwise refuses with a 404 of its own; the",
    "    # rules read such paths from the request line as sent.",
    "    AllowEncodedSlashes NoDecode",
    "",
    "    # The root is a symbolic link to the live build, replaced by each build; Apache follows a link",
    "    # only with the options of the folder that holds it.",
    `    <Directory ${quote(dirname(root))}>`,
    "        Options FollowSymLinks",
    "    </Directory>",
    `    <Directory ${quote(root)}>`,
    "        Require all granted",
    `        # This block is the whole config: a ${HTACCESS} in the build (--target apache) is not read.`,
    "        AllowOverride None",
    ...indent(folderRules(), "        "),
    "    </Directory>",
    "",
    ...indent(responseRules()),
    "",
    ...indent(rewriteRules(IN_SERVER, names)),
    "</VirtualHost>",
    "",
  ].join("\n");
}

export function renderApacheHtaccess(names: CatalogueNames): string {
  return [
    banner("#", "apache", VERSION),
    "# For shared hosting: Apache reads this file when the built folder is the DocumentRoot and the host",
    "# allows AllowOverride All. It needs mod_rewrite and mod_headers.",
    ...codersNote(names),
    "# Apache refuses a few malformed requests (an encoded / or NUL, a bad escape, a path above the root,",
    "# an overlong request) before it reads any .htaccess, with its own HTML error and none of these",
    "# headers; the <VirtualHost> from `shopfront config apache` puts them on those answers too. So a",
    "# coder with a / in it (sent as %2F) gets Apache's HTML 404 here: only AllowEncodedSlashes, which a",
    "# .htaccess cannot set, lets it through.",
    "",
    ...folderRules(),
    "",
    ...responseRules(),
    "",
    ...rewriteRules(IN_HTACCESS, names),
    "",
  ].join("\n");
}

export const apache: Target = {
  id: "apache",
  title: "Apache httpd",
  kind: "server",
  packageFiles: "rewrite",
  cannot: {
    "v2-query":
      "a search filters a list at request time, and Apache serves files only: it answers 404 to any request with a non-empty ?query=",
  },
  cannotFromDeployFiles: Object.fromEntries(
    (
      [
        "v1-coder",
        "v1-category-coder",
        "trailing-slash",
        "filter-unknown",
        "content-type",
        "cors",
        "error-body",
      ] as const
    ).map((row) => [row, ENCODED_SLASH]),
  ),
  config: (options, names): TargetFile[] => [
    { path: "shopfront.apache.conf", content: renderApacheVirtualHost(options, names) },
  ],
  deployFiles: (names) => [{ path: HTACCESS, content: renderApacheHtaccess(names) }],
  hbb: "yes: the generated virtual host answers plain HTTP where --listen says; a redirect to HTTPS the operator adds (or the .htaccess host's) must leave /hbb/ and /hbb_download.php out",
  usage:
    "`npx shopfront config apache --root /srv/api/dist --listen 0.0.0.0:80 > /etc/apache2/sites-available/shopfront.conf`; on shared hosting, `npx shopfront build --target apache` writes a `.htaccess` instead",
};
