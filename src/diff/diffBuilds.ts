// Over 350 lines: diff's one entry point, whose kinds of side (folder, URL, revision, working tree)
// share how a side is read, built and checked against the merge base.
// `diff`: two builds compared as their clients see them. Each side is a built output folder, a
// deployment's base URL, a git revision of the catalogue or its working tree; a revision or the
// working tree is built here with the build's own core. Sides are read one after the other, the
// first entirely before the second is built, so that the second may be built into the folder the
// first is (a restored CI cache: a rebuild, not a full build); two built sides are both checked out
// at one path, so that each is a rebuild of the other. With a key, a built folder or a deployment is
// read only once its signed index holds (readSnapshot.ts); a git revision or the working tree is
// built here, by diff itself, and needs none. Returns data; the CLI prints it.
import { existsSync, linkSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { isError, type Problem } from "../catalogue/problems.js";
import { buildCatalogue, type BuildMode } from "../engine/buildCatalogue.js";
import { readState } from "../engine/buildState.js";
import { FILE_INDEX } from "../routes/routeTable.js";
import type { TargetId } from "../targets/target.js";
import { sha256Hex, type IndexedFile } from "../trust/fileIndex.js";
import { parsePublicKey, type PublicKey } from "../trust/minisign.js";
import { isSystemError, UsageError } from "../util/errors.js";
import { outputLayout } from "../write/writeOutput.js";
import { readBuildSource, recordBuildSource, type BuildSource } from "./buildSource.js";
import { addPackageContents, type FileBytes } from "./comparePackageContents.js";
import { compareSnapshots, type Comparison } from "./compareSnapshots.js";
import {
  catalogueAt,
  catalogueCommit,
  findRepository,
  mergeBase,
  resolveCommit,
  workingTree,
  type Repository,
} from "./gitRevision.js";
import { folderReader, readSnapshot, urlReader, type PathReader, type Snapshot } from "./readSnapshot.js";

/** The JSON report's format number: a reader refuses one it does not know (schemas/diff.schema.json). */
export const DIFF_FORMAT = 2;

/** How a built side was built: full, or incremental or unchanged (a rebuild). */
export type SideBuild = BuildMode["kind"];

/** What a side was, as the report says it. */
export type SideInfo = {
  /** The argument as given. */
  argument: string;
  /** The file index's revision and build time. */
  indexRevision: number;
  built: string;
  /** The catalogue's commit it was built from, when known (a folder's is recorded beside its build). */
  commit?: string;
  /** Built from the working tree with changes not committed to `commit`. */
  dirty?: boolean;
  /** The id (hex) of the key whose signature of entry.json held: a folder or deployment read with --key. */
  signedBy?: string;
} & (
  | { kind: "folder" }
  | { kind: "url" }
  | { kind: "revision"; commit: string; build: SideBuild }
  | { kind: "worktree"; build: SideBuild }
);

/**
 * Whether the first side is the merge base of the second: what a pull request's review needs, so
 * that changes made on the base branch since are not reported as the pull request's.
 */
export type BaseCheck =
  | { status: "merge-base"; commit: string }
  | { status: "not-merge-base"; commit: string; mergeBase: string | null }
  | { status: "unknown"; reason: string };

export interface DiffReport extends Comparison {
  format: typeof DIFF_FORMAT;
  a: SideInfo;
  b: SideInfo;
  /** Present when the second side is a revision or the working tree (or a folder whose commit is recorded). */
  base?: BaseCheck;
}

/** A side that is a revision (or the working tree) whose build has errors: its problems, as `validate` gives them. */
export interface UnbuiltReport {
  format: typeof DIFF_FORMAT;
  unbuilt: { side: "a" | "b"; argument: string; commit?: string; problems: Problem[] };
}

export interface DiffOptions {
  /** The two sides: a built folder, an http(s) base URL, a git revision, or the catalogue folder (its working tree). */
  a: string;
  b: string;
  /** The catalogue folder whose git revisions a side may name (the repository is the one it is in). */
  catalogueDir: string;
  /**
   * Where a git revision is built, as `build --out`: a folder holding a previous build of the same
   * catalogue path (a restored CI cache) makes it a rebuild. Its checkouts are kept beside the
   * build's state, so the next diff there rebuilds only what moved. Default: a temporary folder.
   */
  outDir?: string;
  /** As the build's: the browse site, the targets' files, the base URL, the mirrors. */
  site?: boolean;
  targets?: readonly TargetId[];
  baseUrl?: string;
  mirrors?: readonly string[];
  /** The UTC day whose featured app both sides' builds pick (the same for both). */
  featuredDay?: number;
  /** Only these hosts' apps are reported (all when undefined). */
  hosts?: readonly string[];
  /**
   * The minisign public key file's text (--key, or shopfront.json's publicKey): a folder or
   * deployment side is read only once its entry.json's signature by this key holds.
   */
  publicKey?: string;
  /** The time an entry's `expires` is held to (tests pass another). */
  now?: number;
  /** Called when a side starts being read or built. */
  onSide?: (side: "a" | "b", what: "reading" | "building") => void;
}

type Side =
  | { kind: "folder"; dir: string }
  | { kind: "url"; url: string }
  | { kind: "revision"; commit: string }
  | { kind: "worktree" };

const built = (side: Side) => side.kind === "revision" || side.kind === "worktree";

async function sideOf(
  argument: string,
  catalogueDir: string,
  repo: () => Promise<Repository | undefined>,
): Promise<Side> {
  if (/^https?:\/\//i.test(argument)) {
    try {
      new URL(argument);
    } catch {
      throw new UsageError(`${argument} is not a valid URL`);
    }
    return { kind: "url", url: argument };
  }
  if (existsSync(argument) && statSync(argument).isDirectory()) {
    const dir = resolve(argument);
    if (dir === resolve(catalogueDir)) {
      if (!(await repo())) throw new UsageError(`${argument}: the catalogue folder is in no git repository`);
      return { kind: "worktree" };
    }
    // Refused before anything is built: the other side may be a revision that takes minutes.
    if (!existsSync(join(dir, FILE_INDEX.entry)))
      throw new UsageError(
        `${argument} is a folder without a file index (${FILE_INDEX.entry}): not a build of shopfront 0.1 or later, nor the catalogue folder`,
      );
    return { kind: "folder", dir };
  }
  const repository = await repo();
  const commit = repository ? await resolveCommit(repository, argument) : undefined;
  if (commit) return { kind: "revision", commit };
  throw new UsageError(
    `${argument} is not a built folder, an http(s):// base URL, a git revision or the catalogue folder${repository ? "" : " (the catalogue folder is in no git repository)"}`,
  );
}

/** A side's bytes of an indexed file: through its reader, or from the copies kept before the other side was built over it. */
function fileBytes(read: PathReader, kept?: string): FileBytes {
  return async (file: IndexedFile) => {
    // Read up to the size the index gives, and believed only when they are the bytes it names.
    const believed = (bytes: Uint8Array | undefined) =>
      bytes !== undefined && bytes.byteLength === file.size && sha256Hex(bytes) === file.sha256 ? bytes : undefined;
    if (!kept) return believed(await read(file.path, file.size));
    try {
      return believed(readFileSync(join(kept, file.sha256)));
    } catch (error) {
      if (isSystemError(error) && error.code === "ENOENT") return undefined;
      throw error;
    }
  };
}

/**
 * Keeps the zips and meta.xml files a side read from `dir` lists (hard links named by their SHA-256),
 * before the other side is built into the same folder and replaces them.
 */
function keepPackageFiles(snapshot: Snapshot, dir: string, keep: string): void {
  rmSync(keep, { recursive: true, force: true });
  mkdirSync(keep, { recursive: true });
  for (const host of snapshot.hosts.values())
    for (const app of host.apps.values())
      for (const file of [app.files.archive, app.files.meta]) {
        if (!file || existsSync(join(keep, file.sha256))) continue;
        try {
          linkSync(join(dir, file.path), join(keep, file.sha256));
        } catch (error) {
          if (!(isSystemError(error) && error.code === "ENOENT")) throw error;
        }
      }
}

/** Compares two builds as their clients see them; or, when a revision does not build, its problems. */
export async function diffBuilds(options: DiffOptions): Promise<DiffReport | UnbuiltReport> {
  let key: PublicKey | undefined;
  if (options.publicKey !== undefined) {
    const parsed = parsePublicKey(options.publicKey);
    if (typeof parsed === "string") throw new UsageError(`--key: ${parsed}`);
    key = parsed;
  }
  const trust = { ...(key ? { key } : {}), ...(options.now !== undefined ? { now: options.now } : {}) };
  let repository: Promise<Repository | undefined> | undefined;
  const repo = () => (repository ??= findRepository(options.catalogueDir));
  const sides = [
    await sideOf(options.a, options.catalogueDir, repo),
    await sideOf(options.b, options.catalogueDir, repo),
  ] as const;
  const out = options.outDir !== undefined ? resolve(options.outDir) : undefined;
  // The first side is read before anything is built; the second must not be a folder a build replaces.
  const second = sides[1];
  if (out && second.kind === "folder" && second.dir === out && built(sides[0]))
    throw new UsageError(`${options.b} is the --out folder, which the first side is built into before it is read`);
  const temp = sides.some(built) ? mkdtempSync(join(tmpdir(), "shopfront-diff-")) : undefined;
  // Two built sides are both checked out at one path: the build's state is of one catalogue path, so
  // that each is then a rebuild of the other. One built side against a folder is built in place when
  // the working tree is that revision, as `build` builds it (the pull-request check's folder).
  const inPlace = !(built(sides[0]) && built(sides[1]));
  const home = out ? outputLayout(out).home : undefined;
  const checkoutDir = home ? join(home, "diff-checkout") : join(temp ?? tmpdir(), "checkout");
  const outDir = out ?? join(temp ?? tmpdir(), "out");
  try {
    type Read = { snapshot: Snapshot; info: SideInfo; read: PathReader; dir?: string };
    const read = async (side: Side, which: "a" | "b"): Promise<Read | UnbuiltReport> => {
      const argument = options[which];
      if (side.kind === "url") {
        options.onSide?.(which, "reading");
        const reader = urlReader(side.url);
        const snapshot = await readSnapshot(reader, side.url.replace(/\/+$/, ""), trust);
        return { snapshot, read: reader, info: { argument, kind: "url", ...indexOf(snapshot) } };
      }
      if (side.kind === "folder") {
        options.onSide?.(which, "reading");
        const reader = folderReader(side.dir);
        const snapshot = { ...(await readSnapshot(reader, argument, trust)), ...folderProblems(side.dir) };
        const source = readBuildSource(side.dir);
        return {
          snapshot,
          read: reader,
          dir: side.dir,
          info: { argument, kind: "folder", ...indexOf(snapshot), ...sourceInfo(source) },
        };
      }
      options.onSide?.(which, "building");
      const repository = (await repo())!;
      let catalogueDir: string;
      let source: BuildSource;
      if (side.kind === "revision") {
        catalogueDir = await catalogueAt(repository, side.commit, checkoutDir, inPlace);
        source = { commit: side.commit, dirty: false };
      } else {
        source = (await catalogueCommit(repository)) ?? { commit: "", dirty: true };
        catalogueDir = inPlace
          ? resolve(options.catalogueDir)
          : await catalogueAt(
              repository,
              await workingTree(repository, join(checkoutDir, "worktree-index")),
              checkoutDir,
              false,
            );
      }
      const result = await buildSide(catalogueDir, outDir, options);
      if ("problems" in result && !("mode" in result))
        return {
          format: DIFF_FORMAT,
          unbuilt: {
            side: which,
            argument,
            ...(source.commit ? { commit: source.commit } : {}),
            problems: result.problems,
          },
        };
      await recordBuildSource(outDir, catalogueDir, source.commit ? source : undefined);
      const reader = folderReader(outDir);
      const snapshot = { ...(await readSnapshot(reader, argument)), problems: result.problems };
      const common = { argument, indexRevision: snapshot.revision, built: snapshot.built, ...sourceInfo(source) };
      return {
        snapshot,
        read: reader,
        dir: outDir,
        info:
          side.kind === "revision"
            ? { ...common, kind: "revision", commit: side.commit, build: result.mode }
            : { ...common, kind: "worktree", build: result.mode },
      };
    };
    const a = await read(sides[0], "a");
    if ("unbuilt" in a) return a;
    // The second side built into the folder the first was read from replaces its package files.
    const kept =
      a.dir !== undefined && built(sides[1]) && resolve(a.dir) === resolve(outDir)
        ? join(checkoutDir, "kept")
        : undefined;
    if (kept) keepPackageFiles(a.snapshot, a.dir!, kept);
    const b = await read(sides[1], "b");
    if ("unbuilt" in b) return b;
    const comparison = compareSnapshots(a.snapshot, b.snapshot);
    if (options.hosts) {
      const wanted = new Set(options.hosts);
      const unknown = options.hosts.filter((h) => !a.snapshot.hosts.has(h) && !b.snapshot.hosts.has(h));
      if (unknown.length > 0) throw new UsageError(`--host ${unknown.join(", ")}: no such host on either side`);
      comparison.hosts = comparison.hosts.filter((h) => wanted.has(h.host));
    }
    await addPackageContents(comparison, {
      a: a.snapshot,
      b: b.snapshot,
      readA: fileBytes(a.read, kept),
      readB: fileBytes(b.read),
    });
    if (kept) rmSync(kept, { recursive: true, force: true });
    const base = await checkBase(a.info, b.info, sides[1], repo);
    return { format: DIFF_FORMAT, a: a.info, b: b.info, ...comparison, ...(base ? { base } : {}) };
  } finally {
    if (temp) rmSync(temp, { recursive: true, force: true });
  }
}

const sourceInfo = (source: BuildSource | undefined) =>
  source?.commit ? { commit: source.commit, ...(source.dirty ? { dirty: true } : {}) } : {};

/** Whether side a is the merge base of side b, when b is a commit (or a folder that recorded its own). */
async function checkBase(
  a: SideInfo,
  b: SideInfo,
  second: Side,
  repo: () => Promise<Repository | undefined>,
): Promise<BaseCheck | undefined> {
  if (!b.commit && !built(second)) return undefined;
  if (!a.commit)
    return {
      status: "unknown",
      reason:
        a.kind === "url"
          ? "a deployment does not say which commit it was built from"
          : "the first side's commit is not recorded (a build by an older shopfront, or of a catalogue outside git)",
    };
  if (a.dirty)
    return { status: "unknown", reason: "the first side was built with changes not committed to its commit" };
  const repository = await repo();
  if (!repository || !b.commit) return { status: "unknown", reason: "the second side's commit is not known" };
  const base = await mergeBase(repository, a.commit, b.commit);
  if (base === undefined)
    return {
      status: "unknown",
      reason: `git finds no merge base of ${a.commit.slice(0, 12)} and ${b.commit.slice(0, 12)} (a shallow clone, or a commit not fetched)`,
    };
  return base === a.commit
    ? { status: "merge-base", commit: base }
    : { status: "not-merge-base", commit: a.commit, mergeBase: base };
}

/** What the report says of a side's index. */
function indexOf(snapshot: Snapshot): Pick<SideInfo, "indexRevision" | "built" | "signedBy"> {
  return {
    indexRevision: snapshot.revision,
    built: snapshot.built,
    ...(snapshot.signedBy !== undefined ? { signedBy: snapshot.signedBy } : {}),
  };
}

/**
 * A built folder's problems: the warnings its build's state keeps (a build with an error writes
 * nothing), when the folder is an output link and the state beside it is the live build's.
 */
function folderProblems(dir: string): { problems?: Problem[] } {
  let target: string;
  try {
    target = readlinkSync(dir);
  } catch {
    // Not an output link: a plain folder, whose problems are unknown.
    return {};
  }
  const { home } = outputLayout(dir);
  const state = readState(home);
  return state && target === `${basename(home)}/${state.live}` ? { problems: state.warnings } : {};
}

/** Builds a catalogue folder into `outDir`: its problems and how it went, or its problems alone when it has an error. */
async function buildSide(
  catalogueDir: string,
  outDir: string,
  options: DiffOptions,
): Promise<{ problems: Problem[]; mode: SideBuild } | { problems: Problem[] }> {
  const result = await buildCatalogue({
    catalogueDir,
    outDir,
    targets: options.targets ?? [],
    site: options.site ?? true,
    ...(options.baseUrl !== undefined ? { baseUrl: options.baseUrl } : {}),
    ...(options.featuredDay !== undefined ? { featuredDay: options.featuredDay } : {}),
    index: { mirrors: [...(options.mirrors ?? [])], secretKey: undefined },
  });
  if (!result.built || result.problems.some(isError)) return { problems: result.problems };
  return { problems: result.problems, mode: result.built.mode.kind };
}
