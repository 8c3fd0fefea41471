// A rebuild's survey: which manifests of the last build keep their signature, and which must be read
// again. At 100,000 packages the stat loop here is most of a rebuild, so a package that kept its
// signature leaves only a flag in a Uint8Array, compared against the state's Float64Array columns.
import { lstatSync, statSync, type Stats } from "node:fs";
import { join, sep } from "node:path";
import type { Problem } from "../catalogue/problems.js";
import { folderSignatures, listCatalogue } from "../read/readCatalogue.js";
import type { Signature } from "../read/signature.js";
import { isSystemError } from "../util/errors.js";
import { validateLayout, MANIFEST_EXTENSION, type ManifestRef } from "../validate/catalogueRules.js";
import { isUnchanged, signatureUnchanged, type BuildState } from "./buildState.js";

/** Which manifests a rebuild must read, and what it found without reading them. */
export interface Survey {
  /** Per host, a flag for each package of the last build that is still there with its signature. */
  kept: Map<string, Uint8Array>;
  /** Manifests to read: changed ones, with their index in the last build, and new ones. */
  toRead: { ref: ManifestRef; index: number | undefined }[];
  /** Problems of the layout, and the warnings of kept manifests (reported again). */
  problems: Problem[];
  /** The folders' signatures for the next build. */
  folders: Signature[] | null;
}

/** Surveys by the last build's names while no folder moved, else by listing the catalogue. */
export function surveyCatalogue(dir: string, state: BuildState): Survey {
  return surveyKnown(dir, state) ?? surveyListing(dir, state);
}

/**
 * A file's stats, or undefined when the system cannot give them (not there, a parent that is no
 * longer a folder, no permission): the caller then takes the careful path, which reports why.
 */
export function statOrNothing(path: string, follow = false): Stats | undefined {
  try {
    return (follow ? statSync : lstatSync)(path, { throwIfNoEntry: false });
  } catch (e) {
    if (isSystemError(e)) return undefined;
    throw e;
  }
}

function warningsByFile(state: BuildState): Map<string, Problem[]> {
  const byFile = new Map<string, Problem[]>();
  for (const warning of state.warnings) byFile.set(warning.file, [...(byFile.get(warning.file) ?? []), warning]);
  return byFile;
}

/**
 * Sorts one manifest into kept (a package of the last build whose source keeps its signature) or
 * to read. Called for every manifest of the catalogue: at 100,000 packages this is most of a rebuild.
 */
function surveyOne(
  survey: Survey,
  state: BuildState,
  warnings: Map<string, Problem[]>,
  ref: ManifestRef,
  index: number | undefined,
  stats: Stats | undefined,
): void {
  if (index !== undefined && stats && isUnchanged(stats, state.packages[ref.host]!, index, state.snapshotMs)) {
    survey.kept.get(ref.host)![index] = 1;
    if (warnings.size > 0) survey.problems.push(...(warnings.get(ref.file) ?? []));
  } else survey.toRead.push({ ref, index });
}

function emptySurvey(state: BuildState, folders: Signature[] | null): Survey {
  return {
    kept: new Map(state.hosts.map((h) => [h, new Uint8Array(state.packages[h]!.names.length)])),
    toRead: [],
    problems: [],
    folders,
  };
}

/**
 * The quick survey: while the catalogue folder and every host folder keep their signatures, no
 * entry was added, removed or renamed in them since the last build, whose layout was valid. So the
 * manifests are the last build's names and only their own signatures need a look: no listing, no
 * layout check. Undefined when that cannot be shown (then the catalogue is listed).
 */
export function surveyKnown(dir: string, state: BuildState): Survey | undefined {
  const folders = state.folders;
  if (!folders || folders.length !== state.hosts.length + 1) return undefined;
  for (let k = 0; k < folders.length; k++) {
    // The catalogue folder may be a link (it is listed through it); a host folder may not.
    const now = k === 0 ? statOrNothing(dir, true) : statOrNothing(join(dir, state.hosts[k - 1]!));
    if (!now?.isDirectory() || !signatureUnchanged(now, folders[k]!, state.snapshotMs)) return undefined;
  }
  const survey = emptySurvey(state, folders);
  const warnings = warningsByFile(state);
  const prefix = `${dir}${sep}`;
  for (const host of state.hosts) {
    const names = state.packages[host]!.names;
    for (let i = 0; i < names.length; i++) {
      const file = `${host}/${names[i]}${MANIFEST_EXTENSION}`;
      const stats = statOrNothing(prefix + file);
      if (!stats?.isFile()) return undefined;
      surveyOne(survey, state, warnings, { host, name: names[i]!, file }, i, stats);
    }
  }
  return survey;
}

/** The full survey: list the catalogue, check its layout, and look up each manifest in the last build. */
function surveyListing(dir: string, state: BuildState): Survey {
  const listing = listCatalogue(dir);
  const indexes = new Map(state.hosts.map((h) => [h, new Map(state.packages[h]!.names.map((name, i) => [name, i]))]));
  const layout = validateLayout(listing, state.hosts, indexes);
  const survey = emptySurvey(state, folderSignatures(listing, state.hosts));
  survey.problems.push(...layout.problems);
  const warnings = warningsByFile(state);
  const prefix = `${dir}${sep}`;
  for (const ref of layout.manifests) {
    surveyOne(survey, state, warnings, ref, indexes.get(ref.host)!.get(ref.name), statOrNothing(prefix + ref.file));
  }
  return survey;
}
