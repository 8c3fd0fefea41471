// The pure middle of a rebuild. From the last build's state, the survey and the manifests read again
// it decides which packages were removed, changed or added, which output files to write or delete,
// and what to remember for the next build. It sees the live output only through the LiveFiles it is
// given, read when a file may have changed; a kept package is never read, only cut from its list.
import { byName, type LoadedPackage } from "../build/loadCatalogue.js";
import { targetFiles } from "../build/targetFiles.js";
import type { HostInfo } from "../catalogue/fields.js";
import type { Problem } from "../catalogue/problems.js";
import type { Signature } from "../read/signature.js";
import { contentText, renderHosts, type OutputFile } from "../render/renderApi.js";
import { fileFor } from "../routes/routeTable.js";
import type { CatalogueNames, TargetId } from "../targets/target.js";
import { copyPackage, newHostState, setPackage, type BuildState, type HostState } from "./buildState.js";
import { spliceList } from "./spliceList.js";
import type { Survey } from "./surveyCatalogue.js";

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
  /** The manifests the survey sent to be read again. */
  packages: readonly RereadPackage[];
  /** Every problem of the catalogue now, sorted: only warnings, since a catalogue with errors is not built. */
  problems: Problem[];
  targets: readonly TargetId[];
}

/** The live slot's files, read on demand: a list may be large and is read only when it changes. */
export interface LiveFiles {
  /** A file's bytes as latin1 text (outputs are ASCII), or undefined when it cannot be read. */
  text(path: string): string | undefined;
  bytes(path: string): Uint8Array;
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
  mode: "incremental" | "unchanged";
  /** Packages removed, changed or added. */
  changedPackages: number;
  /** Files written or removed. */
  filesWritten: number;
}

/** What a rebuild writes and why. */
interface Changes {
  /** Packages of the last build whose manifest is gone. */
  removed: PackageRef[];
  /** Packages read again whose output changed. */
  changed: PackageRef[];
  /** Packages new since the last build. */
  added: PackageRef[];
  /** What the spare slot needs beyond the live one: output path -> new content, or null to delete it. */
  writes: Map<string, OutputFile["content"] | null>;
}

export interface RebuildPlan extends Changes {
  /** What the next build starts from, but for the slots, which are set when the writes are published. */
  state: BuildState;
  /** Whether the state moved even when nothing is written: inputs were read again or listed. */
  stateMoved: boolean;
  summary: RebuildSummary;
}

/** Decides what the build after a build writes and remembers, from what the survey kept and what was read again. */
export function planRebuild(
  state: BuildState,
  survey: Pick<Survey, "kept" | "folders">,
  inputs: RebuildInputs,
  live: LiveFiles,
): RebuildPlan {
  const changes: Changes = { removed: [], changed: [], added: [], writes: new Map() };
  const reread = new Map(
    state.hosts.map((h) => [h, { again: new Map<number, RereadPackage>(), added: [] as RereadPackage[] }]),
  );
  for (const p of inputs.packages) {
    const host = reread.get(p.host)!;
    if (p.index === undefined) host.added.push(p);
    else host.again.set(p.index, p);
  }
  const packages: Record<string, HostState> = {};
  for (const host of state.hosts) {
    const { again, added } = reread.get(host)!;
    packages[host] = planHost(changes, host, state.packages[host]!, survey.kept.get(host)!, again, added, live);
  }

  if (inputs.hosts) {
    const hostsJson = renderHosts(inputs.hosts);
    if (live.text(fileFor("hosts")) !== hostsJson) changes.writes.set(fileFor("hosts"), hostsJson);
  }
  if (changes.removed.length > 0 || changes.added.length > 0) {
    // Target files may list package names (Netlify's rules do): bring them up to date too.
    const names: CatalogueNames = {
      hosts: state.hosts,
      packages: new Map(Object.entries(packages).map(([h, p]) => [h, p.names])),
    };
    for (const file of targetFiles(inputs.targets, names)) {
      if (live.text(file.path) !== contentText(file.content)) changes.writes.set(file.path, file.content);
    }
  }

  const files = state.files - changes.removed.length + changes.added.length;
  return {
    ...changes,
    state: {
      ...state,
      snapshotMs: inputs.snapshotMs,
      hostsFile: inputs.hostsFile,
      folders: survey.folders,
      packages,
      warnings: inputs.problems,
      files,
    },
    stateMoved: inputs.hosts !== undefined || inputs.packages.length > 0 || survey.folders !== state.folders,
    summary: {
      hosts: state.hosts.length,
      packages: Object.values(packages).reduce((n, p) => n + p.names.length, 0),
      files,
      mode: changes.writes.size === 0 ? "unchanged" : "incremental",
      changedPackages: changes.removed.length + changes.changed.length + changes.added.length,
      filesWritten: changes.writes.size,
    },
  };
}

/** A package of a host's new list: kept from the old list (its index there), read again, or both. */
interface Entry {
  name: string;
  old?: number;
  fresh?: RereadPackage;
}

/**
 * Plans one host: its package files to delete or write, its list when its content changed, and its
 * new state. A host with no package removed, added or read again keeps its state as it is.
 */
function planHost(
  changes: Changes,
  host: string,
  old: HostState,
  kept: Uint8Array,
  again: ReadonlyMap<number, RereadPackage>,
  added: readonly RereadPackage[],
  live: LiveFiles,
): HostState {
  const path = (name: string) => fileFor("package", { host, name });
  let listChanged = false;
  for (let i = 0; i < old.names.length; i++) {
    if (kept[i] || again.has(i)) continue;
    changes.writes.set(path(old.names[i]!), null);
    changes.removed.push({ host, name: old.names[i]! });
    listChanged = true;
  }
  for (const { pkg } of again.values()) {
    if (live.text(path(pkg.name)) === pkg.json) continue;
    changes.writes.set(path(pkg.name), pkg.json);
    changes.changed.push({ host, name: pkg.name });
    listChanged = true;
  }
  for (const { pkg } of added) {
    changes.writes.set(path(pkg.name), pkg.json);
    changes.added.push({ host, name: pkg.name });
    listChanged = true;
  }
  if (!listChanged && again.size === 0) return old;

  // The last build's packages that are still here (in name order already), then the new ones.
  const list: Entry[] = [];
  for (let i = 0; i < old.names.length; i++) {
    const fresh = again.get(i);
    if (kept[i] || fresh) list.push({ name: old.names[i]!, old: i, fresh });
  }
  for (const fresh of added) list.push({ name: fresh.pkg.name, fresh });
  if (added.length > 0) list.sort(byName);
  if (listChanged) {
    const listFile = fileFor("packages", { host });
    changes.writes.set(listFile, {
      jsonArray: spliceList(
        live.bytes(listFile),
        old,
        list.map((e) => (e.fresh ? e.fresh.pkg.json : e.old!)),
      ),
    });
  }
  const next = newHostState(list.map((e) => e.name));
  list.forEach((e, i) =>
    e.fresh ? setPackage(next, i, e.fresh.signature, e.fresh.pkg.json.length) : copyPackage(next, i, old, e.old!),
  );
  return next;
}
