// A rebuild's survey: which manifests of the last build keep their signature, and which must be read
// again. At 100,000 packages the stat loop here is most of a rebuild, so a package that kept its
// signature leaves only a flag in a Uint8Array, compared against the state's Float64Array columns.
import { lstatSync, statSync, type Stats } from "node:fs";
import { join, sep } from "node:path";
import type { Problem } from "../catalogue/problems.js";
import { folderSignatures, listCatalogue, listedFolders, readSourceFile } from "../read/readCatalogue.js";
import { gitDigests } from "../read/gitDigests.js";
import { signatureOf, withDigest, type Signature } from "../read/signature.js";
import type { PackageFilesMemo } from "../render/renderApi.js";
import { appendAll } from "../util/appendAll.js";
import { isSystemError } from "../util/errors.js";
import { MANIFEST_EXTENSION, MAX_SOURCE_BYTES, type ManifestRef } from "../validate/catalogueRules.js";
import { validateLayout } from "../validate/layoutRules.js";
import { digestIs, isUnchanged, signatureUnchanged, statsAt, type BuildState } from "./buildState.js";
import { sameStats, type HostStats } from "../catalogue/statsFile.js";
import { knownFiles, packageFilesKept } from "./surveyPackageFiles.js";

/** Which manifests a rebuild must read, and what it found without reading them. */
export interface Survey {
  /**
   * Per host, a flag for each package of the last build that is still there with its signature, or
   * with the bytes it was built from.
   */
  kept: Map<string, Uint8Array>;
  /** Per host, the kept packages whose manifest moved but kept its bytes: their index, and their signature now. */
  resigned: Map<string, Map<number, Signature>>;
  /** Manifests to read: changed ones, with their index in the last build, and new ones. */
  toRead: { ref: ManifestRef; index: number | undefined }[];
  /** Problems of the layout, and the warnings of kept manifests (reported again). */
  problems: Problem[];
  /** The folders' signatures for the next build. */
  folders: Signature[] | null;
  /** Whether a manifest now has package files beside it (only a listing can find new ones or see them all go). */
  packageFiles: boolean;
  /** The kept packages whose files moved but kept their content, by `host/name`: their signatures now. */
  resignedFiles: Map<string, PackageFilesMemo["signatures"]>;
  /** Git's digests of the catalogue's files, when the survey asked git (many inputs moved). */
  digests?: ReadonlyMap<string, number>;
  /**
   * A build from nothing's survey, which reads every manifest: each host's, in name order, made one
   * at a time from the layout's listing (toRead is then empty).
   */
  listed?: (host: string) => Iterable<ManifestRef> & { length: number };
}

/**
 * When this many manifests or packages' files moved, git is asked what it knows of them
 * (read/gitDigests.ts: one run over the whole catalogue) rather than each being read: a clone.
 */
const ASK_GIT_AT = 64;

/** Per host whose stats file was read again, its entries now. */
export type RereadStats = ReadonlyMap<string, HostStats>;

/**
 * Surveys by the last build's names while no folder moved, else by listing the catalogue. A package
 * whose stats entry differs from the one it was built with is read again, like an edited one.
 */
export function surveyCatalogue(dir: string, state: BuildState, stats: RereadStats = new Map()): Survey {
  const moved = statsMoved(state, stats);
  return surveyKnown(dir, state, moved) ?? surveyListing(dir, state, moved);
}

/** Whether package i of a host has other stats now than it was built with. */
type StatsMoved = (host: string, i: number) => boolean;

function statsMoved(state: BuildState, stats: RereadStats): StatsMoved {
  return (host, i) => {
    const entries = stats.get(host);
    if (!entries) return false;
    const built = state.packages[host]!;
    const then = statsAt(built, i);
    const now = entries.get(built.names[i]!);
    return now === undefined || then === undefined ? now !== then : !sameStats(now, then);
  };
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

/** What every manifest's survey shares: the catalogue, the survey made so far, the last build's state and warnings. */
interface SurveyRun {
  dir: string;
  survey: Survey;
  state: BuildState;
  /** The last build's warnings, by file. */
  warnings: Map<string, Problem[]>;
  moved: StatsMoved;
  /**
   * Known manifests whose signature, or whose files' signatures, moved: settled once all are
   * surveyed. After a clone or a checkout that is every manifest: each keeps its signature, not its
   * Stats (a third of the size).
   */
  pending: { ref: ManifestRef; index: number; signature: Signature }[];
}

/**
 * Sorts one manifest into kept (a package of the last build whose source keeps its signature, and
 * its files theirs), to read, or to settle once every manifest is surveyed (settlePending). Called
 * for every manifest of the catalogue: at 100,000 packages this is most of a rebuild.
 */
function surveyOne(run: SurveyRun, ref: ManifestRef, index: number | undefined, stats: Stats | undefined): void {
  const { dir, survey, state, moved } = run;
  const host = state.packages[ref.host]!;
  const known = index !== undefined && stats !== undefined && !moved(ref.host, index);
  if (
    known &&
    isUnchanged(stats, host, index, state.snapshotMs) &&
    packageFilesKept(dir, state, ref, survey.problems)
  ) {
    keep(run, ref, index);
    return;
  }
  if (known && stats.isFile()) run.pending.push({ ref, index, signature: signatureOf(stats) });
  else survey.toRead.push({ ref, index });
}

/** Marks package `index` of `ref`'s host kept, and reports its warnings again. */
function keep(run: SurveyRun, ref: ManifestRef, index: number, signature?: Signature): void {
  const { survey, warnings } = run;
  survey.kept.get(ref.host)![index] = 1;
  if (signature) {
    let resigned = survey.resigned.get(ref.host);
    if (!resigned) survey.resigned.set(ref.host, (resigned = new Map()));
    resigned.set(index, signature);
  }
  if (warnings.size > 0) survey.problems.push(...(warnings.get(ref.file) ?? []));
}

/**
 * The manifests that moved, or whose files did: a package is kept when they hold the bytes it was
 * built from (a fresh clone, a checkout back and forth, a save without a change). Git is asked when
 * many moved; a manifest git does not know is read and digested, unless it has files (read again,
 * then: the load knows them by content).
 */
function settlePending(run: SurveyRun): void {
  const { dir, survey, state } = run;
  const digests = run.pending.length >= ASK_GIT_AT ? gitDigests(dir) : undefined;
  if (digests) survey.digests = digests;
  for (const { ref, index, signature: now } of run.pending) {
    const host = state.packages[ref.host]!;
    let signature: Signature | undefined;
    let same = isUnchanged(now, host, index, state.snapshotMs);
    const digest = same ? undefined : digests?.get(ref.file);
    if (digest !== undefined && digestIs(host, index, digest)) {
      same = true;
      signature = withDigest(now, digest);
    }
    const withFiles = ref.files !== undefined || hadFiles(state, ref);
    if (!same && !withFiles) {
      const source = readSourceFile(join(dir, ref.file), MAX_SOURCE_BYTES);
      if ("bytes" in source && source.signature && digestIs(host, index, source.signature.digest!)) {
        same = true;
        signature = source.signature;
      }
    }
    if (same && withFiles) same = packageFilesKept(dir, state, ref, survey.problems, digests, survey.resignedFiles);
    if (same) keep(run, ref, index, signature);
    else survey.toRead.push({ ref, index });
  }
  run.pending = [];
}

/** Whether the last build had package files for this package. */
function hadFiles(state: BuildState, ref: ManifestRef): boolean {
  return state.packageFilesMemo?.[`${ref.host}/${ref.name}`] !== undefined;
}

function emptySurvey(state: BuildState, folders: Signature[] | null): Survey {
  return {
    kept: new Map(state.hosts.map((h) => [h, new Uint8Array(state.packages[h]!.names.length)])),
    resigned: new Map(),
    toRead: [],
    problems: [],
    folders,
    packageFiles: false,
    resignedFiles: new Map(),
  };
}

/**
 * The quick survey: while the catalogue folder and every host folder keep their signatures, no
 * entry was added, removed or renamed in them since the last build, whose layout was valid. So the
 * manifests are the last build's names and only their own signatures need a look: no listing, no
 * layout check. Undefined when that cannot be shown (then the catalogue is listed).
 */
export function surveyKnown(dir: string, state: BuildState, moved: StatsMoved = () => false): Survey | undefined {
  const folders = state.folders;
  if (!folders) return undefined;
  // The stats folder's signature comes last when there was one; if one appeared, the catalogue folder moved.
  const names = listedFolders(state.hosts, folders.length > state.hosts.length + 1);
  if (folders.length !== names.length) return undefined;
  for (let k = 0; k < folders.length; k++) {
    // The catalogue folder may be a link (it is listed through it); a host folder may not.
    const now = k === 0 ? statOrNothing(dir, true) : statOrNothing(join(dir, names[k]!));
    if (!now?.isDirectory() || !signatureUnchanged(now, folders[k]!, state.snapshotMs)) return undefined;
  }
  const survey = emptySurvey(state, folders);
  survey.packageFiles = state.packageFiles === true;
  // The folders kept their entries, so the files the layout ignored are the same: warn again.
  appendAll(
    survey.problems,
    state.warnings.filter((w) => w.code === "IGNORED_FILE"),
  );
  const run: SurveyRun = { dir, survey, state, warnings: warningsByFile(state), moved, pending: [] };
  const prefix = `${dir}${sep}`;
  for (const host of state.hosts) {
    const names = state.packages[host]!.names;
    for (let i = 0; i < names.length; i++) {
      const file = `${host}/${names[i]}${MANIFEST_EXTENSION}`;
      const stats = statOrNothing(prefix + file);
      if (!stats?.isFile()) return undefined;
      const ref = { host, name: names[i]!, file, ...knownFiles(state, host, names[i]!) };
      surveyOne(run, ref, i, stats);
    }
  }
  settlePending(run);
  return survey;
}

/** The full survey: list the catalogue, check its layout, and look up each manifest in the last build. */
function surveyListing(dir: string, state: BuildState, moved: StatsMoved): Survey {
  const listing = listCatalogue(dir);
  const indexes = new Map(state.hosts.map((h) => [h, new Map(state.packages[h]!.names.map((name, i) => [name, i]))]));
  const layout = validateLayout(listing, state.hosts, indexes);
  const survey = emptySurvey(state, folderSignatures(listing, state.hosts));
  survey.packageFiles = layout.manifests.hasPackageFiles();
  appendAll(survey.problems, layout.problems);
  const run: SurveyRun = { dir, survey, state, warnings: warningsByFile(state), moved, pending: [] };
  const prefix = `${dir}${sep}`;
  for (const ref of layout.manifests) {
    surveyOne(run, ref, indexes.get(ref.host)!.get(ref.name), statOrNothing(prefix + ref.file));
  }
  settlePending(run);
  return survey;
}
