// What git knows of a catalogue kept in a git checkout, without a file being read: the blob id of
// each tracked file whose working copy git finds clean. A fresh clone (a CI job's) gives every file
// new dates and inodes, so a rebuild no longer knows them by their signatures; git's index knows them
// by content, its stat data taken as they were checked out. A blob id is the digest the build
// records of a file it reads (signature.ts), so the two compare.
import { spawnSync } from "node:child_process";
import { digestOfBlobId } from "./signature.js";

/** A regular file's mode in git's index (100644, or 100755 executable); links and submodules are left out. */
const REGULAR_FILE = /^100(644|755)$/;

/**
 * The digest of each clean tracked file under `dir`, by its path relative to `dir` (`/`-separated):
 * a file git lists at stage 0 with an id of SHA-1 (a repository hashing with SHA-256 names its blobs
 * otherwise), and `git diff-files` does not list as changed (it looks again at the bytes of a file
 * changed as its index was written). Empty when `dir` is not in a git work tree or git is not there:
 * the build then reads the files, as it would anyway.
 */
export function gitDigests(dir: string): ReadonlyMap<string, number> {
  const digests = new Map<string, number>();
  // GIT_OPTIONAL_LOCKS=0: git must not write its index (a refresh) while the build only asks it.
  const git = (args: readonly string[]): string | undefined => {
    const run = spawnSync("git", args, {
      cwd: dir,
      env: { ...process.env, GIT_OPTIONAL_LOCKS: "0" },
      maxBuffer: 1 << 30,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    });
    return run.status === 0 ? run.stdout : undefined;
  };
  const listed = git(["ls-files", "--stage", "-z"]);
  const changed = listed === undefined ? undefined : git(["diff-files", "--name-only", "--relative", "-z"]);
  if (listed === undefined || changed === undefined) return digests;
  const dirty = new Set(changed.split("\0"));
  // Each entry: "<mode> <id> <stage>\t<path>".
  for (const entry of listed.split("\0")) {
    const tab = entry.indexOf("\t");
    if (tab < 0) continue;
    const [mode, id, stage] = entry.slice(0, tab).split(" ");
    const path = entry.slice(tab + 1);
    if (!REGULAR_FILE.test(mode!) || stage !== "0" || id?.length !== 40 || dirty.has(path)) continue;
    digests.set(path, digestOfBlobId(id));
  }
  return digests;
}
