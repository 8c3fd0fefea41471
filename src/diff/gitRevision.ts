// A git revision of the catalogue, made a folder that a build can read: the working tree's own
// catalogue folder when the revision is what is checked out and the folder has no change (its path
// is the one a restored build state was made for), else a checkout of the revision into a folder of
// its own, kept where the caller says so that the next checkout there rewrites only what moved.
import { execFile } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, realpathSync, rmSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { promisify } from "node:util";
import { FailureError, UsageError } from "../util/errors.js";

const run = promisify(execFile);

/** Runs git in `cwd`; its output, or the error with git's own message. */
async function git(cwd: string, args: readonly string[], env?: NodeJS.ProcessEnv): Promise<string> {
  try {
    const { stdout } = await run("git", [...args], {
      cwd,
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024,
      ...(env ? { env: { ...process.env, ...env } } : {}),
    });
    return stdout;
  } catch (error) {
    const e = error as NodeJS.ErrnoException & { stderr?: string };
    if (e.code === "ENOENT") throw new FailureError("git is not installed (a git revision side needs it)");
    throw new FailureError(`git ${args.join(" ")}: ${(e.stderr ?? e.message).trim()}`);
  }
}

/** The nearest folder at or above `path` that exists, real (links resolved). */
function existingReal(path: string): { real: string; rest: string } {
  let dir = resolve(path);
  while (!existsSync(dir) && dirname(dir) !== dir) dir = dirname(dir);
  return { real: realpathSync(dir), rest: relative(dir, resolve(path)) };
}

export interface Repository {
  /** The work tree's root. */
  root: string;
  /** The catalogue folder, relative to the root, `/`-separated ("" for the root itself). */
  catalogue: string;
}

/** The repository the catalogue folder is in, or undefined when it is in none. */
export async function findRepository(catalogueDir: string): Promise<Repository | undefined> {
  const { real, rest } = existingReal(catalogueDir);
  let root: string;
  try {
    root = realpathSync((await git(real, ["rev-parse", "--show-toplevel"])).trim());
  } catch (error) {
    if (error instanceof FailureError && !error.message.startsWith("git is not installed")) return undefined;
    throw error;
  }
  const catalogue = relative(root, join(real, rest));
  if (catalogue.startsWith("..") || isAbsolute(catalogue)) return undefined;
  return { root, catalogue: catalogue.split("\\").join("/") };
}

/** The commit a revision names, or undefined when it names none. */
export async function resolveCommit(repo: Repository, revision: string): Promise<string | undefined> {
  // Never an option, whatever the argument says.
  if (revision.startsWith("-")) return undefined;
  try {
    return (
      await git(repo.root, ["rev-parse", "--verify", "--quiet", "--end-of-options", `${revision}^{commit}`])
    ).trim();
  } catch {
    // git says it is no commit: the caller reports the argument as no revision.
    return undefined;
  }
}

/**
 * HEAD's commit and whether the catalogue folder differs from it; undefined when there is no commit
 * yet or HEAD does not hold the catalogue folder.
 */
export async function catalogueCommit(repo: Repository): Promise<{ commit: string; dirty: boolean } | undefined> {
  const head = (await git(repo.root, ["rev-parse", "--verify", "--quiet", "HEAD"]).catch(() => "")).trim();
  if (head === "") return undefined;
  const pathspec = repo.catalogue === "" ? "." : repo.catalogue;
  // A catalogue folder HEAD does not hold (ignored, or never added) was built from no commit.
  if ((await git(repo.root, ["ls-tree", head, "--", pathspec])) === "") return undefined;
  const status = await git(repo.root, ["status", "--porcelain", "--untracked-files=all", "--", pathspec]);
  return { commit: head, dirty: status !== "" };
}

/**
 * The working tree's catalogue folder as a tree object (its uncommitted and untracked files
 * included, ignored ones not), written through an index of its own so that the repository's is
 * untouched (files staged outside the catalogue folder come along); it is checked out as a commit's is.
 */
export async function workingTree(repo: Repository, indexFile: string): Promise<string> {
  const pathspec = repo.catalogue === "" ? "." : repo.catalogue;
  const env = { GIT_INDEX_FILE: indexFile };
  // A copy of the repository's index: git then reads again only the files whose dates moved.
  const index = resolve(repo.root, (await git(repo.root, ["rev-parse", "--git-path", "index"])).trim());
  mkdirSync(dirname(indexFile), { recursive: true });
  if (existsSync(index)) copyFileSync(index, indexFile);
  else rmSync(indexFile, { force: true });
  await git(repo.root, ["add", "--all", "--", pathspec], env);
  return (await git(repo.root, ["write-tree"], env)).trim();
}

/**
 * The commit `b`'s change is to be compared from: a merge commit's first parent (a pull request as
 * GitHub checks it out, merged into the base branch's tip), else the merge base of `a` and `b`.
 * Undefined when git finds none (unrelated commits, or history a shallow clone lacks).
 */
export async function mergeBase(repo: Repository, a: string, b: string): Promise<string | undefined> {
  try {
    const parents = (await git(repo.root, ["rev-list", "--parents", "-n", "1", b])).trim().split(" ");
    if (parents.length > 2) return parents[1];
    return (await git(repo.root, ["merge-base", a, b])).trim() || undefined;
  } catch {
    return undefined;
  }
}

/**
 * The catalogue folder of `commit` (or a tree): the working tree's when `inPlace`, HEAD is the commit
 * and nothing under the catalogue folder differs from it (ignored files aside), else `checkoutDir`'s
 * checkout of it. A
 * checkout there keeps its own git index beside the tree, so the next one writes only the files that
 * differ and leaves the others' dates, which a rebuild reads as unchanged.
 */
export async function catalogueAt(
  repo: Repository,
  commit: string,
  checkoutDir: string,
  inPlace = true,
): Promise<string> {
  const head = (await git(repo.root, ["rev-parse", "--verify", "--quiet", "HEAD"]).catch(() => "")).trim();
  const pathspec = repo.catalogue === "" ? "." : repo.catalogue;
  if (inPlace && head === commit) {
    const status = await git(repo.root, ["status", "--porcelain", "--untracked-files=all", "--", pathspec]);
    if (status === "") return join(repo.root, repo.catalogue);
  }
  const tree = join(checkoutDir, "tree");
  mkdirSync(tree, { recursive: true });
  await git(repo.root, ["--work-tree", tree, "read-tree", "--reset", "-u", commit], {
    GIT_INDEX_FILE: join(checkoutDir, "index"),
  });
  const dir = join(tree, repo.catalogue);
  if (!existsSync(dir)) throw new UsageError(`${commit.slice(0, 12)} has no ${pathspec}/ folder`);
  return dir;
}
