// nginx: a server block to include in http { }, with a map for the v2 query parameter.
import { NAME_PATTERN_BODY } from "../catalogue/names.js";
import { renderMethodNotAllowed } from "../render/renderApi.js";
import {
  NOT_FOUND_FILE,
  PREFLIGHT_HEADERS,
  RESPONSE_HEADERS,
  routePaths,
  type RouteQuery,
} from "../routes/routeTable.js";
import { fillTemplate, pathPattern, queryPatterns, withQueryValue } from "../routes/routeSyntax.js";
import { VERSION } from "../util/version.js";
import { ALLOWED_METHOD_REGEX, headersExceptContentType, quote } from "./shared/configText.js";
import { parseServerOptions } from "./shared/serverOptions.js";
import { banner, type ServerOptions, type Target, type TargetFile } from "./target.js";

/** nginx's own variable `$host` is the request's Host, so every variable here has a prefix. */
const PREFIX = "shopfront_";

/** A name as the named capture `(?<shopfront_host>NAME)`, which nginx makes the variable `$shopfront_host`. */
function namedCapture(name: string): string {
  return `(?<${PREFIX}${name}>${NAME_PATTERN_BODY})`;
}

function variable(name: string): string {
  return `$${PREFIX}${name}`;
}

export function renderNginx(options: ServerOptions): string {
  const { root, listen } = parseServerOptions(options);
  const paths = routePaths((r) => ["hosts", "packages", "package", "v2-package", "v2-packages"].includes(r.id));
  const out: string[] = [
    banner("#", "nginx", VERSION),
    "# Include it inside http { }. It serves the static API built in the root below.",
    "",
  ];

  // A map belongs to http { }, outside the server: one for each query parameter.
  const queries = new Map<string, RouteQuery>(
    paths.flatMap((p) => p.queries.map((route) => [route.query[0]!.key, route.query[0]!])),
  );
  for (const { key, param } of queries.values()) {
    const query = queryPatterns(key, namedCapture(`query_${param}`));
    out.push(
      `# The ${key} query parameter as sent: "" when absent, "!" when repeated or not a valid name.`,
      `# Matching the raw value against the name pattern is what keeps ?${key}=../../x out of the file system.`,
      `map $args ${variable(key)} {`,
      `    default "";`,
      `    "~^${query.repeated}" "!";`,
      `    "~^${query.valid}" ${variable(`query_${param}`)};`,
      `    "~^${query.present}" "!";`,
      `}`,
      "",
    );
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
  for (const [name, value] of Object.entries(headersExceptContentType({ ...RESPONSE_HEADERS, ...PREFLIGHT_HEADERS }))) {
    out.push(`    add_header ${name} ${quote(value)} always;`);
  }
  out.push(
    "",
    `    if ($request_method = OPTIONS) { return 204; }`,
    `    if ($request_method !~ ${ALLOWED_METHOD_REGEX}) {`,
    `        return 405 '${renderMethodNotAllowed()}';`,
    `    }`,
    "",
    `    error_page 404 /${NOT_FOUND_FILE};`,
    `    location = /${NOT_FOUND_FILE} { internal; }`,
    "",
  );
  for (const path of paths) {
    out.push(`    location ~ ${quote(`^${pathPattern(path.segments, namedCapture).pattern}$`)} {`);
    for (const {
      query: [query],
      file,
    } of path.queries) {
      if (!query) continue;
      const value = variable(query.key);
      out.push(`        if (${value} = "!") { return 404; }`);
      // Rewritten to the v1 path, which the location of the v1 route then serves.
      out.push(
        `        if (${value}) { rewrite ^ /${fillTemplate(file, withQueryValue(query, value, variable))}? last; }`,
      );
    }
    if (path.plain) out.push(`        try_files /${fillTemplate(path.plain.file, variable)} =404;`);
    out.push(`    }`);
  }
  out.push(`    location / { return 404; }`, `}`, "");
  return out.join("\n");
}

export const nginx: Target = {
  id: "nginx",
  title: "nginx",
  kind: "server",
  cannot: {},
  config: (options): TargetFile[] => [{ path: "shopfront.nginx.conf", content: renderNginx(options) }],
  usage: "`shopfront config nginx --root /srv/api/dist --listen 0.0.0.0:80 > /etc/nginx/conf.d/shopfront.conf`",
};
