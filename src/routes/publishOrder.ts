// The order files are published in, one phase after another, wherever a build's files reach readers
// one by one: the deploys (src/deploy/) and a rebuild writing the live output in place
// (src/write/writeOutput.ts). Each phase names only files of earlier phases, so a reader in the middle
// never gets a file naming one that is not there yet; files gone from the build are removed last.
import { TODAY_ROUTES, type TodayRouteId } from "./todayRoutes.js";
import { isSiteFile, NOT_FOUND_FILE, OPENAPI_FILE, packageFileKind, routeOfFile, type RouteId } from "./routeTable.js";

/**
 * Files go in phases, each finished before the next starts, so a reader during a deploy or a rebuild never
 * gets a list that names a package whose file is not there yet, or a host list naming a host
 * whose list is missing. The site comes after the API, whose URLs its pages name, and its home page
 * last of all.
 */
export const PHASES = [
  "package files, the 404 body and the OpenAPI document",
  "package lists",
  "host list",
  "the browse site's assets and pages",
  "the home page",
] as const;

const PHASE_OF_ROUTE: Record<RouteId, number> = {
  package: 0,
  "v2-package": 0,
  packages: 1,
  "v2-packages": 1,
  category: 1,
  coder: 1,
  "category-coder": 1,
  "v2-search": 1,
  "v2-category-coder": 1,
  "v2-coder": 1,
  "v2-category": 1,
  hosts: 2,
  "v2-hosts": 2,
  // Today's files name packages and their files, as the lists do.
  ...(Object.fromEntries(TODAY_ROUTES.map((r) => [r.id, 1])) as Record<TodayRouteId, number>),
};

/** The upload phase of a file of the build, or undefined for one that is neither the API nor the site. */
export function phaseOf(path: string): number | undefined {
  // The OpenAPI document names no package, list or host; a package file goes before the package naming it.
  if (path === NOT_FOUND_FILE || path === OPENAPI_FILE || packageFileKind(path) !== undefined) return 0;
  // A file in a site folder, then the home page.
  if (isSiteFile(path)) return path.includes("/") ? 3 : 4;
  const route = routeOfFile(path);
  return route === undefined ? undefined : PHASE_OF_ROUTE[route];
}
