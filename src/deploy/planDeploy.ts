// The deploy plan, pure: the files of a build with their MD5s, the bucket's listing under the
// prefix and the record the last deploy left there, in; the ordered uploads and the deletions, out.
//
// Change detection. The listing gives every object's ETag and LastModified but none of its
// metadata, and a change of Content-Type or Cache-Control alone must re-upload. Asking each object
// (HeadObject) would cost one request per file on every deploy; instead each deploy ends by writing
// a small record, `.shopfront-deploy.json` under the prefix, with every object's MD5, ETag and
// metadata as uploaded. An object is unchanged only when all of these hold:
// - the record has it with the MD5 of the local file (content) and the wanted metadata;
// - the listed ETag is the one the record noted (the object is still the one shopfront wrote; this
//   also works where the ETag is not an MD5, as with SSE-KMS);
// - it was not written after the record (LastModified, both by the store's clock): `aws s3 sync`
//   rewriting the same bytes with another Content-Type keeps the ETag but not the date.
// Everything else is uploaded. Without a record (first deploy, or a bucket filled by another tool)
// that is every file: the metadata of what is there cannot be known from the listing. The record
// only says what is known about the bucket; what exists is decided by the build alone.
//
// Each object carries the type it is served with (contentTypeOf): the API's JSON, for a file of
// the browse site or the OpenAPI document the type of its extension, for a package file its own. All
// but the package files share one Cache-Control: the site's assets keep their names from build to
// build, so a longer life for them would pair a new page with an old script. A package file has its
// own lifetime (cacheControlOf: an icon a day, the rest four hours), and is never sent again for its
// metadata alone: when its bytes are known to be the object's (the record's MD5, or an ETag that is
// the local MD5, as a single-part upload's is), a new type or lifetime is a copy of the object onto
// itself with the new metadata, so an unchanged 50 MB archive never crosses the network twice.
import { TODAY_ROUTES, type TodayRouteId } from "../routes/todayRoutes.js";
import {
  cacheControlOf,
  contentTypeOf,
  packageFileKind,
  isSiteFile,
  NOT_FOUND_FILE,
  OPENAPI_FILE,
  routeOfFile,
  type RouteId,
} from "../routes/routeTable.js";
import { keyPrefix, objectKey, type S3Location } from "./s3Location.js";
import { compareCodePoints } from "../util/codePoints.js";

/** As GitHub Pages and crates.io's index: clients see a deploy within ten minutes. */
export const DEFAULT_CACHE_CONTROL = "public, max-age=600";

/** The record of the last deploy, under the prefix. No API file can have this name. */
export const STATE_FILE = ".shopfront-deploy.json";

export interface LocalFile {
  /** Path in the build, with `/`: `v1/hosts`. */
  path: string;
  size: number;
  /** Lowercase hex. */
  md5: string;
}

export interface RemoteObject {
  key: string;
  etag: string;
  lastModified: Date;
}

/** What a deploy wrote for one object. */
export interface ObjectRecord {
  md5: string;
  /** As the store answered the upload, normalized (no quotes, lowercase). */
  etag: string;
  contentType: string;
  cacheControl: string;
}

export interface DeployState {
  /** By path in the build. */
  objects: ReadonlyMap<string, ObjectRecord>;
  /** The record object's LastModified in the listing: the store's clock when the last deploy ended. */
  writtenAt: Date;
}

export type UploadReason = "new" | "content" | "metadata" | "unrecorded";

export const UPLOAD_REASONS: Record<UploadReason, string> = {
  new: "not in the bucket",
  content: "content changed",
  metadata: "Content-Type or Cache-Control changed",
  unrecorded: "same content, metadata unknown (not written by the last deploy)",
};

export interface Upload extends LocalFile {
  key: string;
  contentType: string;
  cacheControl: string;
  reason: UploadReason;
  /**
   * A package file whose bytes the object already holds (reason `metadata` or `unrecorded`): copied
   * onto itself with the new metadata instead of sent again.
   */
  inPlace?: boolean;
}

/**
 * Uploads go in phases, each finished before the next starts, so a reader during the deploy never
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

export interface PlanInput {
  location: S3Location;
  files: readonly LocalFile[];
  /** Every object listed under the prefix. */
  remote: readonly RemoteObject[];
  state?: DeployState;
  cacheControl: string;
  /** Delete the objects under the prefix that the build does not have. */
  delete: boolean;
}

export interface DeployPlan {
  /** One list of uploads per phase, in the order of PHASES, each sorted by key. */
  phases: Upload[][];
  /** Files already in the bucket as wanted, with the record to carry into the next one. */
  unchanged: { file: LocalFile; record: ObjectRecord }[];
  /** Keys to delete after every upload: under the prefix, not in the build (only with `delete`). */
  deletions: string[];
  /** Keys under the prefix that are not in the build, kept because `delete` is off. */
  kept: string[];
  /** Files of the build that are neither the API nor the site (other hosts' config files, such as `.nojekyll`). */
  skipped: string[];
}

/** The upload phase of a file of the build, or undefined for one that is neither the API nor the site. */
export function phaseOf(path: string): number | undefined {
  // The OpenAPI document names no package, list or host; a package file goes before the package naming it.
  if (path === NOT_FOUND_FILE || path === OPENAPI_FILE || packageFileKind(path) !== undefined) return 0;
  // A file in a site folder, then the home page.
  if (isSiteFile(path)) return path.includes("/") ? 3 : 4;
  const route = routeOfFile(path);
  return route === undefined ? undefined : PHASE_OF_ROUTE[route];
}

/** ETags come quoted, and some stores differ in case. */
export function normalizeEtag(etag: string): string {
  return etag.replace(/^"|"$/g, "").toLowerCase();
}

function byKey<T extends { key: string }>(a: T, b: T): number {
  return compareCodePoints(a.key, b.key);
}

export function planDeploy(input: PlanInput): DeployPlan {
  const prefix = keyPrefix(input.location);
  const stateKey = objectKey(input.location, STATE_FILE);
  const remote = new Map<string, RemoteObject>();
  for (const object of input.remote) {
    // The listing asks for the prefix; a key outside it is never the deploy's to judge or delete.
    if (object.key.startsWith(prefix) && object.key !== stateKey) remote.set(object.key.slice(prefix.length), object);
  }

  const plan: DeployPlan = { phases: PHASES.map(() => []), unchanged: [], deletions: [], kept: [], skipped: [] };
  const inBuild = new Set<string>();
  for (const file of input.files) {
    const phase = phaseOf(file.path);
    if (phase === undefined) {
      plan.skipped.push(file.path);
      continue;
    }
    inBuild.add(file.path);
    const wanted = {
      contentType: contentTypeOf(file.path),
      cacheControl: cacheControlOf(file.path) ?? input.cacheControl,
    };
    const record = input.state?.objects.get(file.path);
    const reason = uploadReason(file, wanted, remote.get(file.path), record, input.state?.writtenAt);
    const inPlace = packageFileKind(file.path) !== undefined && (reason === "metadata" || reason === "unrecorded");
    if (reason === undefined) plan.unchanged.push({ file, record: record! });
    else
      plan.phases[phase]!.push({
        ...file,
        key: objectKey(input.location, file.path),
        ...wanted,
        reason,
        ...(inPlace ? { inPlace } : {}),
      });
  }
  for (const phase of plan.phases) phase.sort(byKey);
  plan.skipped.sort();

  const strays = [...remote.keys()]
    .filter((path) => !inBuild.has(path))
    .map((path) => `${prefix}${path}`)
    .sort();
  if (input.delete) plan.deletions = strays;
  else plan.kept = strays;
  return plan;
}

function uploadReason(
  file: LocalFile,
  wanted: { contentType: string; cacheControl: string },
  remote: RemoteObject | undefined,
  record: ObjectRecord | undefined,
  recordedAt: Date | undefined,
): UploadReason | undefined {
  if (!remote) return "new";
  const etag = normalizeEtag(remote.etag);
  const known =
    record !== undefined && recordedAt !== undefined && record.etag === etag && remote.lastModified <= recordedAt;
  if (!known) return etag === file.md5 ? "unrecorded" : "content";
  if (record.md5 !== file.md5) return "content";
  return record.contentType === wanted.contentType && record.cacheControl === wanted.cacheControl
    ? undefined
    : "metadata";
}

/** The record a deploy writes: sorted, so an unchanged bucket gives the same bytes. */
export function renderDeployState(objects: ReadonlyMap<string, ObjectRecord>): string {
  const sorted = Object.fromEntries(
    [...objects]
      .sort(([a], [b]) => compareCodePoints(a, b))
      .map(([path, r]) => [
        path,
        { md5: r.md5, etag: r.etag, contentType: r.contentType, cacheControl: r.cacheControl },
      ]),
  );
  return `${JSON.stringify({ shopfront: "deploy-state", version: 1, objects: sorted }, null, 1)}\n`;
}

/**
 * The record as read from the bucket. Anything unexpected gives undefined rather than an error: the
 * record only saves uploads, and without it every file is uploaded again, which is always right.
 */
export function parseDeployState(text: string, writtenAt: Date): DeployState | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const state = value as { shopfront?: unknown; version?: unknown; objects?: unknown };
  if (typeof value !== "object" || value === null || state.shopfront !== "deploy-state" || state.version !== 1)
    return undefined;
  if (typeof state.objects !== "object" || state.objects === null) return undefined;
  const objects = new Map<string, ObjectRecord>();
  for (const [path, r] of Object.entries(state.objects as Record<string, Partial<ObjectRecord>>)) {
    if (typeof r !== "object" || r === null) return undefined;
    const { md5, etag, contentType, cacheControl } = r;
    if (
      typeof md5 !== "string" ||
      typeof etag !== "string" ||
      typeof contentType !== "string" ||
      typeof cacheControl !== "string"
    )
      return undefined;
    objects.set(path, { md5, etag, contentType, cacheControl });
  }
  return { objects, writtenAt };
}
