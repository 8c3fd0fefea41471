// The `build` command, one plan two ways: with no state of a previous build it can trust, the full
// build (engine/buildAnew.ts) plans from an empty index and writes every file into the spare slot,
// then publishes it; with one, the rebuild (engine/rebuildCatalogue.ts) plans from the last index,
// reads and writes only what changed, and hands over to the full build when it cannot (most inputs
// moved, the hosts changed). It returns data; the CLI prints.
import type { Problem } from "../catalogue/problems.js";
import { buildKey, readState, type BuildState } from "./buildState.js";
import { buildAnew } from "./buildAnew.js";
import { rebuildCatalogue } from "./rebuildCatalogue.js";
import type { DroppedTargets } from "./planRebuild.js";
import { targetById } from "../targets/index.js";
import type { TargetId } from "../targets/target.js";
import { withOutput, type LockedOutput } from "../write/writeOutput.js";
import type { FileIndexOptions } from "../trust/writeFileIndex.js";

export interface BuildOptions {
  catalogueDir: string;
  outDir: string;
  /** Hosts whose config files belong in the output root (`build --target`). */
  targets?: readonly TargetId[];
  /** Also write the browse site (docs/site.md); on unless false. */
  site?: boolean;
  /** Ignore what the previous build left and write everything. */
  force?: boolean;
  onProgress?: BuildProgress;
  /** The wall clock (tests move it on to see a build that runs long after the last edit); its UTC day picks the featured app. */
  now?: () => number;
  /** The origin the build is deployed at, for the v3/v4 URLs (`build --base-url`); `http://<default host>` when left out. */
  baseUrl?: string | undefined;
  /** The UTC day (days since 1970-01-01) whose featured app to pick; the day of the build when left out. */
  featuredDay?: number | undefined;
  /** Every warning is an error (`build --strict`): a catalogue with one is not built. */
  strict?: boolean;
  /** Also write the signed index of the served files (docs/trust.md). */
  index?: FileIndexOptions;
}

export type BuildProgress = (phase: "reading" | "writing", done: number, total: number) => void;

/** The three ways a build goes, each with what only it has. */
export type BuildMode =
  /** Every input read and every file written: there was no usable previous build, --force, or most inputs moved. */
  | { kind: "full"; reason: string }
  /** The build after a build (src/engine/): only what changed was read, and its files written. */
  | { kind: "incremental" }
  /** As incremental, and nothing had changed: nothing was written. */
  | { kind: "unchanged" };

export interface BuildSummary {
  hosts: number;
  packages: number;
  /** Output files in the built tree. */
  files: number;
  /** How the build went. */
  mode: BuildMode;
  /** Packages whose output was added, changed or removed (for incremental builds). */
  changedPackages: number;
  /** Files written or removed. */
  filesWritten: number;
  /**
   * With package files: how many packages' files were read (zipped, checked, hashed) by this build;
   * the others kept their signatures, and their stored files are the live slot's, linked.
   */
  packageFilesRead?: number;
  /** Targets the previous build wrote files for and this one does not, with the files that went with them. */
  dropped?: DroppedTargets;
}

export interface BuildResult {
  /** Every problem found, errors and warnings, in a stable order. */
  problems: Problem[];
  /** What was built; absent when the catalogue has errors and nothing was written. */
  built?: BuildSummary;
}

/**
 * Checks the catalogue and, only when it has no error, writes the API to `outDir`. With the state
 * of a previous build of the same catalogue by the same shopfront, only what changed is read and
 * written; anything unexpected falls back to a full build.
 */
export async function buildCatalogue(options: BuildOptions): Promise<BuildResult> {
  const targets = options.targets ?? [];
  for (const id of targets) targetById(id);
  const site = options.site ?? true;
  const key = buildKey(options.catalogueDir, site, options.baseUrl);
  return withOutput(options.outDir, async (output) => {
    const state = output.live ? readState(output.layout.home) : undefined;
    // A state describes the live output only while it names it; then it knows its targets.
    const dropped = state && state.live === output.live ? state.targets.filter((t) => !targets.includes(t)) : [];
    const previous = options.force ? { reason: "--force" } : usableState(output, key, state);
    if ("reason" in previous) return fullBuild({ options, output, key, reason: previous.reason, dropped });
    const rebuilt = await rebuildCatalogue(
      {
        catalogueDir: options.catalogueDir,
        targets,
        site,
        now: options.now ?? Date.now,
        baseUrl: options.baseUrl,
        featuredDay: options.featuredDay,
        strict: options.strict ?? false,
        ...(options.index ? { index: options.index } : {}),
      },
      output,
      previous.state,
    );
    return "fullBuild" in rebuilt
      ? fullBuild({ options, output, key, reason: rebuilt.fullBuild, dropped, previous: previous.state })
      : rebuilt;
  });
}

/** The time whose UTC day picks the featured app: options.featuredDay's, or the build's. */
function featuredMs(options: Pick<BuildOptions, "featuredDay">, snapshotMs: number): number {
  return options.featuredDay !== undefined ? options.featuredDay * 24 * 3600 * 1000 : snapshotMs;
}

/** The state a rebuild can start from, or why there is none. */
function usableState(
  output: LockedOutput,
  key: string,
  state: BuildState | undefined,
): { state: BuildState } | { reason: string } {
  if (!output.live) return { reason: "no previous build" };
  if (state?.key !== key) return { reason: "no usable state from the previous build" };
  if (state.live !== output.live) return { reason: "the previous build was interrupted" };
  return { state };
}

/** The full build of the catalogue (engine/buildAnew.ts: the rebuild's plan from an empty index), with the build's options. */
function fullBuild(run: {
  options: BuildOptions;
  output: LockedOutput;
  key: string;
  reason: string;
  dropped: readonly TargetId[];
  previous?: BuildState | undefined;
}): Promise<BuildResult> {
  const { options } = run;
  const snapshotMs = (options.now ?? Date.now)();
  return buildAnew({
    ...run,
    options: {
      catalogueDir: options.catalogueDir,
      targets: options.targets ?? [],
      site: options.site !== false,
      baseUrl: options.baseUrl,
      strict: options.strict ?? false,
      index: options.index,
      snapshotMs,
      featuredMs: featuredMs(options, snapshotMs),
      onProgress: options.onProgress,
    },
  });
}
