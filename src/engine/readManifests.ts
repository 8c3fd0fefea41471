// How a build reads a manifest its host's pass comes to: validated, rendered with its stats entry,
// and with its package files (read again only where they moved, else their memo reused and their
// stored files linked). The rebuild and a build anew read through the same reader.
import type { PackageStats } from "../catalogue/fields.js";
import { schemaValidators, type Validators } from "../catalogue/schemas.js";
import { loadManifest, loadPackageFiles, type GitDigests, type PackageFilesReuse } from "../load/loadCatalogue.js";
import type { ManifestRef } from "../validate/catalogueRules.js";
import { statsAt, type BuildState } from "./buildState.js";
import type { RebuildInputs } from "./planRebuild.js";
import type { RereadStats } from "./surveyCatalogue.js";

/** Where a manifest read again takes its stats from: the stats file read again, else what the last build recorded. */
export function statsLookup(state: BuildState, reread: RereadStats): StatsLookup {
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

/** A manifest's stats entry, by its ref and its index in the last build. */
export type StatsLookup = (ref: ManifestRef, index: number | undefined) => PackageStats | undefined;

/** How a build of a catalogue with package files reads them: into `workDir`, reusing the last build's. */
export interface PackageFilesRead {
  workDir: string;
  /** The last build's package files, reused where they kept their signatures (none for a build with nothing before it). */
  reuse: PackageFilesReuse | undefined;
  /** Git's digests, when the survey asked git (or once a package with files is read): recorded with the signatures of the files read again. */
  digests: GitDigests | undefined;
}

/**
 * How a build reads, validates and renders a manifest the survey sent to be read, as its host's
 * pass comes to it, with its package files (`files`; read again only where they moved, else
 * their memo reused and their stored files linked).
 */
export function manifestReader(dir: string, statsOf: StatsLookup, files?: PackageFilesRead): RebuildInputs["read"] {
  let validators: Validators | undefined;
  return async (ref, index) => {
    // Loaded on first use, so a rebuild with nothing to read never loads the validators.
    validators ??= await schemaValidators();
    const stats = statsOf(ref, index);
    const manifest = loadManifest(dir, ref, validators, stats);
    if (manifest.loaded) return { pkg: { ...manifest.loaded, host: ref.host, index }, problems: manifest.problems };
    if (!manifest.withFiles || !files) return { problems: manifest.problems };
    const { manifest: parsed, signature } = manifest.withFiles;
    const read = await loadPackageFiles(
      dir,
      ref,
      { manifest: parsed, stats },
      { workDir: files.workDir, store: true, reuse: files.reuse, digests: files.digests },
    );
    const problems = [...manifest.problems, ...read.problems];
    return read.pkg ? { pkg: { pkg: read.pkg, signature: signature!, host: ref.host, index }, problems } : { problems };
  };
}
