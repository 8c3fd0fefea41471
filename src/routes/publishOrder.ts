// The order a build's files reach readers one by one, pure and shared by every deploy (S3, rclone)
// and by a rebuild writing the live output in place (src/write/writeOutput.ts): which phase each
// file belongs to. Each phase is finished before the next starts, so a reader in the middle never
// gets a file naming another that is not there yet: a package object giving the size of a zip not
// yet there, a list (the API's, today's v4 and v3, the Homebrew Browser's) naming a package whose
// file or object is missing, a host list naming a host whose list is missing, a page linking to an
// API file not yet written, an index naming a list of the last build. Deletions come after every
// phase. test/unit/publishOrder.test.ts holds the phases to what each file of a build names.
import { HBB_HOST_FILES, HBB_REPO_LIST } from "./hbbRoutes.js";
import { escapeRegex } from "./routeSyntax.js";
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
  "package objects",
  "package lists",
  "host list",
  "the browse site's assets and pages",
  "the home page",
  "the signed index's shards and the signature named by the entry's SHA-256",
  "the signed index's entry.json",
  "entry.json's signature beside it and the public key",
] as const;

/** The phases by what they are, so that the table below reads by name. */
const PHASE = {
  files: 0,
  objects: 1,
  lists: 2,
  hosts: 3,
  site: 4,
  home: 5,
  shards: 6,
  entry: 7,
  signature: 8,
} as const;

const PHASE_OF_ROUTE: Record<RouteId, number> = {
  // A package's object gives its archive's size and its extracted size: after the files.
  package: PHASE.objects,
  "v2-package": PHASE.objects,
  packages: PHASE.lists,
  "v2-packages": PHASE.lists,
  category: PHASE.lists,
  coder: PHASE.lists,
  "category-coder": PHASE.lists,
  "v2-search": PHASE.lists,
  "v2-category-coder": PHASE.lists,
  "v2-coder": PHASE.lists,
  "v2-category": PHASE.lists,
  hosts: PHASE.hosts,
  "v2-hosts": PHASE.hosts,
  // Today's files name packages and their files, as the lists do.
  ...(Object.fromEntries(TODAY_ROUTES.map((r) => [r.id, PHASE.lists])) as Record<TodayRouteId, number>),
};

/** A host's Homebrew Browser list (each package's name, sizes and text), at either of its URLs. */
const HBB_LIST = new RegExp(
  `^(?:hosts/[^/]+/)?(?:${[HBB_HOST_FILES.list, HBB_HOST_FILES.shortList].map(escapeRegex).join("|")})$`,
);

/** The upload phase (an index of PHASES) of a file of the build, or undefined for one no deploy sends. */
export function phaseOf(path: string): number | undefined {
  // The Homebrew Browser's list names each package and gives its archive's size, as a v1 list does;
  // the repository list names each host's list.
  if (HBB_LIST.test(path)) return PHASE.lists;
  if (path === HBB_REPO_LIST) return PHASE.hosts;
  // The OpenAPI document names no package, list or host; a package file (and the Homebrew Browser's
  // icon archive and stubs, which name nothing) goes before anything naming it.
  if (path === NOT_FOUND_FILE || path === OPENAPI_FILE || packageFileKind(path) !== undefined) return PHASE.files;
  // The index names the lists, the pages and the package files by their digests: last of all; its
  // entry after its shards and the signature a reader finds by the entry's digest, and the signature
  // at the fixed name after the entry (src/trust/writeFileIndex.ts writes them in the same order).
  if (path === FILE_INDEX.entry) return PHASE.entry;
  if (path === FILE_INDEX.signature || path === FILE_INDEX.publicKey) return PHASE.signature;
  if (isFileIndexPath(path)) return PHASE.shards;
  // A file in a site folder, then the home page.
  if (isSiteFile(path)) return path.includes("/") ? PHASE.site : PHASE.home;
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
