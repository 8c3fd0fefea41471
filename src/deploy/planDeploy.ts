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
// itself with the new metadata, so an unchanged 50 MB archive never crosses the network twice. Nor
// do the same bytes at two keys: a package file to send whose bytes another object holds, or another
// upload sends (the copies at the aliases' paths that a host that cannot rewrite needs, which the
// build writes as hard links), is copied from that object on the store's side (copyWhereHeld).
import {
  aliasFilesOf,
  cacheControlOf,
  contentTypeOf,
  packageFileKind,
  SHORT_CACHE_CONTROL,
} from "../routes/routeTable.js";
import { PHASES, phaseOf } from "../routes/publishOrder.js";
import { keyPrefix, objectKey, type S3Location } from "./s3Location.js";
import { compareCodePoints } from "../util/codePoints.js";

/** The route table's lifetime of everything but the package files. */
export const DEFAULT_CACHE_CONTROL = SHORT_CACHE_CONTROL;

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
  /**
   * A package file whose bytes another object holds, or another upload of this deploy sends (a copy at
   * an alias's path, a placeholder icon shared by packages): the key it is copied from on the
   * store's side, with its own metadata, instead of sent again. Only after that key's upload, if it
   * has one in this deploy (copiesLast).
   */
  copyFrom?: string;
}

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
  /** One list of uploads per phase, in the order of PHASES (routes/publishOrder.ts), each sorted by key. */
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
  copyWhereHeld(plan, remote, input.location);

  const strays = [...remote.keys()]
    .filter((path) => !inBuild.has(path))
    .map((path) => `${prefix}${path}`)
    .sort();
  if (input.delete) plan.deletions = strays;
  else plan.kept = strays;
  return plan;
}

/**
 * Sends no package file's bytes twice. A package file to upload (new, or its content changed) whose
 * bytes an object already holds at a key this deploy does not write (an unchanged file by its
 * record, or any object whose ETag is the file's MD5, as a single-part upload's is), or that another
 * upload of this deploy sends, is copied from that key. The stored files are sent before the copies at
 * their aliases' paths (aliasFilesOf), which sort first by key.
 */
function copyWhereHeld(plan: DeployPlan, remote: ReadonlyMap<string, RemoteObject>, location: S3Location): void {
  const uploads = plan.phases.flat();
  const written = new Set(uploads.map((u) => u.path));
  // By MD5, the key that holds those bytes, the first found kept: an object no upload waits for first.
  const held = new Map<string, string>();
  const hold = (md5: string, key: string) => {
    if (!held.has(md5)) held.set(md5, key);
  };
  for (const { file } of plan.unchanged)
    if (packageFileKind(file.path) !== undefined) hold(file.md5, objectKey(location, file.path));
  for (const [path, object] of remote)
    if (!written.has(path) && packageFileKind(path) !== undefined)
      hold(normalizeEtag(object.etag), objectKey(location, path));
  for (const u of uploads) if (u.inPlace) hold(u.md5, u.key);
  const stored = (u: Upload) => (aliasFilesOf(u.path).length > 0 ? 0 : 1);
  const sent = uploads
    .filter((u) => packageFileKind(u.path) !== undefined && (u.reason === "new" || u.reason === "content"))
    .sort((a, b) => stored(a) - stored(b) || byKey(a, b));
  for (const u of sent) {
    const from = held.get(u.md5);
    if (from === undefined) held.set(u.md5, u.key);
    else u.copyFrom = from;
  }
}

/**
 * A phase's uploads in the two waves they run in: first every one that needs no other upload of the
 * deploy, then the copies from a key this deploy writes.
 */
export function copiesLast(phase: readonly Upload[], written: ReadonlySet<string>): [Upload[], Upload[]] {
  const after = (u: Upload) => u.copyFrom !== undefined && written.has(u.copyFrom);
  return [phase.filter((u) => !after(u)), phase.filter(after)];
}

export function uploadReason(
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
    // Not JSON: no record, and every file is uploaded again (see above).
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
