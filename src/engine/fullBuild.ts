// Over 350 lines: the full build's one run (stream, host-wide files, site, index, state), whose steps
// share the writer, the spills and the streaming hosts.
// The full build: the catalogue read host after host in name order, each package rendered once as
// it is read and written at once (engine/streamHost.ts), into the spare slot, which is published
// when every file is there. What it keeps is the index (the state's columns) and the site's spills
// on disk; the files that depend on a whole host are made from them, as the rebuild makes them
// from the last index. A package's stored files are written as it passes, and its host's Homebrew
// Browser list keeps its entry only while it ranks among those the list holds
// (engine/streamPackageFiles.ts).
import { existsSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { HostInfo } from "../catalogue/fields.js";
import { applyStrict, isError, sortProblems, type Problem } from "../catalogue/problems.js";
import { schemaValidators } from "../catalogue/schemas.js";
import { loadCatalogue, type LoadedCatalogue } from "../load/loadCatalogue.js";
import { renderOpenApi } from "../openapi/renderOpenApi.js";
import { needsAliasFiles } from "../output/storedPackageFiles.js";
import { targetFiles } from "../output/targetFiles.js";
import { namesOf } from "../render/catalogueNames.js";
import { renderHosts, renderNotFound } from "../render/renderApi.js";
import { hbbStubFiles } from "../render/renderHbb.js";
import { todayUrlsOf } from "../render/renderToday.js";
import { aliasFilesOf, fileFor, NOT_FOUND_FILE, OPENAPI_FILE } from "../routes/routeTable.js";
import { assembleFeeds } from "../site/assembleFeeds.js";
import { assembleSite, type SpilledHost } from "../site/assembleSite.js";
import { siteAssets, siteHosts } from "../site/siteAssets.js";
import { sitePackage, type FilesSource } from "../site/sitePackage.js";
import type { SiteIndex } from "../site/siteIndex.js";
import type { TargetId } from "../targets/target.js";
import { writeFileIndex, type FileIndexOptions } from "../trust/writeFileIndex.js";
import { setAside, SlotWriter } from "../write/slotWriter.js";
import { publish, slotDir, workFolder, type LockedOutput } from "../write/writeOutput.js";
import { FileIndexSpill } from "../trust/fileIndexSpill.js";
import { gitDigests } from "../read/gitDigests.js";
import { filtersAt, forgetState, writeState, type BuildState, type HostState } from "./buildState.js";
import { keptPackages } from "./keptPackages.js";
import { packageFilesReuse } from "./planPackageFiles.js";
import { PackageFilesStream } from "./streamPackageFiles.js";
import { HostStream } from "./streamHost.js";

/** What a full build is asked for. */
export interface FullBuildOptions {
  catalogueDir: string;
  targets: readonly TargetId[];
  site: boolean;
  baseUrl?: string | undefined;
  strict: boolean;
  index?: FileIndexOptions | undefined;
  /** The build's time; the featured app's, which its UTC day picks. */
  snapshotMs: number;
  featuredMs: number;
  onProgress?: ((phase: "reading" | "writing", done: number, total: number) => void) | undefined;
}

/** What a full build is given: the build's options and output, its key and why it is a full build. */
export interface FullBuild {
  options: FullBuildOptions;
  output: LockedOutput;
  key: string;
  reason: string;
  /** Targets the previous build had and this one has not. */
  dropped: readonly TargetId[];
  /** The previous build's state, which names the live slot: its package files are reused while they hold. */
  previous?: BuildState | undefined;
}

/** What a full build reports. */
export interface FullBuildSummary {
  hosts: number;
  packages: number;
  files: number;
  mode: { kind: "full"; reason: string };
  changedPackages: number;
  filesWritten: number;
  packageFilesRead?: number;
  dropped?: { targets: TargetId[]; files: string[]; aliasFiles: number };
}

/**
 * Reads, checks and writes the whole catalogue into the spare slot, publishes it and remembers it.
 * A catalogue with an error leaves the output as it was (the spare slot is emptied again).
 */
export async function buildFully(run: FullBuild): Promise<{ problems: Problem[]; built?: FullBuildSummary }> {
  const { options, output, previous } = run;
  // Package folders are zipped, the served entries unpacked and the site's rows spilled here, beside
  // the slots; removed whatever happens (removeLeftovers too).
  const workDir = workFolder(output);
  mkdirSync(workDir, { recursive: true });
  // The state is forgotten first: a build killed while it writes leaves the next one a full build.
  forgetState(output.layout.home);
  const spare = slotDir(output, output.spare);
  // The spare slot still holds the build before last: removed beside this one, not before it.
  const removed = setAside(spare, join(output.layout.home, `trash-${process.pid}`));
  const index = options.index ? new FileIndexSpill(workDir) : undefined;
  let writing: ((count: number) => void) | undefined;
  const writer = new SlotWriter(spare, { index, onFile: (count) => writing?.(count) });
  let streaming: Streaming | undefined;
  const streamOf = (s: Streaming, host: string): HostStream => {
    let stream = s.streams.get(host);
    if (!stream) {
      const info = s.hosts.find((h) => h.id === host)!;
      stream = new HostStream({
        writer,
        host: info,
        hostsDefault: s.hostsDefault,
        urls: todayUrlsOf(s.hosts, s.hostsDefault, options.baseUrl),
        featuredMs: options.featuredMs,
        site: options.site ? { host: siteHosts([info])[0]!, workDir, files: s.filesSource } : undefined,
        expected: s.manifests.get(host) ?? 0,
      });
      s.streams.set(host, stream);
    }
    return stream;
  };
  // Asked of git once, when the first package with files is signed: a clone is then known by content.
  let digests: ReadonlyMap<string, number> | undefined;
  try {
    const loaded = await loadCatalogue(options.catalogueDir, phase(options, "reading"), {
      workDir,
      store: true,
      digests: () => (digests ??= gitDigests(options.catalogueDir)),
      // `previous` names the live slot (buildCatalogue checked it), which holds their stored files.
      ...(previous?.packageFilesMemo ? { reuse: packageFilesReuse(slotDir(output, output.live!), previous) } : {}),
      onHosts: (hostsFile, withFiles, manifests) => {
        const packageFiles = withFiles
          ? new PackageFilesStream({ writer }, hostsFile.default, options.targets)
          : undefined;
        streaming = {
          hosts: hostsFile.hosts,
          hostsDefault: hostsFile.default,
          withFiles,
          streams: new Map(),
          packageFiles,
          filesSource: packageFiles?.filesSource ?? { defaultHost: hostsFile.default, of: () => undefined },
          manifests,
        };
      },
      onPackage: (host, { pkg, signature }) => {
        const s = streaming!;
        s.packageFiles?.add(host, pkg);
        writer.write({ path: fileFor("package", { host, name: pkg.name }), content: pkg.json });
        streamOf(s, host).add(pkg, signature);
      },
    });
    const { sources } = loaded;
    if (!sources || !streaming || loaded.problems.some(isError)) return failed(loaded.problems);
    const s = streaming;
    // A host with no package still has its lists, its today files and its site page.
    const hosts = s.hosts.map((h) => {
      const { state, spilled } = streamOf(s, h.id).finish();
      state.orphans = sources.stats.get(h.id)?.orphans ?? [];
      return { id: h.id, state, spilled };
    });
    const expected = previous?.files ?? 0;
    writing = (count) => options.onProgress?.("writing", count, Math.max(count, expected));
    try {
      return await finish({ run, writer, index, loaded, sources, streaming: s, hosts, workDir, failed });
    } finally {
      for (const host of hosts) host.spilled?.close();
    }
  } finally {
    // Published or not, nothing is written once the build has returned.
    writer.abandon();
    index?.close();
    rmSync(workDir, { recursive: true, force: true });
    await removed;
  }

  function failed(problems: Problem[]) {
    // What was written before the error is not published: the spare slot is emptied again.
    writer.abandon();
    rmSync(spare, { recursive: true, force: true });
    return { problems };
  }
}

/** The hosts as hosts.json declared them, once it was read, and what the stream keeps of them. */
interface Streaming {
  hosts: readonly HostInfo[];
  hostsDefault: string;
  withFiles: boolean;
  streams: Map<string, HostStream>;
  /** With package files: their stored files and the Homebrew Browser's surface, as the packages pass. */
  packageFiles: PackageFilesStream | undefined;
  /** What the site shows of each package's files (the memos, with package files). */
  filesSource: FilesSource;
  /** How many manifests each host has: its index is made room for them at once. */
  manifests: ReadonlyMap<string, number>;
}

/** A full build once every package is written: the host-wide files, the rest, the index, the state. */
interface Finishing {
  run: FullBuild;
  writer: SlotWriter;
  index: FileIndexSpill | undefined;
  loaded: LoadedCatalogue;
  sources: NonNullable<LoadedCatalogue["sources"]>;
  streaming: Streaming;
  hosts: { id: string; state: HostState; spilled?: (SpilledHost & { close(): void }) | undefined }[];
  /** The build's work folder, where the icon archives are written to be moved in. */
  workDir: string;
  failed: (problems: Problem[]) => { problems: Problem[] };
}

async function finish(f: Finishing): Promise<{ problems: Problem[]; built?: FullBuildSummary }> {
  const { run, writer, index, sources, streaming, hosts, workDir } = f;
  const { options, output, key, reason, dropped } = run;
  const spareDir = slotDir(output, output.spare);
  // The Homebrew Browser's lists once the whole catalogue is known: what they leave out or cut.
  const packageFiles = streaming.packageFiles;
  // The icon archive is made from the icons in the slot: on disk first.
  writer.drain();
  const surface = packageFiles?.surface(streaming.hosts, { repoList: streaming.hosts, workDir });
  const problems = applyStrict(sortProblems([...f.loaded.problems, ...(surface?.problems ?? [])]), options.strict);
  if (problems.some(isError)) return f.failed(problems);

  writer.write({ path: fileFor("hosts"), content: renderHosts(streaming.hosts) });
  writer.write({ path: NOT_FOUND_FILE, content: renderNotFound() });
  for (const file of surface ? [...surface.files, ...hbbStubFiles()] : []) writer.write(file);
  writer.write({ path: OPENAPI_FILE, content: renderOpenApi() });
  const memos = packageFiles?.memos ?? {};
  const withFiles = Object.keys(memos).length > 0;

  const ids = streaming.hosts.map((h) => h.id);
  const state: BuildState = {
    key,
    targets: [...new Set(options.targets)],
    live: output.spare,
    snapshotMs: options.snapshotMs,
    featuredMs: options.featuredMs,
    hostInfos: [...streaming.hosts],
    hostsDefault: streaming.hostsDefault,
    hostsFile: sources.hostsFile,
    folders: sources.folders,
    hosts: ids,
    statsFiles: ids.map((id) => sources.stats.get(id)?.signature ?? null),
    packages: Object.fromEntries(hosts.map((h) => [h.id, h.state])),
    warnings: problems,
    files: 0,
    ...(withFiles ? { packageFiles: true, packageFilesMemo: memos, defaultHost: streaming.hostsDefault } : {}),
  };
  if (options.site) state.site = await writeSite(f, state);
  if (options.targets.length > 0)
    for (const file of targetFiles(options.targets, namesOfIndex(state))) writer.write(file);
  writer.close();

  const live = output.live && slotDir(output, output.live);
  if (options.index && index)
    writeFileIndex(spareDir, live, "all", { ...options.index, builtMs: options.snapshotMs }, { spill: index });
  publish(output);
  state.files = writer.files;
  writeState(output.layout.home, state);

  const packages = hosts.reduce((n, h) => n + h.state.names.length, 0);
  return {
    problems,
    built: {
      hosts: ids.length,
      packages,
      files: writer.files,
      mode: { kind: "full", reason },
      changedPackages: packages,
      filesWritten: writer.files,
      ...(withFiles ? { packageFilesRead: packageFiles!.read } : {}),
      ...droppedTargets(dropped, state, spareDir),
    },
  };
}

/** The browse site: its assets, its listings and search from the hosts' spills, its feeds; returns its index. */
async function writeSite(f: Finishing, state: BuildState): Promise<SiteIndex> {
  const { writer, streaming, hosts } = f;
  const { options } = f.run;
  for (const file of siteAssets()) writer.write(file);
  const put = (path: string, content: string) => writer.write({ path, content });
  const spilled = new Map(hosts.flatMap((h) => (h.spilled ? [[h.id, h.spilled] as const] : [])));
  const site = assembleSite({
    hosts: siteHosts(streaming.hosts),
    gone: new Map(),
    files: streaming.filesSource,
    hbb: streaming.withFiles,
    spilled,
    put,
  });
  // A host's newest packages are rendered again from their manifests, as the rebuild does.
  const kept = keptPackages(options.catalogueDir, state, await schemaValidators());
  const feeds = assembleFeeds({
    hosts: siteHosts(streaming.hosts),
    index: site.index,
    baseUrl: todayUrlsOf(streaming.hosts, streaming.hostsDefault, options.baseUrl).baseUrl,
    packageOf: (host, name) => sitePackage(host, kept(host, name), streaming.filesSource),
  });
  for (const [path, content] of feeds.writes) put(path, content);
  return site.index;
}

/** The names the target generators take, from the index. */
function namesOfIndex(state: BuildState) {
  return namesOf(
    state.hosts,
    new Map(
      state.hosts.map((host) => {
        const index = state.packages[host]!;
        return [host, index.names.map((name, i) => ({ name, ...filtersAt(index, i) }))];
      }),
    ),
  );
}

/** The targets the previous build had and this one has not, when the output lost files of theirs. */
function droppedTargets(
  dropped: readonly TargetId[],
  state: BuildState,
  spareDir: string,
): Pick<FullBuildSummary, "dropped"> {
  if (dropped.length === 0) return {};
  const kept = { has: (path: string) => existsSync(join(spareDir, path)) };
  const gone = targetFiles(dropped, namesOfIndex(state))
    .map((f) => f.path)
    .filter((path) => !kept.has(path));
  const stored = Object.values(state.packageFilesMemo ?? {}).flatMap((memo) => Object.values(memo.paths));
  const aliases = needsAliasFiles(dropped)
    ? stored.flatMap((path) => aliasFilesOf(path)).filter((path) => !kept.has(path)).length
    : 0;
  return gone.length + aliases > 0 ? { dropped: { targets: [...dropped], files: gone, aliasFiles: aliases } } : {};
}

/** The progress of one phase, as the step that does it reports it. */
function phase(options: FullBuildOptions, name: "reading" | "writing") {
  const onProgress = options.onProgress;
  return onProgress && ((done: number, total: number) => onProgress(name, done, total));
}
