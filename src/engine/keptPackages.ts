// A package the build did not render, rendered again from its manifest when the build needs its API
// object: a host's feeds pick it (the full build, which rendered every package once as it streamed by
// and kept none, and the rebuild, for a kept package that joins a host's newest), or the Homebrew
// Browser's list of a host that moved keeps it (engine/planPackageFiles.ts).
import { join } from "node:path";
import type { Manifest, Package } from "../catalogue/fields.js";
import type { Validators } from "../catalogue/schemas.js";
import { mergeDerived } from "../packageFiles/mergeDerived.js";
import { readSourceFile } from "../read/readCatalogue.js";
import { packageObject } from "../render/renderApi.js";
import { findCodePoints } from "../util/codePoints.js";
import { MAX_SOURCE_BYTES, validateManifest } from "../validate/catalogueRules.js";
import { statsAt, type BuildState } from "./buildState.js";
import { knownFiles } from "./surveyPackageFiles.js";

/** A manifest the survey kept was edited before the site read it again (an edit racing the build). */
export class KeptManifestMoved extends Error {}

/** A kept package's manifest as it was built (what its files derive merged in) and its API object. */
export type KeptManifest = (host: string, name: string) => { manifest: Manifest; pkg: Package };

/**
 * A kept package's manifest and API object, rendered again from its manifest (which the survey found
 * unchanged, so it reads as the last build read it) with its stats entry and, for a package with
 * files, what they derive as the state remembers it: never read back from the live output.
 */
export function keptManifests(dir: string, state: BuildState, validators: Validators | undefined): KeptManifest {
  return (host, name) => {
    const file = `${host}/${name}.json`;
    if (!validators) throw new Error(`internal: the build asked for ${file} in a rebuild that moved no package`);
    const ref = { host, name, file, ...knownFiles(state, host, name) };
    const checked = validateManifest(ref, readSourceFile(join(dir, file), MAX_SOURCE_BYTES), validators);
    if (!checked.manifest) throw new KeptManifestMoved(`${file} changed while the build read the catalogue`);
    const memo = state.packageFilesMemo?.[`${host}/${name}`];
    const manifest = memo ? (mergeDerived(checked.manifest, memo.derived, file).package as Manifest) : checked.manifest;
    const packages = state.packages[host]!;
    return { manifest, pkg: packageObject(manifest, statsAt(packages, indexOfName(packages.names, name))) };
  };
}

/** A kept package's API object (keptManifests). */
export function keptPackages(dir: string, state: BuildState, validators: Validators | undefined) {
  const kept = keptManifests(dir, state, validators);
  return (host: string, name: string): Package => kept(host, name).pkg;
}

/** Where `name` is in a host's names (in code-point order). */
function indexOfName(names: readonly string[], name: string): number {
  const at = findCodePoints(names, name);
  if (at < 0) throw new Error(`internal: ${name} is not among its host's packages`);
  return at;
}
