// The package files' part of a rebuild's survey. A package of the last build whose manifest kept its
// signature is kept only while its files keep theirs too (its zip's, or those of every file and folder
// of its folder, with the manifests' racy-window rule): then they are neither read, zipped nor hashed,
// and the state's memo stands for them. Otherwise the package is read again, files and all.
import type { Problem } from "../catalogue/problems.js";
import { packageFilesSignatures, signaturesHold } from "../load/loadCatalogue.js";
import type { PackageFilesMemo } from "../render/renderApi.js";
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
 * last build read, each with its signature or, given git's `digests`, its content; when so, their
 * warnings are reported again in `problems`, and the signatures they have now go to `resigned`, by
 * `host/name` (given when something of the package moved, so that the next build knows them). A
 * package that gained or lost its files is read again.
 */
export function packageFilesKept(
  dir: string,
  state: BuildState,
  ref: ManifestRef,
  problems: Problem[],
  digests?: ReadonlyMap<string, number>,
  resigned?: Map<string, PackageFilesMemo["signatures"]>,
): boolean {
  const memos = state.packageFilesMemo;
  if (!memos) return ref.files === undefined;
  const key = `${ref.host}/${ref.name}`;
  const memo = memos[key];
  if (!memo || ref.files === undefined) return !memo && ref.files === undefined;
  const now = packageFilesSignatures(dir, ref.host, ref.name, digests);
  if (!signaturesHold(memo.signatures, now, (at, then) => signatureUnchanged(at, then, state.snapshotMs))) return false;
  // Recorded even when no number moved: a file changed near the last build is judged again until then.
  resigned?.set(key, now);
  problems.push(...memo.warnings);
  return true;
}
