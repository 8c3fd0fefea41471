// The `_headers` file that Netlify and Cloudflare Pages both read from the deploy root (one syntax).
// Both apply every rule whose path matches the request's path (the URL asked for, not the file a
// rewrite serves), and Pages joins two values of one header with a comma, so no two rules here set
// the same header for one path:
// - CORS and nosniff on every path, the API's and the site's alike;
// - the API's type on the API's paths (/v1/*, /v2/*) and on its 404 body, so no extensionless file
//   keeps a guessed type. Today's API shares its first segments (api, hosts) with the package
//   files' URLs, so it is typed route by route (/api/v4/information, /hosts/*/api/v4/information),
//   never by folder. Any other URL is a site file or a 404: a site file keeps the type the host gives
//   its extension, and the 404 body the host serves is 404.json, typed as JSON likewise.
// - text/javascript on the site's scripts, which both hosts type application/javascript (the name
//   before RFC 9239). Only in `assets/`, the site's own files: a rule matches its path with or
//   without a trailing slash, so `*.js` in browse/ would also type the page of a package named
//   chart.js (/browse/<host>/package/chart.js/). A missing script's 404 gets that type too.
// - the short cache lifetime on the API's paths, its 404 body and the site's URLs (`/`, the root
//   files, the site folders), none of which a package file's URL shape matches;
// - each host's feeds' types (application/atom+xml, application/feed+json) at their paths. A `*` may
//   span folders, so a package named feed.atom would have its page (`/browse/<host>/package/feed.atom/`)
//   typed so too; a feed is the only file of its name in a host's folder.
// - each package file's type and cache lifetime on its URLs' shapes; a missing one's 404 gets them too.
import {
  FILE_ROUTE_ROOTS,
  FILE_ROUTES,
  NOT_FOUND_FILE,
  PACKAGE_FILE_TYPES,
  packageCacheControl,
  RESPONSE_HEADERS,
  ROUTES,
  SHORT_CACHE_HEADERS,
  SITE,
  SITE_FEEDS,
  SITE_HEADERS,
  SITE_TYPES,
  extensionOf,
} from "../../routes/routeTable.js";
import { segmentsOf } from "../../routes/routeSyntax.js";

/** The site folder of the site's own assets, the one whose scripts a rule types. */
const ASSETS: (typeof SITE.folders)[number] = "assets";

/** The path rules of `_headers`, each with its headers, in the order they are written. */
export function headerRules(): { path: string; headers: Record<string, string> }[] {
  const json = { "Content-Type": RESPONSE_HEADERS["Content-Type"], ...SHORT_CACHE_HEADERS };
  // A folder of the API whose first segment no package file's URL starts with, else the route's own path.
  const apiPaths = [
    ...new Set(
      ROUTES.map((route) => {
        const folder = segmentsOf(route.path)[0]!;
        return FILE_ROUTE_ROOTS.includes(folder) ? route.path.replace(/\{\w+\}/g, "*") : `/${folder}/*`;
      }),
    ),
  ];
  return [
    { path: "/*", headers: { ...SITE_HEADERS } },
    ...apiPaths.map((path) => ({ path, headers: json })),
    { path: `/${NOT_FOUND_FILE}`, headers: json },
    ...[
      "/",
      ...[SITE.index, ...SITE.files].map((file) => `/${file}`),
      ...SITE.folders.map((folder) => `/${folder}/*`),
    ].map((path) => ({ path, headers: { ...SHORT_CACHE_HEADERS } })),
    { path: `/${ASSETS}/*.js`, headers: { "Content-Type": SITE_TYPES.js! } },
    // Each host's feeds, whose extensions neither host types so (a `*` here is the host's folder).
    ...Object.values(SITE_FEEDS).map((file) => ({
      path: `/${file.replace("{host}", "*")}`,
      headers: { "Content-Type": SITE_TYPES[extensionOf(file)!]! },
    })),
    // The package files at each URL (a copy at each alias's path): their type and lifetime. No API
    // or site path has these shapes (a name in place of each `*`). Where two match, the later wins:
    // in reverse, so the first of FILE_ROUTES does (the Homebrew Browser's temp_files.zip has the
    // shape of an archive's path).
    ...[...FILE_ROUTES].reverse().map((route) => ({
      path: route.path.replace(/\{\w+\}/g, "*"),
      headers: { "Content-Type": PACKAGE_FILE_TYPES[route.kind], "Cache-Control": packageCacheControl(route.kind) },
    })),
  ];
}

export function renderHeadersFile(): string {
  return `${headerRules()
    .flatMap(({ path, headers }) => [path, ...Object.entries(headers).map(([name, value]) => `  ${name}: ${value}`)])
    .join("\n")}\n`;
}
