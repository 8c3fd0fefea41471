// Cloudflare Pages in advanced mode: a `_worker.js` module worker sees every request, routes it with
// the embedded reference router and route table, and serves the route's file through env.ASSETS with
// the API's headers forced: the fallback (the host's empty list) when the file is missing, and for a
// search the list filtered by the embedded filterList. A file of the browse site or the OpenAPI
// document is served the same way with the site's headers and its own type, by its extension.
// Everything else it answers itself (404 with the JSON body, 204, 405).
// Pages reads `_worker.js`, `_headers` and `404.html` from the deploy root.
import { renderMethodNotAllowed, renderNotFound } from "../render/renderApi.js";
import {
  extensionOf,
  FILE_ROUTES,
  PACKAGE_FILE_TYPES,
  packageCacheControl,
  PREFLIGHT_HEADERS,
  RESPONSE_HEADERS,
  SHORT_CACHE_HEADERS,
  SITE_HEADERS,
  SITE_TYPES,
} from "../routes/routeTable.js";
import { VERSION } from "../util/version.js";
import { embedFilterList, embedRouter } from "./shared/edgeRouter.js";
import { renderHeadersFile } from "./shared/headersFile.js";
import { banner, type Target, type TargetFile } from "./target.js";

export function renderWorker(): string {
  return [
    banner("//", "cloudflare", VERSION),
    "// Cloudflare Pages advanced mode: place it in the deploy root as _worker.js.",
    "",
    ...embedRouter({
      HEADERS: { ...RESPONSE_HEADERS, ...SHORT_CACHE_HEADERS },
      SITE_HEADERS: { ...SITE_HEADERS, ...SHORT_CACHE_HEADERS },
      SITE_TYPES,
      FILE_HEADERS: fileHeadersByFile(),
      PREFLIGHT_HEADERS,
      NOT_FOUND: renderNotFound(),
      METHOD_NOT_ALLOWED: renderMethodNotAllowed(),
    }),
    ...embedFilterList(),
    "",
    String(extensionOf),
    "",
    "function answer(status, body, extra) {",
    "  return new Response(body, { status, headers: { ...HEADERS, ...extra } });",
    "}",
    "",
    "async function fetchAsset(env, url, method) {",
    "  const asset = await env.ASSETS.fetch(new Request(url, { method }));",
    // Pages redirects a file whose name ends in .html to the URL it serves that same file under
    // (x/index.html to x/, x.html to x when no file x exists), so a package named index.html, and
    // every page of the site, is reached by following that one redirect.
    "  const location = asset.status >= 300 && asset.status < 400 ? asset.headers.get('location') : null;",
    "  const next = location === null ? null : new URL(location, url);",
    "  return next !== null && next.origin === url.origin ? env.ASSETS.fetch(new Request(next, { method })) : asset;",
    "}",
    "",
    "export default {",
    "  async fetch(request, env) {",
    // request.url is already parsed (dot segments resolved); the router decodes and checks every segment.
    "    const url = new URL(request.url);",
    "    const target = url.pathname + url.search;",
    "    const match = matchFileRequest(TABLE, request.method, target) || matchRequest(TABLE, request.method, target);",
    "    if (match.status === 204) return answer(204, null, PREFLIGHT_HEADERS);",
    "    if (match.status === 405) return answer(405, METHOD_NOT_ALLOWED, PREFLIGHT_HEADERS);",
    "    if (match.status === 200) {",
    // A search reads the list's body, which the assets give to a GET only.
    "      const method = match.search === undefined ? request.method : 'GET';",
    "      let asset = await fetchAsset(env, new URL('/' + match.file, url), method);",
    // No list for that coder or category: the host's empty list (an unknown host has none either).
    "      if (asset.status === 404 && match.fallback !== undefined)",
    "        asset = await fetchAsset(env, new URL('/' + match.fallback, url), method);",
    "      if (asset.status === 200 && match.search !== undefined) {",
    "        const found = filterList(await asset.text(), match.search);",
    "        return answer(200, request.method === 'HEAD' ? null : found);",
    "      }",
    // Pages types an extensionless file as application/octet-stream, and a .js one by the name
    // before RFC 9239, and _headers does not reach a worker's responses: the headers are set here.
    "      if (asset.status === 200 || asset.status === 304) {",
    "        const own = match.route === 'site'",
    "          ? { ...SITE_HEADERS, 'Content-Type': SITE_TYPES[extensionOf(match.file)] || HEADERS['Content-Type'] }",
    "          : match.route === 'file' ? { ...SITE_HEADERS, ...FILE_HEADERS[match.template] } : HEADERS;",
    "        const headers = new Headers(asset.headers);",
    "        for (const name in own) headers.set(name, own[name]);",
    "        return new Response(asset.body, { status: asset.status, headers });",
    "      }",
    "    }",
    "    return answer(404, NOT_FOUND);",
    "  },",
    "};",
    "",
  ].join("\n");
}

/** Each stored file template's type and cache lifetime, by the template (the match's `template`). */
function fileHeadersByFile(): Record<string, Record<string, string>> {
  return Object.fromEntries(
    FILE_ROUTES.map((route) => [
      route.file,
      { "Content-Type": PACKAGE_FILE_TYPES[route.kind], "Cache-Control": packageCacheControl(route.kind) },
    ]),
  );
}

function pagesFiles(): TargetFile[] {
  return [
    { path: "_worker.js", content: renderWorker() },
    // For requests that reach the files without the worker (Pages serves assets directly when the
    // project's Functions quota is used up and it is set to fail open).
    { path: "_headers", content: renderHeadersFile() },
    // Without a top-level 404.html Pages behaves as a single-page app and answers 200 for every
    // unknown path; this one holds the JSON error body.
    { path: "404.html", content: renderNotFound() },
  ];
}

export const cloudflare: Target = {
  id: "cloudflare",
  title: "Cloudflare Pages",
  kind: "platform",
  packageFiles: "rewrite",
  cannot: {},
  config: pagesFiles,
  deployFiles: pagesFiles,
  hbb: "only on a custom domain whose zone has Always Use HTTPS off and no HSTS; a pages.dev address redirects to HTTPS (Cloudflare's documentation, not run here)",
  usage:
    "`npx shopfront build --target cloudflare`, then deploy `dist/` as the Pages project's output folder (`_worker.js`, `_headers` and `404.html` are in its root)",
};
