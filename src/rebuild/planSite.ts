// The browse site's part of a rebuild plan: the pages that the plan's API writes touch
// (site/siteChanges.ts), merged into the plan's writes and counts.
import type { FilesSource } from "../site/renderSite.js";
import { siteChanges } from "../site/siteChanges.js";
import type { LiveFiles, RebuildPlan } from "./planRebuild.js";

/**
 * The plan with the site's changes added to its writes, and its counts of files brought up to date;
 * `files` says which packages have files once the plan is carried out.
 */
export function withSiteChanges(plan: RebuildPlan, live: LiveFiles, site: boolean, files?: FilesSource): RebuildPlan {
  if (!site) return plan;
  const packageCount = (host: string) => plan.state.packages[host]?.names.length ?? 0;
  const pages = siteChanges({ ...plan, packageCount, ...(files ? { files } : {}) }, live);
  if (pages.writes.size === 0 && pages.added === 0) return plan;
  const all = new Map([...plan.writes, ...pages.writes]);
  return {
    ...plan,
    writes: all,
    state: { ...plan.state, files: plan.state.files + pages.added },
    summary: {
      ...plan.summary,
      files: plan.summary.files + pages.added,
      filesWritten: all.size,
      mode: { kind: all.size === 0 ? "unchanged" : "incremental" },
    },
  };
}
