// The rclone deploy's plan, pure: the files of a build, the remote's listing (from `rclone lsjson`)
// and the record the last deploy left there, in; the uploads in their phases (routes/publishOrder.ts),
// grouped into one rclone run per type and lifetime, and the deletions, out.
//
// Change detection. rclone's own comparison is not enough for a build: every build writes every
// file again, so size and modification time (rclone's default) would send the whole build each
// time, and `--checksum` on a remote without hashes (plain WebDAV, FTP, rclone's own `serve
// webdav`) falls back to the size alone, which misses an edit of the same length (a list whose
// count goes from 1 to 2). So shopfront decides, as the S3 deploy does (planDeploy.ts), by content:
// where the listing gives each file's MD5 (local folders, S3, Google Drive, ownCloud, SFTP with a
// shell) that is compared with the build's; where it gives none, the record `.shopfront-deploy.json`
// the last deploy wrote says each file's MD5, and a file counts as the one recorded only while its
// size is the recorded one and it was not written after the record. The record also holds each
// file's type and lifetime, so a change of those alone sends the file again on the remotes that
// keep them. rclone is then told to send exactly the files decided (`--ignore-times`), and checks
// each transfer's hash itself where both sides have one.
import { cacheControlOf, contentTypeOf } from "../routes/routeTable.js";
import { compareCodePoints } from "../util/codePoints.js";
import { phasesOf } from "../routes/publishOrder.js";
import {
  STATE_FILE,
  uploadReason,
  type DeployState,
  type LocalFile,
  type ObjectRecord,
  type UploadReason,
} from "./planDeploy.js";

/** One file of `rclone lsjson -R --files-only --hash-type md5`. */
export interface ListedFile {
  path: string;
  size: number;
  modTime: Date;
  /** Lowercase hex, where the remote has MD5s. */
  md5?: string;
}

export interface RcloneUpload extends LocalFile {
  /** Undefined for a file only another host reads (`.htaccess`, `_headers`): rclone types it by its extension. */
  contentType?: string;
  cacheControl?: string;
  reason: UploadReason;
}

/** The uploads of one rclone run: the same headers for all. */
export interface RcloneBatch {
  phase: number;
  contentType?: string;
  cacheControl?: string;
  files: RcloneUpload[];
}

export interface RclonePlanInput {
  files: readonly LocalFile[];
  remote: readonly ListedFile[];
  state?: DeployState;
  /** The lifetime of everything but the package files. */
  cacheControl: string;
  delete: boolean;
}

export interface RclonePlan {
  /** In the order they run: by phase, then by type and lifetime. */
  batches: RcloneBatch[];
  unchanged: { file: LocalFile; record: ObjectRecord }[];
  /** Paths to delete after every upload (only with `delete`). */
  deletions: string[];
  /** Paths on the remote that the build does not have, kept because `delete` is off. */
  kept: string[];
}

/**
 * What stands for a listed file's content where the record is compared: its MD5, or where the
 * remote has none, its size (with the record's MD5 and the modification time vouching for the rest).
 */
export function fingerprintOf(listed: Pick<ListedFile, "size" | "md5">): string {
  return listed.md5 ?? `size:${listed.size}`;
}

export function planRcloneDeploy(input: RclonePlanInput): RclonePlan {
  const remote = new Map(input.remote.filter((f) => f.path !== STATE_FILE).map((f) => [f.path, f]));
  // Files only other hosts read go with the first phase: they name nothing, and a server reading the
  // folder (an .htaccess) should have its rules before the files they serve.
  const { phases, skipped } = phasesOf(input.files);
  const forOtherHosts = new Set(skipped);
  phases[0]!.push(...skipped);

  const plan: RclonePlan = { batches: [], unchanged: [], deletions: [], kept: [] };
  phases.forEach((files, phase) => {
    const batches = new Map<string, RcloneBatch>();
    for (const file of files) {
      const known = !forOtherHosts.has(file);
      const wanted = known
        ? { contentType: contentTypeOf(file.path), cacheControl: cacheControlOf(file.path) ?? input.cacheControl }
        : { contentType: "", cacheControl: "" };
      const listed = remote.get(file.path);
      const record = input.state?.objects.get(file.path);
      const reason = uploadReason(
        file,
        wanted,
        listed && { key: file.path, etag: fingerprintOf(listed), lastModified: listed.modTime },
        record,
        input.state?.writtenAt,
      );
      if (reason === undefined) {
        plan.unchanged.push({ file, record: record! });
        continue;
      }
      const headers = known ? wanted : {};
      const key = JSON.stringify([wanted.contentType, wanted.cacheControl]);
      const batch = batches.get(key) ?? { phase, ...headers, files: [] };
      batch.files.push({ ...file, ...headers, reason });
      batches.set(key, batch);
    }
    for (const [, batch] of [...batches].sort(([a], [b]) => compareCodePoints(a, b))) {
      batch.files.sort((a, b) => compareCodePoints(a.path, b.path));
      plan.batches.push(batch);
    }
  });

  const inBuild = new Set(input.files.map((f) => f.path));
  const strays = [...remote.keys()].filter((path) => !inBuild.has(path)).sort(compareCodePoints);
  if (input.delete) plan.deletions = strays;
  else plan.kept = strays;
  return plan;
}
