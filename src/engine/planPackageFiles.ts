// The package files' part of a rebuild plan: what their part of the hosts' passes gathered
// (engine/streamPackageFiles.ts, the full build's too: the stored files of the packages read again
// where they differ from the live slot's, those of packages that went or lost files deleted, every
// memo brought up to date, the picks of each host's Homebrew Browser list) added to the plan, with
// the lists and icon archives of the hosts that moved made again and told from the live ones, and
// their warnings in place of the last build's. A package that was not read again keeps its stored
// files where the live slot has them.
import type { HostInfo } from "../catalogue/fields.js";
import { sortProblems, type Problem } from "../catalogue/problems.js";
import { filesInfoOf, type PackageFilesReuse } from "../load/loadCatalogue.js";
import { contentText, type OutputFile, type PackageFilesMemo } from "../render/renderApi.js";
import { hbbEntry } from "../render/renderHbb.js";
import { signatureUnchanged, type BuildState } from "./buildState.js";
import type { KeptManifest } from "./keptPackages.js";
import type { RebuildPlan } from "./planRebuild.js";
import type { LiveFiles } from "./liveFiles.js";
import type { PackageFilesStream } from "./streamPackageFiles.js";

/**
 * The last build's package files, to reuse where they kept their signatures: `liveDir` is the live
 * slot, which holds their stored files.
 */
export function packageFilesReuse(liveDir: string, state: BuildState): PackageFilesReuse {
  const memo = state.packageFilesMemo ?? {};
  return {
    memo: (host, name) => memo[`${host}/${name}`],
    unchanged: (now, then) => signatureUnchanged(now, then, state.snapshotMs),
    liveDir,
  };
}

/** A host's own warnings in the Homebrew Browser's list (a category that lost apps), by the host they are about. */
function hostWarningOf(problem: Problem, hosts: readonly string[]): string | undefined {
  return problem.code === "HBB_LEFT_OUT" && hosts.includes(problem.file) ? problem.file : undefined;
}

/** The repository list's warnings (a host it leaves out, a name it cuts), made again when hosts.json was read again. */
function isRepoListProblem(problem: Problem): boolean {
  return (problem.code === "HBB_LEFT_OUT" || problem.code === "HBB_VALUE_CUT") && problem.file === "hosts.json";
}

/** How a rebuild makes its Homebrew Browser's files again and tells them from the live ones. */
export interface HbbRemake {
  /** hosts.json's hosts, when it was read again: the repository list is made again. */
  hosts: readonly HostInfo[] | undefined;
  live: Pick<LiveFiles, "text">;
  /** Where the icon archives are written, to be moved in. */
  workDir: string;
  /** Whether the live file at `path` holds the bytes of the file `file` (an archive of many icons is large). */
  sameAsLive: (path: string, file: string) => boolean;
  /** A kept package's manifest and API object, for the entry of a kept app a list holds. */
  kept: KeptManifest;
}

/**
 * The plan with what the package files' part gathered in the hosts' passes (`files`): its writes and
 * memos, the aliases' links when the targets moved, and the Homebrew Browser's files and warnings of
 * the hosts a package passed in (those of the others stay the last build's). A package read again
 * whose files changed counts as changed even when its package object did not. The kept packages
 * whose files moved with their content (`resigned`, the survey's) have their new signatures already.
 */
export function withPackageFiles(
  plan: RebuildPlan,
  state: BuildState,
  files: PackageFilesStream,
  hbb: HbbRemake,
  resigned: boolean,
): RebuildPlan {
  const aliasesGone = files.aliasesMoved();
  const memos = files.memos;
  const kept = (host: string, name: string) => {
    const { manifest, pkg } = hbb.kept(host, name);
    const source = {
      name,
      pkg,
      files: filesInfoOf(memos[`${host}/${name}`]!.derived),
      writesToNand: manifest.flags?.includes("writes_to_nand") === true,
    };
    return hbbEntry(host, source, pkg).entry;
  };
  const hosts = plan.state.hostInfos.filter((h) => files.passed(h.id));
  const surface = files.surface(hosts, { repoList: hbb.hosts, workDir: hbb.workDir, entryOf: kept });
  const writes = new Map([...plan.writes, ...files.writes]);
  const unchanged = ({ path, content }: OutputFile): boolean =>
    typeof content === "object" && "file" in content
      ? hbb.sameAsLive(path, content.file)
      : hbb.live.text(path) === contentText(content);
  for (const file of surface.files) if (!unchanged(file)) writes.set(file.path, file.content);

  // The hosts' own warnings: made again for the hosts whose lists were, the last build's for the others.
  const remade = (problem: Problem): boolean =>
    hostWarningOf(problem, state.hosts) !== undefined || (hbb.hosts !== undefined && isRepoListProblem(problem));
  const stayed = state.warnings.filter((w) => {
    const host = hostWarningOf(w, state.hosts);
    return host !== undefined && !files.passed(host);
  });
  const problems = sortProblems([...plan.problems.filter((p) => !remade(p)), ...stayed, ...surface.problems]);

  const dropped = plan.summary.dropped;
  const counted = new Set([...plan.removed, ...plan.changed, ...plan.added].map((p) => `${p.host}/${p.name}`));
  const changedFiles = [...files.moved].filter((key) => !counted.has(key)).length;
  return {
    ...plan,
    writes,
    problems,
    stateMoved: plan.stateMoved || resigned,
    state: { ...plan.state, files: plan.state.files + files.added, packageFilesMemo: memos, warnings: problems },
    summary: {
      ...plan.summary,
      files: plan.summary.files + files.added,
      changedPackages: plan.summary.changedPackages + changedFiles,
      filesWritten: writes.size,
      mode: { kind: writes.size === 0 ? "unchanged" : "incremental" },
      packageFilesRead: files.read,
      ...(dropped ? { dropped: { ...dropped, aliasFiles: aliasesGone } } : {}),
    },
  };
}

/** The last build's memos, those of kept packages whose files moved with their content (`resigned`) with their signatures now. */
export function lastMemos(
  state: BuildState,
  resigned: ReadonlyMap<string, PackageFilesMemo["signatures"]>,
): Record<string, PackageFilesMemo> {
  const memos: Record<string, PackageFilesMemo> = { ...state.packageFilesMemo };
  for (const [key, signatures] of resigned) memos[key] = { ...memos[key]!, signatures };
  return memos;
}
