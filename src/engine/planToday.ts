// The rebuild's part for today's API (v3 and v4) of one host, from the index alone: a kept package's
// objects are copied out of the live contents by the offsets the index's length columns give, a
// package read again brings its fragments rendered by the full build's function, the information
// is worked out from the index's count and categories, and the featured app is picked among the
// index's candidates and copied from its contents. Nothing of the live output is parsed; the
// hosts and the default host come from the state.
import type { HostInfo } from "../catalogue/fields.js";
import { dayOf, featuredPick, renderInformation, todayFiles, type TodayFragments } from "../render/renderToday.js";
import { featuredAt, filtersAt, lengthAt, type HostState, type ListKind } from "./buildState.js";
import { listOffsets, spliceList, type LiveRanges } from "./spliceList.js";
import type { OutputFile } from "../render/renderApi.js";

/** A host's new list: each package kept from the old list (its index there), read again, or both. */
export interface TodayList {
  readonly length: number;
  /** Package i's index in the old list, or -1 when it was added. */
  oldAt(i: number): number;
  /** Package i's fragments rendered again, when it was read again or added. */
  fragmentsAt(i: number): TodayFragments | undefined;
}

/** The live slot as this step reads it: a list whose fragments it copies, by ranges. */
export interface LiveLists {
  ranges(path: string): LiveRanges;
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
  writes: Map<string, OutputFile["content"] | null>;
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
 * Plans one host's today files. `list` is the host's new list when any of its packages was removed,
 * added or read again (undefined when none was: then only the day or the host's name can move its
 * files); `next` is the host's index after the rebuild, `old` before it.
 */
export function planTodayHost(
  context: TodayHostContext,
  old: HostState,
  next: HostState,
  list: TodayList | undefined,
  membersChanged: boolean,
  live: LiveLists,
): TodayWrites {
  const files = todayFiles(context.hostNow.id, context.defaultHost);
  const writes = new Map<string, OutputFile["content"] | null>();
  let added = 0;

  const liveLists = new Map<ListKind, LiveRanges>();
  const liveList = (kind: "v4" | "v3") => {
    let list = liveLists.get(kind);
    if (!list) liveLists.set(kind, (list = live.ranges(files[kind].contents)));
    return list;
  };
  const oldOffsets = new Map<ListKind, Float64Array>();
  const offsetsOf = (kind: "v4" | "v3") => {
    let offsets = oldOffsets.get(kind);
    if (!offsets) oldOffsets.set(kind, (offsets = listOffsets(old, kind)));
    return offsets;
  };
  /** Package i of the old list's object in a live contents file. */
  const oldObject = (kind: "v4" | "v3", i: number) => {
    const start = offsetsOf(kind)[i]!;
    return liveList(kind)
      .read(start, start + lengthAt(old, i, kind))
      .toString("latin1");
  };

  // A package read again may have changed only its files (a hash, not a size), which v1 does not
  // show; its downloads move its v4 object and not its v3 one. Each contents file is written when
  // one of its objects moved.
  if (list) {
    for (const kind of ["v4", "v3"] as const) {
      if (!membersChanged && !objectMoved(list, kind, oldObject)) continue;
      writes.set(files[kind].contents, {
        jsonArray: spliceList(liveList(kind), old, elementsOf(list, kind), offsetsOf(kind), kind),
      });
    }
  }

  const before = renderInformation(context.hostBefore, old.names.length, hasThemes(old));
  const now = renderInformation(context.hostNow, next.names.length, hasThemes(next));
  if (before !== now) {
    writes.set(files.v4.information, now);
    writes.set(files.v3.information, now);
  }

  if (list === undefined && !dayMoved(context.featuredMsBefore, context.featuredMsNow)) return { writes, added };
  const pickedBefore = featuredIndex(old, context.featuredMsBefore);
  const pickedNow = featuredIndex(next, context.featuredMsNow);
  const featuredNow = (kind: "v4" | "v3"): string => {
    if (!list) return oldObject(kind, pickedNow!);
    const fragments = list.fragmentsAt(pickedNow!);
    return fragments ? fragments[kind] : oldObject(kind, list.oldAt(pickedNow!));
  };
  for (const kind of ["v4", "v3"] as const) {
    const before = pickedBefore === undefined ? undefined : oldObject(kind, pickedBefore);
    const now = pickedNow === undefined ? undefined : featuredNow(kind);
    if (before === now) continue;
    if (before === undefined) added++;
    if (now === undefined) added--;
    writes.set(files[kind].featured, now ?? null);
  }
  return { writes, added };
}

/** Whether a package read again has another object in a contents file than the old one. */
function objectMoved(list: TodayList, kind: "v4" | "v3", oldObject: (kind: "v4" | "v3", i: number) => string): boolean {
  for (let i = 0; i < list.length; i++) {
    const fragments = list.fragmentsAt(i);
    const was = list.oldAt(i);
    if (fragments !== undefined && was >= 0 && fragments[kind] !== oldObject(kind, was)) return true;
  }
  return false;
}

/** A contents file's elements in order: a fresh object, or the index of one kept from the old file. */
function* elementsOf(list: TodayList, kind: "v4" | "v3"): Generator<string | number> {
  for (let i = 0; i < list.length; i++) {
    const fragments = list.fragmentsAt(i);
    yield fragments ? fragments[kind] : list.oldAt(i);
  }
}

/** Whether the featured app's day moved between two builds. */
export function dayMoved(beforeMs: number, nowMs: number): boolean {
  return dayOf(beforeMs) !== dayOf(nowMs);
}
