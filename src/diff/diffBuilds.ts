// `diff`: two builds compared as their clients see them. Each side is a built output folder, a
// deployment's base URL or a git revision of the catalogue, which is built here with the build's own
// core. Sides are read one after the other, the first entirely before the second is built, so that
// the second may be built into the folder the first is (a restored CI cache: a rebuild, not a full
// build). With a key, a built folder or a deployment is read only once its signed index holds
// (readSnapshot.ts); a git revision is built here, by diff itself, and needs none. Returns data; the
// CLI prints it.
import { existsSync, mkdtempSync, readlinkSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { isError, type Problem } from "../catalogue/problems.js";
import { buildCatalogue, type BuildMode } from "../engine/buildCatalogue.js";
import { readState } from "../engine/buildState.js";
import type { TargetId } from "../targets/target.js";
import { parsePublicKey, type PublicKey } from "../trust/minisign.js";
import { FailureError, UsageError } from "../util/errors.js";
import { outputLayout } from "../write/writeOutput.js";
import { compareSnapshots, type Comparison } from "./compareSnapshots.js";
import { catalogueAt, findRepository, resolveCommit, type Repository } from "./gitRevision.js";
import { folderReader, readSnapshot, urlReader, type Snapshot } from "./readSnapshot.js";

/** The JSON report's format number: a reader refuses one it does not know (schemas/diff.schema.json). */
export const DIFF_FORMAT = 1;

/** What a side was, as the report says it. */
export type SideInfo = {
  /** The argument as given. */
  argument: string;
  /** The file index's revision and build time. */
  indexRevision: number;
  built: string;
  /** The id (hex) of the key whose signature of entry.json held: a folder or deployment read with --key. */
  signedBy?: string;
} & (
  | { kind: "folder" }
  | { kind: "url" }
  | {
      kind: "revision";
      commit: string;
      /** How its build went: full, incremental or unchanged (a rebuild), compared (rendered, written by content). */
      build: BuildMode["kind"];
    }
);

export interface DiffReport extends Comparison {
  format: typeof DIFF_FORMAT;
  a: SideInfo;
  b: SideInfo;
}

export interface DiffOptions {
  /** The two sides: a built folder, an http(s) base URL, or a git revision of the catalogue. */
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

type Side = { kind: "folder"; dir: string } | { kind: "url"; url: string } | { kind: "revision"; commit: string };

async function sideOf(argument: string, repo: () => Promise<Repository | undefined>): Promise<Side> {
  if (/^https?:\/\//i.test(argument)) {
    try {
      new URL(argument);
    } catch {
      throw new UsageError(`${argument} is not a valid URL`);
    }
    return { kind: "url", url: argument };
  }
  if (existsSync(argument) && statSync(argument).isDirectory()) return { kind: "folder", dir: resolve(argument) };
  const repository = await repo();
  const commit = repository ? await resolveCommit(repository, argument) : undefined;
  if (commit) return { kind: "revision", commit };
  throw new UsageError(
    `${argument} is not a built folder, an http(s):// base URL or a git revision${repository ? "" : " (the catalogue folder is in no git repository)"}`,
  );
}

/** Compares two builds as their clients see them. */
export async function diffBuilds(options: DiffOptions): Promise<DiffReport> {
  let key: PublicKey | undefined;
  if (options.publicKey !== undefined) {
    const parsed = parsePublicKey(options.publicKey);
    if (typeof parsed === "string") throw new UsageError(`--key: ${parsed}`);
    key = parsed;
  }
  const trust = { ...(key ? { key } : {}), ...(options.now !== undefined ? { now: options.now } : {}) };
  let repository: Promise<Repository | undefined> | undefined;
  const repo = () => (repository ??= findRepository(options.catalogueDir));
  const sides = [await sideOf(options.a, repo), await sideOf(options.b, repo)] as const;
  const out = options.outDir !== undefined ? resolve(options.outDir) : undefined;
  // The first side is read before anything is built; the second must not be a folder a build replaces.
  const second = sides[1];
  if (out && second.kind === "folder" && second.dir === out && sides[0].kind === "revision")
    throw new UsageError(`${options.b} is the --out folder, which the first side is built into before it is read`);
  const temp = sides.some((s) => s.kind === "revision") ? mkdtempSync(join(tmpdir(), "shopfront-diff-")) : undefined;
  try {
    const read = async (side: Side, which: "a" | "b"): Promise<{ snapshot: Snapshot; info: SideInfo }> => {
      const argument = options[which];
      if (side.kind === "url") {
        options.onSide?.(which, "reading");
        const snapshot = await readSnapshot(urlReader(side.url), side.url.replace(/\/+$/, ""), trust);
        return { snapshot, info: { argument, kind: "url", ...indexOf(snapshot) } };
      }
      if (side.kind === "folder") {
        options.onSide?.(which, "reading");
        const snapshot = {
          ...(await readSnapshot(folderReader(side.dir), argument, trust)),
          ...folderProblems(side.dir),
        };
        return { snapshot, info: { argument, kind: "folder", ...indexOf(snapshot) } };
      }
      options.onSide?.(which, "building");
      const outDir = out ?? join(temp!, "out");
      const checkoutDir = out ? join(outputLayout(out).home, "diff-checkout") : join(temp!, "checkout");
      const built = await buildRevision((await repo())!, side.commit, argument, outDir, checkoutDir, options);
      const snapshot = { ...(await readSnapshot(folderReader(outDir), argument)), problems: built.problems };
      return {
        snapshot,
        info: {
          argument,
          kind: "revision",
          commit: side.commit,
          build: built.mode,
          indexRevision: snapshot.revision,
          built: snapshot.built,
        },
      };
    };
    const a = await read(sides[0], "a");
    const b = await read(sides[1], "b");
    return { format: DIFF_FORMAT, a: a.info, b: b.info, ...compareSnapshots(a.snapshot, b.snapshot) };
  } finally {
    if (temp) rmSync(temp, { recursive: true, force: true });
  }
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

/** Builds the catalogue at `commit` into `outDir`; its problems and how it went, or a failure when it has an error. */
async function buildRevision(
  repository: Repository,
  commit: string,
  argument: string,
  outDir: string,
  checkoutDir: string,
  options: DiffOptions,
): Promise<{ problems: Problem[]; mode: BuildMode["kind"] }> {
  const catalogueDir = await catalogueAt(repository, commit, checkoutDir);
  const result = await buildCatalogue({
    catalogueDir,
    outDir,
    targets: options.targets ?? [],
    site: options.site ?? true,
    ...(options.baseUrl !== undefined ? { baseUrl: options.baseUrl } : {}),
    ...(options.featuredDay !== undefined ? { featuredDay: options.featuredDay } : {}),
    index: { mirrors: [...(options.mirrors ?? [])], secretKey: undefined },
  });
  const errors = result.problems.filter(isError);
  if (!result.built || errors.length > 0)
    throw new FailureError(
      `${argument} does not build: ${errors.length} error${errors.length === 1 ? "" : "s"} (npx shopfront validate lists them), first ${errors[0]?.file ?? "?"}: ${errors[0]?.message ?? "?"}`,
    );
  return { problems: result.problems, mode: result.built.mode.kind };
}
