// The core's commands: check a catalogue (read -> validate -> render), and build it (check, then
// write every file of the API atomically). A build after a build only reads the manifests whose
// signature changed and only writes the files whose bytes changed. They return data; the CLI prints.
import { lstatSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { buildKey, forgetState, isUnchanged, readState, signatureOf, writeState, type BuildState, type HostState, type Signature } from "./buildState.js";
import { UsageError } from "./errors.js";
import type { HostInfo } from "./fields.js";
import { isError, sortProblems, type Problem } from "./problems.js";
import { listCatalogue, readSourceFile, type CatalogueListing } from "./readCatalogue.js";
import { contentText, renderApi, renderHosts, renderPackage, type OutputFile, type RenderedCatalogue, type RenderedPackage } from "./renderApi.js";
import { fileFor } from "./routes.js";
import { schemaValidators, type Validators } from "./schemas.js";
import { targetById } from "./targets/index.js";
import type { CatalogueNames, TargetId } from "./targets/target.js";
import { checkHostsFile, checkLayout, checkManifest, HOSTS_FILE, MAX_SOURCE_BYTES, type ManifestRef } from "./validateCatalogue.js";
import { publish, slotDir, withOutput, writeChanges, writeFresh, type LockedOutput } from "./writeOutput.js";

/** A rendered package with what the next build compares: its source's signature. */
export interface CheckedPackage extends RenderedPackage {
  signature?: Signature;
}

export interface CatalogueCheck {
  /** Every problem found, errors and warnings, in a stable order. */
  problems: Problem[];
  /** The rendered catalogue, present only when there is no error. */
  catalogue?: RenderedCatalogue & { packages: ReadonlyMap<string, readonly CheckedPackage[]> };
  hostsSignature?: Signature;
}

function readListing(catalogueDir: string): CatalogueListing {
  try {
    return listCatalogue(catalogueDir);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === "ENOENT" ? "there is no such folder" : code === "ENOTDIR" ? "it is not a folder" : (e as Error).message;
    throw new UsageError(`cannot read the catalogue ${catalogueDir}: ${why}`);
  }
}

const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** Reads, checks and renders one manifest. */
function processManifest(catalogueDir: string, ref: ManifestRef, validators: Validators): { problems: Problem[]; pkg?: CheckedPackage } {
  const source = readSourceFile(join(catalogueDir, ref.file), MAX_SOURCE_BYTES);
  const checked = checkManifest(ref, source, validators);
  if (!checked.manifest) return { problems: checked.problems };
  return { problems: checked.problems, pkg: { name: ref.name, json: renderPackage(checked.manifest), ...(source.signature ? { signature: source.signature } : {}) } };
}

export interface CheckProgress {
  (phase: "reading" | "writing", done: number, total: number): void;
}

/** Reads and checks the whole catalogue, and renders every package. */
export async function checkCatalogue(catalogueDir: string, onProgress?: CheckProgress): Promise<CatalogueCheck> {
  const listing = readListing(catalogueDir);
  const validators = await schemaValidators();
  const problems: Problem[] = [];

  const hostsEntry = listing.root.find((e) => e.name === HOSTS_FILE);
  // A hosts.json that is not a regular file is reported by checkLayout; it cannot declare hosts.
  const hostsSource = hostsEntry?.kind === "file" ? readSourceFile(join(catalogueDir, HOSTS_FILE), MAX_SOURCE_BYTES) : undefined;
  const hosts = hostsEntry === undefined || hostsSource ? checkHostsFile(hostsSource, validators) : { problems: [] };
  problems.push(...hosts.problems);

  const layout = checkLayout(listing, hosts.declared);
  problems.push(...layout.problems);

  const packages = new Map<string, CheckedPackage[]>();
  layout.manifests.forEach((ref, i) => {
    const { problems: found, pkg } = processManifest(catalogueDir, ref, validators);
    if (found.length > 0) problems.push(...found);
    if (pkg) {
      let list = packages.get(ref.host);
      if (!list) packages.set(ref.host, (list = []));
      list.push(pkg);
    }
    onProgress?.("reading", i + 1, layout.manifests.length);
  });
  for (const list of packages.values()) list.sort(byName);

  const sorted = sortProblems(problems);
  if (sorted.some(isError) || !hosts.hostsFile) return { problems: sorted };
  return {
    problems: sorted,
    catalogue: { hosts: hosts.hostsFile.hosts, packages },
    ...(hostsSource?.signature ? { hostsSignature: hostsSource.signature } : {}),
  };
}

export interface BuildOptions {
  catalogueDir: string;
  outDir: string;
  /** Hosts whose config files belong in the output root (`build --target`). */
  targets?: readonly TargetId[];
  /** Ignore what the previous build left and write everything. */
  force?: boolean;
  onProgress?: CheckProgress;
}

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

export interface BuildResult extends CatalogueCheck {
  /** What was built; absent when the catalogue has errors and nothing was written. */
  built?: BuildSummary;
}

/** The names of a validated catalogue, as the target generators take them. */
export function catalogueNames(catalogue: RenderedCatalogue): CatalogueNames {
  return {
    hosts: catalogue.hosts.map((h) => h.id),
    packages: new Map([...catalogue.packages].map(([host, list]) => [host, list.map((p) => p.name)])),
  };
}

function targetFiles(ids: readonly TargetId[], names: CatalogueNames): OutputFile[] {
  const files: OutputFile[] = [];
  const owner = new Map<string, TargetId>();
  for (const id of new Set(ids)) {
    for (const file of targetById(id).deployFiles?.(names) ?? []) {
      const other = owner.get(file.path);
      if (other) throw new UsageError(`--target ${other} and --target ${id} both write ${file.path}; build one of them at a time`);
      owner.set(file.path, id);
      files.push(file);
    }
  }
  return files;
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
  const snapshotMs = Date.now();
  const check = await checkCatalogue(options.catalogueDir, options.onProgress);
  if (!check.catalogue) return check;
  const files = [...renderApi(check.catalogue), ...targetFiles(options.targets ?? [], catalogueNames(check.catalogue))];
  forgetState(output.layout.home);
  writeFresh(output, files, options.onProgress && ((done, total) => options.onProgress!("writing", done, total)));
  publish(output);
  const packages = Object.fromEntries(check.catalogue.hosts.map(({ id }) => [id, hostState(check.catalogue!.packages.get(id) ?? [])]));
  writeState(output.layout.home, {
    format: 1,
    key,
    live: output.spare,
    spare: null,
    snapshotMs,
    hostsFile: check.hostsSignature!,
    hosts: check.catalogue.hosts.map((h) => h.id),
    packages,
    warnings: check.problems,
    files: files.length,
  });
  const count = countPackages(check.catalogue.packages);
  return { ...check, built: { hosts: check.catalogue.hosts.length, packages: count, files: files.length, mode: "full", reason, changedPackages: count, filesWritten: files.length } };
}

function hostState(list: readonly CheckedPackage[]): HostState {
  return { names: list.map((p) => p.name), lengths: list.map((p) => p.json.length), ...signatureColumns(list.map((p) => p.signature!)) };
}

function countPackages(packages: ReadonlyMap<string, readonly unknown[]>): number {
  let n = 0;
  for (const list of packages.values()) n += list.length;
  return n;
}

function signatureAt(host: HostState, i: number): Signature {
  return { size: host.size[i]!, mtimeMs: host.mtimeMs[i]!, ctimeMs: host.ctimeMs[i]!, ino: host.ino[i]! };
}

function lstatSignature(path: string): Signature | undefined {
  try {
    return signatureOf(lstatSync(path));
  } catch {
    return undefined;
  }
}

/** Where each package starts in a list file: after "[" and after each "," between packages. */
function listOffsets(lengths: readonly number[]): number[] {
  const offsets: number[] = [];
  let at = 1;
  for (const length of lengths) {
    offsets.push(at);
    at += length + 1;
  }
  return offsets;
}

/**
 * The elements of a host's new list: fresh packages as strings, and each run of unchanged ones as a
 * slice of the old list file's bytes (a run of neighbours is one slice, commas included), so a
 * list of any size is rewritten without turning it into one string.
 */
function spliceList(oldList: Buffer, lengths: readonly number[], list: readonly Entry[]): (string | Uint8Array)[] {
  const offsets = listOffsets(lengths);
  const items: (string | Uint8Array)[] = [];
  let run: [number, number] | undefined;
  for (const entry of list) {
    if (entry.fresh) {
      if (run) items.push(oldList.subarray(run[0], run[1]));
      run = undefined;
      items.push(entry.fresh.json);
      continue;
    }
    const start = offsets[entry.old!]!;
    const end = start + lengths[entry.old!]!;
    if (run && run[1] + 1 === start) run[1] = end;
    else {
      if (run) items.push(oldList.subarray(run[0], run[1]));
      run = [start, end];
    }
  }
  if (run) items.push(oldList.subarray(run[0], run[1]));
  return items;
}

function readLive(liveDir: string, path: string): string | undefined {
  try {
    return readFileSync(join(liveDir, path), "latin1");
  } catch {
    return undefined;
  }
}

interface Entry {
  name: string;
  /** Index in the previous build's state, when the package existed then. */
  old?: number;
  /** Set when the manifest was read again. */
  fresh?: CheckedPackage;
}

/**
 * The build after a build: signatures decide which manifests to read, the live files decide which
 * outputs changed, and unchanged list entries are cut from the live list by their stored lengths.
 * Returns undefined when the hosts themselves changed, which needs a full build.
 */
async function buildChanges(options: BuildOptions, output: LockedOutput, state: BuildState): Promise<BuildResult | undefined> {
  const snapshotMs = Date.now();
  const dir = options.catalogueDir;
  const live = slotDir(output, output.live!);
  const listing = readListing(dir);
  let validators: Validators | undefined;
  const problems: Problem[] = [];
  const warningsOf = (file: string) => state.warnings.filter((p) => p.file === file);
  let stateMoved = false;

  let hostsSignature = state.hostsFile;
  let hosts: readonly HostInfo[] | undefined;
  const nowHosts = listing.root.some((e) => e.name === HOSTS_FILE && e.kind === "file") ? lstatSignature(join(dir, HOSTS_FILE)) : undefined;
  if (!nowHosts) return undefined;
  if (isUnchanged(nowHosts, state.hostsFile, state.snapshotMs)) problems.push(...warningsOf(HOSTS_FILE));
  else {
    validators ??= await schemaValidators();
    const source = readSourceFile(join(dir, HOSTS_FILE), MAX_SOURCE_BYTES);
    const checked = checkHostsFile(source, validators);
    if (!checked.hostsFile || checked.hostsFile.hosts.map((h) => h.id).join("/") !== state.hosts.join("/")) return undefined;
    problems.push(...checked.problems);
    hosts = checked.hostsFile.hosts;
    hostsSignature = source.signature ?? nowHosts;
    stateMoved = true;
  }

  const layout = checkLayout(listing, state.hosts);
  problems.push(...layout.problems);

  const entries = new Map<string, Entry[]>(state.hosts.map((h) => [h, []]));
  const indexes = new Map(state.hosts.map((h) => [h, new Map(state.packages[h]!.names.map((name, i) => [name, i]))]));
  for (const ref of layout.manifests) {
    const old = state.packages[ref.host]!;
    const index = indexes.get(ref.host)!.get(ref.name);
    const now = lstatSignature(join(dir, ref.file));
    if (index !== undefined && now && isUnchanged(now, signatureAt(old, index), state.snapshotMs)) {
      entries.get(ref.host)!.push({ name: ref.name, old: index });
      problems.push(...warningsOf(ref.file));
      continue;
    }
    validators ??= await schemaValidators();
    const { problems: found, pkg } = processManifest(dir, ref, validators);
    problems.push(...found);
    stateMoved = true;
    if (pkg) entries.get(ref.host)!.push({ name: ref.name, fresh: pkg, ...(index !== undefined ? { old: index } : {}) });
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
    const list = entries.get(host)!.sort(byName);
    const present = new Set(list.map((e) => e.name));
    let listChanged = false;
    for (const name of old.names) {
      if (present.has(name)) continue;
      changes.set(fileFor("package", { host, name }), null);
      listChanged = true;
      files--;
    }
    for (const entry of list) {
      if (!entry.fresh) continue;
      const path = fileFor("package", { host, name: entry.name });
      if (entry.old !== undefined && readLive(live, path) === entry.fresh.json) continue;
      changes.set(path, entry.fresh.json);
      listChanged = true;
      if (entry.old === undefined) files++;
    }
    changedPackages += [...changes.keys()].filter((p) => p.startsWith(`v1/${host}/package/`)).length;
    namesChanged ||= list.length !== old.names.length || list.some((e) => e.old === undefined);

    if (listChanged) changes.set(fileFor("packages", { host }), { jsonArray: spliceList(readFileSync(join(live, fileFor("packages", { host }))), old.lengths, list) });
    packages[host] = {
      names: list.map((e) => e.name),
      lengths: list.map((e) => e.fresh?.json.length ?? old.lengths[e.old!]!),
      ...signatureColumns(list.map((e) => e.fresh?.signature ?? signatureAt(old, e.old!))),
    };
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

  const next: BuildState = { ...state, snapshotMs, hostsFile: hostsSignature, packages, warnings: sorted, files };
  const summary = { hosts: state.hosts.length, packages: countPackages(entries), files, changedPackages, filesWritten: changes.size };
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

function signatureColumns(signatures: readonly Signature[]): Pick<HostState, "size" | "mtimeMs" | "ctimeMs" | "ino"> {
  return {
    size: signatures.map((s) => s.size),
    mtimeMs: signatures.map((s) => s.mtimeMs),
    ctimeMs: signatures.map((s) => s.ctimeMs),
    ino: signatures.map((s) => s.ino),
  };
}
