// The rebuild's part for today's API (v3 and v4): a host's contents list every package and its
// featured app is picked among them by the day, so when a package of the host changed, the hosts
// were read again or the day moved on, its files are worked out again from the live v4 contents
// (each kept package's object as the last build wrote it) and the packages read again. Pure: the
// live slot is seen through LiveFiles.
import type { HostInfo } from "../catalogue/fields.js";
import { compareCodePoints } from "../util/codePoints.js";
import { fileFor } from "../routes/routeTable.js";
import { dayOf, defaultBaseUrl, renderTodayHost, todayFiles, v4Object, type TodayUrls } from "../render/renderToday.js";
import { contentText } from "../render/renderApi.js";
import type { LiveFiles, RebuildPlan, RereadPackage } from "./planRebuild.js";
import type { BuildState } from "./buildState.js";

export interface TodayInputs {
  /** The packages read again, each with its host. */
  packages: readonly RereadPackage[];
  /** The hosts, when hosts.json was read again. */
  hosts?: readonly HostInfo[] | undefined;
  baseUrl?: string | undefined;
  nowMs: number;
}

/** The hosts as the live host list holds them (v1/hosts), in the state's order. */
function liveHosts(state: BuildState, live: LiveFiles): HostInfo[] | undefined {
  const text = live.text(fileFor("hosts"));
  if (text === undefined) return undefined;
  const parsed = JSON.parse(text) as { repositories: Record<string, Omit<HostInfo, "id">> };
  const hosts = state.hosts.map((id) => (parsed.repositories[id] ? { id, ...parsed.repositories[id] } : undefined));
  return hosts.every((h) => h !== undefined) ? hosts : undefined;
}

/** The host whose today API is at the root: the one host without files under `hosts/<host>/`. */
function liveDefaultHost(state: BuildState, live: LiveFiles): string | undefined {
  // todayFiles of a host that is not the default (no host is named "") is under hosts/<host>/.
  const atRoot = state.hosts.filter((h) => !live.exists(todayFiles(h, "").v4.contents));
  return atRoot.length === 1 && live.exists(todayFiles(atRoot[0]!, atRoot[0]!).v4.contents) ? atRoot[0] : undefined;
}

/** The plan with today's files brought up to date, or why only a full build can. */
export function withTodayChanges(
  plan: RebuildPlan,
  state: BuildState,
  inputs: TodayInputs,
  live: LiveFiles,
): RebuildPlan | { fullBuild: string } {
  // A package read again may have changed only its files (a hash, not a size): its host's lists too.
  const moved = new Set([...plan.removed, ...plan.changed, ...plan.added, ...inputs.packages].map((p) => p.host));
  const dayMoved = dayOf(state.snapshotMs) !== dayOf(inputs.nowMs);
  if (moved.size === 0 && !dayMoved && inputs.hosts === undefined) return plan;

  const defaultHost = liveDefaultHost(state, live);
  const before = liveHosts(state, live);
  if (defaultHost === undefined || before === undefined) return { fullBuild: "the last build has no v3/v4 files" };
  const hosts = inputs.hosts ?? before;
  if (hosts.some((h, i) => h.host !== before[i]!.host))
    return { fullBuild: "a host's domain changed: every v3/v4 URL of its packages moves" };
  const urls: TodayUrls = {
    baseUrl: (inputs.baseUrl ?? defaultBaseUrl(hosts, defaultHost)).replace(/\/+$/, ""),
    defaultHost,
    hosts,
  };

  const writes = new Map(plan.writes);
  let added = 0;
  for (const host of hosts) {
    if (!moved.has(host.id) && !dayMoved && inputs.hosts === undefined) continue;
    const files = todayFiles(host.id, defaultHost);
    const text = live.text(files.v4.contents);
    if (text === undefined) return { fullBuild: "the last build has no v3/v4 files" };
    const apps = new Map((JSON.parse(text) as Record<string, unknown>[]).map((a) => [a.slug as string, a]));
    for (const p of plan.removed) if (p.host === host.id) apps.delete(p.name);
    for (const p of inputs.packages) if (p.host === host.id) apps.set(p.pkg.name, v4Object(p.pkg.today, host.id, urls));
    const list = [...apps.values()].sort((a, b) => compareCodePoints(a.slug as string, b.slug as string));
    const rendered = new Map(renderTodayHost(host, defaultHost, list, inputs.nowMs).map((f) => [f.path, f.content]));
    for (const path of [files.v4.featured, files.v3.featured]) {
      const existed = live.exists(path);
      if (existed && !rendered.has(path)) {
        writes.set(path, null);
        added--;
      }
      if (!existed && rendered.has(path)) added++;
    }
    for (const [path, content] of rendered) if (live.text(path) !== contentText(content)) writes.set(path, content);
  }
  if (writes.size === plan.writes.size && added === 0) return plan;
  return {
    ...plan,
    writes,
    state: { ...plan.state, files: plan.state.files + added },
    summary: {
      ...plan.summary,
      files: plan.summary.files + added,
      filesWritten: writes.size,
      mode: { kind: writes.size === 0 ? "unchanged" : "incremental" },
    },
  };
}
