// Caddy 2: a site block for the Caddyfile. Named matchers pick the route (path_regexp on the path,
// vars_regexp on the query as sent: the {query.*} placeholders are decoded), rewrite names the file,
// header forces the headers, and handle_errors answers with the JSON 404.
import { renderMethodNotAllowed } from "../render/renderApi.js";
import {
  ALLOWED_METHODS,
  describeRoute,
  NOT_FOUND_FILE,
  PREFLIGHT_HEADERS,
  RESPONSE_HEADERS,
  routePaths,
  type Param,
  type Route,
} from "../routes/routeTable.js";
import { VERSION } from "../util/version.js";
import { fillTemplate, pathPattern, queryPatterns, withQueryValue } from "../routes/routeSyntax.js";
import { quote } from "./shared/configText.js";
import { parseServerOptions } from "./shared/serverOptions.js";
import { banner, type ServerOptions, type Target, type TargetFile } from "./target.js";

/** The raw query string: `{query}` and `{query.package}` are percent-decoded. */
const RAW_QUERY = "{http.request.uri.query}";

function matcherName(route: Route, suffix = ""): string {
  return `${route.id.replace(/-/g, "_")}${suffix}`;
}

function headerBlock(headers: Record<string, string>, indent: string): string[] {
  return [
    `${indent}header {`,
    ...Object.entries(headers).map(([name, value]) => `${indent}\t${name} ${quote(value)}`),
    `${indent}}`,
  ];
}

/** Serves the file a route names; `reference` gives the placeholder of each parameter's capture. */
function serveFile(matcher: string, file: string, reference: (param: Param) => string): string[] {
  return [
    `\thandle @${matcher} {`,
    `\t\trewrite * /${fillTemplate(file, reference)}`,
    "\t\tfile_server {",
    "\t\t\tdisable_canonical_uris",
    "\t\t}",
    "\t}",
  ];
}

function notFound(matcher: string): string[] {
  return [`\thandle @${matcher} {`, "\t\terror 404", "\t}"];
}

export function renderCaddy(options: ServerOptions): string {
  const { root, listen } = parseServerOptions(options);
  const out = [
    banner("#", "caddy", VERSION),
    "# A site block for the Caddyfile (Debian: /etc/caddy/Caddyfile). The address has no host name, so",
    "# Caddy answers every request on it whatever its Host, and http:// keeps it from asking for a",
    "# certificate; bind is the interface to listen on.",
    `http://:${listen.port} {`,
    `\tbind ${listen.host}`,
    `\troot * ${quote(root)}`,
    "",
    "\t# On every response, errors included: header runs before rewrite and before handle_errors.",
    ...headerBlock(RESPONSE_HEADERS, "\t"),
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
    "\t# Each route rewrites to its file. The rewrite drops a trailing slash, and file_server would",
    "\t# redirect such a request to the path without it unless told not to (disable_canonical_uris).",
  ];
  for (const path of routePaths((r) => ["hosts", "packages", "package", "v2-package", "v2-packages"].includes(r.id))) {
    const { pattern, group } = pathPattern(path.segments);
    const regex = `^${pattern}$`;
    const captured = (matcher: string) => (param: Param) => `{re.${matcher}.${group(param)}}`;
    for (const route of path.queries) {
      const name = matcherName(route);
      const query = queryPatterns(route.query[0]!.key);
      const reference = withQueryValue(route.query[0]!, `{re.${name}_query.1}`, captured(name));
      out.push(
        "",
        `\t# GET ${describeRoute(route)}: a repeated or invalid ${route.query[0]!.key} is a 404.`,
        `\t@${name}_repeated {`,
        `\t\tpath_regexp ${regex}`,
        `\t\tvars_regexp ${RAW_QUERY} ^${query.repeated}`,
        "\t}",
        ...notFound(`${name}_repeated`),
        `\t@${name} {`,
        `\t\tpath_regexp ${name} ${regex}`,
        `\t\tvars_regexp ${name}_query ${RAW_QUERY} ^${query.valid}`,
        "\t}",
        ...serveFile(name, route.file, reference),
        `\t@${name}_invalid {`,
        `\t\tpath_regexp ${regex}`,
        `\t\tvars_regexp ${RAW_QUERY} ^${query.present}`,
        "\t}",
        ...notFound(`${name}_invalid`),
      );
    }
    if (path.plain) {
      const name = matcherName(path.plain);
      out.push(
        "",
        `\t# GET ${describeRoute(path.plain)}`,
        `\t@${name} path_regexp ${name} ${regex}`,
        ...serveFile(name, path.plain.file, captured(name)),
      );
    }
  }
  out.push(
    "",
    `\t# Anything else, /${NOT_FOUND_FILE} itself included.`,
    "\thandle {",
    "\t\terror 404",
    "\t}",
    "\thandle_errors {",
    "\t\t@not_found expression {err.status_code} == 404",
    "\t\thandle @not_found {",
    `\t\t\trewrite * /${NOT_FOUND_FILE}`,
    "\t\t\tfile_server",
    "\t\t}",
    "\t}",
    "}",
    "",
  );
  return out.join("\n");
}

export const caddy: Target = {
  id: "caddy",
  title: "Caddy",
  kind: "server",
  cannot: {},
  config: (options): TargetFile[] => [{ path: "shopfront.Caddyfile", content: renderCaddy(options) }],
  usage:
    "`shopfront config caddy --root /srv/api/dist --listen 0.0.0.0:80 > /etc/caddy/Caddyfile` (a site block is a whole Caddyfile)",
};
