// The order a build's files reach readers one by one, pure and shared by every deploy (S3, rclone)
// and by a rebuild writing the live output in place (src/write/writeOutput.ts): which phase each
// file belongs to. Each phase is finished before the next starts, so a reader in the middle never
// gets a file naming another that is not there yet: a list naming a package whose file is missing,
// a host list naming a host whose list is missing, a page linking to an API file not yet written, an
// index naming a list of the last build. Deletions come after every phase.
import { TODAY_ROUTES, type TodayRouteId } from "./todayRoutes.js";
import {
  FILE_INDEX,
  isFileIndexPath,
  isSiteFile,
  NOT_FOUND_FILE,
  OPENAPI_FILE,
  packageFileKind,
  routeOfFile,
  type RouteId,
} from "./routeTable.js";

export const PHASES = [
  "package files, the 404 body and the OpenAPI document",
  "package lists",
  "host list",
  "the browse site's assets and pages",
  "the home page",
  "the signed index's shards and the signature named by the entry's SHA-256",
  "the signed index's entry.json",
  "entry.json's signature beside it and the public key",
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

/** The upload phase (an index of PHASES) of a file of the build, or undefined for one no deploy sends. */
export function phaseOf(path: string): number | undefined {
  // The OpenAPI document names no package, list or host; a package file goes before the package naming it.
  if (path === NOT_FOUND_FILE || path === OPENAPI_FILE || packageFileKind(path) !== undefined) return 0;
  // The index names the lists, the pages and the package files by their digests: last of all; its
  // entry after its shards and the signature a reader finds by the entry's digest, and the signature
  // at the fixed name after the entry (src/trust/writeFileIndex.ts writes them in the same order).
  if (path === FILE_INDEX.entry) return 6;
  if (path === FILE_INDEX.signature || path === FILE_INDEX.publicKey) return 7;
  if (isFileIndexPath(path)) return 5;
  // A file in a site folder, then the home page.
  if (isSiteFile(path)) return path.includes("/") ? 3 : 4;
  const route = routeOfFile(path);
  return route === undefined ? undefined : PHASE_OF_ROUTE[route];
}

/** The files of a build in their phases (each in the order given), and those no deploy sends. */
export function phasesOf<T extends { path: string }>(files: readonly T[]): { phases: T[][]; skipped: T[] } {
  const phases: T[][] = PHASES.map(() => []);
  const skipped: T[] = [];
  for (const file of files) {
    const phase = phaseOf(file.path);
    if (phase === undefined) skipped.push(file);
    else phases[phase]!.push(file);
  }
  return { phases, skipped };
}
