// Over 300 lines: the build's plan, per host and per list, whose steps share the plan's changes as they go.
// The middle of every build, a rebuild's and a build anew's alike. From an old index (the last
// build's state, or one with no package), the survey and the manifests it reads as each host's
// pass comes to them, it decides which packages were removed, changed or added, which output files
// to write or delete, and what to remember for the next build. It sees the live output only
// through the LiveFiles it is given; a kept package is never read, only copied from its lists by
// ranges. Where its files go is the writer's policy (PlanTarget): a rebuild's lists into a stage
// folder and its other writes into the plan, carried out at once in the deploy's order
// (rebuildCatalogue.ts); a build anew's straight into the spare slot (buildAnew.ts).
import { checkMemory } from "../util/memory.js";
import type { LoadedPackage } from "../load/loadCatalogue.js";
import { namesOf } from "../render/catalogueNames.js";
import { targetFiles } from "../output/targetFiles.js";
import type { HostInfo, PackageStats } from "../catalogue/fields.js";
import { sortProblems, type Problem } from "../catalogue/problems.js";
import type { Signature } from "../read/signature.js";
import { contentText, filterKeys, renderHosts, type OutputFile } from "../render/renderApi.js";
import { fileFor } from "../routes/routeTable.js";
import type { TargetId } from "../targets/target.js";
import {
  filtersAt,
  setSignature,
  statsAt,
  type BuildState,
  type HostState,
  type PackageFilters,
} from "./buildState.js";
import { dayMoved, planTodayHost, type TodayHostContext, type TodayWrites } from "./planToday.js";
import { todayFiles, type TodayUrls } from "../render/renderToday.js";
import type { LiveFiles } from "./liveFiles.js";
import { HostStream } from "./streamHost.js";
import type { StagedFiles } from "../write/stagedFiles.js";
import type { SlotWriter } from "../write/slotWriter.js";
import { availableParallelism } from "node:os";
import type { PackageFilesStream } from "./streamPackageFiles.js";
import type { SpilledHost } from "../site/assembleSite.js";
import { siteHosts, type FilesSource } from "../site/siteAssets.js";
import { packagePage } from "../site/sitePaths.js";
import type { RereadStats, Survey } from "./surveyCatalogue.js";
import type { ManifestRef } from "../validate/catalogueRules.js";
import { appendAll } from "../util/appendAll.js";
import type { HostStats } from "../catalogue/statsFile.js";
import { unknownStatsProblems } from "../validate/catalogueRules.js";
import { compareCodePoints, findCodePoints } from "../util/codePoints.js";

/** A valid manifest read again: its host, and its package's index in the last build if it was there. */
export interface RereadPackage extends LoadedPackage {
  host: string;
  index: number | undefined;
}

export interface RebuildInputs {
  /** When the rebuild began to examine its inputs: the next build trusts signatures older than it. */
  snapshotMs: number;
  /** hosts.json's signature now. */
  hostsFile: Signature;
  /** The hosts, when hosts.json was read again (declaring the same ids: other ids take a full build). */
  hosts?: readonly HostInfo[] | undefined;
  /** Each host's stats file signature now, parallel to the hosts. */
  statsFiles: (Signature | null)[];
  /** The entries of the stats files read again (their signature moved). */
  stats: RereadStats;
  /** The manifests the survey sent to be read again: changed ones, with their index in the last build, and new ones. */
  toRead: Survey["toRead"];
  /**
   * Reads, validates and renders a manifest to read again, with its stats, as its host's pass comes
   * to it: nothing read is held once it has passed. Undefined, with its problems, when it is not valid.
   */
  read(ref: ManifestRef, index: number | undefined): Promise<{ pkg?: RereadPackage; problems: Problem[] }>;
  /**
   * Every problem of the catalogue now but the warnings for stats of unknown packages, which the
   * plan finds: only warnings, since a catalogue with errors is not built.
   */
  problems: Problem[];
  targets: readonly TargetId[];
  /** Where today's URLs point now (the hosts as they are now), and the time whose day picks the featured app. */
  today: { urls: TodayUrls; featuredMs: number };
}

export interface PackageRef {
  host: string;
  name: string;
}

/** What a rebuild reports, every count taken from the plan. */
export interface RebuildSummary {
  hosts: number;
  packages: number;
  /** Output files once the plan is carried out. */
  files: number;
  mode: { kind: "incremental" } | { kind: "unchanged" };
  /** Packages removed, changed or added. */
  changedPackages: number;
  /** Files written or removed. */
  filesWritten: number;
  /** With package files: how many packages' files were read (planPackageFiles.ts). */
  packageFilesRead?: number;
  /** Targets the last build had and this one has not, with the files that went with them. */
  dropped?: DroppedTargets;
}

/**
 * Targets the previous build wrote files for and this one does not, with those files, now gone,
 * and how many links at the package files' aliases' paths went with them (the last target that
 * needed them dropped).
 */
export interface DroppedTargets {
  targets: TargetId[];
  files: string[];
  aliasFiles: number;
}

/** Whether two target lists name the same targets. */
export function sameTargets(a: readonly TargetId[], b: readonly TargetId[]): boolean {
  const [x, y] = [new Set(a), new Set(b)];
  return x.size === y.size && [...x].every((id) => y.has(id));
}

/** What a rebuild writes and why. */
interface Changes {
  /** Packages of the last build whose manifest is gone, with the stats entry they had. */
  removed: (PackageRef & { stats?: PackageStats | undefined })[];
  /** Packages read again whose output changed. */
  changed: PackageRef[];
  /** Packages new since the last build (a build from nothing records none: its index has them). */
  added: PackageRef[];
  /** What the spare slot needs beyond the live one: output path -> new content, or null to delete it. */
  writes: Map<string, OutputFile["content"] | null>;
  /** Files of the live slot the writes delete, less those they create. */
  filesRemoved: number;
}

export interface RebuildPlan extends Changes {
  /** With the site, per host whose pass ran: its fresh packages' rows and records (spilled.close() after). */
  spilled: ReadonlyMap<string, SpilledHost & { close(): void }>;
  /** Every problem of the catalogue now, sorted. */
  problems: Problem[];
  /** What the next build starts from, but for the slots, which are set when the writes are published. */
  state: BuildState;
  /** Whether the state moved even when nothing is written: inputs were read again or listed. */
  stateMoved: boolean;
  summary: RebuildSummary;
}

/**
 * Decides what the build after a build writes and remembers, from what the survey kept and what was
 * read again. A host with a package removed, added or read again has its lists written by the full
 * build's pass (streamHost.ts) into `stage`, from which they are moved in with the other writes.
 * Its parts (`parts`: the package files', the site's) are told each package of such a host as it
 * passes, as in a full build; what they gather is added to the plan by withPackageFiles and
 * withSiteChanges.
 */
export async function planRebuild(
  state: BuildState,
  survey: Pick<Survey, "kept" | "folders" | "resigned" | "listed">,
  inputs: RebuildInputs,
  live: LiveFiles,
  to: PlanTarget,
  parts: PassParts = {},
): Promise<RebuildPlan> {
  const changes: Changes = { removed: [], changed: [], added: [], writes: new Map(), filesRemoved: 0 };
  const reread = new Map(
    state.hosts.map((h) => [h, { again: new Map<number, ManifestRef>(), added: [] as ManifestRef[] }]),
  );
  for (const { ref, index } of inputs.toRead) {
    const host = reread.get(ref.host)!;
    if (index === undefined) host.added.push(ref);
    else host.again.set(index, ref);
  }
  const packages: Record<string, HostState> = {};
  const spilled = new Map<string, SpilledHost & { close(): void }>();
  const problems = [...inputs.problems];
  const hostsNow = inputs.hosts ?? state.hostInfos;
  for (const [k, host] of state.hosts.entries()) {
    const { again } = reread.get(host)!;
    const added = survey.listed?.(host) ?? reread.get(host)!.added.sort((a, b) => compareCodePoints(a.name, b.name));
    const old = state.packages[host]!;
    const context: TodayHostContext = {
      hostBefore: state.hostInfos[k]!,
      hostNow: hostsNow[k]!,
      defaultHost: state.hostsDefault,
      featuredMsBefore: state.featuredMs,
      featuredMsNow: inputs.today.featuredMs,
    };
    const hostPlan = await planHost(
      changes,
      { host, old, kept: { flags: survey.kept.get(host)!, resigned: survey.resigned.get(host) }, again, added },
      { live, to, urls: inputs.today.urls, today: context, ...parts },
      async (ref, index) => {
        const read = await inputs.read(ref, index);
        appendAll(problems, read.problems);
        return read.pkg;
      },
    );
    const planned = hostPlan.next;
    if (hostPlan.spilled) spilled.set(host, hostPlan.spilled);
    // A host none of whose packages moved has the same lists: only the day or its name moves today's
    // files. A build from nothing has its pass write them.
    const today =
      "slot" in to
        ? undefined
        : (hostPlan.today ??
          planTodayHost(context, old, planned, false, {
            before: (kind) => live.ranges(todayFiles(host, state.hostsDefault)[kind].contents),
            now: (kind) => live.ranges(todayFiles(host, state.hostsDefault)[kind].contents),
          }));
    for (const [path, content] of today?.writes ?? []) changes.writes.set(path, content);
    changes.filesRemoved -= today?.added ?? 0;
    const orphans = orphansOf(changes, host, old, planned, inputs.stats.get(host));
    packages[host] = orphans === old.orphans ? planned : { ...planned, orphans };
    problems.push(
      ...unknownStatsProblems(
        host,
        orphans.map(([name]) => name),
      ),
    );
  }

  if (inputs.hosts) {
    const hostsJson = renderHosts(inputs.hosts);
    if (live.text(fileFor("hosts")) !== hostsJson) changes.writes.set(fileFor("hosts"), hostsJson);
  }
  // A new target list writes the new targets' files and removes those only the old ones had.
  const targetsMoved = !sameTargets(state.targets, inputs.targets);
  let dropped: DroppedTargets | undefined;
  if (
    targetsMoved ||
    (changes.removed.length + changes.added.length + changes.changed.length > 0 && inputs.targets.length > 0)
  ) {
    // Target files may list package names and coders (Netlify's rules do): bring them up to date too.
    const names = namesOfIndex(state.hosts, packages);
    const now = targetFiles(inputs.targets, names);
    for (const file of now) {
      const before = live.text(file.path);
      if (before === contentText(file.content)) continue;
      changes.writes.set(file.path, file.content);
      if (before === undefined) changes.filesRemoved--;
    }
    const gone = state.targets.filter((id) => !inputs.targets.includes(id));
    if (gone.length > 0) {
      const kept = new Set(now.map((f) => f.path));
      const files = targetFiles(gone, names)
        .map((f) => f.path)
        .filter((path) => !kept.has(path) && live.exists(path));
      for (const path of files) changes.writes.set(path, null);
      changes.filesRemoved += files.length;
      dropped = { targets: gone, files, aliasFiles: 0 };
    }
  }

  const files = state.files - changes.removed.length + changes.added.length - changes.filesRemoved;
  const sorted = sortProblems(problems);
  return {
    ...changes,
    spilled,
    problems: sorted,
    state: {
      ...state,
      snapshotMs: inputs.snapshotMs,
      // Kept while its UTC day is the same, so a rebuild within the day that changes nothing writes nothing.
      featuredMs: dayMoved(state.featuredMs, inputs.today.featuredMs) ? inputs.today.featuredMs : state.featuredMs,
      hostInfos: [...hostsNow],
      hostsFile: inputs.hostsFile,
      folders: survey.folders,
      statsFiles: inputs.statsFiles,
      targets: [...new Set(inputs.targets)],
      packages,
      warnings: sorted,
      files,
    },
    stateMoved:
      inputs.hosts !== undefined ||
      inputs.toRead.length > 0 ||
      dayMoved(state.featuredMs, inputs.today.featuredMs) ||
      survey.resigned.size > 0 ||
      survey.folders !== state.folders ||
      inputs.stats.size > 0 ||
      targetsMoved,
    summary: {
      hosts: state.hosts.length,
      packages: Object.values(packages).reduce((n, p) => n + p.names.length, 0),
      files,
      mode: { kind: changes.writes.size === 0 ? "unchanged" : "incremental" },
      changedPackages: changes.removed.length + changes.changed.length + changes.added.length,
      filesWritten: changes.writes.size,
      ...(dropped ? { dropped } : {}),
    },
  };
}

/**
 * The stats entries of a host's stats file that no package of it carries. From the file when it was
 * read again; else the last build's, less the packages added, plus the removed ones that had an entry.
 */
function orphansOf(
  changes: Changes,
  host: string,
  old: HostState,
  planned: HostState,
  reread: HostStats | undefined,
): [string, PackageStats][] {
  if (reread) {
    // The host's names are in code-point order: each entry is looked up by halves, with no set of a million names.
    return [...reread].filter(([name]) => findCodePoints(planned.names, name) < 0).sort(byEntryName);
  }
  const added = changes.added.filter((p) => p.host === host);
  const removed = changes.removed.filter((p) => p.host === host);
  if (added.length === 0 && removed.length === 0) return old.orphans;
  const orphans = new Map(old.orphans);
  for (const { name } of added) orphans.delete(name);
  for (const { name, stats } of removed) if (stats) orphans.set(name, stats);
  return [...orphans].sort(byEntryName);
}

function byEntryName(a: [string, unknown], b: [string, unknown]): number {
  return compareCodePoints(a[0], b[0]);
}

/** A host's plan: its index after the rebuild, and its today files and site spill when its pass ran. */
interface HostPlan {
  next: HostState;
  today?: TodayWrites;
  spilled?: (SpilledHost & { close(): void }) | undefined;
}

/** A host as a rebuild finds it: its last state, which packages the survey kept, read again or found new. */
interface HostMoves {
  host: string;
  old: HostState;
  kept: { flags: Uint8Array; resigned: ReadonlyMap<number, Signature> | undefined };
  /** Manifests of the last build's packages to read again, by their index there. */
  again: ReadonlyMap<number, ManifestRef>;
  /** Manifests of new packages, in name order, and how many. */
  added: Iterable<ManifestRef> & { length: number };
}

/**
 * The parts of a host's pass beside its lists, each told every package as the lists are: with
 * package files, theirs (streamPackageFiles.ts); with the browse site, where its fresh packages'
 * rows are spilled and which packages have files.
 */
export interface PassParts {
  files?: PackageFilesStream | undefined;
  site?: { workDir: string; files: FilesSource } | undefined;
}

/**
 * Where a plan's files go, the writer's policy: a rebuild writes a host's lists aside (`stage`) and
 * gathers every write in the plan, to be moved into the live slot at once; a build from nothing
 * writes straight into the spare slot (`slot`), holding nothing of a package once it has passed.
 */
export type PlanTarget = { stage: StagedFiles } | { slot: SlotWriter };

/** What a host's pass is given beside its packages: the live slot, where it writes, today's URLs and context, its parts. */
interface HostPass extends PassParts {
  live: LiveFiles;
  to: PlanTarget;
  urls: TodayUrls;
  today: TodayHostContext;
}

/** One step of a host's pass, in name order: a kept package, one gone, or a manifest to read (`j`: its index before). */
type Step = { keep: number } | { gone: number } | { read: ManifestRef; j: number | undefined };

/** Manifests read ahead of the pass: a package's files are zipped and inflated on zlib's threads meanwhile. */
const READ_AHEAD = Math.min(4, availableParallelism() + 1);
/** Steps a pass holds at most while it waits for a manifest read ahead. */
const STEPS_AHEAD = 4096;

/**
 * Plans one host in one pass over its packages in name order, the last build's merged with the new
 * ones: a kept package is copied from the live lists; a manifest to read again, or a new one, is
 * read, rendered and written as the pass comes to it (its package object where it moved), and held
 * no longer; a package gone has its package files deleted. Its lists are written by its pass
 * (streamHost.ts, the full build's), which says which of them moved. A host with no package
 * removed, added or read again keeps its state as it is. A filtered list is written when a package
 * in it before or after changed; one left with no package is deleted (a coder's last package
 * removed removes its list). A build from nothing (`pass.to.slot`) has every package new.
 */
async function planHost(
  changes: Changes,
  moves: HostMoves,
  pass: HostPass,
  read: (ref: ManifestRef, index: number | undefined) => Promise<RereadPackage | undefined>,
): Promise<HostPlan> {
  const { host, old, kept, again } = moves;
  const { live } = pass;
  const slot = "slot" in pass.to ? pass.to.slot : undefined;
  let stays = 0;
  for (let i = 0; i < old.names.length; i++) if (kept.flags[i] || again.has(i)) stays++;
  if (!slot && moves.added.length === 0 && again.size === 0 && stays === old.names.length) {
    if (!kept.resigned) return { next: old };
    const next = { ...old, columns: old.columns.slice() };
    for (const [i, signature] of kept.resigned) setSignature(next, i, signature);
    return { next };
  }

  const path = (name: string) => fileFor("package", { host, name });
  const touched = touchedLists(host);
  // A build from nothing writes every list: nothing to touch.
  const touch = slot ? () => {} : touched.touch;
  const stream = new HostStream({
    writer: slot ?? (pass.to as { stage: StagedFiles }).stage.writer,
    host: pass.today.hostNow,
    hostsDefault: pass.today.defaultHost,
    urls: pass.urls,
    featuredMs: pass.today.featuredMsNow,
    site: pass.site && { host: siteHosts([pass.today.hostNow])[0]!, ...pass.site },
    expected: stays + moves.added.length,
    last: slot
      ? undefined
      : {
          state: old,
          host: pass.today.hostBefore,
          featuredMs: pass.today.featuredMsBefore,
          live,
          filtered: touched.filesOf,
        },
  });
  const fresh = (reread: RereadPackage | undefined, j: number | undefined) => {
    if (!reread) return;
    const { pkg } = reread;
    // Its files first: its page shows them.
    pass.files?.add(host, pkg);
    if (!stream.add(pkg, reread.signature, j)) return;
    if (slot) {
      slot.write({ path: path(pkg.name), content: pkg.json });
      return;
    }
    changes.writes.set(path(pkg.name), pkg.json);
    if (j === undefined) changes.added.push({ host, name: pkg.name });
    else {
      changes.changed.push({ host, name: pkg.name });
      touch(filtersAt(old, j));
    }
    touch(pkg);
  };
  const gone = (i: number) => {
    const name = old.names[i]!;
    changes.writes.set(path(name), null);
    changes.removed.push({ host, name, stats: statsAt(old, i) });
    pass.files?.remove(host, name);
    touch(filtersAt(old, i));
    const page = packagePage(host, name);
    if (pass.site && live.exists(page)) {
      changes.writes.set(page, null);
      changes.filesRemoved++;
    }
  };
  // The steps in order; a manifest's read starts as soon as it is among the next few, and the
  // steps are taken in order as their reads finish.
  const queue: { step: Step; reading?: Promise<RereadPackage | undefined> }[] = [];
  let reading = 0;
  const take = async () => {
    const { step, reading: pending } = queue.shift()!;
    if ("read" in step) {
      reading--;
      fresh(await pending, step.j);
    } else if ("gone" in step) gone(step.gone);
    else {
      const i = step.keep;
      stream.keep(i, kept.resigned?.get(i));
      pass.files?.keep(host, old.names[i]!, filtersAt(old, i).category, statsAt(old, i)?.downloads ?? 0);
    }
  };
  for (const step of stepsOf(moves)) {
    checkMemory("planning the rebuild");
    if ("read" in step) {
      reading++;
      queue.push({ step, reading: read(step.read, step.j) });
    } else queue.push({ step });
    while (queue.length > 0 && (!("read" in queue[0]!.step) || reading >= READ_AHEAD || queue.length >= STEPS_AHEAD))
      await take();
  }
  while (queue.length > 0) await take();

  const finished = stream.finish();
  if ("slot" in pass.to) return { next: finished.state, spilled: finished.spilled };
  const filtered = new Set(touched.files());
  for (const file of finished.written) {
    filtered.delete(file);
    if (!live.exists(file)) changes.filesRemoved--;
    changes.writes.set(file, pass.to.stage.content(file));
  }
  // The filtered lists left with no package.
  for (const file of filtered) {
    if (!live.exists(file)) continue;
    changes.writes.set(file, null);
    changes.filesRemoved++;
  }
  return { next: finished.state, today: finished.today!, spilled: finished.spilled };
}

/** A host's pass in name order: the last build's packages (kept, read again or gone) merged with the new ones. */
function* stepsOf(moves: HostMoves): Generator<Step> {
  const { old, kept, again } = moves;
  const added = moves.added[Symbol.iterator]();
  let next = added.next();
  for (let i = 0; i < old.names.length; i++) {
    for (; !next.done && compareCodePoints(next.value.name, old.names[i]!) < 0; next = added.next())
      yield { read: next.value, j: undefined };
    const ref = again.get(i);
    if (ref) yield { read: ref, j: i };
    else if (kept.flags[i]) yield { keep: i };
    else yield { gone: i };
  }
  for (; !next.done; next = added.next()) yield { read: next.value, j: undefined };
}

/**
 * The filtered lists of a host that a rebuild rewrites: those of every package removed, changed or
 * added, before and after. `filesOf` says which of them a package is in, cheaply for the many that
 * are in none: a pair's list is only touched when its category's and coder's are.
 */
function touchedLists(host: string) {
  const filterFiles = filterKeys(host);
  const byCategory = new Map<string, string>();
  const byCoder = new Map<string, string>();
  const byPair = new Map<string, string>();
  const none: string[] = [];
  return {
    touch(filters: PackageFilters): void {
      const [category, coder, pair] = filterFiles(filters);
      byCategory.set(filters.category, category!);
      byCoder.set(filters.coder, coder!);
      byPair.set(`${filters.category}\n${filters.coder}`, pair!);
    },
    files: (): string[] => [...byCategory.values(), ...byCoder.values(), ...byPair.values()],
    filesOf(filters: PackageFilters): readonly string[] {
      const category = byCategory.get(filters.category);
      const coder = byCoder.get(filters.coder);
      if (category === undefined && coder === undefined) return none;
      const pair = category && coder ? byPair.get(`${filters.category}\n${filters.coder}`) : undefined;
      return [category, coder, pair].filter((f): f is string => f !== undefined);
    },
  };
}

/** The names the target generators take (each package's name, category and coder), from an index. */
export function namesOfIndex(hosts: readonly string[], packages: Readonly<Record<string, HostState>>) {
  return namesOf(
    hosts,
    new Map(hosts.map((h) => [h, packages[h]!.names.map((name, i) => ({ name, ...filtersAt(packages[h]!, i) }))])),
  );
}
