// Apache httpd 2.4: a <VirtualHost> for the server config, and the same rules as a .htaccess for
// shared hosting. mod_rewrite routes, mod_headers adds the headers, ErrorDocument gives the JSON 404.
import { dirname } from "node:path";
import { renderMethodNotAllowed } from "../render/renderApi.js";
import {
  describeRoute,
  NOT_FOUND_FILE,
  PREFLIGHT_HEADERS,
  RESPONSE_HEADERS,
  routePaths,
  type Param,
} from "../routes/routeTable.js";
import { VERSION } from "../util/version.js";
import { escapeRegex, fillTemplate, pathPattern, queryPatterns, withQueryValue } from "../routes/routeSyntax.js";
import { ALLOWED_METHOD_REGEX, headersExceptContentType, quote } from "./shared/configText.js";
import { parseServerOptions } from "./shared/serverOptions.js";
import { banner, type ServerOptions, type Target, type TargetFile } from "./target.js";

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
  ];
}

/** The headers and error bodies; `always` puts them on error responses too. */
function responseRules(): string[] {
  const preflight = `"expr=%{REQUEST_METHOD} == 'OPTIONS' || %{REQUEST_STATUS} == 405"`;
  const out = ["# Every response, 404s included."];
  for (const [name, value] of Object.entries(headersExceptContentType()))
    out.push(`Header always set ${name} ${quote(value)}`);
  out.push("# The answer to OPTIONS (a CORS preflight) and to any method the API does not answer.");
  for (const [name, value] of Object.entries(PREFLIGHT_HEADERS))
    out.push(`Header always set ${name} ${quote(value)} ${preflight}`);
  out.push(
    "# Apache sends the 405 message below as text/html.",
    `Header always set Content-Type ${quote(RESPONSE_HEADERS["Content-Type"])} "expr=%{REQUEST_STATUS} == 405"`,
    `ErrorDocument 404 /${NOT_FOUND_FILE}`,
    `ErrorDocument 405 '${renderMethodNotAllowed()}'`,
  );
  return out;
}

function rewriteRules(context: RuleContext): string[] {
  const { slash, serve } = context;
  const out = [
    "RewriteEngine On",
    `# ErrorDocument fetches /${NOT_FOUND_FILE} with a request of its own, which must reach the file.`,
    "RewriteCond %{ENV:REDIRECT_STATUS} =404",
    `RewriteRule ^${slash}${escapeRegex(NOT_FOUND_FILE)}$ - [END]`,
    "RewriteCond %{REQUEST_METHOD} =OPTIONS",
    "RewriteRule ^ - [R=204]",
    `RewriteCond %{REQUEST_METHOD} !${ALLOWED_METHOD_REGEX}`,
    "RewriteRule ^ - [R=405]",
  ];
  for (const path of routePaths((r) => ["hosts", "packages", "package", "v2-package", "v2-packages"].includes(r.id))) {
    const { pattern, group } = pathPattern(path.segments);
    const rule = `^${slash}${pattern.slice(1)}$`;
    const capture = (param: Param) => `$${group(param)}`;
    for (const route of path.queries) {
      const query = queryPatterns(route.query[0]!.key);
      out.push(
        `# GET ${describeRoute(route)}: a repeated or invalid ${route.query[0]!.key} is a 404.`,
        `RewriteCond %{QUERY_STRING} ^${query.repeated}`,
        `RewriteRule ${rule} - [R=404]`,
        `RewriteCond %{QUERY_STRING} ^${query.valid}`,
        `RewriteRule ${rule} ${slash}${fillTemplate(route.file, withQueryValue(route.query[0]!, "%1", capture))} [${serve}]`,
        `RewriteCond %{QUERY_STRING} ^${query.present}`,
        `RewriteRule ${rule} - [R=404]`,
      );
    }
    if (path.plain)
      out.push(
        `# GET ${describeRoute(path.plain)}`,
        `RewriteRule ${rule} ${slash}${fillTemplate(path.plain.file, capture)} [${serve}]`,
      );
  }
  out.push(`# Anything else, /${NOT_FOUND_FILE} itself included.`, "RewriteRule ^ - [R=404]");
  return out;
}

function indent(lines: readonly string[], by = "    "): string[] {
  return lines.map((line) => `${by}${line}`);
}

export function renderApacheVirtualHost(options: ServerOptions): string {
  const { root, listen } = parseServerOptions(options);
  const address = `${listen.host}:${listen.port}`;
  return [
    banner("#", "apache", VERSION),
    "# A virtual host for the server config (Debian: /etc/apache2/sites-available/shopfront.conf, then",
    "# a2ensite shopfront). It needs mod_rewrite and mod_headers (a2enmod rewrite headers).",
    "",
    "# Apache must listen on this address. Drop this line if a Listen line for this port exists already",
    "# (Debian: ports.conf): two Listen lines for one port stop Apache from starting.",
    `Listen ${address}`,
    "",
    `<VirtualHost ${address}>`,
    `    DocumentRoot ${quote(root)}`,
    "    # With TRACE on, Apache names it in the Allow header of every 405.",
    "    TraceEnable Off",
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
    ...indent(rewriteRules(IN_SERVER)),
    "</VirtualHost>",
    "",
  ].join("\n");
}

export function renderApacheHtaccess(): string {
  return [
    banner("#", "apache", VERSION),
    "# For shared hosting: Apache reads this file when the built folder is the DocumentRoot and the host",
    "# allows AllowOverride All. It needs mod_rewrite and mod_headers.",
    "# Apache refuses a few malformed requests (an encoded / or NUL, a bad escape, a path above the root,",
    "# an overlong request) before it reads any .htaccess, with its own HTML error and none of these",
    "# headers; the <VirtualHost> from `shopfront config apache` puts them on those answers too.",
    "",
    ...folderRules(),
    "",
    ...responseRules(),
    "",
    ...rewriteRules(IN_HTACCESS),
    "",
  ].join("\n");
}

export const apache: Target = {
  id: "apache",
  title: "Apache httpd",
  kind: "server",
  cannot: {},
  config: (options): TargetFile[] => [{ path: "shopfront.apache.conf", content: renderApacheVirtualHost(options) }],
  deployFiles: () => [{ path: HTACCESS, content: renderApacheHtaccess() }],
  usage:
    "`shopfront config apache --root /srv/api/dist --listen 0.0.0.0:80 > /etc/apache2/sites-available/shopfront.conf`; on shared hosting, `shopfront build --target apache` writes a `.htaccess` instead",
};
