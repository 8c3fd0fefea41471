// The `build` command: load the catalogue (loadCatalogue.ts), then write every file of the API
// atomically. A build after a build only reads the manifests whose signature changed and only
// writes the files whose bytes changed. It returns data; the CLI prints.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  buildKey, forgetState, hostStateOf, lengthAt, readState, signatureAt, signatureUnchanged, writeState, type BuildState, type HostState,
} from "../rebuild/buildState.js";
import { signatureOf, type Signature } from "../read/signature.js";
import type { HostInfo } from "../catalogue/fields.js";
import { isError, sortProblems, type Problem } from "../catalogue/problems.js";
import { readSourceFile } from "../read/readCatalogue.js";
import { contentText, renderApi, renderHosts, type OutputFile, type RenderedPackage } from "../render/renderApi.js";
import { fileFor } from "../routes/routeTable.js";
import { schemaValidators, type Validators } from "../catalogue/schemas.js";
import { targetById } from "../targets/index.js";
import type { CatalogueNames, TargetId } from "../targets/target.js";
import { checkHostsFile, HOSTS_FILE, MAX_SOURCE_BYTES } from "../validate/catalogueRules.js";
import { publish, slotDir, withOutput, writeChanges, writeFresh, type LockedOutput } from "../write/writeOutput.js";
import { spliceList } from "../rebuild/spliceList.js";
import { statOrNothing, surveyCatalogue } from "../rebuild/surveyCatalogue.js";
import { byName, catalogueNames, loadCatalogue, loadManifest } from "./loadCatalogue.js";
import { targetFiles } from "./targetFiles.js";

export interface BuildOptions {
  catalogueDir: string;
  outDir: string;
  /** Hosts whose config files belong in the output root (`build --target`). */
  targets?: readonly TargetId[];
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
  const key = buildKey(options.catalogueDir, targets);
  return withOutput(options.outDir, async (output) => {
    if (options.force) return buildFully(options, output, key, "--force");
    const state = output.live ? readState(output.layout.home, key) : undefined;
    if (!state) return buildFully(options, output, key, output.live ? "no usable state from the previous build" : "no previous build");
    if (state.live !== output.live) return buildFully(options, output, key, "the previous build was interrupted");
    return (await buildChanges(options, output, state)) ?? buildFully(options, output, key, "the hosts changed");
  });
}

async function buildFully(options: BuildOptions, output: LockedOutput, key: string, reason: string): Promise<BuildResult> {
  const snapshotMs = (options.now ?? Date.now)();
  const onProgress = options.onProgress;
  const { problems, catalogue, sources } = await loadCatalogue(options.catalogueDir, onProgress && ((done, total) => onProgress("reading", done, total)));
  if (!catalogue || !sources) return { problems };
  const files = [...renderApi(catalogue), ...targetFiles(options.targets ?? [], catalogueNames(catalogue))];
  forgetState(output.layout.home);
  writeFresh(output, files, onProgress && ((done, total) => onProgress("writing", done, total)));
  publish(output);
  const hostState = (id: string) => {
    const signatures = sources.packages.get(id) ?? [];
    return hostStateOf((catalogue.packages.get(id) ?? []).map((p, i) => ({ ...p, signature: signatures[i]! })));
  };
  writeState(output.layout.home, {
    key,
    live: output.spare,
    spare: null,
    snapshotMs,
    hostsFile: sources.hostsFile,
    folders: sources.folders,
    hosts: catalogue.hosts.map((h) => h.id),
    packages: Object.fromEntries(catalogue.hosts.map(({ id }) => [id, hostState(id)])),
    warnings: problems,
    files: files.length,
  });
  const count = countPackages(catalogue.packages);
  return { problems, built: { hosts: catalogue.hosts.length, packages: count, files: files.length, mode: "full", reason, changedPackages: count, filesWritten: files.length } };
}

function countPackages(packages: ReadonlyMap<string, readonly unknown[]>): number {
  let n = 0;
  for (const list of packages.values()) n += list.length;
  return n;
}

function readLive(liveDir: string, path: string): string | undefined {
  try {
    return readFileSync(join(liveDir, path), "latin1");
  } catch {
    return undefined;
  }
}

/** A package read again, with its source's signature. */
interface SignedPackage extends RenderedPackage {
  signature: Signature;
}

interface Entry {
  name: string;
  /** Index in the previous build's state, when the package existed then. */
  old?: number;
  /** Set when the manifest was read again. */
  fresh?: SignedPackage;
}

/**
 * The build after a build: signatures decide which manifests to read, the live files decide which
 * outputs changed, and unchanged list entries are cut from the live list by their stored lengths.
 * Returns undefined when the hosts themselves changed, which needs a full build.
 */
async function buildChanges(options: BuildOptions, output: LockedOutput, state: BuildState): Promise<BuildResult | undefined> {
  const snapshotMs = (options.now ?? Date.now)();
  const dir = options.catalogueDir;
  const live = slotDir(output, output.live!);
  let validators: Validators | undefined;
  const problems: Problem[] = [];
  let stateMoved = false;

  let hostsSignature = state.hostsFile;
  let hosts: readonly HostInfo[] | undefined;
  const nowHosts = statOrNothing(join(dir, HOSTS_FILE));
  if (!nowHosts?.isFile()) return undefined;
  if (signatureUnchanged(nowHosts, state.hostsFile, state.snapshotMs)) problems.push(...state.warnings.filter((w) => w.file === HOSTS_FILE));
  else {
    validators ??= await schemaValidators();
    const source = readSourceFile(join(dir, HOSTS_FILE), MAX_SOURCE_BYTES);
    const checked = checkHostsFile(source, validators);
    if (!checked.hostsFile || checked.hostsFile.hosts.map((h) => h.id).join("/") !== state.hosts.join("/")) return undefined;
    problems.push(...checked.problems);
    hosts = checked.hostsFile.hosts;
    hostsSignature = source.signature ?? signatureOf(nowHosts);
    stateMoved = true;
  }

  const survey = surveyCatalogue(dir, state);
  problems.push(...survey.problems);
  // Listed again: remember the folders' new signatures, so the next build need not list them.
  if (survey.folders !== state.folders) stateMoved = true;

  // Per host: which packages of the last build are still there unchanged, and what was read again.
  const seen = survey.kept;
  const reread = new Map(state.hosts.map((h) => [h, new Map<number, SignedPackage>()]));
  const added = new Map(state.hosts.map((h) => [h, [] as SignedPackage[]]));
  for (const { ref, index } of survey.toRead) {
    validators ??= await schemaValidators();
    const { problems: found, loaded } = loadManifest(dir, ref, validators);
    problems.push(...found);
    stateMoved = true;
    const pkg = loaded && { ...loaded.pkg, signature: loaded.signature };
    if (pkg && index !== undefined) reread.get(ref.host)!.set(index, pkg);
    else if (pkg) added.get(ref.host)!.push(pkg);
  }
  const sorted = sortProblems(problems);
  if (sorted.some(isError)) return { problems: sorted };

  const changes = new Map<string, OutputFile["content"] | null>();
  const packages: Record<string, HostState> = {};
  let changedPackages = 0;
  let namesChanged = false;
  let files = state.files;
  for (const host of state.hosts) {
    const old = state.packages[host]!;
    const kept = seen.get(host)!;
    const again = reread.get(host)!;
    const newOnes = added.get(host)!;
    const path = (name: string) => fileFor("package", { host, name });
    let listChanged = false;
    for (let i = 0; i < old.names.length; i++) {
      if (kept[i] || again.has(i)) continue;
      changes.set(path(old.names[i]!), null);
      listChanged = true;
      files--;
      changedPackages++;
    }
    for (const pkg of again.values()) {
      if (readLive(live, path(pkg.name)) === pkg.json) continue;
      changes.set(path(pkg.name), pkg.json);
      listChanged = true;
      changedPackages++;
    }
    for (const pkg of newOnes) {
      changes.set(path(pkg.name), pkg.json);
      listChanged = true;
      files++;
      changedPackages++;
    }
    if (!listChanged && again.size === 0) {
      packages[host] = old;
      continue;
    }
    namesChanged ||= newOnes.length > 0 || old.names.some((_, i) => !kept[i] && !again.has(i));
    // The last build's packages that are still here (in name order already), then the new ones.
    const list: Entry[] = [];
    for (let i = 0; i < old.names.length; i++) {
      const fresh = again.get(i);
      if (kept[i] || fresh) list.push({ name: old.names[i]!, old: i, ...(fresh ? { fresh } : {}) });
    }
    for (const pkg of newOnes) list.push({ name: pkg.name, fresh: pkg });
    if (newOnes.length > 0) list.sort(byName);
    if (listChanged) {
      const elements = list.map((e) => (e.fresh ? e.fresh.json : e.old!));
      changes.set(fileFor("packages", { host }), { jsonArray: spliceList(readFileSync(join(live, fileFor("packages", { host }))), old, elements) });
    }
    packages[host] = hostStateOf(
      list.map((e) => ({ name: e.name, json: { length: e.fresh ? e.fresh.json.length : lengthAt(old, e.old!) }, signature: e.fresh?.signature ?? signatureAt(old, e.old!) })),
    );
  }
  if (hosts) {
    const hostsJson = renderHosts(hosts);
    if (readLive(live, fileFor("hosts")) !== hostsJson) changes.set(fileFor("hosts"), hostsJson);
  }
  if (namesChanged) {
    // Target files may list package names (Netlify's rules do): bring them up to date too.
    const names: CatalogueNames = { hosts: state.hosts, packages: new Map(Object.entries(packages).map(([h, p]) => [h, p.names])) };
    for (const file of targetFiles(options.targets ?? [], names)) {
      if (readLive(live, file.path) !== contentText(file.content)) changes.set(file.path, file.content);
    }
  }

  const next: BuildState = { ...state, snapshotMs, hostsFile: hostsSignature, folders: survey.folders, packages, warnings: sorted, files };
  const summary = { hosts: state.hosts.length, packages: Object.values(packages).reduce((n, p) => n + p.names.length, 0), files, changedPackages, filesWritten: changes.size };
  if (changes.size === 0) {
    // Touched but unchanged inputs: remember their new signatures so they are not read again.
    if (stateMoved) writeState(output.layout.home, next);
    return { problems: sorted, built: { ...summary, mode: "unchanged" } };
  }
  forgetState(output.layout.home);
  writeChanges(output, state.spare, changes);
  publish(output);
  writeState(output.layout.home, { ...next, live: output.spare, spare: [...changes.keys()] });
  return { problems: sorted, built: { ...summary, mode: "incremental" } };
}
