// The browse site's part of a rebuild plan: the hosts' passes wrote the pages of the packages they
// rendered anew and spilled their rows and search records (engine/streamHost.ts, as in a full
// build); the site's assembler (site/assembleSite.ts) takes those spills, the packages removed and
// the last build's site index, and its listings, search and feeds are merged into the plan's writes,
// counts and state. Nothing is learned from the live output but the rows of kept packages, copied
// by ranges: the packages come from the plan, and a package the feeds name from its manifest.
import type { HostInfo, Package } from "../catalogue/fields.js";
import { assembleFeeds } from "../site/assembleFeeds.js";
import { assembleSite } from "../site/assembleSite.js";
import { siteHosts, type FilesSource } from "../site/siteAssets.js";
import { sitePackage } from "../site/sitePackage.js";
import type { BuildState } from "./buildState.js";
import type { RebuildPlan } from "./planRebuild.js";
import type { LiveFiles } from "./liveFiles.js";

/**
 * Why a rebuild cannot bring the site up to date, before it plans anything: the last build kept no
 * index of it, or a host's new name or description, which every page shows, takes a full build.
 */
export function siteNeedsFullBuild(state: BuildState, hosts: readonly HostInfo[] | undefined): string | undefined {
  if (!state.site) return "the last build kept no index of its browse site";
  if (hosts && JSON.stringify(siteHosts(hosts)) !== JSON.stringify(state.site.hosts))
    return "a host's name or description changed, which every page of the browse site shows";
  return undefined;
}

/** What the site's part of a rebuild is given beside the plan. */
export interface SiteChangesInput {
  live: LiveFiles;
  /** Which packages have files once the plan is carried out. */
  files: FilesSource | undefined;
  /** The origin the feeds' URLs are under. */
  baseUrl: string;
  /**
   * A package's API object, rendered again from its manifest (which the survey found unchanged, or
   * read again): what a feed shows of a package its host's newest name.
   */
  keptPackage(host: string, name: string): Package;
}

/** The plan with the site's changes added to its writes, and its counts of files brought up to date. */
export function withSiteChanges(plan: RebuildPlan, input: SiteChangesInput): RebuildPlan {
  const { live, files, baseUrl } = input;
  const index = plan.state.site;
  if (!index) throw new Error("internal: a rebuild of the browse site without its index");
  const source = files ?? { defaultHost: index.hosts[0]?.id ?? "", of: () => undefined };
  const gone = new Map<string, Set<string>>();
  for (const { host, name } of plan.removed) {
    let names = gone.get(host);
    if (!names) gone.set(host, (names = new Set()));
    names.add(name);
  }
  if (plan.spilled.size === 0 && gone.size === 0) return plan;
  const liveSite = { bytes: (path: string) => (live.exists(path) ? live.bytes(path) : undefined) };
  const pages = assembleSite(
    { hosts: index.hosts, gone, spilled: plan.spilled, files: source, hbb: files !== undefined },
    { index, live: liveSite },
  );
  // The names each host's pass rendered anew: a few, read from its spill.
  const fresh = new Map<string, Set<string>>();
  const freshOf = (host: string) => {
    let names = fresh.get(host);
    if (!names) {
      const spilled = plan.spilled.get(host);
      names = new Set();
      for (let k = 0; k < (spilled?.count ?? 0); k++) names.add(spilled!.name(k));
      fresh.set(host, names);
    }
    return names;
  };
  const feeds = assembleFeeds(
    {
      hosts: index.hosts,
      index: pages.index,
      baseUrl,
      packageOf: (host, name) => sitePackage(host, input.keptPackage(host, name), source),
    },
    { index, live: liveSite, fresh: (host, name) => freshOf(host).has(name) },
  );
  const added = pages.added + feeds.added;
  const all = new Map([...plan.writes, ...pages.writes, ...feeds.writes]);
  return {
    ...plan,
    writes: all,
    state: { ...plan.state, site: pages.index, files: plan.state.files + added },
    summary: {
      ...plan.summary,
      files: plan.summary.files + added,
      filesWritten: all.size,
      mode: { kind: all.size === 0 ? "unchanged" : "incremental" },
    },
  };
}
