// lighttpd 1.4: a config fragment that opens a socket and serves the API on it. mod_rewrite routes
// on the whole request-target, mod_redirect gives the statuses rewriting cannot (204, 405), the
// error bodies are files the build writes next to the API (`shopfront build --target lighttpd`),
// and mod_setenv adds the headers.
import { renderMethodNotAllowed, renderNotFound } from "../render/renderApi.js";
import {
  describeRoute,
  NOT_FOUND_FILE,
  PREFLIGHT_HEADERS,
  RESERVED_HOST_IDS,
  RESPONSE_HEADERS,
  routePaths,
  type Param,
} from "../routes/routeTable.js";
import { VERSION } from "../util/version.js";
import {
  escapeRegex,
  fillTemplate,
  NAME_CAPTURE,
  pathPattern,
  queryPatterns,
  withQueryValue,
} from "../routes/routeSyntax.js";
import { ALLOWED_METHOD_REGEX, headersExceptContentType, quote } from "./shared/configText.js";
import { parseServerOptions } from "./shared/serverOptions.js";
import { banner, type ServerOptions, type Target, type TargetFile } from "./target.js";

/**
 * lighttpd sends `<prefix><status>.html` as the body of an error, with the error's status; these
 * files are written into the output, where no route can name them (names never start with a dot).
 */
const ERROR_FILE_PREFIX = ".shopfront-error-";

/** Where a request that is no route is sent: a path no build writes, so the answer is the 404. */
const NO_FILE = "/.shopfront-no-such-file";

function pairs(headers: Record<string, string>, indent: string): string[] {
  return Object.entries(headers).map(([name, value]) => `${indent}${quote(name)} => ${quote(value)},`);
}

/**
 * The name pattern for `{host}`, minus the reserved host ids: each is a file (v1/hosts), and
 * lighttpd would serve it for /v1/hosts/packages, taking the rest of the path for path-info.
 */
function capture(param: Param): string {
  const reserved = RESERVED_HOST_IDS.map(escapeRegex).join("|");
  return param === "host" && reserved ? `(?!(?:${reserved})/)${NAME_CAPTURE}` : NAME_CAPTURE;
}

function rewriteRules(): string[] {
  const out: string[] = [];
  const rule = (regex: string, target: string) => out.push(`\t\t${quote(regex)} => ${quote(target)},`);
  for (const path of routePaths((r) => ["hosts", "packages", "package", "v2-package", "v2-packages"].includes(r.id))) {
    const { pattern, params, group } = pathPattern(path.segments, capture);
    const reference = (param: Param) => `$${group(param)}`;
    for (const route of path.queries) {
      const query = queryPatterns(route.query[0]!.key);
      out.push(`\t\t# GET ${describeRoute(route)}: a repeated or invalid ${route.query[0]!.key} is a 404.`);
      rule(`^${pattern}\\?${query.repeated}`, NO_FILE);
      rule(
        `^${pattern}\\?${query.valid}`,
        `/${fillTemplate(route.file, withQueryValue(route.query[0]!, `$${params.length + 1}`, reference))}`,
      );
      rule(`^${pattern}\\?${query.present}`, NO_FILE);
    }
    if (path.plain) {
      out.push(`\t\t# GET ${describeRoute(path.plain)}`);
      rule(`^${pattern}(?:\\?.*)?$`, `/${fillTemplate(path.plain.file, reference)}`);
    }
  }
  out.push(`\t\t# Anything else, /${NOT_FOUND_FILE} itself included.`);
  rule("", NO_FILE);
  return out;
}

export function renderLighttpd(options: ServerOptions): string {
  const { root, listen } = parseServerOptions(options);
  return [
    banner("#", "lighttpd", VERSION),
    "# A fragment for lighttpd.conf (Debian: /etc/lighttpd/conf-enabled/50-shopfront.conf). Build with",
    "# `shopfront build --target lighttpd`: it writes the 404 and 405 bodies this config sends.",
    "",
    "# Include it after the main config's server.modules line. mod_setenv goes first: a module that",
    "# answers a request (mod_redirect below, which Debian's lighttpd.conf loads early) keeps the",
    "# modules after it from adding their response headers.",
    'server.modules := ("mod_setenv") + server.modules + ("mod_access", "mod_rewrite", "mod_redirect")',
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
    "\t# Matched against the whole request-target, path and query as sent (after lighttpd's own",
    "\t# normalization); the first rule that matches wins. A host is never a reserved id: v1/hosts is a",
    "\t# file, which lighttpd would serve for /v1/hosts/packages, taking the rest for path-info.",
    "\turl.rewrite-once = (",
    ...rewriteRules(),
    "\t)",
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
  cannot: {},
  config: (options): TargetFile[] => [{ path: "shopfront.lighttpd.conf", content: renderLighttpd(options) }],
  deployFiles: () => [
    { path: `${ERROR_FILE_PREFIX}404.html`, content: renderNotFound() },
    { path: `${ERROR_FILE_PREFIX}405.html`, content: renderMethodNotAllowed() },
  ],
  usage:
    "`shopfront build --target lighttpd`, then `shopfront config lighttpd --root /srv/api/dist --listen 0.0.0.0:80 > /etc/lighttpd/conf-enabled/50-shopfront.conf`",
};
