// The build after a build: the I/O around the plan both builds make (planRebuild.ts). Survey which
// inputs moved (hosts.json and the stats files read again here, the manifests as the hosts' passes
// come to them, readManifests.ts), plan, then write the plan into the live output in place and
// remember the new state.
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { GitDigests } from "../load/loadCatalogue.js";
import type { HostInfo } from "../catalogue/fields.js";
import { applyStrict, isError, sortProblems, type Problem } from "../catalogue/problems.js";
import { schemaValidators } from "../catalogue/schemas.js";
import { readSourceFile } from "../read/readCatalogue.js";
import { signatureOf, type Signature } from "../read/signature.js";
import type { TargetId } from "../targets/target.js";
import {
  validateHostsFile,
  validateStatsFile,
  HOSTS_FILE,
  MAX_SOURCE_BYTES,
  MAX_STATS_BYTES,
} from "../validate/catalogueRules.js";
import { hostStatsOf, statsFileOf, type HostStats } from "../catalogue/statsFile.js";
import { siteNeedsFullBuild, withSiteChanges } from "./planSite.js";
import { applyInPlace, slotDir, workFolder, type LockedOutput, type WrittenDigests } from "../write/writeOutput.js";
import { appendAll } from "../util/appendAll.js";
import { forgetState, signatureUnchanged, writeState, type BuildState } from "./buildState.js";
import { planRebuild, type RebuildPlan, type RebuildSummary } from "./planRebuild.js";
import { manifestReader, statsLookup } from "./readManifests.js";
import { liveFiles, sameBytes } from "./liveFiles.js";
import { StagedFiles } from "../write/stagedFiles.js";
import type { FilesSource } from "../site/sitePackage.js";
import { todayUrlsOf } from "../render/renderToday.js";
import { statOrNothing, surveyCatalogue, type Survey } from "./surveyCatalogue.js";
import { lastMemos, packageFilesReuse, withPackageFiles } from "./planPackageFiles.js";
import { PackageFilesStream } from "./streamPackageFiles.js";
import { keptManifests, keptPackages, KeptManifestMoved } from "./keptPackages.js";
import { fileIndexOutdated, writeFileIndex, type FileIndexOptions } from "../trust/writeFileIndex.js";

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
  /** Every warning is an error (`build --strict`): nothing is written when there is one. */
  strict?: boolean;
  /** Also write the signed index of the served files (docs/trust.md). */
  index?: FileIndexOptions;
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
  const snapshotMs = options.now();
  const hostsFile = await rereadHostsFile(options.catalogueDir, state);
  if (!hostsFile) return { fullBuild: "the hosts changed" };
  // The default host's package files are stored at the root, the others' under hosts/<host>/.
  if (state.packageFiles === true && (hostsFile.defaultHost ?? state.defaultHost) !== state.defaultHost)
    return { fullBuild: "the default host changed" };
  const stats = await rereadStats(options.catalogueDir, state);
  if (!stats) return { fullBuild: "a stats file is no longer a regular file" };
  const survey = surveyCatalogue(options.catalogueDir, state, stats.entries);
  if (survey.packageFiles !== (state.packageFiles === true))
    return { fullBuild: survey.packageFiles ? "packages have files now" : "no package has files now" };
  if (survey.toRead.length >= FULL_BUILD_READS && survey.toRead.length * 2 > packageCount(state))
    return { fullBuild: "most packages must be read again" };
  // Package folders read again are zipped and their served entries unpacked here, beside the slots,
  // to be moved into the live slot; removed whatever happens (removeLeftovers too).
  const workDir = workFolder(output);
  try {
    return await rebuildFrom({ options, output, state, snapshotMs, workDir }, { hostsFile, stats, survey });
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}

/** A rebuild's options and output, the state it starts from, when it began and where it reads package files into. */
interface Rebuild {
  options: RebuildOptions;
  output: LockedOutput;
  state: BuildState;
  snapshotMs: number;
  workDir: string;
}

/** What moved since the last build: hosts.json, the stats files and the manifests, as the survey found them. */
interface Moved {
  hostsFile: HostsFileNow;
  stats: StatsNow;
  survey: Survey;
}

/** The rebuild once the survey is made: read what it sends to be read, plan, write, publish, remember. */
async function rebuildFrom(
  run: Rebuild,
  moved: Moved,
): Promise<{ problems: Problem[]; built?: RebuildSummary } | { fullBuild: string }> {
  const { options, output, state, snapshotMs, workDir } = run;
  const { hostsFile, stats, survey } = moved;
  const liveDir = slotDir(output, output.live!);
  const problems = applyStrict(
    sortProblems([...hostsFile.problems, ...stats.problems, ...survey.problems]),
    options.strict,
  );

  const inputs = {
    snapshotMs,
    hostsFile: hostsFile.signature,
    hosts: hostsFile.hosts,
    statsFiles: stats.signatures,
    stats: stats.entries,
    toRead: survey.toRead,
    read: manifestReader(
      options.catalogueDir,
      statsLookup(state, stats.entries),
      state.packageFiles === true
        ? { workDir, reuse: packageFilesReuse(liveDir, state), digests: digestsOf(survey) }
        : undefined,
    ),
    problems,
    targets: options.targets,
    today: {
      urls: todayUrlsOf(hostsFile.hosts ?? state.hostInfos, state.hostsDefault, options.baseUrl),
      featuredMs: options.featuredDay !== undefined ? options.featuredDay * 24 * 3600 * 1000 : snapshotMs,
    },
  };
  if (options.site) {
    const reason = siteNeedsFullBuild(state, hostsFile.hosts);
    if (reason) return { fullBuild: reason };
  }
  const live = liveFiles(liveDir);
  // A host's lists are written here by its pass, and moved into the live slot with the other writes.
  mkdirSync(workDir, { recursive: true });
  const stage = new StagedFiles(join(workDir, "lists"), options.index !== undefined);
  const sameAsLive = (path: string, file: string) => sameBytes(join(liveDir, path), file);
  // With package files, their part of the hosts' passes: the full build's, writing what differs from the live slot.
  const files =
    state.packageFiles === true && state.defaultHost !== undefined
      ? new PackageFilesStream(
          {
            readFrom: liveDir,
            last: {
              memos: lastMemos(state, survey.resignedFiles),
              targets: state.targets,
              live,
              sameBytes: sameAsLive,
            },
          },
          state.defaultHost,
          options.targets,
        )
      : undefined;
  let spilled: RebuildPlan["spilled"] | undefined;
  try {
    const api = await planRebuild(
      state,
      survey,
      inputs,
      live,
      { stage },
      {
        files,
        site: options.site ? { workDir, files: files?.filesSource ?? noFiles(state) } : undefined,
      },
    );
    spilled = api.spilled;
    // A manifest read again that is not valid: nothing is written, and every problem is reported.
    const read = applyStrict(api.problems, options.strict);
    if (read.some(isError)) return { problems: read };
    // Only a rebuild that moved a package reads a kept one's manifest: a no-op loads no validators.
    const validators =
      survey.toRead.length + api.removed.length + api.changed.length + api.added.length > 0
        ? await schemaValidators()
        : undefined;
    let plan: RebuildPlan;
    try {
      const hbb = files
        ? withPackageFiles(
            api,
            state,
            files,
            {
              hosts: hostsFile.hosts,
              live,
              workDir,
              sameAsLive,
              kept: keptManifests(options.catalogueDir, { ...api.state, packageFilesMemo: files.memos }, validators),
            },
            survey.resignedFiles.size > 0,
          )
        : api;
      plan = options.site
        ? withSiteChanges(hbb, {
            live,
            files: files?.filesSource,
            baseUrl: inputs.today.urls.baseUrl,
            keptPackage: keptPackages(options.catalogueDir, hbb.state, validators),
          })
        : hbb;
    } catch (error) {
      // Nothing is written yet: the full build reads the manifest again and reports what is wrong with it.
      if (error instanceof KeptManifestMoved) return { fullBuild: error.message };
      throw error;
    }
    // The plan adds the warnings found only once the output is planned (stats of unknown packages, the
    // Homebrew Browser's lists): --strict refuses them too, before anything is written.
    const planned = applyStrict(plan.problems, options.strict);
    if (planned.some(isError)) return { problems: planned };
    const home = output.layout.home;
    const index = options.index && { ...options.index, builtMs: snapshotMs };
    if (plan.writes.size > 0 || (index && fileIndexOutdated(liveDir, index))) {
      forgetState(home);
      const digests: WrittenDigests = new Map();
      // Before the removals, which the last index names until the new one is there: it leaves them out.
      applyInPlace(
        output,
        plan.writes,
        index && digests,
        index && (() => writeFileIndex(liveDir, liveDir, plan.writes, index, { digests })),
      );
      writeState(home, plan.state);
    } else if (plan.stateMoved) {
      // Touched but unchanged inputs: remember their new signatures so they are not read again.
      writeState(home, plan.state);
    }
    return { problems: plan.problems, built: plan.summary };
  } finally {
    // The lists' old bytes are read through it until the plan is written.
    live.close();
    for (const host of spilled?.values() ?? []) host.close();
    stage.writer.abandon();
  }
}

/**
 * Past this many manifests to read, and more than half the catalogue, a build anew into the spare
 * slot is quicker than comparing each file with the live one and moving it in (a first stats file
 * for 100,000 packages: 29 s incremental, 19 s full on /dev/shm, measured before the two were one
 * plan). Below it, a rebuild is quick whatever it reads.
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
        appendAll(
          now.problems,
          state.warnings.filter((w) => w.file === file && w.code !== "STATS_UNKNOWN_PACKAGE"),
        );
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

interface HostsFileNow {
  signature: Signature;
  problems: Problem[];
  /** Present when the file was read again. */
  hosts?: readonly HostInfo[];
  /** Its default host, when it was read again. */
  defaultHost?: string;
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
  // A host's domain is in the v3/v4 URLs of its packages without files, and a new default host moves
  // today's API: only a full build writes every object again.
  if (checked.hostsFile.hosts.some((h, i) => h.host !== state.hostInfos[i]!.host)) return undefined;
  if (checked.hostsFile.default !== state.hostsDefault) return undefined;
  return {
    signature: source.signature ?? signatureOf(now),
    problems: checked.problems,
    hosts: checked.hostsFile.hosts,
    defaultHost: checked.hostsFile.default,
  };
}

/** What the site is told of package files in a catalogue without any. */
function noFiles(state: BuildState): FilesSource {
  return { defaultHost: state.hostsDefault, of: () => undefined };
}

/** The survey's digests from git, as loadPackageFiles asks for them; none when git was not asked. */
function digestsOf(survey: Survey): GitDigests | undefined {
  const digests = survey.digests;
  return digests && (() => digests);
}
