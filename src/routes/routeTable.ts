// The route table: which URL answers with which file of the built tree, with which headers. The
// output layout, the 404 body, the preview server, the edge functions and every host config are
// derived from this one list.
import { assertValidName, isValidName, NAME_PATTERN } from "../catalogue/names.js";
import { fillTemplate, paramOf, segmentsOf } from "./routeSyntax.js";

export type RouteId = "hosts" | "packages" | "package" | "v2-package" | "v2-packages";

/** Every parameter a route's path, query or file names, as `{host}` in a template. */
export type Param = "host" | "name";

/** A query parameter that carries a route parameter (the v2 form); the route needs it present exactly once. */
export interface RouteQuery {
  key: string;
  /** The parameter its value fills; like every parameter, it must pass the name rule. */
  param: Param;
}

export interface Route {
  id: RouteId;
  /** URL path; each `{param}` is a whole path segment that must pass the name rule. */
  path: string;
  query?: RouteQuery;
  /** The file of the built tree that answers, with the same parameters. */
  file: string;
  /** What the route returns, for documentation and error bodies. */
  returns: string;
}

export const ROUTES: readonly Route[] = [
  { id: "hosts", path: "/v1/hosts", file: "v1/hosts", returns: "the host list" },
  { id: "packages", path: "/v1/{host}/packages", file: "v1/{host}/packages", returns: "every package of a host" },
  { id: "package", path: "/v1/{host}/package/{name}", file: "v1/{host}/package/{name}", returns: "one package" },
  {
    id: "v2-package",
    path: "/v2/{host}/packages",
    query: { key: "package", param: "name" },
    file: "v1/{host}/package/{name}",
    returns: "one package",
  },
  { id: "v2-packages", path: "/v2/{host}/packages", file: "v1/{host}/packages", returns: "every package of a host" },
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

export type RouteParams = Partial<Record<Param, string>>;

export function routeById(id: RouteId): Route {
  return ROUTES.find((r) => r.id === id)!;
}

/** Each parameter's value, which must be given and pass the name rule. */
function checkedValue(id: RouteId, params: RouteParams): (param: Param) => string {
  return (param) => {
    const value = params[param];
    if (value === undefined) throw new Error(`internal: route ${id} needs {${param}}`);
    return assertValidName(value, param);
  };
}

/** The file that answers `route` for these parameters; every parameter must pass the name rule. */
export function fileFor(id: RouteId, params: RouteParams = {}): string {
  return fillTemplate(routeById(id).file, checkedValue(id, params));
}

/** The route's URL path (no query) for these parameters, which must pass the name rule: for configs that list paths. */
export function pathFor(id: RouteId, params: RouteParams = {}): string {
  return fillTemplate(routeById(id).path, checkedValue(id, params));
}

/** Each route's file, split once: a deploy asks routeOfFile about every file of the build. */
const FILE_SEGMENTS = ROUTES.map((route) => ({
  id: route.id,
  segments: segmentsOf(route.file).map((literal) => ({ literal, param: paramOf(literal) })),
}));

/**
 * The route that `path`, a file of the built tree, answers: the first in the table, so the v1
 * route where v1 and v2 share a file. Undefined for a file that is not an API response.
 */
export function routeOfFile(path: string): RouteId | undefined {
  const segments = path.split("/");
  return FILE_SEGMENTS.find((route) => {
    const expected = route.segments;
    return (
      expected.length === segments.length &&
      expected.every((s, i) => (s.param ? isValidName(segments[i]) : s.literal === segments[i]))
    );
  })?.id;
}

/** A URL path of the route, for messages, tests and live checks. */
export function urlFor(id: RouteId, params: RouteParams = {}): string {
  const route = routeById(id);
  const path = fillTemplate(route.path, (param) => encodeURIComponent(params[param] ?? ""));
  return route.query ? `${path}?${route.query.key}=${encodeURIComponent(params[route.query.param] ?? "")}` : path;
}

/**
 * Host ids that would collide with a fixed path: a route with a literal segment where other routes
 * of the same version take `{host}` (a file `v1/hosts` and a folder `v1/hosts/` cannot coexist).
 */
export const RESERVED_HOST_IDS: readonly string[] = ROUTES.flatMap((route) => {
  const [version, segment] = segmentsOf(route.path);
  const takesHost = ROUTES.some((r) => {
    const [otherVersion, first] = segmentsOf(r.path);
    return otherVersion === version && first !== undefined && paramOf(first) === "host";
  });
  return segment && paramOf(segment) === undefined && takesHost ? [segment] : [];
});

/** How a route is written in documentation: `/v2/<host>/packages?package=<name>`. */
export function describeRoute(route: Route): string {
  const path = fillTemplate(route.path, (param) => `<${param}>`);
  return route.query ? `${path}?${route.query.key}=<${route.query.param}>` : path;
}

/**
 * The route table as plain data, for code that runs outside this program (edge functions) and for
 * matchRequest: each route's path as segments, `{host}` for a parameter, and the query parameter
 * that fills one of the file's.
 */
export interface PortableRoutes {
  /** NAME_PATTERN: every parameter, in the path or the query, must match it as sent. */
  name: string;
  routes: { id: RouteId; segments: string[]; query?: RouteQuery; file: string }[];
}

export const PORTABLE_ROUTES: PortableRoutes = {
  name: NAME_PATTERN,
  routes: ROUTES.map((r) => ({
    id: r.id,
    segments: segmentsOf(r.path),
    ...(r.query ? { query: r.query } : {}),
    file: r.file,
  })),
};

export type QueryRoute = Route & { query: RouteQuery };

/**
 * Routes grouped by URL path: a path's plain route, if any, and its query routes (the v2 form) in
 * table order, which is the order a host must try them in: the first whose parameter a request
 * has decides, as in matchRequest.
 */
export interface RoutePath {
  segments: string[];
  plain?: Route;
  queries: QueryRoute[];
}

export function routePaths(): RoutePath[] {
  const byPath = new Map<string, RoutePath>();
  for (const route of ROUTES) {
    const entry = byPath.get(route.path) ?? { segments: segmentsOf(route.path), queries: [] };
    if (route.query) entry.queries.push(route as QueryRoute);
    else entry.plain = route;
    byPath.set(route.path, entry);
  }
  return [...byPath.values()];
}
