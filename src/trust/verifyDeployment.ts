// Over 350 lines: verify's one pass (entry, signature, shards, files, mirrors), whose steps share the
// caps and the report they fill.
// `shopfront verify`: fetch a deployment's signed file index, check its signature and shards, then
// fetch its files (all, or a sample) and compare each with the index; with mirrors, say of each
// whether it serves the same revision, an older one, or something else. Returns data; the CLI prints.
// The server is not trusted: nothing the entry names is fetched before its signature holds, every
// body is read only up to the size the index gives (INDEX_LIMITS for the index's own), and a
// redirect is followed only within the deployment's origin (docs/trust.md).
import { FILE_INDEX } from "../routes/routeTable.js";
import { forEachConcurrently } from "../util/forEachConcurrently.js";
import { reservoir } from "../util/reservoir.js";
import { FailureError } from "../util/errors.js";
import {
  INDEX_LIMITS,
  parseEntry,
  parseShard,
  sha256Hex,
  shardOf,
  signaturePathOf,
  type IndexedFile,
  type IndexEntry,
  type ShardRef,
} from "./fileIndex.js";
import { formatPublicKey, keyIdHex, parsePublicKey, verifyMinisign, type PublicKey } from "./minisign.js";
import { checkRemembered, deploymentId, readTrustState, remember, writeTrustState } from "./trustState.js";
import { fetchBounded, fetchDigestBounded } from "../util/fetchBounded.js";

export interface VerifyOptions {
  /** The deployment's base URL. */
  url: string;
  /** The public key file's text (`--key`); without it the served minisign.pub is used. */
  publicKey?: string;
  /** Check this many files picked at random instead of all. */
  sample?: number;
  /** Also check each mirror the entry lists. */
  mirrors?: boolean;
  /** Requests in flight at once. */
  concurrency: number;
  onProgress?: (done: number, total: number) => void;
  /** Picks the sample (tests pass a seeded one). */
  random?: () => number;
  /** The time an entry's `expires` is compared with (tests pass another). */
  now?: () => number;
  /**
   * The file that remembers what was accepted of each deployment (`--state`, trustState.ts): an index
   * older than the one accepted before, or of its revision with other bytes, or signed by another
   * key, is refused before anything it names is fetched; a signed one accepted is remembered.
   */
  stateFile?: string;
}

/** What the state file said of the deployment, and what it now remembers. */
export type StateOutcome =
  | { kind: "remembered"; revision: number; previous?: number }
  | { kind: "unsigned" }
  | { kind: "refused"; reason: string };

export type SignatureOutcome =
  | { kind: "verified"; keyId: string; trustedComment: string; key: "given" | "served" }
  | { kind: "unsigned" }
  | { kind: "bad"; reason: string };

export interface FileProblem {
  path: string;
  problem: "missing" | "altered" | "stale" | "unreachable";
  detail: string;
}

export interface MirrorReport {
  url: string;
  status: "current" | "behind" | "ahead" | "altered" | "unreachable";
  revision?: number;
  detail?: string;
  files?: FileProblem[];
}

export interface VerifyReport {
  url: string;
  signature: SignatureOutcome;
  /** Why nothing after entry.json was fetched: its signature did not hold, or it expired. */
  stopped?: string;
  /** The entry's, once its signature held (or it is unsigned and no key was given). */
  revision?: number;
  built?: string;
  expires?: string;
  /** Files the index lists. */
  indexed: number;
  /** Files fetched and compared. */
  checked: number;
  badShards: { path: string; detail: string }[];
  files: FileProblem[];
  mirrors?: MirrorReport[];
  /** With a state file: whether the index was remembered, or why it was refused. */
  state?: StateOutcome;
  /** Everything checked is as the signed index says. */
  ok: boolean;
}

function join(base: string, path: string): string {
  return `${base.replace(/\/+$/, "")}${path}`;
}

/** A deployment's entry.json, its signature checked against `key` (or its own served key) before it is read. */
type FetchedEntry =
  | {
      entry: IndexEntry;
      bytes: Buffer;
      signature: SignatureOutcome & { kind: "verified" | "unsigned" };
      key?: PublicKey;
    }
  | { bytes: Buffer; signature: SignatureOutcome & { kind: "bad" }; entry?: never; key?: never };

/**
 * Fetches entry.json and its signature (by the entry's SHA-256, else beside it) and checks it. A bad
 * signature, or none when `key` is given, leaves the entry unread: nothing it names is trusted.
 */
async function fetchEntry(baseUrl: string, key: PublicKey | undefined): Promise<FetchedEntry> {
  const base = new URL(baseUrl);
  const entryUrl = join(baseUrl, `/${FILE_INDEX.entry}`);
  const fetched = await fetchBounded(entryUrl, { origin: base, cap: INDEX_LIMITS.entryBytes });
  if (!("body" in fetched))
    throw new FailureError(
      fetched.status === 404
        ? `${entryUrl} answered 404: the deployment has no file index (built by shopfront build?)`
        : `${entryUrl}: ${fetched.problem}`,
    );
  const bytes = fetched.body;
  const bad = (reason: string): FetchedEntry => ({ bytes, signature: { kind: "bad", reason } });
  let sigName = signaturePathOf(bytes);
  let sig = await fetchBounded(join(baseUrl, `/${sigName}`), { origin: base, cap: INDEX_LIMITS.signatureBytes });
  if ("status" in sig && sig.status === 404) {
    // A build from before the signature was also named by the entry's digest, or an entry not the one signed.
    sigName = FILE_INDEX.signature;
    sig = await fetchBounded(join(baseUrl, `/${sigName}`), { origin: base, cap: INDEX_LIMITS.signatureBytes });
  }
  let signature: SignatureOutcome;
  let used = key;
  if ("body" in sig) {
    if (used === undefined) {
      const served = await fetchBounded(join(baseUrl, `/${FILE_INDEX.publicKey}`), {
        origin: base,
        cap: INDEX_LIMITS.publicKeyBytes,
      });
      const parsed = "body" in served ? parsePublicKey(served.body.toString("latin1")) : served.problem;
      if (typeof parsed === "string") return bad(`the served ${FILE_INDEX.publicKey}: ${parsed}`);
      used = parsed;
    }
    const checked = verifyMinisign(bytes, sig.body.toString("latin1"), used);
    if (!checked.ok) return bad(`${sigName}: ${checked.reason}`);
    signature = {
      kind: "verified",
      keyId: keyIdHex(used.keyId),
      trustedComment: checked.trustedComment,
      key: key ? "given" : "served",
    };
  } else if (sig.status === 404) {
    if (key !== undefined) return bad(`${FILE_INDEX.entry} is unsigned (${FILE_INDEX.signature} answered 404)`);
    signature = { kind: "unsigned" };
  } else return bad(`${sigName}: ${sig.problem}`);
  const entry = parseEntry(bytes.toString("latin1"));
  if (typeof entry === "string") throw new FailureError(`${entryUrl} is not a file index entry: ${entry}`);
  return signature.kind === "verified" ? { entry, bytes, signature, key: used! } : { entry, bytes, signature };
}

/**
 * Each shard fetched (up to the size its entry gives) and checked, the bad ones named; the files of
 * the good ones are handed to `each` in the shards' order, a window of them at a time, so that
 * however slowly a server sends one shard, no more than a window of shards is held.
 */
async function fetchShards(
  baseUrl: string,
  shards: readonly ShardRef[],
  concurrency: number,
  each: (files: readonly IndexedFile[]) => void,
): Promise<{ bad: { path: string; detail: string }[] }> {
  const base = new URL(baseUrl);
  const bad: { path: string; detail: string }[] = [];
  const window = Math.max(1, concurrency) * SHARDS_A_FETCH;
  for (let start = 0; start < shards.length; start += window) {
    const got: (IndexedFile[] | undefined)[] = [];
    const refs = shards.slice(start, start + window).map((ref, k) => ({ ref, i: start + k }));
    await forEachConcurrently(refs, concurrency, async ({ ref, i }) => {
      const files = await fetchShard(base, baseUrl, ref, i, shards.length);
      if (Array.isArray(files)) got[i - start] = files;
      else bad.push(files);
    });
    for (const files of got) if (files) each(files);
  }
  return { bad };
}

/** Shards fetched at once for each request allowed in flight: the window verify holds of them. */
const SHARDS_A_FETCH = 4;

/** One shard fetched and checked against its entry: its files, or what is wrong with it. */
async function fetchShard(
  base: URL,
  baseUrl: string,
  ref: ShardRef,
  i: number,
  count: number,
): Promise<IndexedFile[] | { path: string; detail: string }> {
  const got = await fetchBounded(join(baseUrl, `/${ref.path}`), { origin: base, cap: ref.size });
  if (!("body" in got))
    return {
      path: ref.path,
      detail: got.longer
        ? `altered: longer than the ${ref.size} bytes entry.json gives (not read further)`
        : got.problem,
    };
  if (got.body.length !== ref.size || sha256Hex(got.body) !== ref.sha256)
    return { path: ref.path, detail: "altered: its bytes are not the ones entry.json names" };
  const parsed = parseShard(got.body.toString("latin1"));
  if (typeof parsed === "string") return { path: ref.path, detail: parsed };
  if (parsed.some((f) => shardOf(f.path, count) !== i))
    return { path: ref.path, detail: "lists a path of another shard" };
  return parsed;
}

/**
 * Compares each file served under `baseUrl` with the index, reading no more of a body than the
 * index's size (or the previous index's, to tell a stale file); a file that differs but matches the
 * previous index is stale.
 */
async function checkFiles(
  baseUrl: string,
  files: readonly IndexedFile[],
  previous: ((path: string) => Promise<IndexedFile | undefined>) | undefined,
  concurrency: number,
  onDone?: () => void,
): Promise<FileProblem[]> {
  const base = new URL(baseUrl);
  const problems: FileProblem[] = [];
  await forEachConcurrently(files, concurrency, async (file) => {
    const url = join(baseUrl, file.path);
    let got = await fetchDigestBounded(url, { origin: base, cap: file.size });
    let before: IndexedFile | undefined;
    if ("longer" in got) {
      // Longer than the index says: stale only if the previous build had it longer, so read that far.
      before = await previous?.(file.path);
      if (before && before.size > file.size) got = await fetchDigestBounded(url, { origin: base, cap: before.size });
    }
    onDone?.();
    if ("longer" in got)
      return void problems.push({
        path: file.path,
        problem: "altered",
        detail: `longer than the ${Math.max(file.size, before?.size ?? 0)} bytes the index gives (not read further)`,
      });
    if (!("sha256" in got))
      return void problems.push({
        path: file.path,
        problem: got.status === 404 || got.status === 410 ? "missing" : "unreachable",
        detail: got.problem,
      });
    if (got.size === file.size && got.sha256 === file.sha256) return;
    before ??= await previous?.(file.path);
    if (before && before.size === got.size && before.sha256 === got.sha256)
      return void problems.push({ path: file.path, problem: "stale", detail: "served as the previous build had it" });
    problems.push({
      path: file.path,
      problem: "altered",
      detail: got.size === file.size ? "its SHA-256 differs" : `${got.size} bytes where the index says ${file.size}`,
    });
  });
  return problems.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** The previous index's entry for a path, its shard fetched once asked for (and checked against the entry). */
function previousLookup(
  base: string,
  entry: IndexEntry,
): ((path: string) => Promise<IndexedFile | undefined>) | undefined {
  const previous = entry.previous;
  if (previous === undefined) return undefined;
  const shards = new Map<number, Promise<IndexedFile[] | undefined>>();
  return async (path) => {
    const i = shardOf(path, previous.shards.length);
    let shard = shards.get(i);
    if (shard === undefined) {
      shard = fetchShard(new URL(base), base, previous.shards[i]!, i, previous.shards.length).then((got) =>
        Array.isArray(got) ? got : undefined,
      );
      shards.set(i, shard);
    }
    return (await shard)?.find((f) => f.path === path);
  };
}

/** Why an entry is no longer to be trusted at `nowMs`, or undefined. */
function expiredAt(entry: IndexEntry, nowMs: number): string | undefined {
  if (entry.expires === undefined || Date.parse(entry.expires) > nowMs) return undefined;
  return `${FILE_INDEX.entry} expired at ${entry.expires}: a copy frozen on an old index, or one replayed (a fresh build renews it)`;
}

export async function verifyDeployment(options: VerifyOptions): Promise<VerifyReport> {
  let key: PublicKey | undefined;
  if (options.publicKey !== undefined) {
    const parsed = parsePublicKey(options.publicKey);
    if (typeof parsed === "string") throw new FailureError(`--key: ${parsed}`);
    key = parsed;
  }
  const fetched = await fetchEntry(options.url, key);
  const { signature } = fetched;
  const nothing = { url: options.url, signature, indexed: 0, checked: 0, badShards: [], files: [], ok: false };
  if (fetched.entry === undefined)
    return { ...nothing, stopped: "the signature does not hold, so nothing the entry names was fetched" };
  const { entry, bytes, key: used } = fetched;
  const about = {
    revision: entry.revision,
    built: entry.built,
    ...(entry.expires !== undefined ? { expires: entry.expires } : {}),
  };
  const now = (options.now ?? Date.now)();
  const expired = expiredAt(entry, now);
  if (expired !== undefined) return { ...nothing, ...about, stopped: expired };
  const state =
    options.stateFile !== undefined
      ? checkState(
          options.stateFile,
          options.url,
          { entry, bytes, key: signature.kind === "verified" ? used : undefined },
          now,
        )
      : undefined;
  if (state?.kind === "refused")
    return { ...nothing, ...about, state, stopped: `${options.stateFile}: ${state.reason}` };
  // The sample is picked as the shards come: a deployment of millions of files is never held whole.
  const sample = reservoir<IndexedFile>(options.sample, options.random ?? Math.random);
  const shards = await fetchShards(options.url, entry.shards, options.concurrency, (files) => {
    for (const f of files) sample.add(f);
  });
  const picked = sample.picked();
  const mirrorCount = options.mirrors ? entry.mirrors.length : 0;
  const total = picked.length * (1 + mirrorCount);
  let done = 0;
  const onDone = () => options.onProgress?.(++done, total);
  options.onProgress?.(0, total);
  const files = await checkFiles(options.url, picked, previousLookup(options.url, entry), options.concurrency, onDone);
  const mirrors = options.mirrors
    ? await checkMirrors({ entry, bytes, key: used }, picked, { concurrency: options.concurrency, onDone, now })
    : undefined;
  const ok =
    // An unsigned index proves nothing but the files' consistency with it: a failure only when a key was given.
    (signature.kind === "verified" || key === undefined) &&
    shards.bad.length === 0 &&
    files.length === 0 &&
    (mirrors ?? []).every((m) => m.status === "current");
  return {
    url: options.url,
    signature,
    ...about,
    indexed: sample.seen,
    checked: picked.length,
    badShards: shards.bad,
    files,
    ...(mirrors ? { mirrors } : {}),
    ...(state ? { state } : {}),
    ok,
  };
}

/**
 * The entry held to what the state file remembers of the deployment: refused, or accepted and (when
 * signed) remembered there.
 */
function checkState(
  file: string,
  url: string,
  fetched: { entry: IndexEntry; bytes: Buffer; key: PublicKey | undefined },
  nowMs: number,
): StateOutcome {
  const state = readTrustState(file);
  const id = deploymentId(url);
  const { entry, bytes, key } = fetched;
  const seen = {
    revision: entry.revision,
    entrySha256: sha256Hex(bytes),
    ...(key ? { key: { keyId: keyIdHex(key.keyId), publicKey: formatPublicKey(key).split("\n")[1]! } } : {}),
  };
  const before = state.deployments[id];
  const refused = checkRemembered(before, seen);
  if (refused !== undefined) return { kind: "refused", reason: refused };
  if (seen.key === undefined) return { kind: "unsigned" };
  writeTrustState(file, remember(state, id, { ...seen, key: seen.key }, nowMs));
  return { kind: "remembered", revision: entry.revision, ...(before ? { previous: before.revision } : {}) };
}

/**
 * Each mirror of the (signed) entry: its entry's signature, then its revision against this one's,
 * then, at the same revision, its files. A mirror whose signature does not hold is fetched no further.
 */
async function checkMirrors(
  signed: { entry: IndexEntry; bytes: Buffer; key: PublicKey | undefined },
  picked: readonly IndexedFile[],
  run: { concurrency: number; onDone: () => void; now: number },
): Promise<MirrorReport[]> {
  const { entry, bytes, key } = signed;
  const { concurrency, onDone, now } = run;
  const reports: MirrorReport[] = [];
  for (const url of entry.mirrors) {
    const skip = () => picked.forEach(onDone);
    let theirs: FetchedEntry;
    try {
      theirs = await fetchEntry(url, key);
    } catch (error) {
      skip();
      reports.push({ url, status: "unreachable", detail: error instanceof Error ? error.message : String(error) });
      continue;
    }
    if (theirs.entry === undefined) {
      skip();
      reports.push({ url, status: "altered", detail: theirs.signature.reason });
      continue;
    }
    const revision = theirs.entry.revision;
    if (key && theirs.signature.kind !== "verified") {
      skip();
      reports.push({ url, status: "altered", revision, detail: "its index is unsigned" });
    } else if (revision < entry.revision) {
      skip();
      const expired = expiredAt(theirs.entry, now);
      reports.push({
        url,
        status: "behind",
        revision,
        detail: `older than revision ${entry.revision}${expired ? `; ${expired}` : ""}`,
      });
    } else if (revision > entry.revision) {
      skip();
      reports.push({ url, status: "ahead", revision, detail: `newer than revision ${entry.revision}` });
    } else if (!theirs.bytes.equals(bytes)) {
      skip();
      reports.push({ url, status: "altered", revision, detail: "its entry.json differs at the same revision" });
    } else {
      const files = await checkFiles(url, picked, undefined, concurrency, onDone);
      reports.push(
        files.length === 0 ? { url, status: "current", revision } : { url, status: "altered", revision, files },
      );
    }
  }
  return reports;
}
