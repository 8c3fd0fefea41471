// The `build` command: load the catalogue, render it, write it into the spare slot, publish it and
// remember what was built. When a previous build left a state this build can trust, the rebuild
// (src/rebuild/) takes over and reads and writes only what changed. It returns data; the CLI prints.
import type { Problem } from "../catalogue/problems.js";
import { buildKey, forgetState, hostStateOf, readState, writeState, type BuildState } from "../rebuild/buildState.js";
import { rebuildCatalogue } from "../rebuild/rebuildCatalogue.js";
import { targetById } from "../targets/index.js";
import type { CatalogueNames, TargetId } from "../targets/target.js";
import type { OutputFile } from "../render/renderApi.js";
import { publish, withOutput, writeFresh, type LockedOutput } from "../write/writeOutput.js";
import { catalogueNames, loadCatalogue } from "./loadCatalogue.js";
import { renderOutput } from "./renderOutput.js";
import { targetFiles } from "./targetFiles.js";

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
  /** The wall clock (tests move it on to see a build that runs long after the last edit). */
  now?: () => number;
}

export type BuildProgress = (phase: "reading" | "writing", done: number, total: number) => void;

export interface BuildSummary {
  hosts: number;
  packages: number;
  /** Output files in the built tree. */
  files: number;
  /** How the build went: everything written, only changes written, or nothing to write. */
  mode: "full" | "incremental" | "unchanged";
  /** For a full build, why it was one. */
  reason?: string;
  /** Packages whose output was added, changed or removed (for incremental builds). */
  changedPackages: number;
  /** Files written or removed. */
  filesWritten: number;
  /** Targets the previous build wrote files for and this one does not, with those files, now gone. */
  dropped?: { targets: TargetId[]; files: string[] };
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
  const key = buildKey(options.catalogueDir, targets, site);
  return withOutput(options.outDir, async (output) => {
    const state = output.live ? readState(output.layout.home) : undefined;
    // A state describes the live output only while it names it; then it knows its targets.
    const dropped = state && state.live === output.live ? state.targets.filter((t) => !targets.includes(t)) : [];
    const previous = options.force ? { reason: "--force" } : usableState(output, key, state);
    if ("reason" in previous) return buildFully(options, output, key, previous.reason, dropped);
    const rebuilt = await rebuildCatalogue(
      { catalogueDir: options.catalogueDir, targets, site, now: options.now ?? Date.now },
      output,
      previous.state,
    );
    return "fullBuild" in rebuilt ? buildFully(options, output, key, rebuilt.fullBuild, dropped) : rebuilt;
  });
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

/** Loads and renders the whole catalogue, writes it into the spare slot, publishes it and remembers it. */
async function buildFully(
  options: BuildOptions,
  output: LockedOutput,
  key: string,
  reason: string,
  dropped: readonly TargetId[],
): Promise<BuildResult> {
  const snapshotMs = (options.now ?? Date.now)();
  const { problems, catalogue, sources } = await loadCatalogue(
    options.catalogueDir,
    phase(options.onProgress, "reading"),
  );
  if (!catalogue || !sources) return { problems };

  const names = catalogueNames(catalogue);
  const files = [
    ...renderOutput(catalogue, { site: options.site !== false }),
    ...targetFiles(options.targets ?? [], names),
  ];
  forgetState(output.layout.home);
  writeFresh(output, files, phase(options.onProgress, "writing"));
  publish(output);

  const hosts = catalogue.hosts.map((h) => h.id);
  writeState(output.layout.home, {
    key,
    targets: [...new Set(options.targets ?? [])],
    live: output.spare,
    spare: null,
    snapshotMs,
    hostsFile: sources.hostsFile,
    folders: sources.folders,
    hosts,
    statsFiles: hosts.map((id) => sources.stats.get(id)?.signature ?? null),
    packages: Object.fromEntries(
      hosts.map((id) => [
        id,
        hostStateOf(
          catalogue.packages.get(id) ?? [],
          sources.packages.get(id) ?? [],
          sources.stats.get(id)?.orphans ?? [],
        ),
      ]),
    ),
    warnings: problems,
    files: files.length,
  });
  let packages = 0;
  for (const list of catalogue.packages.values()) packages += list.length;
  return {
    problems,
    built: {
      hosts: hosts.length,
      packages,
      files: files.length,
      mode: "full",
      reason,
      changedPackages: packages,
      filesWritten: files.length,
      ...droppedTargets(dropped, names, files),
    },
  };
}

/** The targets the previous build had and this one has not, when the output lost files of theirs. */
function droppedTargets(
  dropped: readonly TargetId[],
  names: CatalogueNames,
  files: readonly OutputFile[],
): Pick<BuildSummary, "dropped"> {
  const kept = new Set(files.map((f) => f.path));
  const gone = targetFiles(dropped, names)
    .map((f) => f.path)
    .filter((path) => !kept.has(path));
  return gone.length > 0 ? { dropped: { targets: [...dropped], files: gone } } : {};
}

/** The progress of one phase, as the step that does it reports it. */
function phase(onProgress: BuildProgress | undefined, name: "reading" | "writing") {
  return onProgress && ((done: number, total: number) => onProgress(name, done, total));
}
