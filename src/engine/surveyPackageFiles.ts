// The package files' part of a rebuild's survey. A package of the last build whose manifest kept its
// signature is kept only while its files keep theirs too (its zip's, or those of every file and folder
// of its folder, with the manifests' racy-window rule): then they are neither read, zipped nor hashed,
// and the state's memo stands for them. Otherwise the package is read again, files and all.
import type { Problem } from "../catalogue/problems.js";
import { packageFilesSignatures, signaturesHold } from "../load/loadCatalogue.js";
import type { ManifestRef } from "../validate/catalogueRules.js";
import { signatureUnchanged, type BuildState } from "./buildState.js";

/**
 * The files package `name` of `host` had at the last build. The quick survey's (no folder moved, so
 * no package's zip or folder appeared or went) are the same kind now.
 */
export function knownFiles(state: BuildState, host: string, name: string): Pick<ManifestRef, "files"> {
  const memo = state.packageFilesMemo?.[`${host}/${name}`];
  if (!memo) return {};
  // A zip's memo has its one signature; a folder's, those of its entries too (a valid one has some).
  return { files: memo.signatures.length === 1 ? "zip" : "folder" };
}

/**
 * Whether the package of `ref` (its files as the layout or knownFiles found them) has the files the
 * last build read, each with its signature; when so, their warnings are reported again in `problems`.
 * A package that gained or lost its files is read again.
 */
export function packageFilesKept(dir: string, state: BuildState, ref: ManifestRef, problems: Problem[]): boolean {
  const memos = state.packageFilesMemo;
  if (!memos) return ref.files === undefined;
  const memo = memos[`${ref.host}/${ref.name}`];
  if (!memo || ref.files === undefined) return !memo && ref.files === undefined;
  const now = packageFilesSignatures(dir, ref.host, ref.name);
  if (!signaturesHold(memo.signatures, now, (at, then) => signatureUnchanged(at, then, state.snapshotMs))) return false;
  problems.push(...memo.warnings);
  return true;
}
