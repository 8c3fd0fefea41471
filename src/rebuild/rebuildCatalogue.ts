// The build after a build: the I/O around a pure plan. Survey which inputs moved, read those again,
// plan, then write the plan into the spare slot, publish it and remember the new state.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { loadManifest } from "../load/loadCatalogue.js";
import type { HostInfo, PackageStats } from "../catalogue/fields.js";
import { isError, sortProblems, type Problem } from "../catalogue/problems.js";
import { schemaValidators, type Validators } from "../catalogue/schemas.js";
import { readSourceFile } from "../read/readCatalogue.js";
import { signatureOf, type Signature } from "../read/signature.js";
import type { TargetId } from "../targets/target.js";
import {
  validateHostsFile,
  validateStatsFile,
  HOSTS_FILE,
  MAX_SOURCE_BYTES,
  MAX_STATS_BYTES,
  type ManifestRef,
} from "../validate/catalogueRules.js";
import { hostStatsOf, statsFileOf, type HostStats } from "../catalogue/statsFile.js";
import { withSiteChanges } from "./planSite.js";
import { withTodayChanges } from "./planToday.js";
import { publish, slotDir, writeChanges, type LockedOutput } from "../write/writeOutput.js";
import { forgetState, signatureUnchanged, statsAt, writeState, type BuildState } from "./buildState.js";
import { planRebuild, type LiveFiles, type RebuildSummary, type RereadPackage } from "./planRebuild.js";
import { statOrNothing, surveyCatalogue, type RereadStats, type Survey } from "./surveyCatalogue.js";

export interface RebuildOptions {
  catalogueDir: string;
  targets: readonly TargetId[];
  /** Whether the output has the browse site. */
  site: boolean;
  /** The wall clock. */
  now: () => number;
  /** The origin the build is served from, for the v3/v4 URLs. */
  baseUrl?: string | undefined;
  /** The UTC day whose featured app to pick; the day of the rebuild when left out. */
  featuredDay?: number | undefined;
}

/**
 * Brings the output of the build whose state this is up to date: signatures decide which manifests
 * and stats files to read, the live files which outputs changed. When only a full build can (the
 * hosts changed, a stats file is no longer a file), says why instead.
 */
export async function rebuildCatalogue(
  options: RebuildOptions,
  output: LockedOutput,
  state: BuildState,
): Promise<{ problems: Problem[]; built?: RebuildSummary } | { fullBuild: string }> {
  // Package files are read, checked and stored by the full build, which compares what it renders
  // with the live slot's files and writes only those that differ.
  if (state.packageFiles === true) return { fullBuild: "the catalogue has package files" };
  const snapshotMs = options.now();
  const hostsFile = await rereadHostsFile(options.catalogueDir, state);
  if (!hostsFile) return { fullBuild: "the hosts changed" };
  const stats = await rereadStats(options.catalogueDir, state);
  if (!stats) return { fullBuild: "a stats file is no longer a regular file" };
  const survey = surveyCatalogue(options.catalogueDir, state, stats.entries);
  if (survey.packageFiles) return { fullBuild: "the catalogue has package files" };
  if (survey.toRead.length >= FULL_BUILD_READS && survey.toRead.length * 2 > packageCount(state))
    return { fullBuild: "most packages must be read again" };
  const manifests = await rereadManifests(options.catalogueDir, survey.toRead, statsLookup(state, stats.entries));
  const problems = sortProblems([...hostsFile.problems, ...stats.problems, ...survey.problems, ...manifests.problems]);
  if (problems.some(isError)) return { problems };

  const inputs = {
    snapshotMs,
    hostsFile: hostsFile.signature,
    hosts: hostsFile.hosts,
    statsFiles: stats.signatures,
    stats: stats.entries,
    packages: manifests.packages,
    problems,
    targets: options.targets,
  };
  const live = liveFiles(slotDir(output, output.live!));
  const today = withTodayChanges(
    planRebuild(state, survey, inputs, live),
    state,
    {
      packages: manifests.packages,
      hosts: hostsFile.hosts,
      baseUrl: options.baseUrl,
      nowMs: options.featuredDay !== undefined ? options.featuredDay * 24 * 3600 * 1000 : snapshotMs,
    },
    live,
  );
  if ("fullBuild" in today) return today;
  const plan = withSiteChanges(today, live, options.site);
  const home = output.layout.home;
  if (plan.writes.size > 0) {
    forgetState(home);
    writeChanges(output, state.spare, plan.writes);
    publish(output);
    writeState(home, { ...plan.state, live: output.spare, spare: [...plan.writes.keys()] });
  } else if (plan.stateMoved) {
    // Touched but unchanged inputs: remember their new signatures so they are not read again.
    writeState(home, plan.state);
  }
  return { problems: plan.problems, built: plan.summary };
}

/**
 * Past this many manifests to read, and more than half the catalogue, a full build is quicker than
 * reading, comparing and splicing each (a first stats file for 100,000 packages: 29 s incremental,
 * 19 s full on /dev/shm). Below it, a rebuild is quick whatever it reads.
 */
const FULL_BUILD_READS = 10_000;

function packageCount(state: BuildState): number {
  return state.hosts.reduce((n, host) => n + state.packages[host]!.names.length, 0);
}

/** The stats files as they are now: their signatures, the entries of those read again, and their problems. */
interface StatsNow {
  signatures: (Signature | null)[];
  /** Per host whose stats file moved: its entries now (none when the file is gone). */
  entries: Map<string, HostStats>;
  problems: Problem[];
}

/**
 * Each host's stats file, read again only when its signature moved. Undefined when one is no longer
 * a regular file: the full build's layout check reports why.
 */
async function rereadStats(dir: string, state: BuildState): Promise<StatsNow | undefined> {
  const now: StatsNow = { signatures: [], entries: new Map(), problems: [] };
  for (const [k, host] of state.hosts.entries()) {
    const file = statsFileOf(host);
    const then = state.statsFiles[k]!;
    const stats = statOrNothing(join(dir, file));
    if (stats && !stats.isFile()) return undefined;
    if (!stats || (then && signatureUnchanged(stats, then, state.snapshotMs))) {
      // Unchanged (or gone, and it read as no entries): its warnings but the orphans' are reported again.
      now.signatures.push(stats ? then : null);
      if (!stats && then) now.entries.set(host, new Map());
      if (stats)
        now.problems.push(...state.warnings.filter((w) => w.file === file && w.code !== "STATS_UNKNOWN_PACKAGE"));
      continue;
    }
    const source = readSourceFile(join(dir, file), MAX_STATS_BYTES);
    const checked = validateStatsFile(file, source, await schemaValidators());
    now.problems.push(...checked.problems);
    now.signatures.push(source.signature ?? signatureOf(stats));
    now.entries.set(host, checked.stats ? hostStatsOf(checked.stats) : new Map());
  }
  return now;
}

/** Where a manifest read again takes its stats from: the stats file read again, else what the last build recorded. */
function statsLookup(state: BuildState, reread: RereadStats): StatsLookup {
  const orphans = new Map<string, ReadonlyMap<string, PackageStats>>();
  return (ref, index) => {
    const entries = reread.get(ref.host);
    if (entries) return entries.get(ref.name);
    const host = state.packages[ref.host]!;
    if (index !== undefined) return statsAt(host, index);
    let known = orphans.get(ref.host);
    if (!known) orphans.set(ref.host, (known = new Map(host.orphans)));
    return known.get(ref.name);
  };
}

interface HostsFileNow {
  signature: Signature;
  problems: Problem[];
  /** Present when the file was read again. */
  hosts?: readonly HostInfo[];
}

/**
 * hosts.json as it is now, read again only when its signature moved. Undefined when it is no longer
 * a regular file or declares other hosts: only a full build handles that.
 */
async function rereadHostsFile(dir: string, state: BuildState): Promise<HostsFileNow | undefined> {
  const path = join(dir, HOSTS_FILE);
  const now = statOrNothing(path);
  if (!now?.isFile()) return undefined;
  if (signatureUnchanged(now, state.hostsFile, state.snapshotMs)) {
    return { signature: state.hostsFile, problems: state.warnings.filter((w) => w.file === HOSTS_FILE) };
  }
  const validators = await schemaValidators();
  const source = readSourceFile(path, MAX_SOURCE_BYTES);
  const checked = validateHostsFile(source, validators);
  if (!checked.hostsFile || checked.hostsFile.hosts.map((h) => h.id).join("/") !== state.hosts.join("/"))
    return undefined;
  return {
    signature: source.signature ?? signatureOf(now),
    problems: checked.problems,
    hosts: checked.hostsFile.hosts,
  };
}

/** A manifest's stats entry, by its ref and its index in the last build. */
type StatsLookup = (ref: ManifestRef, index: number | undefined) => PackageStats | undefined;

/** Reads, validates and renders the manifests the survey sent to be read again. */
async function rereadManifests(
  dir: string,
  toRead: Survey["toRead"],
  statsOf: StatsLookup,
): Promise<{ problems: Problem[]; packages: RereadPackage[] }> {
  const problems: Problem[] = [];
  const packages: RereadPackage[] = [];
  let validators: Validators | undefined;
  for (const { ref, index } of toRead) {
    // Loaded on first use, so a rebuild with nothing to read never loads the validators.
    validators ??= await schemaValidators();
    const manifest = loadManifest(dir, ref, validators, statsOf(ref, index));
    problems.push(...manifest.problems);
    if (manifest.loaded) packages.push({ ...manifest.loaded, host: ref.host, index });
  }
  return { problems, packages };
}

/** The live slot's files, as the plan reads them; a file that cannot be read counts as changed. */
function liveFiles(dir: string): LiveFiles {
  return {
    text(path) {
      try {
        return readFileSync(join(dir, path), "latin1");
      } catch {
        return undefined;
      }
    },
    bytes: (path) => readFileSync(join(dir, path)),
    exists: (path) => existsSync(join(dir, path)),
  };
}
