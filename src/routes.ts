// The route table: which URL answers with which file of the built tree. The output layout, the 404
// body, the preview server and every host config are derived from this one list.
import { assertValidName } from "./names.js";

export type RouteId = "hosts" | "packages" | "package" | "v2-package" | "v2-packages";

export interface Route {
  id: RouteId;
  /** URL path; `{host}` and `{name}` are path segments that must pass the name rule. */
  path: string;
  /** Query parameter that carries `{name}` (the v2 form); the route needs it present exactly once. */
  query?: "package";
  /** The file of the built tree that answers, with the same parameters. */
  file: string;
  /** What the route returns, for documentation and error bodies. */
  returns: string;
}

export const ROUTES: readonly Route[] = [
  { id: "hosts", path: "/v1/hosts", file: "v1/hosts", returns: "the host list" },
  { id: "packages", path: "/v1/{host}/packages", file: "v1/{host}/packages", returns: "every package of a host" },
  { id: "package", path: "/v1/{host}/package/{name}", file: "v1/{host}/package/{name}", returns: "one package" },
  { id: "v2-package", path: "/v2/{host}/packages", query: "package", file: "v1/{host}/package/{name}", returns: "one package" },
  { id: "v2-packages", path: "/v2/{host}/packages", file: "v1/{host}/packages", returns: "every package of a host" },
];

/** The body of every 404, served where the host allows it. */
export const NOT_FOUND_FILE = "404.json";

export interface RouteParams {
  host?: string;
  name?: string;
}

export function routeById(id: RouteId): Route {
  return ROUTES.find((r) => r.id === id)!;
}

/** The file that answers `route` for these parameters; every parameter must pass the name rule. */
export function fileFor(id: RouteId, params: RouteParams = {}): string {
  return routeById(id).file.replace(/\{(host|name)\}/g, (_, key: "host" | "name") => {
    const value = params[key];
    if (value === undefined) throw new Error(`internal: route ${id} needs {${key}}`);
    return assertValidName(value, key);
  });
}

/** A URL path of the route, for messages, tests and live checks. */
export function urlFor(id: RouteId, params: RouteParams = {}): string {
  const route = routeById(id);
  const path = route.path.replace(/\{(host|name)\}/g, (_, key: "host" | "name") => encodeURIComponent(params[key] ?? ""));
  return route.query ? `${path}?${route.query}=${encodeURIComponent(params.name ?? "")}` : path;
}

/**
 * Host ids that would collide with a fixed path: a route with a literal segment where other routes
 * of the same version take `{host}` (a file `v1/hosts` and a folder `v1/hosts/` cannot coexist).
 */
export const RESERVED_HOST_IDS: readonly string[] = ROUTES.flatMap((route) => {
  const [version, segment] = route.path.split("/").slice(1);
  const takesHost = ROUTES.some((r) => r.path.startsWith(`/${version}/{host}`));
  return segment && !segment.startsWith("{") && takesHost ? [segment] : [];
});

/** How a route is written in documentation: `/v2/<host>/packages?package=<name>`. */
export function describeRoute(route: Route): string {
  const path = route.path.replace(/\{(\w+)\}/g, "<$1>");
  return route.query ? `${path}?${route.query}=<name>` : path;
}
