// The package files' part of a rebuild plan: the stored files (archive, icon, binary, meta.xml) of the
// packages read again, written where they differ from the live slot's, and deleted for packages that
// went or lost files; the state's memo of every package's files, brought up to date. A package that
// was not read again is not here at all: its stored files stay the live slot's, and enter the new
// slot as hard links (writeChanges links every path it does not write).
import type { PackageFilesReuse } from "../load/loadCatalogue.js";
import type { FileContent, OutputFile, PackageFilesMemo, RenderedPackage } from "../render/renderApi.js";
import { needsAliasFiles } from "../output/storedPackageFiles.js";
import { packageFilePaths } from "../routes/packageFileLayout.js";
import { aliasFilesOf } from "../routes/routeTable.js";
import type { FilesSource } from "../site/siteAssets.js";
import { signatureUnchanged, type BuildState } from "./buildState.js";
import type { RebuildPlan, RereadPackage } from "./planRebuild.js";
import type { LiveFiles } from "./liveFiles.js";

/**
 * The last build's package files, to reuse where they kept their signatures: `liveDir` is the live
 * slot, which holds their stored files.
 */
export function packageFilesReuse(liveDir: string, state: BuildState): PackageFilesReuse {
  const memo = state.packageFilesMemo ?? {};
  return {
    memo: (host, name) => memo[`${host}/${name}`],
    unchanged: (now, then) => signatureUnchanged(now, then, state.snapshotMs),
    liveDir,
  };
}

/** What the state remembers of a package's files: its memo, with where its stored files are. */
export function memoOf(host: string, defaultHost: string, pkg: RenderedPackage): PackageFilesMemo | undefined {
  const stored = pkg.stored;
  if (!stored) return undefined;
  const paths = packageFilePaths(host, defaultHost, pkg.name, stored.binary.name);
  return {
    ...stored.memo,
    paths: {
      archive: paths.archive,
      icon: paths.icon,
      binary: paths.binary,
      ...(stored.meta !== undefined ? { meta: paths.meta } : {}),
    },
  };
}

/** Where the site learns of each package's files, after the plan: from the state's memo. */
export function filesSource(state: BuildState): FilesSource | undefined {
  const memos = state.packageFilesMemo;
  if (state.defaultHost === undefined || !memos) return undefined;
  return {
    defaultHost: state.defaultHost,
    of(host, name) {
      const memo = memos[`${host}/${name}`];
      return memo && { zipSize: memo.derived.zip_size, icon: memo.derived.icon !== undefined };
    },
  };
}

/** The stored files of a memo, by kind. */
type Kind = keyof PackageFilesMemo["paths"];
const KINDS: readonly Kind[] = ["archive", "icon", "binary", "meta"];

/**
 * Whether a stored file read again holds what the live slot has at the same path: the archive and the
 * binary by the hash and size the files derived (the live one's are in the old memo), the icon and
 * meta.xml, small files, by `sameBytes`.
 */
function sameAsLive(
  kind: Kind,
  old: PackageFilesMemo,
  now: PackageFilesMemo,
  content: FileContent,
  path: string,
  sameBytes: (path: string, file: string) => boolean,
): boolean {
  if (kind === "archive")
    return old.derived.zip_sha256 === now.derived.zip_sha256 && old.derived.zip_size === now.derived.zip_size;
  if (kind === "binary")
    return (
      old.derived.binary.sha256 === now.derived.binary.sha256 && old.derived.binary.size === now.derived.binary.size
    );
  return sameBytes(path, content.file);
}

/**
 * The plan with the stored files of the packages read again (`reread`) and of those removed. A file
 * whose bytes are the live one's is not written; a live file the package no longer has is deleted.
 * A package whose files changed counts as changed even when its package object did not. The kept
 * packages whose files moved with their content (`resigned`, the survey's) get their new signatures.
 */
export function withPackageFiles(
  plan: RebuildPlan,
  state: BuildState,
  reread: readonly RereadPackage[],
  live: Pick<LiveFiles, "exists">,
  sameBytes: (path: string, file: string) => boolean,
  resigned: ReadonlyMap<string, PackageFilesMemo["signatures"]> = new Map(),
): RebuildPlan {
  if (state.packageFiles !== true || state.defaultHost === undefined) return plan;
  const memos: Record<string, PackageFilesMemo> = { ...state.packageFilesMemo };
  // Kept packages whose files moved with their content: the next build knows them by these signatures.
  for (const [key, signatures] of resigned) memos[key] = { ...memos[key]!, signatures };
  const writes = new Map(plan.writes);
  let added = 0;
  let read = 0;
  const moved = new Set<string>();
  const put = (path: string, content: OutputFile["content"] | null) => {
    if (writes.get(path) === null && content === null) return;
    const existed = writes.has(path) ? writes.get(path) !== null : live.exists(path);
    writes.set(path, content);
    if (content === null && existed) added--;
    if (content !== null && !existed) added++;
  };
  // A stored file and, for a target that serves the aliases from copies, its links at the aliases'
  // paths: written again (after it) whenever it is, gone with it. The plan's targets are this build's.
  const aliases = needsAliasFiles(plan.state.targets);
  const aliasesBefore = needsAliasFiles(state.targets);
  const putStored = (path: string, content: FileContent | null) => {
    put(path, content);
    if (aliases || (aliasesBefore && content === null))
      for (const alias of aliasFilesOf(path)) put(alias, content === null ? null : { sameAs: path });
  };
  const drop = (key: string, keep: ReadonlySet<string> = new Set()) => {
    const old = memos[key];
    if (!old) return;
    for (const kind of KINDS) {
      const path = old.paths[kind];
      if (path !== undefined && !keep.has(path)) putStored(path, null);
    }
    delete memos[key];
  };
  for (const { host, name } of plan.removed) drop(`${host}/${name}`);
  for (const { host, pkg } of reread) {
    const key = `${host}/${pkg.name}`;
    const old = memos[key];
    const now = memoOf(host, state.defaultHost, pkg);
    if (!now) {
      if (old) moved.add(key);
      drop(key);
      continue;
    }
    const stored = pkg.stored!;
    if (stored.archive.link !== true) read++;
    const contents: Record<Kind, FileContent | undefined> = {
      archive: stored.archive,
      icon: stored.icon,
      binary: stored.binary.content,
      meta: stored.meta,
    };
    const paths = new Set(KINDS.map((kind) => now.paths[kind]).filter((p): p is string => p !== undefined));
    drop(key, paths);
    memos[key] = now;
    for (const kind of KINDS) {
      const path = now.paths[kind];
      const content = contents[kind];
      if (path === undefined || content === undefined) continue;
      const unchanged =
        old?.paths[kind] === path &&
        live.exists(path) &&
        (content.link === true || sameAsLive(kind, old, now, content, path, sameBytes));
      if (unchanged) continue;
      putStored(path, content);
      moved.add(key);
    }
  }
  // The first target that serves the aliases from copies links every stored file at them; the last one's going removes them.
  let aliasesGone = 0;
  if (aliases !== aliasesBefore) {
    for (const memo of Object.values(memos)) {
      for (const kind of KINDS) {
        const path = memo.paths[kind];
        if (path === undefined) continue;
        for (const alias of aliasFilesOf(path)) {
          if (writes.has(alias)) continue;
          put(alias, aliases ? { sameAs: path } : null);
          if (!aliases) aliasesGone++;
        }
      }
    }
  }
  const dropped = plan.summary.dropped;
  const counted = new Set([...plan.removed, ...plan.changed, ...plan.added].map((p) => `${p.host}/${p.name}`));
  const changedFiles = [...moved].filter((key) => !counted.has(key)).length;
  return {
    ...plan,
    writes,
    stateMoved: plan.stateMoved || resigned.size > 0,
    state: { ...plan.state, files: plan.state.files + added, packageFilesMemo: memos },
    summary: {
      ...plan.summary,
      files: plan.summary.files + added,
      changedPackages: plan.summary.changedPackages + changedFiles,
      filesWritten: writes.size,
      mode: { kind: writes.size === 0 ? "unchanged" : "incremental" },
      packageFilesRead: read,
      ...(dropped ? { dropped: { ...dropped, aliasFiles: aliasesGone } } : {}),
    },
  };
}
