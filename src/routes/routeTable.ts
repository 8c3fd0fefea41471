// Over 300 lines: the one route table (routes, files, headers), which every host and the build derive from.
// The route table: which URL answers with which file of the built tree, with which headers. The
// output layout, the 404 body, the preview server, the edge functions and every host config are
// derived from this one list.
import { assertValidName, isValidName, NAME_PATTERN } from "../catalogue/names.js";
import type { SchemaName } from "../catalogue/schemas.js";
import { coderKey, utf8Bytes } from "./filterValue.js";
import { PARAM_KINDS, type Param, type ParamKind, type RouteQuery } from "./routeParams.js";
import { escapeRegex, fillTemplate, filePathPattern, paramOf, paramsInOrder, segmentsOf } from "./routeSyntax.js";
import { HOST_FILES_PREFIX, PACKAGE_FILE_TEMPLATES } from "./packageFileLayout.js";
import { TODAY_ROUTES, type TodayRouteId, type TodaySchema } from "./todayRoutes.js";
import { HBB_ROUTES, type HbbFileKind } from "./hbbRoutes.js";

export type RouteId =
  | "hosts"
  | "v2-hosts"
  | "packages"
  | "package"
  | "category"
  | "coder"
  | "category-coder"
  | "v2-search"
  | "v2-category-coder"
  | "v2-coder"
  | "v2-category"
  | "v2-package"
  | "v2-packages"
  | TodayRouteId;

export interface Route {
  id: RouteId;
  /** URL path; each `{param}` is a whole path segment. */
  path: string;
  /** The query parameters the route needs, in the order a host tests them. */
  query?: readonly RouteQuery[];
  /** The file of the built tree that answers, with the same parameters. */
  file: string;
  /**
   * A filter route's answer when `file` does not exist (no package has that value): the host's
   * empty list, so an unknown coder is `[]` with 200 while an unknown host stays a 404.
   */
  fallback?: string;
  /**
   * A search: the answer is `file` (narrowed by the category and coder parameters when sent, as
   * the filter routes of the same path narrow it) keeping only the packages whose internal_name
   * contains the `search` parameter. Only hosts that run code can answer it; the others answer 404.
   */
  search?: boolean;
  /** What the route returns, for documentation and error bodies. */
  returns: string;
  /** The schema (schemas/) of its 200 body, for the OpenAPI document. */
  schema: ResponseSchema;
}

/** The schemas of schemas/ that a route's 200 body follows. */
export type ResponseSchema = Extract<SchemaName, "hosts" | "packages" | "package" | TodaySchema>;

const EMPTY = "v1/{host}/empty";
const CATEGORY_LIST = "v1/{host}/category/{category}/packages";
const CODER_LIST = "v1/{host}/coder/{coder}/packages";
const CATEGORY_CODER_LIST = "v1/{host}/category/{category}/coder/{coder}/packages";

export const ROUTES: readonly Route[] = [
  { id: "hosts", path: "/v1/hosts", file: "v1/hosts", returns: "the host list", schema: "hosts" },
  { id: "v2-hosts", path: "/v2/hosts", file: "v1/hosts", returns: "the host list", schema: "hosts" },
  {
    id: "packages",
    path: "/v1/{host}/packages",
    file: "v1/{host}/packages",
    returns: "every package of a host",
    schema: "packages",
  },
  {
    id: "package",
    path: "/v1/{host}/package/{name}",
    file: "v1/{host}/package/{name}",
    returns: "one package",
    schema: "package",
  },
  {
    id: "category",
    path: "/v1/{host}/category/{category}/packages",
    file: CATEGORY_LIST,
    fallback: EMPTY,
    returns: "the packages of a category",
    schema: "packages",
  },
  {
    id: "coder",
    path: "/v1/{host}/coder/{coder}/packages",
    file: CODER_LIST,
    fallback: EMPTY,
    returns: "the packages of a coder",
    schema: "packages",
  },
  {
    id: "category-coder",
    path: "/v1/{host}/category/{category}/coder/{coder}/packages",
    file: CATEGORY_CODER_LIST,
    fallback: EMPTY,
    returns: "the packages of a coder in a category",
    schema: "packages",
  },
  {
    id: "v2-search",
    path: "/v2/{host}/packages",
    query: [{ key: "query", param: "query" }],
    file: "v1/{host}/packages",
    fallback: EMPTY,
    search: true,
    returns: "the packages whose internal_name contains the query, of a category and coder when sent",
    schema: "packages",
  },
  {
    id: "v2-category-coder",
    path: "/v2/{host}/packages",
    query: [
      { key: "category", param: "category" },
      { key: "coder", param: "coder" },
    ],
    file: CATEGORY_CODER_LIST,
    fallback: EMPTY,
    returns: "the packages of a coder in a category",
    schema: "packages",
  },
  {
    id: "v2-coder",
    path: "/v2/{host}/packages",
    query: [{ key: "coder", param: "coder" }],
    file: CODER_LIST,
    fallback: EMPTY,
    returns: "the packages of a coder",
    schema: "packages",
  },
  {
    id: "v2-category",
    path: "/v2/{host}/packages",
    query: [{ key: "category", param: "category" }],
    file: CATEGORY_LIST,
    fallback: EMPTY,
    returns: "the packages of a category",
    schema: "packages",
  },
  {
    id: "v2-package",
    path: "/v2/{host}/packages",
    query: [{ key: "package", param: "name" }],
    file: "v1/{host}/package/{name}",
    returns: "one package",
    schema: "package",
  },
  {
    id: "v2-packages",
    path: "/v2/{host}/packages",
    file: "v1/{host}/packages",
    returns: "every package of a host",
    schema: "packages",
  },
  ...TODAY_ROUTES,
];

/** Headers of every API response (200 and 404), forced wherever the host allows it. */
export const RESPONSE_HEADERS = {
  // Extensionless files get application/octet-stream (or nothing, or a type guessed from a dot in
  // the name) unless the host is told otherwise.
  "Content-Type": "application/json",
  // Browser clients on other origins read the API.
  "Access-Control-Allow-Origin": "*",
  // Stops browsers from second-guessing the type of a name such as chart.js.
  "X-Content-Type-Options": "nosniff",
} as const;

/** Methods the API answers; OPTIONS is a CORS preflight (204), any other method gets 405. */
export const ALLOWED_METHODS = ["GET", "HEAD", "OPTIONS"] as const;

/** Extra headers of the answer to OPTIONS (a CORS preflight) and of a 405. */
export const PREFLIGHT_HEADERS = {
  Allow: ALLOWED_METHODS.join(", "),
  "Access-Control-Allow-Methods": ALLOWED_METHODS.join(", "),
  "Access-Control-Max-Age": "86400",
} as const;

/** The body of every 404, served where the host allows it. */
export const NOT_FOUND_FILE = "404.json";

/** The OpenAPI document of the API (src/openapi/renderOpenApi.ts), in the output root beside the 404 body. */
export const OPENAPI_FILE = "openapi.json";

/**
 * The signed index of every served file (docs/trust.md, src/trust/): its entry, the entry's
 * minisign signature and the public key at the root, its shards in a folder. Served as the site's
 * files are.
 */
export const FILE_INDEX = {
  entry: "entry.json",
  signature: "entry.json.minisig",
  publicKey: "minisign.pub",
  folder: "index",
} as const;

/** Whether a path of the build is one of the signed index's own files (FILE_INDEX), which the index does not list. */
export function isFileIndexPath(path: string): boolean {
  return (
    path === FILE_INDEX.entry ||
    path === FILE_INDEX.signature ||
    path === FILE_INDEX.publicKey ||
    path.startsWith(`${FILE_INDEX.folder}/`)
  );
}

/**
 * The browse site and the OpenAPI document: plain files of the build, served as they are beside the
 * API and typed by their extension. `/` answers with the home page; a URL in one of the folders
 * answers with the file at that path, or with the folder's index page when it ends in `/`. Every
 * segment of such a URL must pass the name rule, as every file the site writes does (names,
 * categories, page numbers, the hex of a coder), so no other file can be named. No API route starts
 * with these paths (every one starts with /v1/ or /v2/), so the two never collide.
 */
export const SITE = {
  /** What `/` and every site folder URL ending in `/` answer with. */
  index: "index.html",
  /** Files at the root, each answering the URL of its own name. */
  files: [OPENAPI_FILE, FILE_INDEX.entry, FILE_INDEX.signature, FILE_INDEX.publicKey],
  /** Folders at the root whose every file answers the URL of its path. */
  folders: ["assets", "browse", FILE_INDEX.folder],
} as const;

/** The types of the site's files, by extension: the site writes no other kind, and a URL of any other is a 404. */
export const SITE_TYPES: Readonly<Record<string, string>> = {
  html: "text/html",
  css: "text/css",
  js: "text/javascript",
  json: "application/json",
  svg: "image/svg+xml",
  // Each host's feeds (site/renderFeeds.ts): the JSON Feed has an extension of its own, so that the
  // type of every other JSON file of the site stays application/json.
  atom: "application/atom+xml",
  jsonfeed: "application/feed+json",
  // The file index's signature and public key (FILE_INDEX): minisign's text formats.
  minisig: "text/plain",
  pub: "text/plain",
};

/**
 * Each host's feeds of its newest and updated packages (site/renderFeeds.ts), files of the site in its
 * host's folder, typed by their extensions as every site file is. A host that types by its own
 * table of extensions (Netlify, Cloudflare Pages, Vercel) is given a rule for each (`{host}` any one
 * segment): the JSON Feed's extension is in no such table.
 */
export const SITE_FEEDS = {
  atom: "browse/{host}/feed.atom",
  json: "browse/{host}/feed.jsonfeed",
} as const;

/** Headers of every site answer besides its type: the same as the API's. */
export const SITE_HEADERS = {
  "Access-Control-Allow-Origin": RESPONSE_HEADERS["Access-Control-Allow-Origin"],
  "X-Content-Type-Options": RESPONSE_HEADERS["X-Content-Type-Options"],
} as const;

/**
 * A package's files (packageFileLayout.ts) and the Homebrew Browser's (hbbRoutes.ts): what each is,
 * which fixes its type and cache lifetime. `binary` is boot.dol or boot.elf.
 */
export type PackageFileKind = "archive" | "icon" | "binary" | "meta" | HbbFileKind;

/** The type each kind of package file is served with. */
export const PACKAGE_FILE_TYPES: Readonly<Record<PackageFileKind, string>> = {
  archive: "application/zip",
  icon: "image/png",
  binary: "application/octet-stream",
  meta: "application/xml",
  "hbb-text": "text/plain",
  "hbb-icons": "application/zip",
};

/**
 * How long a client or cache may keep each kind (as the OSC sends them: icons a day, packages four
 * hours); the Homebrew Browser's lists and icon archive change with every build: ten minutes.
 */
export const PACKAGE_FILE_MAX_AGE: Readonly<Record<PackageFileKind, number>> = {
  archive: 4 * 3600,
  icon: 24 * 3600,
  binary: 4 * 3600,
  meta: 4 * 3600,
  "hbb-text": 600,
  "hbb-icons": 600,
};

/** Headers of every package file besides its type and cache lifetime: the API's CORS and nosniff. */
export const PACKAGE_FILE_HEADERS = SITE_HEADERS;

/**
 * A URL of a package file: the stored file's own URL (`alias` false), or another URL of the same
 * file (`alias` true), which a host answers by a rewrite or, where it cannot rewrite, by a copy the
 * build writes at the alias's path (aliasFilesOf). Each `{name}` of the path maps onto the file's
 * `{name}` at the same place (fillByPosition), so `/api/contents/a/b.zip` names `hbb/a/b.zip`,
 * which does not exist: a 404. A file URL never takes a trailing slash.
 */
export interface FileRoute {
  /** The path's shape, for documentation and tests: `/api/v4/contents/{name}/{name}.zip`. */
  path: string;
  file: string;
  kind: PackageFileKind;
  alias: boolean;
  /**
   * false for an alias no copy can stand at: a file of the build is its folder (`api/v4/contents`,
   * today's contents list), so only a host that rewrites answers it.
   */
  copied?: false;
}

const KIND_OF_TEMPLATE: Record<keyof typeof PACKAGE_FILE_TEMPLATES, PackageFileKind> = {
  archive: "archive",
  icon: "icon",
  "boot.dol": "binary",
  "boot.elf": "binary",
  meta: "meta",
};

const STORED_FILE_ROUTES: FileRoute[] = (
  Object.keys(PACKAGE_FILE_TEMPLATES) as (keyof typeof PACKAGE_FILE_TEMPLATES)[]
).map((key) => ({
  path: `/${PACKAGE_FILE_TEMPLATES[key]}`,
  file: PACKAGE_FILE_TEMPLATES[key],
  kind: KIND_OF_TEMPLATE[key],
  alias: false,
}));

const ALIAS_FILE_ROUTES: FileRoute[] = [
  { path: "/hbb/{name}.png", file: PACKAGE_FILE_TEMPLATES.icon, kind: "icon", alias: true },
  ...["api", "api/v3", "api/v4"].flatMap((api): FileRoute[] => {
    // `api/v3/contents` and `api/v4/contents` are files of the build (today's contents lists).
    const copied = api === "api" ? {} : { copied: false as const };
    return [
      {
        path: `/${api}/contents/{name}/{name}.zip`,
        file: PACKAGE_FILE_TEMPLATES.archive,
        kind: "archive",
        alias: true,
        ...copied,
      },
      {
        path: `/${api}/contents/{name}/icon.png`,
        file: PACKAGE_FILE_TEMPLATES.icon,
        kind: "icon",
        alias: true,
        ...copied,
      },
    ];
  }),
];

/**
 * Every URL of a package file: the Homebrew Browser's files, each at its own URL, first (a host
 * tries its rules in this order, and `/hbb/homebrew_browser/temp_files.zip` has the shape of an
 * archive's `/hbb/{name}/{name}.zip`); then the package files, the default host's at the root, then
 * each under `/hosts/{host}/`.
 */
export const FILE_ROUTES: readonly FileRoute[] = [
  ...HBB_ROUTES.map((route): FileRoute => ({ path: route.path, file: route.file, kind: route.kind, alias: false })),
  ...[...STORED_FILE_ROUTES, ...ALIAS_FILE_ROUTES].flatMap((route) => [
    route,
    { ...route, path: `/${HOST_FILES_PREFIX}${route.path.slice(1)}`, file: `${HOST_FILES_PREFIX}${route.file}` },
  ]),
];

const FILE_PATTERNS_BY_PATH = FILE_ROUTES.map((route) => ({
  route,
  params: paramsInOrder(route.path),
  pattern: new RegExp(`^${filePathPattern(segmentsOf(route.path), () => "([^/]+)").pattern}$`),
}));

/**
 * The file route whose URL path is `path` (`/`-rooted), with its parameters' values: each must pass
 * the name rule, and a parameter named twice must hold the same value.
 */
function fileRouteAt(path: string): { route: FileRoute; value: (param: Param) => string } | undefined {
  for (const { route, params, pattern } of FILE_PATTERNS_BY_PATH) {
    const match = pattern.exec(path);
    if (match === null) continue;
    const values = match.slice(1);
    const value = (param: Param) => values[params.indexOf(param)]!;
    if (params.every((param, i) => isValidName(values[i]) && values[i] === value(param))) return { route, value };
  }
  return undefined;
}

/**
 * The kind of a package file of the build (a path relative to its root): a stored file, or a copy
 * at an alias's path (aliasFilesOf) for a host that cannot rewrite. Undefined for any other file.
 */
export function packageFileKind(file: string): PackageFileKind | undefined {
  return fileRouteAt(`/${file}`)?.route.kind;
}

/** A package's own file (its archive, icon, binary, meta.xml, or a copy of one), not one of the Homebrew Browser's. */
export function isPackageFile(file: string): boolean {
  const kind = packageFileKind(file);
  return kind !== undefined && !kind.startsWith("hbb-");
}

/**
 * The paths (relative to the build's root) of the copies that a host that cannot rewrite (GitHub
 * Pages, S3) needs for one stored package file: each alias URL of it, as a path. Empty for any
 * other file. `hbb/snake/icon.png` gives `hbb/snake.png` and `api/contents/snake/icon.png` (and v3, v4).
 */
export function aliasFilesOf(file: string): string[] {
  return aliasesOf(file, (route) => route.copied !== false);
}

/** Every alias URL of a stored file (aliasFilesOf's, and those only a host that rewrites answers), as paths. */
export function aliasUrlsOf(file: string): string[] {
  return aliasesOf(file, () => true);
}

function aliasesOf(file: string, keep: (route: FileRoute) => boolean): string[] {
  const stored = fileRouteAt(`/${file}`);
  if (stored === undefined || stored.route.alias) return [];
  return FILE_ROUTES.filter((r) => r.alias && r.file === stored.route.file && keep(r)).map((r) =>
    fillTemplate(r.path.slice(1), stored.value),
  );
}

/** The first segments of every package file's URL (`hbb`, `unzipped_apps`, `api`, `hosts`). */
export const FILE_ROUTE_ROOTS: readonly string[] = [...new Set(FILE_ROUTES.map((r) => segmentsOf(r.path)[0]!))];

/**
 * The Cache-Control of a kind of package file. `must-revalidate`: once its lifetime is over a cache
 * asks again (a conditional request, answered 304 while the file is the same) rather than serve a
 * stale package that a list no longer names.
 */
export function packageCacheControl(kind: PackageFileKind): string {
  return `public, max-age=${PACKAGE_FILE_MAX_AGE[kind]}, must-revalidate`;
}

/**
 * How long a client or cache may keep every file that is not a package file: the API's lists and
 * packages, the browse site and the signed index (entry.json, its signature, its shards) change with
 * every build, so clients see a build within ten minutes, as GitHub Pages and crates.io's index do.
 */
export const SHORT_MAX_AGE = 600;

/** The Cache-Control of every file that is not a package file (SHORT_MAX_AGE). */
export const SHORT_CACHE_CONTROL = `public, max-age=${SHORT_MAX_AGE}`;

/** The header every host config sends on every answer but a package file's (which sends its own), 404s included. */
export const SHORT_CACHE_HEADERS = { "Cache-Control": SHORT_CACHE_CONTROL } as const;

/** The Cache-Control every answer with a file of the build carries: a package file's lifetime, else the short one. */
export function servedCacheControlOf(file: string): string {
  return cacheControlOf(file) ?? SHORT_CACHE_CONTROL;
}

/** The Cache-Control a file of the build is served with where the host sets it: a package file's lifetime, else none. */
export function cacheControlOf(file: string): string | undefined {
  const kind = packageFileKind(file);
  return kind === undefined ? undefined : packageCacheControl(kind);
}

/** The type a file of the build is served with: a package file's, a site file's (the index's among them) by its extension, or the API's JSON. */
export function contentTypeOf(file: string): string {
  const kind = packageFileKind(file);
  if (kind !== undefined) return PACKAGE_FILE_TYPES[kind];
  return isSiteFile(file) ? SITE_TYPES[extensionOf(file)!]! : RESPONSE_HEADERS["Content-Type"];
}

/** Each file route's parameters in the path and in the file are the same, in the same order (checked at load). */
for (const route of FILE_ROUTES) {
  if (paramsInOrder(route.path).join() !== paramsInOrder(route.file).join())
    throw new Error(`internal: file route ${route.path} and its file ${route.file} differ in their parameters`);
}

/** The extension a site type is chosen by: what follows the last dot of the last segment. */
export function extensionOf(file: string): string | undefined {
  const last = file.slice(file.lastIndexOf("/") + 1);
  const dot = last.lastIndexOf(".");
  return dot > 0 ? last.slice(dot + 1) : undefined;
}

/** True for a file of the build that the site's URLs reach (as a path relative to the build's root). */
export function isSiteFile(file: string): boolean {
  const extension = extensionOf(file);
  if (extension === undefined || !(extension in SITE_TYPES)) return false;
  if (file === SITE.index || (SITE.files as readonly string[]).includes(file)) return true;
  const [folder, ...rest] = file.split("/");
  return (SITE.folders as readonly string[]).includes(folder!) && rest.length > 0 && rest.every(isValidName);
}

export type RouteParams = Partial<Record<Param, string>>;

export function routeById(id: RouteId): Route {
  return ROUTES.find((r) => r.id === id)!;
}

/** Each parameter's value as it goes into a file: a name or label must pass the name rule, a text becomes its key. */
function checkedValue(id: RouteId, params: RouteParams): (param: Param) => string {
  return (param) => {
    const value = params[param];
    if (value === undefined) throw new Error(`internal: route ${id} needs {${param}}`);
    switch (PARAM_KINDS[param]) {
      case "text":
        return coderKey(utf8Bytes(value));
      case "search":
        throw new Error(`internal: {${param}} of route ${id} names no file`);
      default:
        return assertValidName(value, param);
    }
  };
}

/** The file that answers `route` for these parameters (for a search, the list it filters). */
export function fileFor(id: RouteId, params: RouteParams = {}): string {
  return fillTemplate(routeById(id).file, checkedValue(id, params));
}

/** A filter route's fallback for these parameters: the host's empty list. */
export function fallbackFor(id: RouteId, params: RouteParams = {}): string {
  const fallback = routeById(id).fallback;
  if (fallback === undefined) throw new Error(`internal: route ${id} has no fallback`);
  return fillTemplate(fallback, checkedValue(id, params));
}

/**
 * The route's URL path (no query) for these parameters: names and labels as they are (they pass
 * the name rule), texts fully percent-encoded. For configs that list paths.
 */
export function pathFor(id: RouteId, params: RouteParams = {}): string {
  const checked = checkedValue(id, params);
  return fillTemplate(routeById(id).path, (param) =>
    PARAM_KINDS[param] === "text" ? encodeURIComponent(params[param]!) : checked(param),
  );
}

/** A regex source for each file template of the table (route files, then fallbacks), and its route. */
const FILE_PATTERNS = [
  ...ROUTES.map((route) => ({ id: route.id, template: route.file })),
  ...ROUTES.flatMap((route) => (route.fallback ? [{ id: route.id, template: route.fallback }] : [])),
].map(({ id, template }) => ({
  id,
  pattern: new RegExp(
    `^${segmentsOf(template)
      .map((segment) => {
        const param = paramOf(segment);
        if (param === undefined) return escapeRegex(segment);
        return PARAM_KINDS[param] === "text" ? "[0-9a-f]+(?:/[0-9a-f]+)*" : "([^/]+)";
      })
      .join("/")}$`,
  ),
}));

/**
 * The route that `path`, a file of the built tree, answers: the first in the table, so the v1
 * route where v1 and v2 share a file; a fallback file counts as its first route's. Undefined for a
 * file that is not an API response.
 */
export function routeOfFile(path: string): RouteId | undefined {
  return FILE_PATTERNS.find(({ pattern }) => {
    const match = pattern.exec(path);
    return match !== null && match.slice(1).every((name) => isValidName(name));
  })?.id;
}

/** A URL of the route (path and query, every value fully percent-encoded), for messages, tests and live checks. */
export function urlFor(id: RouteId, params: RouteParams = {}): string {
  const route = routeById(id);
  const path = fillTemplate(route.path, (param) => encodeURIComponent(params[param] ?? ""));
  const query = (route.query ?? []).map((q) => `${q.key}=${encodeURIComponent(params[q.param] ?? "")}`);
  return query.length > 0 ? `${path}?${query.join("&")}` : path;
}

/**
 * Host ids that would collide with a fixed path: a route with a literal segment where other routes
 * of the same version take `{host}` (a file `v1/hosts` and a folder `v1/hosts/` cannot coexist).
 */
export const RESERVED_HOST_IDS: readonly string[] = [
  ...new Set(
    ROUTES.flatMap((route) => {
      const [version, segment] = segmentsOf(route.path);
      const takesHost = ROUTES.some((r) => {
        const [otherVersion, first] = segmentsOf(r.path);
        return otherVersion === version && first !== undefined && paramOf(first) === "host";
      });
      return segment && paramOf(segment) === undefined && takesHost ? [segment] : [];
    }),
  ),
];

/** How a route is written in documentation: `/v2/<host>/packages?package=<name>`. */
export function describeRoute(route: Route): string {
  const path = fillTemplate(route.path, (param) => `<${param}>`);
  const query = (route.query ?? []).map((q) => `${q.key}=<${q.param}>`);
  return query.length > 0 ? `${path}?${query.join("&")}` : path;
}

/**
 * The route table as plain data, for code that runs outside this program (edge functions) and for
 * matchRequest: each route's path as segments, `{host}` for a parameter, the query parameters that
 * fill the file's, and how each parameter reaches a file.
 */
export interface PortableRoutes {
  /** NAME_PATTERN: every name and label must match it as decoded. */
  name: string;
  kinds: Readonly<Record<Param, ParamKind>>;
  /** The site: see SITE and SITE_TYPES. */
  site: { index: string; files: readonly string[]; folders: readonly string[]; extensions: readonly string[] };
  /** The package files' URLs (FILE_ROUTES): a path's segments may be `{name}.zip`. */
  files: { segments: string[]; file: string }[];
  routes: {
    id: RouteId;
    segments: string[];
    query?: readonly RouteQuery[];
    file: string;
    fallback?: string;
    search?: boolean;
  }[];
}

export const PORTABLE_ROUTES: PortableRoutes = {
  name: NAME_PATTERN,
  kinds: PARAM_KINDS,
  site: { ...SITE, extensions: Object.keys(SITE_TYPES) },
  files: FILE_ROUTES.map((r) => ({ segments: segmentsOf(r.path), file: r.file })),
  routes: ROUTES.map((r) => ({
    id: r.id,
    segments: segmentsOf(r.path),
    ...(r.query ? { query: r.query } : {}),
    file: r.file,
    ...(r.fallback ? { fallback: r.fallback } : {}),
    ...(r.search ? { search: true } : {}),
  })),
};

export type QueryRoute = Route & { query: readonly RouteQuery[] };

/**
 * Routes grouped by URL path: a path's plain route, if any, and its query routes (the v2 form) in
 * table order, which is the order a host must try them in: the first whose parameters a request
 * has decides, as in matchRequest.
 */
export interface RoutePath {
  segments: string[];
  plain?: Route;
  queries: QueryRoute[];
}

export function routePaths(only: (route: Route) => boolean = () => true): RoutePath[] {
  const byPath = new Map<string, RoutePath>();
  for (const route of ROUTES.filter(only)) {
    const entry = byPath.get(route.path) ?? { segments: segmentsOf(route.path), queries: [] };
    if (route.query) entry.queries.push(route as QueryRoute);
    else entry.plain = route;
    byPath.set(route.path, entry);
  }
  return [...byPath.values()];
}
