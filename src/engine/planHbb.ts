// The rebuild's part for the Homebrew Browser's surface (render/renderHbb.ts). A host's list and icon
// archive hold every package of the host, cut and ordered against all of them (a category's capacity
// keeps its most downloaded apps), so when a package of the host moved they are made again, by the
// full build's functions, from the index and never from the live output: the candidates ranked by
// the index's columns (category, downloads, and whether the state's memo has files), the kept ones'
// entries made from the packages read again or, for a kept package, from its manifest
// (keptPackages.ts) and its memo. A package's own warnings (a value cut, why it cannot be in the
// list) go with it: made when it is read, and reported again from the state while it is kept; a
// host's warnings (a category that lost apps) are made again with its list. The repository list is
// made again when the hosts were read again. Pure but for the manifests of kept packages and the icon
// archives, written into the rebuild's work folder (IconArchives) to be moved in.
import type { HostInfo } from "../catalogue/fields.js";
import { sortProblems, type Problem } from "../catalogue/problems.js";
import { filesInfoOf } from "../load/loadCatalogue.js";
import { contentText, type OutputFile } from "../render/renderApi.js";
import {
  hbbEntry,
  hbbPackage,
  hbbSourceOf,
  HbbPicks,
  isHbbCandidate,
  renderHbbHost,
  renderRepoList,
  type HbbEntry,
} from "../render/renderHbb.js";
import { HBB_REPO_LIST } from "../routes/hbbRoutes.js";
import { fileFor } from "../routes/routeTable.js";
import { filtersAt, statsAt, type BuildState } from "./buildState.js";
import type { KeptManifest } from "./keptPackages.js";
import type { RebuildPlan, RereadPackage } from "./planRebuild.js";
import type { LiveFiles } from "./liveFiles.js";

/** A package's icon as served once the plan is carried out: its own or the placeholder. */
export type IconSource = (host: string, name: string, storedAt: string) => Uint8Array;

/**
 * Where a host's icon archive is written, to be moved into the live slot, and how it is told from the
 * live one: by its bytes, compared a block at a time (an archive of many icons is large).
 */
export interface IconArchives {
  workDir: string;
  /** Whether the live file at `path` holds the bytes of the file `file`. */
  sameAsLive: (path: string, file: string) => boolean;
}

export interface HbbInputs {
  /** The packages read again, each with its host. */
  packages: readonly RereadPackage[];
  /** The hosts, when hosts.json was read again. */
  hosts?: readonly HostInfo[] | undefined;
}

/** A host's own warnings in the Homebrew Browser's list (a category that lost apps), by the host they are about. */
function hostWarningOf(problem: Problem, hosts: readonly string[]): string | undefined {
  return problem.code === "HBB_LEFT_OUT" && hosts.includes(problem.file) ? problem.file : undefined;
}

/** The repository list's warnings (a host it leaves out, a name it cuts), made again when hosts.json was read again. */
function isRepoListProblem(problem: Problem): boolean {
  return (problem.code === "HBB_LEFT_OUT" || problem.code === "HBB_VALUE_CUT") && problem.file === "hosts.json";
}

/** The plan with the Homebrew Browser's files and warnings brought up to date. */
export function withHbbChanges(
  plan: RebuildPlan,
  state: BuildState,
  inputs: HbbInputs,
  live: LiveFiles,
  iconOf: IconSource,
  archives: IconArchives,
  kept: KeptManifest,
): RebuildPlan {
  const defaultHost = plan.state.defaultHost;
  const memos = plan.state.packageFilesMemo;
  if (state.packageFiles !== true || defaultHost === undefined || memos === undefined) return plan;
  // A package read again may have changed only its files (an icon, a size): its host's list too.
  const moved = new Set([...plan.removed, ...plan.changed, ...plan.added, ...inputs.packages].map((p) => p.host));
  for (const host of state.hosts) if (plan.writes.has(fileFor("packages", { host }))) moved.add(host);

  const made: OutputFile[] = [];
  // The hosts' own warnings of the last build, for the hosts whose list stays as it was.
  const problems: Problem[] = state.warnings.filter((w) => {
    const host = hostWarningOf(w, state.hosts);
    return host !== undefined && !moved.has(host);
  });
  if (inputs.hosts !== undefined) {
    const repoList = renderRepoList(inputs.hosts, defaultHost);
    made.push({ path: HBB_REPO_LIST, content: repoList.text });
    problems.push(...repoList.problems);
  }
  for (const host of state.hosts) {
    if (!moved.has(host)) continue;
    const list = hostList(host, plan, inputs.packages, kept);
    const surface = renderHbbHost(
      host,
      defaultHost,
      list,
      (name) => {
        const memo = memos[`${host}/${name}`];
        return memo && iconOf(host, name, memo.paths.icon);
      },
      archives.workDir,
    );
    made.push(...surface);
    problems.push(...list.problems);
  }

  const writes = new Map(plan.writes);
  const unchanged = ({ path, content }: OutputFile): boolean =>
    typeof content === "object" && "file" in content
      ? archives.sameAsLive(path, content.file)
      : live.text(path) === contentText(content);
  for (const file of made) if (!unchanged(file)) writes.set(file.path, file.content);
  // The packages' own warnings: those read again have theirs here; the kept ones', reported again, stay.
  const remade = (problem: Problem): boolean =>
    hostWarningOf(problem, state.hosts) !== undefined || (inputs.hosts !== undefined && isRepoListProblem(problem));
  const sorted = sortProblems([...plan.problems.filter((p) => !remade(p)), ...problems]);
  return {
    ...plan,
    writes,
    problems: sorted,
    state: { ...plan.state, warnings: sorted },
    summary: {
      ...plan.summary,
      filesWritten: writes.size,
      mode: { kind: writes.size === 0 ? "unchanged" : "incremental" },
    },
  };
}

/**
 * A host's list as the plan leaves the host: its candidates ranked by the index's columns, the
 * packages read again with their own warnings, and the kept apps' entries, made from their manifests
 * only for those the list keeps.
 */
function hostList(
  host: string,
  plan: RebuildPlan,
  reread: readonly RereadPackage[],
  kept: KeptManifest,
): { entries: HbbEntry[]; icons: string[]; problems: Problem[] } {
  const memos = plan.state.packageFilesMemo!;
  const index = plan.state.packages[host]!;
  const fresh = new Map(reread.filter((p) => p.host === host).map((p) => [p.pkg.name, p.pkg]));
  const picks = new HbbPicks();
  const problems: Problem[] = [];
  const icons: string[] = [];
  for (let i = 0; i < index.names.length; i++) {
    const name = index.names[i]!;
    const memo = memos[`${host}/${name}`];
    if (memo) icons.push(name);
    const pkg = fresh.get(name);
    if (pkg) {
      const own = hbbPackage(host, hbbSourceOf(pkg));
      problems.push(...own.problems);
      if (own.candidate) picks.add(own.candidate);
      continue;
    }
    // A kept package's own warnings are reported again from the state; its candidacy is the index's.
    const { category } = filtersAt(index, i);
    if (memo && isHbbCandidate(name, category))
      picks.add({ name, category, downloads: statsAt(index, i)?.downloads ?? 0 });
  }
  const list = picks.result(host, (name) => {
    const { manifest, pkg } = kept(host, name);
    const memo = memos[`${host}/${name}`]!;
    const source = {
      name,
      pkg,
      files: filesInfoOf(memo.derived),
      writesToNand: manifest.flags?.includes("writes_to_nand") === true,
    };
    return hbbEntry(host, source, pkg).entry;
  });
  return { entries: list.entries, icons, problems: [...problems, ...list.problems] };
}
