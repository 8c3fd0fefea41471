// The rebuild's part for the Homebrew Browser's surface (render/renderHbb.ts). A host's list and icon
// archive hold every package of the host, cut and ordered against all of them (a category's capacity
// keeps its most downloaded apps), so when a package of the host moved they are made again, by the
// full build's functions, from what the rebuild already has: the host's package list as the plan
// leaves it (the v1 objects), its v4 contents (the flags), what each package's files derive (the
// state's memo), and the icons as served. The repository list is made again when the hosts were
// read again. Pure but for the icon archives, written into the rebuild's work folder (IconArchives)
// to be moved in: the live slot is seen through LiveFiles, the icons through IconSource.
import type { HostInfo, Package } from "../catalogue/fields.js";
import { sortProblems, type Problem } from "../catalogue/problems.js";
import { filesInfoOf } from "../load/loadCatalogue.js";
import { contentText, type OutputFile } from "../render/renderApi.js";
import { renderHbbHost, renderRepoList, type HbbSource } from "../render/renderHbb.js";
import { todayFiles } from "../render/renderToday.js";
import { HBB_REPO_LIST } from "../routes/hbbRoutes.js";
import { fileFor } from "../routes/routeTable.js";
import type { BuildState } from "./buildState.js";
import type { LiveFiles, RebuildPlan, RereadPackage } from "./planRebuild.js";

/** What the rebuild reads of a v4 contents object. */
interface V4Flags {
  slug: string;
  flags: string[];
}

/** The flag writes_to_nand as v4 writes it (renderToday.ts: the Java name). */
const WRITES_TO_NAND = "WRITES_TO_NAND";

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

/** The Homebrew Browser's warnings: made again with the files they are about. */
function isHbbProblem(problem: Problem): boolean {
  return problem.code === "HBB_LEFT_OUT" || problem.code === "HBB_VALUE_CUT";
}

/** The plan with the Homebrew Browser's files and warnings brought up to date. */
export function withHbbChanges(
  plan: RebuildPlan,
  state: BuildState,
  inputs: HbbInputs,
  live: LiveFiles,
  iconOf: IconSource,
  archives: IconArchives,
): RebuildPlan {
  const defaultHost = plan.state.defaultHost;
  const memos = plan.state.packageFilesMemo;
  if (state.packageFiles !== true || defaultHost === undefined || memos === undefined) return plan;
  // A package read again may have changed only its files (an icon, a size): its host's list too.
  const moved = new Set([...plan.removed, ...plan.changed, ...plan.added, ...inputs.packages].map((p) => p.host));
  for (const host of state.hosts) if (plan.writes.has(fileFor("packages", { host }))) moved.add(host);
  if (moved.size === 0 && inputs.hosts === undefined) return plan;

  const text = (path: string): string | undefined => {
    const written = plan.writes.get(path);
    return written === undefined ? live.text(path) : written === null ? undefined : contentText(written);
  };
  const made: OutputFile[] = [];
  const problems: Problem[] = [];
  const remade = (problem: Problem): boolean =>
    isHbbProblem(problem) &&
    (problem.file === "hosts.json"
      ? inputs.hosts !== undefined
      : moved.has(problem.file.slice(0, problem.file.indexOf("/"))));
  if (inputs.hosts !== undefined) {
    const repoList = renderRepoList(inputs.hosts, defaultHost);
    made.push({ path: HBB_REPO_LIST, content: repoList.text });
    problems.push(...repoList.problems);
  }
  for (const host of state.hosts) {
    if (!moved.has(host)) continue;
    const list = JSON.parse(text(fileFor("packages", { host }))!) as Package[];
    // The flags are today's fields, which v1 leaves out: the host's v4 contents (planToday.ts has made it) has them.
    const contents = JSON.parse(text(todayFiles(host, defaultHost).v4.contents) ?? "[]") as V4Flags[];
    const nand = new Set(contents.filter((a) => a.flags.includes(WRITES_TO_NAND)).map((a) => a.slug));
    const sources: HbbSource[] = list.map((pkg) => {
      const memo = memos[`${host}/${pkg.internal_name}`];
      const files = memo && filesInfoOf(memo.derived);
      return { name: pkg.internal_name, pkg, files, writesToNand: nand.has(pkg.internal_name) };
    });
    const surface = renderHbbHost(
      host,
      defaultHost,
      sources,
      (name) => {
        const memo = memos[`${host}/${name}`];
        return memo && iconOf(host, name, memo.paths.icon);
      },
      archives.workDir,
    );
    made.push(...surface.files);
    problems.push(...surface.problems);
  }

  const writes = new Map(plan.writes);
  const unchanged = ({ path, content }: OutputFile): boolean =>
    typeof content === "object" && "file" in content
      ? archives.sameAsLive(path, content.file)
      : live.text(path) === contentText(content);
  for (const file of made) if (!unchanged(file)) writes.set(file.path, file.content);
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
