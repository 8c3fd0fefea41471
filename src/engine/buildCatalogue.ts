// Over 300 lines: the build's three ways (full, incremental, compared by content) and the package
// files' working folder, one function each around one shared summary.
// The `build` command: load the catalogue, render it, write it into the spare slot, publish it and
// remember what was built. When a previous build left a state this build can trust, the rebuild
// (src/engine/) takes over and reads and writes only what changed; when it must read nearly every
// input again (a fresh clone with the last build restored), the full build compares its files with
// the live output and writes only those that differ. It returns data; the CLI prints.
import { rmSync } from "node:fs";
import { applyStrict, isError, type Problem } from "../catalogue/problems.js";
import {
  buildKey,
  forgetState,
  hostStateOf,
  readState,
  writeState,
  type BuildState,
  type TodayRecord,
} from "./buildState.js";
import type { SiteIndex } from "../site/siteIndex.js";
import { memoOf, packageFilesReuse } from "./planPackageFiles.js";
import { rebuildCatalogue } from "./rebuildCatalogue.js";
import type { DroppedTargets } from "./planRebuild.js";
import { targetById } from "../targets/index.js";
import type { TargetId } from "../targets/target.js";
import type { OutputFile, PackageFilesMemo, RenderedCatalogue, RenderedPackage } from "../render/renderApi.js";
import { isFeaturedCandidate, todayFiles } from "../render/renderToday.js";
import { fileFor } from "../routes/routeTable.js";
import { diffOutput } from "../write/diffOutput.js";
import {
  applyInPlace,
  publish,
  slotDir,
  withOutput,
  workFolder,
  writeFresh,
  type LockedOutput,
  type WrittenDigests,
  type Slot,
} from "../write/writeOutput.js";
import { loadCatalogue, type CatalogueSources } from "../load/loadCatalogue.js";
import { catalogueNames } from "../render/catalogueNames.js";
import { aliasFiles, needsAliasFiles, outputFiles, storedPackageFiles } from "../output/renderOutput.js";
import { targetFiles } from "../output/targetFiles.js";
import { isFileIndexPath } from "../routes/routeTable.js";
import { fileIndexOutdated, writeFileIndex, type FileIndexOptions } from "../trust/writeFileIndex.js";

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

/** The four ways a build goes, each with what only it has. */
export type BuildMode =
  /** Every input read and every file written: there was no usable previous build, or --force. */
  | { kind: "full"; reason: string }
  /** The build after a build (src/engine/): only what changed was read, and its files written. */
  | { kind: "incremental" }
  /** As incremental, and nothing had changed: nothing was written. */
  | { kind: "unchanged" }
  /**
   * Every input was read and rendered (`reason` says why), then compared with the last build's output
   * by its bytes: only the files that differ were written, maybe none (a fresh clone with the last
   * build's output and state restored).
   */
  | { kind: "compared"; reason: string };

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
    if ("reason" in previous) return buildFully({ options, output, key, reason: previous.reason, dropped });
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
      ? buildFully({ options, output, key, reason: rebuilt.fullBuild, dropped, previous: previous.state })
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

/**
 * Loads and renders the whole catalogue, writes it into the spare slot, publishes it and remembers it.
 * With the previous build's state (`previous`, which names the live slot), only the files whose bytes
 * differ from the live slot's are written.
 */
async function buildFully(run: FullBuild): Promise<BuildResult> {
  const { options, output, previous } = run;
  const snapshotMs = (options.now ?? Date.now)();
  // Package folders are zipped and the served entries unpacked here, beside the slots, so that they
  // are moved into the spare slot, never copied twice; removed whatever happens (removeLeftovers too).
  const workDir = workFolder(output);
  try {
    const loaded = await loadCatalogue(options.catalogueDir, phase(options.onProgress, "reading"), {
      workDir,
      store: true,
      // `previous` names the live slot (usableState checked it), which holds their stored files.
      ...(previous?.packageFilesMemo ? { reuse: packageFilesReuse(slotDir(output, output.live!), previous) } : {}),
    });
    const { catalogue, sources } = loaded;
    const problems = applyStrict(loaded.problems, options.strict);
    if (!catalogue || !sources || problems.some(isError)) return { problems };
    return finishFullBuild(run, { snapshotMs, problems, catalogue, sources });
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}

/** What a full build is given: the build's options and output, and why it is a full build. */
interface FullBuild {
  options: BuildOptions;
  output: LockedOutput;
  key: string;
  reason: string;
  /** Targets the previous build had and this one has not. */
  dropped: readonly TargetId[];
  /** The previous build's state, which names the live slot, when the files are to be compared with it. */
  previous?: BuildState | undefined;
}

/** What a full build loaded: the catalogue, rendered, its sources' signatures and its problems. */
interface Loaded {
  snapshotMs: number;
  problems: Problem[];
  catalogue: RenderedCatalogue;
  sources: CatalogueSources;
}

/** Writes, publishes and remembers what a full build loaded. */
function finishFullBuild(run: FullBuild, loaded: Loaded): BuildResult {
  const { options, output, key, reason, dropped, previous } = run;
  const { snapshotMs, problems, catalogue, sources } = loaded;
  let site: SiteIndex | undefined;
  const rendered = outputFiles(catalogue, {
    site: options.site !== false,
    targets: options.targets ?? [],
    baseUrl: options.baseUrl,
    nowMs: featuredMs(options, snapshotMs),
    siteIndex: (index) => (site = index),
  });
  const lists = new TodayLists(catalogue);
  const index = options.index && { ...options.index, builtMs: snapshotMs };
  const written = writeBuild(output, lists.watch(rendered), previous, options.onProgress, index, catalogue);

  const hosts = catalogue.hosts.map((h) => h.id);
  writeState(output.layout.home, {
    key,
    targets: [...new Set(options.targets ?? [])],
    live: written.live,
    snapshotMs,
    featuredMs: featuredMs(options, snapshotMs),
    hostInfos: [...catalogue.hosts],
    hostsDefault: catalogue.hostsDefault,
    hostsFile: sources.hostsFile,
    folders: sources.folders,
    hosts,
    statsFiles: hosts.map((id) => sources.stats.get(id)?.signature ?? null),
    packages: Object.fromEntries(
      hosts.map((id) => [
        id,
        hostStateOf(
          (catalogue.packages.get(id) ?? []).map((p, i) => ({ ...p, fragments: lists.record(id, i, p) })),
          sources.packages.get(id) ?? [],
          sources.stats.get(id)?.orphans ?? [],
        ),
      ]),
    ),
    warnings: problems,
    files: written.paths.length,
    ...packageFilesState(catalogue),
    ...(site ? { site } : {}),
  });
  let packages = 0;
  for (const list of catalogue.packages.values()) packages += list.length;
  return {
    problems,
    built: {
      hosts: hosts.length,
      packages,
      files: written.paths.length,
      mode: { kind: written.compared ? "compared" : "full", reason },
      changedPackages: written.changes ? changedPackages(written.changes, catalogue, previous!) : packages,
      filesWritten: written.changes?.size ?? written.paths.length,
      ...packageFilesRead(catalogue),
      ...droppedTargets(dropped, catalogue, written.paths),
    },
  };
}

/**
 * Each package's fragments in today's contents as the index records them: their lengths, read off
 * the rendered contents as they pass on their way to the writer (package i's object is their
 * element i), and whether it may be featured.
 */
class TodayLists {
  readonly #wanted = new Map<string, string>();
  /** Each list's elements' lengths: the lists themselves are let go once written. */
  readonly #lengths = new Map<string, Uint32Array>();

  constructor(catalogue: RenderedCatalogue) {
    for (const { id } of catalogue.hosts) {
      const paths = todayFiles(id, catalogue.hostsDefault);
      this.#wanted.set(paths.v4.contents, `v4 ${id}`);
      this.#wanted.set(paths.v3.contents, `v3 ${id}`);
    }
  }

  *watch(files: Iterable<OutputFile>): Generator<OutputFile> {
    for (const file of files) {
      const at = this.#wanted.get(file.path);
      if (at && typeof file.content === "object" && "jsonArray" in file.content)
        this.#lengths.set(
          at,
          Uint32Array.from(file.content.jsonArray, (e) => e.length),
        );
      yield file;
    }
  }

  record(host: string, i: number, p: RenderedPackage): TodayRecord {
    return {
      v4: { length: this.#lengths.get(`v4 ${host}`)![i]! },
      v3: { length: this.#lengths.get(`v3 ${host}`)![i]! },
      featured: isFeaturedCandidate(p.today),
    };
  }
}

/** How a full build's files were written, and which slot is live after it. */
interface Written {
  /** Whether the files were compared with the last build's, and only the changes written. */
  compared: boolean;
  /** The files written or deleted, when only the changes were. */
  changes?: ReadonlyMap<string, unknown>;
  live: Slot;
  /** Every file of the output. */
  paths: readonly string[];
}

/**
 * Writes a full build's files into the spare slot and publishes it, each file handed to the writer as
 * soon as it is rendered. Given the state of the live output, first compares the files with the live
 * ones by their bytes: when nothing differs, nothing is written; when up to half of them differ, only
 * those are written, into the live slot in place (applyInPlace). A fresh clone changes few, and on a
 * disk reading a small file costs far less than creating it (docs/speed.md).
 */
function writeBuild(
  output: LockedOutput,
  rendered: Iterable<OutputFile>,
  previous: BuildState | undefined,
  onProgress: BuildProgress | undefined,
  index: Parameters<typeof writeFileIndex>[3] | undefined,
  catalogue: RenderedCatalogue,
): Written {
  const home = output.layout.home;
  const live = output.live && slotDir(output, output.live);
  let files: Iterable<OutputFile> = rendered;
  if (previous) {
    const all = [...rendered];
    files = all;
    const paths = all.map((f) => f.path);
    const changes = diffOutput(live!, all);
    // The index's own files are not rendered: writeFileIndex keeps them.
    if (index) for (const path of changes.keys()) if (isFileIndexPath(path)) changes.delete(path);
    if (changes.size === 0 && !(index && fileIndexOutdated(live!, index)))
      return { compared: true, changes, live: output.live!, paths };
    if (changes.size * 2 <= all.length) {
      forgetState(home);
      const digests: WrittenDigests = new Map();
      applyInPlace(output, changes, digests, index && (() => writeFileIndex(live!, live, changes, index, { digests })));
      return { compared: true, changes, live: output.live!, paths };
    }
  }
  forgetState(home);
  const digests: WrittenDigests = new Map();
  const writing = phase(onProgress, "writing");
  const paths = writeFresh(
    output,
    files,
    writing && { onFile: writing, expected: previous?.files ?? expectedFiles(catalogue) },
    index && digests,
  );
  if (index) writeFileIndex(slotDir(output, output.spare), live, "all", index, { digests, paths });
  publish(output);
  return { compared: false, live: output.spare, paths };
}

/** About how many files a full build of the catalogue writes, for its progress: three a package. */
function expectedFiles(catalogue: RenderedCatalogue): number {
  let packages = 0;
  for (const list of catalogue.packages.values()) packages += list.length;
  return 3 * packages;
}

/** Packages whose file a build compared by content wrote or deleted. */
function changedPackages(
  changes: ReadonlyMap<string, unknown>,
  catalogue: RenderedCatalogue,
  previous: BuildState,
): number {
  const paths = new Set<string>();
  for (const [host, list] of catalogue.packages)
    for (const p of list) paths.add(fileFor("package", { host, name: p.name }));
  for (const host of previous.hosts)
    for (const name of previous.packages[host]!.names) paths.add(fileFor("package", { host, name }));
  let changed = 0;
  for (const path of changes.keys()) if (paths.has(path)) changed++;
  return changed;
}

/** The targets the previous build had and this one has not, when the output lost files of theirs. */
function droppedTargets(
  dropped: readonly TargetId[],
  catalogue: RenderedCatalogue,
  paths: readonly string[],
): Pick<BuildSummary, "dropped"> {
  if (dropped.length === 0) return {};
  const kept = new Set(paths);
  const gone = targetFiles(dropped, catalogueNames(catalogue))
    .map((f) => f.path)
    .filter((path) => !kept.has(path));
  const aliases = needsAliasFiles(dropped)
    ? aliasFiles(storedPackageFiles(catalogue)).filter((f) => !kept.has(f.path)).length
    : 0;
  return gone.length + aliases > 0 ? { dropped: { targets: [...dropped], files: gone, aliasFiles: aliases } } : {};
}

function packageFilesRead(catalogue: RenderedCatalogue): Pick<BuildSummary, "packageFilesRead"> {
  let withFiles = 0;
  let read = 0;
  for (const list of catalogue.packages.values()) {
    for (const p of list) {
      if (!p.stored) continue;
      withFiles++;
      if (p.stored.archive.link !== true) read++;
    }
  }
  return withFiles > 0 ? { packageFilesRead: read } : {};
}

/** What the state remembers of the package files: each package's memo, with its stored files' paths. */
function packageFilesState(
  catalogue: RenderedCatalogue,
): Pick<BuildState, "packageFiles" | "packageFilesMemo" | "defaultHost"> {
  const memo: Record<string, PackageFilesMemo> = {};
  for (const [host, list] of catalogue.packages) {
    for (const p of list) {
      const own = memoOf(host, catalogue.defaultHost!, p);
      if (own) memo[`${host}/${p.name}`] = own;
    }
  }
  return Object.keys(memo).length > 0
    ? { packageFiles: true, packageFilesMemo: memo, defaultHost: catalogue.defaultHost! }
    : {};
}

/** The progress of one phase, as the step that does it reports it. */
function phase(onProgress: BuildProgress | undefined, name: "reading" | "writing") {
  return onProgress && ((done: number, total: number) => onProgress(name, done, total));
}
