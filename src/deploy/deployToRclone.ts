// `shopfront deploy rclone:...`: reads the build, lists the remote and the last deploy's record,
// plans (planRcloneDeploy.ts), then runs rclone once per batch, phase by phase, writes the new
// record and, with `delete`, deletes last. rclone runs as a child process with its arguments (no
// shell), with the environment it was given, so it finds its config as it always does
// (RCLONE_CONFIG, else ~/.config/rclone/rclone.conf, and RCLONE_CONFIG_<REMOTE>_... variables).
// rclone retries failed transfers itself (--retries, --low-level-retries); a run that still fails
// stops the deploy with a FailureError naming what failed, and running the same command again
// finishes it.
import { spawn } from "node:child_process";
import { appendAll } from "../util/appendAll.js";
import { FailureError } from "../util/errors.js";
import { RESPONSE_HEADERS } from "../routes/routeTable.js";
import { checkCacheControl } from "./checkCacheControl.js";
import {
  DEFAULT_CACHE_CONTROL,
  parseDeployState,
  renderDeployState,
  STATE_FILE,
  type ObjectRecord,
} from "./planDeploy.js";
import {
  fingerprintOf,
  planRcloneDeploy,
  type ListedFile,
  type RcloneBatch,
  type RclonePlan,
} from "./planRcloneDeploy.js";
import { readBuild } from "./readBuild.js";
import { formatRcloneUrl, parseRcloneUrl, rclonePath, type RcloneLocation } from "./rcloneLocation.js";

export interface RcloneDeployOptions {
  /** `rclone:REMOTE:PATH` or `rclone:/ABSOLUTE/PATH`. */
  url: string;
  /** The built folder (the `dist` link). */
  dir: string;
  delete?: boolean;
  dryRun?: boolean;
  cacheControl?: string;
  /** rclone's environment; process.env unless given. */
  env?: NodeJS.ProcessEnv;
  onProgress?: (done: number, total: number) => void;
}

/** A file rclone reported copying or deleting, in the order its log said so. */
export interface RcloneEvent {
  action: "copied" | "deleted";
  path: string;
}

export interface RcloneDeployResult {
  location: RcloneLocation;
  plan: RclonePlan;
  dryRun: boolean;
  /** Files rclone reported copied, and their bytes (0 in a dry run). */
  uploaded: number;
  bytes: number;
  deleted: number;
  /** Whether the remote held no file under the path before. */
  first: boolean;
  /** rclone's own account of what it copied and deleted, in order. */
  log: RcloneEvent[];
}

/** The program, found on PATH as a user's shell would. */
const RCLONE = "rclone";
/** Every run logs one JSON object per line at INFO (each file copied or deleted) and no periodic stats. */
const LOG_FLAGS = ["--use-json-log", "-v", "--stats", "0"];

interface RcloneLine {
  level?: string;
  msg?: string;
  object?: string;
}

interface RcloneRun {
  stdout: string;
  lines: RcloneLine[];
}

/** rclone's exit code for a directory not found: a remote path nothing was deployed to yet. */
const EXIT_DIR_NOT_FOUND = 3;

class RcloneExit extends Error {
  constructor(
    readonly code: number | null,
    message: string,
  ) {
    super(message);
  }
}

function runRclone(args: readonly string[], env: NodeJS.ProcessEnv, input?: string): Promise<RcloneRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(RCLONE, [...args, ...LOG_FLAGS], { env, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.on("error", (error: NodeJS.ErrnoException) =>
      reject(
        error.code === "ENOENT"
          ? new FailureError("rclone was not found on PATH; install it (Debian and Ubuntu: apt install rclone)")
          : error,
      ),
    );
    child.on("close", (code) => {
      const lines = stderr
        .split("\n")
        .filter((line) => line.startsWith("{"))
        .map((line) => JSON.parse(line) as RcloneLine);
      if (code === 0) return resolve({ stdout, lines });
      const errors = lines.filter((l) => l.level === "error" || l.level === "critical");
      const said = (errors.length > 0 ? errors : lines.slice(-1)).map((l) =>
        l.object ? `${l.object}: ${l.msg}` : `${l.msg}`,
      );
      reject(new RcloneExit(code, said.join("; ") || stderr.trim()));
    });
    child.stdin.end(input ?? "");
  });
}

async function rclone(what: string, args: readonly string[], env: NodeJS.ProcessEnv, input?: string) {
  try {
    return await runRclone(args, env, input);
  } catch (error) {
    if (!(error instanceof RcloneExit)) throw error;
    throw new FailureError(`${what} failed (rclone exited with ${error.code}): ${error.message}`);
  }
}

/** Every file under the location, with its MD5 where the remote has one; empty where the path does not exist yet. */
async function listRemote(location: RcloneLocation, env: NodeJS.ProcessEnv) {
  let run: RcloneRun;
  try {
    run = await runRclone(["lsjson", "-R", "--files-only", "--hash-type", "md5", rclonePath(location)], env);
  } catch (error) {
    if (error instanceof RcloneExit && error.code === EXIT_DIR_NOT_FOUND) return [];
    if (error instanceof RcloneExit)
      throw new FailureError(
        `listing ${formatRcloneUrl(location)} failed (rclone exited with ${error.code}): ${error.message}`,
      );
    throw error;
  }
  const entries = JSON.parse(run.stdout) as {
    Path: string;
    Size: number;
    ModTime: string;
    Hashes?: { md5?: string };
  }[];
  return entries.map((e): ListedFile => ({
    path: e.Path,
    size: e.Size,
    modTime: new Date(e.ModTime),
    ...(e.Hashes?.md5 ? { md5: e.Hashes.md5.toLowerCase() } : {}),
  }));
}

/** The headers of a batch, where the remote keeps them (S3 and other object stores) or passes them on (WebDAV). */
function headerFlags(batch: RcloneBatch): string[] {
  return [
    ...(batch.contentType ? ["--header-upload", `Content-Type: ${batch.contentType}`] : []),
    ...(batch.cacheControl ? ["--header-upload", `Cache-Control: ${batch.cacheControl}`] : []),
  ];
}

function eventsOf(run: RcloneRun): RcloneEvent[] {
  return run.lines.flatMap((line): RcloneEvent[] => {
    if (line.level !== "info" || line.object === undefined || line.msg === undefined) return [];
    if (line.msg.includes("Copied")) return [{ action: "copied", path: line.object }];
    if (line.msg === "Deleted") return [{ action: "deleted", path: line.object }];
    return [];
  });
}

export async function deployToRclone(options: RcloneDeployOptions): Promise<RcloneDeployResult> {
  const location = parseRcloneUrl(options.url);
  const cacheControl = checkCacheControl(options.cacheControl ?? DEFAULT_CACHE_CONTROL);
  const env = options.env ?? process.env;
  const build = readBuild(options.dir);
  const where = formatRcloneUrl(location);

  const remote = await listRemote(location, env);
  const stateEntry = remote.find((f) => f.path === STATE_FILE);
  let stateText: string | undefined;
  if (stateEntry) {
    stateText = (await rclone(`reading ${STATE_FILE} from ${where}`, ["cat", rclonePath(location, STATE_FILE)], env))
      .stdout;
  }
  const state = stateText === undefined || !stateEntry ? undefined : parseDeployState(stateText, stateEntry.modTime);
  const plan = planRcloneDeploy({
    files: build.files,
    remote,
    ...(state ? { state } : {}),
    cacheControl,
    delete: options.delete ?? false,
  });
  const result: RcloneDeployResult = {
    location,
    plan,
    dryRun: options.dryRun ?? false,
    uploaded: 0,
    bytes: 0,
    deleted: 0,
    first: remote.length === 0,
    log: [],
  };
  if (options.dryRun) return result;

  const uploads = plan.batches.flatMap((b) => b.files);
  const total = uploads.length + plan.deletions.length;
  const sizes = new Map(uploads.map((u) => [u.path, u.size]));
  let done = 0;
  for (const batch of plan.batches) {
    const paths = batch.files.map((f) => f.path);
    let run: RcloneRun;
    try {
      // --ignore-times: the plan decided these files differ; --no-traverse: no listing of the remote again.
      run = await rclone(
        `uploading ${paths.length} files to ${where}`,
        [
          "copy",
          build.root,
          rclonePath(location),
          "--files-from-raw",
          "-",
          "--ignore-times",
          "--no-traverse",
          ...headerFlags(batch),
        ],
        env,
        paths.join("\n"),
      );
    } catch (error) {
      throw withProgress(error, `${result.uploaded} of ${uploads.length} uploads had finished`);
    }
    for (const event of eventsOf(run)) {
      result.log.push(event);
      result.uploaded++;
      result.bytes += sizes.get(event.path) ?? 0;
    }
    done += paths.length;
    options.onProgress?.(done, total);
  }

  // The record: the unchanged files' as they were, each uploaded file's as the remote lists it now.
  const records = new Map<string, ObjectRecord>(plan.unchanged.map(({ file, record }) => [file.path, record]));
  if (uploads.length > 0) {
    // The whole location: rclone 1.60's lsjson with --files-from misses files in some nested folders of S3.
    const listed = new Map((await listRemote(location, env)).map((f) => [f.path, f]));
    for (const u of uploads) {
      const now = listed.get(u.path);
      if (now === undefined) throw new FailureError(`${where}: ${u.path} is not there after rclone copied it`);
      records.set(u.path, {
        md5: u.md5,
        etag: fingerprintOf(now),
        contentType: u.contentType ?? "",
        cacheControl: u.cacheControl ?? "",
      });
    }
  }
  const nextState = renderDeployState(records);
  // Rewritten after any upload even when its text is the same: its new time vouches for the files written before it.
  if (uploads.length > 0 || nextState !== stateText) {
    await rclone(
      `writing ${STATE_FILE} to ${where}`,
      [
        "rcat",
        rclonePath(location, STATE_FILE),
        "--header-upload",
        `Content-Type: ${RESPONSE_HEADERS["Content-Type"]}`,
        "--header-upload",
        "Cache-Control: no-store",
      ],
      env,
      nextState,
    );
  }

  if (plan.deletions.length > 0) {
    // The plan deletes only what the listing of this location showed; this is the last gate before rclone.
    const outside = plan.deletions.find((p) => p === STATE_FILE || p.split("/").includes(".."));
    if (outside !== undefined) throw new Error(`internal: refusing to delete ${outside} under ${where}`);
    const run = await rclone(
      `deleting ${plan.deletions.length} files under ${where}`,
      ["delete", rclonePath(location), "--files-from-raw", "-", "--no-traverse"],
      env,
      plan.deletions.join("\n"),
    );
    const deleted = eventsOf(run);
    appendAll(result.log, deleted);
    result.deleted = deleted.length;
    // Looked up in a set: a deploy that removes a million files would otherwise compare a million by a million.
    const done = new Set(deleted.map((e) => e.path));
    const missed = plan.deletions.filter((path) => !done.has(path));
    if (missed.length > 0)
      throw new FailureError(
        `deleting under ${where}: rclone did not delete ${missed.length} of ${plan.deletions.length} files; the first, ${missed[0]}`,
      );
    // Folders the deletions emptied (a removed package's); remotes without folders have none.
    await rclone(`removing empty folders under ${where}`, ["rmdirs", rclonePath(location), "--leave-root"], env);
    options.onProgress?.(total, total);
  }
  return result;
}

function withProgress(error: unknown, progress: string): unknown {
  if (!(error instanceof FailureError)) return error;
  return new FailureError(
    `${error.message}\n${progress}; nothing was deleted. Run the same command again to finish the deploy.`,
  );
}
