// A build with no previous build to start from (none, one it cannot trust, --force, or one most of
// whose inputs moved): the rebuild's own plan from an empty index. Its inputs are read as a full
// survey finds them (hosts.json, the layout, every stats file; every manifest new, listed one host at
// a time in name order), the hosts' passes and their parts are the rebuild's (engine/planRebuild.ts),
// and only the writer's policy differs: every file goes straight into the spare slot as the pass
// makes it, which is published once every file is there. What it keeps is the index (the state's
// columns) and the site's spills on disk.
import { existsSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Problem } from "../catalogue/problems.js";
import { applyStrict, isError, sortProblems } from "../catalogue/problems.js";
import { schemaValidators } from "../catalogue/schemas.js";
import { hostStatsOf, type HostStats } from "../catalogue/statsFile.js";
import { loadCatalogue } from "../load/loadCatalogue.js";
import { renderOpenApi } from "../openapi/renderOpenApi.js";
import { needsAliasFiles } from "../output/storedPackageFiles.js";
import { targetFiles } from "../output/targetFiles.js";
import { renderNotFound, type OutputFile } from "../render/renderApi.js";
import { hbbStubFiles } from "../render/renderHbb.js";
import { todayUrlsOf } from "../render/renderToday.js";
import { folderSignatures, listCatalogue, readSourceFile } from "../read/readCatalogue.js";
import { gitDigests } from "../read/gitDigests.js";
import type { Signature } from "../read/signature.js";
import { aliasFilesOf, NOT_FOUND_FILE, OPENAPI_FILE } from "../routes/routeTable.js";
import { assembleFeeds } from "../site/assembleFeeds.js";
import { assembleSite } from "../site/assembleSite.js";
import { siteAssets, siteHosts } from "../site/siteAssets.js";
import { sitePackage, type FilesSource } from "../site/sitePackage.js";
import type { TargetId } from "../targets/target.js";
import { FileIndexSpill } from "../trust/fileIndexSpill.js";
import { writeFileIndex, type FileIndexOptions } from "../trust/writeFileIndex.js";
import {
  HOSTS_FILE,
  MAX_SOURCE_BYTES,
  MAX_STATS_BYTES,
  validateHostsFile,
  validateStatsFile,
} from "../validate/catalogueRules.js";
import { validateLayout } from "../validate/layoutRules.js";
import { setAside, SlotWriter } from "../write/slotWriter.js";
import { publish, slotDir, workFolder, type LockedOutput } from "../write/writeOutput.js";
import { forgetState, newHostState, writeState, type BuildState } from "./buildState.js";
import { keptPackages } from "./keptPackages.js";
import type { LiveFiles } from "./liveFiles.js";
import { packageFilesReuse } from "./planPackageFiles.js";
import { namesOfIndex, planRebuild, type RebuildInputs } from "./planRebuild.js";
import { manifestReader, statsLookup } from "./readManifests.js";
import { PackageFilesStream } from "./streamPackageFiles.js";
import type { Survey } from "./surveyCatalogue.js";

/** What a build anew is asked for. */
export interface BuildAnewOptions {
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

/** What a build anew is given: the build's options and output, its key and why it builds anew. */
export interface BuildAnew {
  options: BuildAnewOptions;
  output: LockedOutput;
  key: string;
  reason: string;
  /** Targets the previous build had and this one has not. */
  dropped: readonly TargetId[];
  /** The previous build's state, which names the live slot: its package files are reused while they hold. */
  previous?: BuildState | undefined;
}

/** What a build anew reports. */
export interface BuildAnewSummary {
  hosts: number;
  packages: number;
  files: number;
  mode: { kind: "full"; reason: string };
  changedPackages: number;
  filesWritten: number;
  packageFilesRead?: number;
  dropped?: { targets: TargetId[]; files: string[]; aliasFiles: number };
}

/** A live slot with nothing in it: every file a build anew plans is new. */
const NOTHING: LiveFiles = {
  text: () => undefined,
  bytes: (path) => {
    throw new Error(`internal: a build anew read ${path} from a live slot`);
  },
  exists: () => false,
  ranges: (path) => {
    throw new Error(`internal: a build anew read ${path} from a live slot`);
  },
};

/**
 * Reads, checks and writes the whole catalogue into the spare slot, publishes it and remembers it.
 * A catalogue with an error leaves the output as it was (the spare slot is emptied again).
 */
export async function buildAnew(run: BuildAnew): Promise<{ problems: Problem[]; built?: BuildAnewSummary }> {
  const { options, output, previous } = run;
  const dir = options.catalogueDir;
  // Package folders are zipped, the served entries unpacked and the site's rows spilled here, beside
  // the slots; removed whatever happens (removeLeftovers too).
  const workDir = workFolder(output);
  mkdirSync(workDir, { recursive: true });
  // The state is forgotten first: a build killed while it writes leaves the next one a build anew.
  forgetState(output.layout.home);
  const spare = slotDir(output, output.spare);
  // The spare slot still holds the build before last: removed beside this one, not before it.
  const removed = setAside(spare, join(output.layout.home, `trash-${process.pid}`));
  const index = options.index ? new FileIndexSpill(workDir) : undefined;
  let writing: ((count: number) => void) | undefined;
  const writer = new SlotWriter(spare, { index, onFile: (count) => writing?.(count) });
  let spilled: Awaited<ReturnType<typeof planRebuild>>["spilled"] | undefined;
  try {
    const found = await readInputs(run);
    if ("problems" in found) return failed(found.problems);
    const { state, inputs, survey, manifests } = found;
    const withFiles = survey.packageFiles;
    const files = withFiles ? new PackageFilesStream({ writer }, state.hostsDefault, options.targets) : undefined;
    const filesSource: FilesSource = files?.filesSource ?? { defaultHost: state.hostsDefault, of: () => undefined };
    // Asked of git once, when the first package with files is read: a clone is then known by content.
    let digests: ReadonlyMap<string, number> | undefined;
    const read = manifestReader(
      dir,
      statsLookup(state, inputs.stats),
      withFiles
        ? {
            workDir,
            // `previous` names the live slot (buildCatalogue checked it), which holds their stored files.
            reuse: previous?.packageFilesMemo ? packageFilesReuse(slotDir(output, output.live!), previous) : undefined,
            digests: () => (digests ??= gitDigests(dir)),
          }
        : undefined,
    );
    let done = 0;
    const plan = await planRebuild(
      state,
      survey,
      {
        ...inputs,
        read: async (ref, at) => {
          const got = await read(ref, at);
          options.onProgress?.("reading", ++done, manifests);
          return got;
        },
      },
      NOTHING,
      { slot: writer },
      { files, site: options.site ? { workDir, files: filesSource } : undefined },
    );
    spilled = plan.spilled;
    const expected = previous?.files ?? 0;
    writing = (count) => options.onProgress?.("writing", count, Math.max(count, expected));

    // The Homebrew Browser's lists once the whole catalogue is known: made from the icons in the slot, on disk first.
    writer.drain();
    const surface = files?.surface(state.hostInfos, { repoList: state.hostInfos, workDir });
    const problems = applyStrict(sortProblems([...plan.problems, ...(surface?.problems ?? [])]), options.strict);
    if (problems.some(isError)) return failed(problems);

    const next: BuildState = { ...plan.state, warnings: problems };
    const memos = files?.memos ?? {};
    if (Object.keys(memos).length > 0)
      Object.assign(next, { packageFiles: true, packageFilesMemo: memos, defaultHost: state.hostsDefault });
    else delete next.packageFiles;
    const put = (file: OutputFile) => writer.write(file);
    for (const [path, content] of plan.writes) if (content !== null) put({ path, content });
    put({ path: NOT_FOUND_FILE, content: renderNotFound() });
    put({ path: OPENAPI_FILE, content: renderOpenApi() });
    for (const file of surface ? [...surface.files, ...hbbStubFiles()] : []) put(file);
    if (options.site) next.site = await writeSite(run, next, spilled, filesSource, withFiles, writer);
    writer.close();

    const spareDir = slotDir(output, output.spare);
    const live = output.live && slotDir(output, output.live);
    if (options.index && index)
      writeFileIndex(spareDir, live, "all", { ...options.index, builtMs: options.snapshotMs }, { spill: index });
    publish(output);
    next.files = writer.files;
    writeState(output.layout.home, next);

    const packages = next.hosts.reduce((n, host) => n + next.packages[host]!.names.length, 0);
    return {
      problems,
      built: {
        hosts: next.hosts.length,
        packages,
        files: writer.files,
        mode: { kind: "full", reason: run.reason },
        changedPackages: packages,
        filesWritten: writer.files,
        ...(files ? { packageFilesRead: files.read } : {}),
        ...droppedTargets(run.dropped, next, spareDir),
      },
    };
  } finally {
    // Published or not, nothing is written once the build has returned.
    writer.abandon();
    index?.close();
    for (const host of spilled?.values() ?? []) host.close();
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

/**
 * The inputs as a full survey finds them: hosts.json, the layout, every stats file, and an index
 * with no package, whose survey lists every manifest as new. When hosts.json declares no usable
 * hosts there is nothing to build, and the manifests are checked only for their problems.
 */
async function readInputs(
  run: BuildAnew,
): Promise<
  | { problems: Problem[] }
  | { state: BuildState; inputs: Omit<RebuildInputs, "read">; survey: Survey; manifests: number }
> {
  const { options, output, key } = run;
  const dir = options.catalogueDir;
  const validators = await schemaValidators();
  const listing = listCatalogue(dir);
  const problems: Problem[] = [];
  const hostsEntry = listing.root.find((e) => e.name === HOSTS_FILE);
  // A hosts.json that is not a regular file is reported by validateLayout; it cannot declare hosts.
  const hostsSource = hostsEntry?.kind === "file" ? readSourceFile(join(dir, HOSTS_FILE), MAX_SOURCE_BYTES) : undefined;
  const hosts = hostsEntry === undefined || hostsSource ? validateHostsFile(hostsSource, validators) : undefined;
  const hostsFile = hosts?.hostsFile;
  if (!hostsFile) return { problems: (await loadCatalogue(dir)).problems };
  problems.push(...hosts.problems);
  const ids = hostsFile.hosts.map((h) => h.id);
  const layout = validateLayout(listing, hosts.declared);
  problems.push(...layout.problems);
  const folders = folderSignatures(listing, ids);

  const stats = new Map<string, HostStats>(ids.map((id) => [id, new Map()]));
  const statsFiles = new Map<string, Signature>();
  for (const ref of layout.stats) {
    const source = readSourceFile(join(dir, ref.file), MAX_STATS_BYTES);
    const checked = validateStatsFile(ref.file, source, validators);
    problems.push(...checked.problems);
    if (checked.stats) {
      stats.set(ref.host, hostStatsOf(checked.stats));
      statsFiles.set(ref.host, source.signature!);
    }
  }

  const state: BuildState = {
    key,
    targets: [],
    live: output.spare,
    snapshotMs: 0,
    featuredMs: options.featuredMs,
    hostInfos: [...hostsFile.hosts],
    hostsDefault: hostsFile.default,
    hostsFile: hostsSource!.signature!,
    folders,
    hosts: ids,
    statsFiles: ids.map((id) => statsFiles.get(id) ?? null),
    packages: Object.fromEntries(ids.map((id) => [id, newHostState([], [])])),
    warnings: [],
    files: 0,
  };
  const survey: Survey = {
    kept: new Map(ids.map((id) => [id, new Uint8Array(0)])),
    resigned: new Map(),
    toRead: [],
    problems: [],
    folders,
    packageFiles: layout.manifests.hasPackageFiles(),
    resignedFiles: new Map(),
    listed: (host) => layout.manifests.sortedOf(host),
  };
  const inputs: Omit<RebuildInputs, "read"> = {
    snapshotMs: options.snapshotMs,
    hostsFile: state.hostsFile,
    hosts: hostsFile.hosts,
    statsFiles: state.statsFiles,
    stats,
    toRead: [],
    problems: sortProblems(problems),
    targets: options.targets,
    today: { urls: todayUrlsOf(hostsFile.hosts, hostsFile.default, options.baseUrl), featuredMs: options.featuredMs },
  };
  return { state, inputs, survey, manifests: layout.manifests.length };
}

/** The browse site: its assets, its listings and search from the hosts' spills, its feeds; returns its index. */
async function writeSite(
  run: BuildAnew,
  state: BuildState,
  spilled: Awaited<ReturnType<typeof planRebuild>>["spilled"],
  files: FilesSource,
  hbb: boolean,
  writer: SlotWriter,
) {
  const { options } = run;
  for (const file of siteAssets()) writer.write(file);
  const put = (path: string, content: string) => writer.write({ path, content });
  const hosts = siteHosts(state.hostInfos);
  const site = assembleSite({ hosts, gone: new Map(), files, hbb, spilled, put });
  // A host's newest packages are rendered again from their manifests, as the rebuild does.
  const kept = keptPackages(options.catalogueDir, state, await schemaValidators());
  const feeds = assembleFeeds({
    hosts,
    index: site.index,
    baseUrl: todayUrlsOf(state.hostInfos, state.hostsDefault, options.baseUrl).baseUrl,
    packageOf: (host, name) => sitePackage(host, kept(host, name), files),
  });
  for (const [path, content] of feeds.writes) put(path, content);
  return site.index;
}

/** The targets the previous build had and this one has not, when the output lost files of theirs. */
function droppedTargets(
  dropped: readonly TargetId[],
  state: BuildState,
  spareDir: string,
): Pick<BuildAnewSummary, "dropped"> {
  if (dropped.length === 0) return {};
  const kept = { has: (path: string) => existsSync(join(spareDir, path)) };
  const gone = targetFiles(dropped, namesOfIndex(state.hosts, state.packages))
    .map((f) => f.path)
    .filter((path) => !kept.has(path));
  const stored = Object.values(state.packageFilesMemo ?? {}).flatMap((memo) => Object.values(memo.paths));
  const aliases = needsAliasFiles(dropped)
    ? stored.flatMap((path) => aliasFilesOf(path)).filter((path) => !kept.has(path)).length
    : 0;
  return gone.length + aliases > 0 ? { dropped: { targets: [...dropped], files: gone, aliasFiles: aliases } } : {};
}
