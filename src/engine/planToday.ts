// Today's API (v3 and v4) files of one host that depend on all of it, from the index alone, for a
// full build and a rebuild alike (engine/streamHost.ts's pass calls it once a host's contents are
// written): the information is worked out from the index's count and categories, and the featured
// app is picked among the index's candidates and cut from the contents by the offsets the index's
// length columns give. Nothing of an output is parsed; the hosts come from hosts.json or the state.
import type { HostInfo } from "../catalogue/fields.js";
import { dayOf, featuredPick, renderInformation, todayFiles } from "../render/renderToday.js";
import { featuredAt, filtersAt, lengthAt, type HostState } from "./buildState.js";
import type { LiveRanges } from "./liveFiles.js";

/** A host's v4 and v3 contents, before this build and once it has written its lists. */
export interface TodayContents {
  /** As the last build left them. */
  before(kind: "v4" | "v3"): LiveRanges;
  /** As they are once this build's lists are written: the new file, or the live one when it was not written again. */
  now(kind: "v4" | "v3"): LiveRanges;
}

/** What a host's today files depend on beyond its packages, before and after. */
export interface TodayHostContext {
  hostBefore: HostInfo;
  hostNow: HostInfo;
  defaultHost: string;
  /** The times whose UTC days picked the featured app, the last build's and this one's. */
  featuredMsBefore: number;
  featuredMsNow: number;
}

/** The writes of one host's today files: path -> content, or null to delete; and the files added (negative: removed). */
export interface TodayWrites {
  writes: Map<string, string | null>;
  added: number;
}

/** Whether a package of the host is a theme: the information then lists the themes category. */
function hasThemes(host: HostState): boolean {
  if (!host.values.includes("themes")) return false;
  for (let i = 0; i < host.names.length; i++) if (filtersAt(host, i).category === "themes") return true;
  return false;
}

/** The index in `host` of its featured app on the day of `nowMs`, or undefined when none qualifies. */
function featuredIndex(host: HostState, nowMs: number): number | undefined {
  const candidates: number[] = [];
  for (let i = 0; i < host.names.length; i++) if (featuredAt(host, i)) candidates.push(i);
  const pick = featuredPick(candidates.length, nowMs);
  return pick === undefined ? undefined : candidates[pick];
}

/**
 * One host's today information and featured app, the files that depend on all of it: `next` is its
 * index after this build, `old` before it (none for a full build: every file is written), and
 * `listMoved` whether any of its packages was removed, added or read again (when none was, only
 * the day or the host's name can move them). A file is written only when its bytes move.
 */
export function planTodayHost(
  context: TodayHostContext,
  old: HostState | undefined,
  next: HostState,
  listMoved: boolean,
  contents: TodayContents,
): TodayWrites {
  const files = todayFiles(context.hostNow.id, context.defaultHost);
  const writes = new Map<string, string | null>();
  let added = 0;

  const before = old && renderInformation(context.hostBefore, old.names.length, hasThemes(old));
  const now = renderInformation(context.hostNow, next.names.length, hasThemes(next));
  if (before !== now) {
    writes.set(files.v4.information, now);
    writes.set(files.v3.information, now);
  }

  if (old && !listMoved && !dayMoved(context.featuredMsBefore, context.featuredMsNow)) return { writes, added };
  const pickedBefore = old && featuredIndex(old, context.featuredMsBefore);
  const pickedNow = featuredIndex(next, context.featuredMsNow);
  for (const kind of ["v4", "v3"] as const) {
    const before = pickedBefore === undefined ? undefined : objectAt(old!, pickedBefore, kind, contents.before(kind));
    const now = pickedNow === undefined ? undefined : objectAt(next, pickedNow, kind, contents.now(kind));
    if (before === now) continue;
    if (before === undefined) added++;
    if (now === undefined) added--;
    writes.set(files[kind].featured, now ?? null);
  }
  return { writes, added };
}

/** Package i's object in a contents file of its host, by the lengths the index keeps of those before it. */
function objectAt(host: HostState, i: number, kind: "v4" | "v3", file: LiveRanges): string {
  let start = 1;
  for (let k = 0; k < i; k++) start += lengthAt(host, k, kind) + 1;
  return file.read(start, start + lengthAt(host, i, kind)).toString("latin1");
}

/** Whether the featured app's day moved between two builds. */
export function dayMoved(beforeMs: number, nowMs: number): boolean {
  return dayOf(beforeMs) !== dayOf(nowMs);
}
