// The browse site's part of a rebuild plan: the packages the plan removed, changed or added, handed
// to the site's assembler (site/assembleSite.ts) with the last build's site index, and its pages
// merged into the plan's writes, counts and state. Nothing is learned from the live output: the
// hosts come from hosts.json or the index, the packages from the plan, and a kept package that the
// feeds come to name from its manifest (keptPackage).
import type { HostInfo, Package } from "../catalogue/fields.js";
import { contentText } from "../render/renderApi.js";
import { fileFor } from "../routes/routeTable.js";
import { assembleFeeds } from "../site/assembleFeeds.js";
import { assembleSite } from "../site/assembleSite.js";
import type { SitePackage } from "../site/renderPages.js";
import { siteHosts, type FilesSource } from "../site/siteAssets.js";
import { sitePackage } from "../site/sitePackage.js";
import type { RebuildPlan } from "./planRebuild.js";
import type { LiveFiles } from "./liveFiles.js";

/** What the site's part of a rebuild is given beside the plan. */
export interface SiteChangesInput {
  live: LiveFiles;
  /** Whether the output has the browse site. */
  site: boolean;
  /** hosts.json's hosts, when it was read again. */
  hosts: readonly HostInfo[] | undefined;
  /** Which packages have files once the plan is carried out. */
  files: FilesSource | undefined;
  /** The origin the feeds' URLs are under. */
  baseUrl: string;
  /**
   * A package the plan did not render anew, as its API object: what a feed shows of a kept package
   * that joins its host's newest (from its manifest, which the survey found unchanged).
   */
  keptPackage(host: string, name: string): Package;
}

/**
 * The plan with the site's changes added to its writes, and its counts of files brought up to date.
 * A host's new name or description is on every page: that takes a full build.
 */
export function withSiteChanges(plan: RebuildPlan, input: SiteChangesInput): RebuildPlan | { fullBuild: string } {
  const { live, site, hosts, files, baseUrl } = input;
  if (!site) return plan;
  const index = plan.state.site;
  if (!index) return { fullBuild: "the last build kept no index of its browse site" };
  if (hosts && JSON.stringify(siteHosts(hosts)) !== JSON.stringify(index.hosts))
    return { fullBuild: "a host's name or description changed, which every page of the browse site shows" };
  const source = files ?? { defaultHost: index.hosts[0]?.id ?? "", of: () => undefined };
  const fresh = new Map<string, SitePackage[]>();
  const gone = new Map<string, Set<string>>();
  for (const { host, name } of [...plan.removed, ...plan.changed]) {
    let names = gone.get(host);
    if (!names) gone.set(host, (names = new Set()));
    names.add(name);
  }
  for (const { host, name } of [...plan.changed, ...plan.added]) {
    const json = plan.writes.get(fileFor("package", { host, name }));
    if (json === undefined || json === null) throw new Error(`internal: no package object for ${host}/${name}`);
    let list = fresh.get(host);
    if (!list) fresh.set(host, (list = []));
    list.push(sitePackage(host, JSON.parse(contentText(json)) as Package, source));
  }
  if (fresh.size === 0 && gone.size === 0) return plan;
  const pages = assembleSite(
    { hosts: index.hosts, fresh, gone, files: source, hbb: files !== undefined },
    { index, live: { bytes: (path) => (live.exists(path) ? live.bytes(path) : undefined) } },
  );
  const packageOf = (host: string, name: string) => sitePackage(host, input.keptPackage(host, name), source);
  const feeds = assembleFeeds(
    { hosts: index.hosts, index: pages.index, fresh, baseUrl },
    { index, live: { bytes: (path) => (live.exists(path) ? live.bytes(path) : undefined) }, packageOf },
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
