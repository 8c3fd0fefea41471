// `shopfront verify`: fetch a deployment's signed file index, check its signature and shards, then
// fetch its files (all, or a sample) and compare each with the index; with mirrors, say of each
// whether it serves the same revision, an older one, or something else. Returns data; the CLI prints.
import { createHash } from "node:crypto";
import { FILE_INDEX } from "../routes/routeTable.js";
import { forEachConcurrently } from "../util/forEachConcurrently.js";
import { FailureError } from "../util/errors.js";
import {
  parseEntry,
  parseShard,
  sha256Hex,
  shardOf,
  type IndexedFile,
  type IndexEntry,
  type ShardRef,
} from "./fileIndex.js";
import { keyIdHex, parsePublicKey, verifyMinisign, type PublicKey } from "./minisign.js";

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
}

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
  revision: number;
  built: string;
  /** Files the index lists. */
  indexed: number;
  /** Files fetched and compared. */
  checked: number;
  badShards: { path: string; detail: string }[];
  files: FileProblem[];
  mirrors?: MirrorReport[];
  /** Everything checked is as the signed index says. */
  ok: boolean;
}

const TIMEOUT_MS = 60_000;

function join(base: string, path: string): string {
  return `${base.replace(/\/+$/, "")}${path}`;
}

/** A GET's status and body; a network failure is a FailureError naming the URL. */
async function get(url: string): Promise<{ status: number; body: Buffer }> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS), redirect: "follow" });
    return { status: res.status, body: Buffer.from(await res.arrayBuffer()) };
  } catch (error) {
    throw new FailureError(
      `cannot fetch ${url}: ${error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : String(error)}`,
    );
  }
}

/** A served file's size and SHA-256, streamed, or its status when not 200. */
async function fetchDigest(
  url: string,
): Promise<{ size: number; sha256: string } | { status: number } | { error: string }> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS), redirect: "follow" });
    if (res.status !== 200 || res.body === null) {
      await res.body?.cancel();
      return { status: res.status };
    }
    const hash = createHash("sha256");
    let size = 0;
    for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
      hash.update(chunk);
      size += chunk.byteLength;
    }
    return { size, sha256: hash.digest("hex") };
  } catch (error) {
    return {
      error: error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : String(error),
    };
  }
}

/** A deployment's entry, fetched and parsed, with its signature checked against `key` (or its own served key). */
async function fetchEntry(
  base: string,
  key: PublicKey | undefined,
): Promise<{ entry: IndexEntry; bytes: Buffer; signature: SignatureOutcome; key?: PublicKey }> {
  const entryUrl = join(base, `/${FILE_INDEX.entry}`);
  const fetched = await get(entryUrl);
  if (fetched.status !== 200)
    throw new FailureError(
      `${entryUrl} answered ${fetched.status}: the deployment has no file index (built by shopfront build?)`,
    );
  const entry = parseEntry(fetched.body.toString("latin1"));
  if (typeof entry === "string") throw new FailureError(`${entryUrl} is not a file index entry: ${entry}`);
  const sig = await get(join(base, `/${FILE_INDEX.signature}`));
  if (sig.status === 404) return { entry, bytes: fetched.body, signature: { kind: "unsigned" } };
  if (sig.status !== 200)
    return {
      entry,
      bytes: fetched.body,
      signature: { kind: "bad", reason: `${FILE_INDEX.signature} answered ${sig.status}` },
    };
  let used = key;
  if (used === undefined) {
    const served = await get(join(base, `/${FILE_INDEX.publicKey}`));
    const parsed = served.status === 200 ? parsePublicKey(served.body.toString("latin1")) : `answered ${served.status}`;
    if (typeof parsed === "string")
      return {
        entry,
        bytes: fetched.body,
        signature: { kind: "bad", reason: `the served ${FILE_INDEX.publicKey}: ${parsed}` },
      };
    used = parsed;
  }
  const checked = verifyMinisign(fetched.body, sig.body.toString("latin1"), used);
  const signature: SignatureOutcome = checked.ok
    ? {
        kind: "verified",
        keyId: keyIdHex(used.keyId),
        trustedComment: checked.trustedComment,
        key: key ? "given" : "served",
      }
    : { kind: "bad", reason: checked.reason };
  return { entry, bytes: fetched.body, signature, key: used };
}

/** Each shard fetched and checked against its entry: the files of the good ones, the bad ones named. */
async function fetchShards(
  base: string,
  shards: readonly ShardRef[],
  concurrency: number,
): Promise<{ files: (IndexedFile[] | undefined)[]; bad: { path: string; detail: string }[] }> {
  const files: (IndexedFile[] | undefined)[] = shards.map(() => undefined);
  const bad: { path: string; detail: string }[] = [];
  await forEachConcurrently(
    shards.map((ref, i) => ({ ref, i })),
    concurrency,
    async ({ ref, i }) => {
      const got = await get(join(base, `/${ref.path}`));
      if (got.status !== 200) return void bad.push({ path: ref.path, detail: `answered ${got.status}` });
      if (got.body.length !== ref.size || sha256Hex(got.body) !== ref.sha256)
        return void bad.push({ path: ref.path, detail: "its bytes are not the ones entry.json names" });
      const parsed = parseShard(got.body.toString("latin1"));
      if (typeof parsed === "string") return void bad.push({ path: ref.path, detail: parsed });
      files[i] = parsed;
    },
  );
  return { files, bad };
}

/** `n` of `list` picked at random (all of it when n is larger), in the list's order. */
function sampleOf<T>(list: readonly T[], n: number | undefined, random: () => number): T[] {
  if (n === undefined || n >= list.length) return [...list];
  const picked = [...list.keys()];
  for (let i = 0; i < n; i++) {
    const j = i + Math.floor(random() * (picked.length - i));
    [picked[i], picked[j]] = [picked[j]!, picked[i]!];
  }
  return picked
    .slice(0, n)
    .sort((a, b) => a - b)
    .map((i) => list[i]!);
}

/** Compares each file served under `base` with the index; a file that differs but matches the previous index is stale. */
async function checkFiles(
  base: string,
  files: readonly IndexedFile[],
  previous: ((path: string) => Promise<IndexedFile | undefined>) | undefined,
  concurrency: number,
  onDone?: () => void,
): Promise<FileProblem[]> {
  const problems: FileProblem[] = [];
  await forEachConcurrently(files, concurrency, async (file) => {
    const got = await fetchDigest(join(base, file.path));
    onDone?.();
    if ("error" in got) return void problems.push({ path: file.path, problem: "unreachable", detail: got.error });
    if ("status" in got)
      return void problems.push({
        path: file.path,
        problem: got.status === 404 || got.status === 410 ? "missing" : "unreachable",
        detail: `answered ${got.status}`,
      });
    if (got.size === file.size && got.sha256 === file.sha256) return;
    const before = await previous?.(file.path);
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
      shard = fetchShards(base, [previous.shards[i]!], 1).then((got) => got.files[0]);
      shards.set(i, shard);
    }
    return (await shard)?.find((f) => f.path === path);
  };
}

export async function verifyDeployment(options: VerifyOptions): Promise<VerifyReport> {
  let key: PublicKey | undefined;
  if (options.publicKey !== undefined) {
    const parsed = parsePublicKey(options.publicKey);
    if (typeof parsed === "string") throw new FailureError(`--key: ${parsed}`);
    key = parsed;
  }
  const { entry, bytes, signature, key: used } = await fetchEntry(options.url, key);
  const shards = await fetchShards(options.url, entry.shards, options.concurrency);
  const indexed = shards.files.flatMap((files) => files ?? []);
  const picked = sampleOf(indexed, options.sample, options.random ?? Math.random);
  const mirrorCount = options.mirrors ? entry.mirrors.length : 0;
  const total = picked.length * (1 + mirrorCount);
  let done = 0;
  const onDone = () => options.onProgress?.(++done, total);
  options.onProgress?.(0, total);
  const files = await checkFiles(options.url, picked, previousLookup(options.url, entry), options.concurrency, onDone);
  const mirrors = options.mirrors
    ? await checkMirrors(entry, bytes, used, picked, options.concurrency, onDone)
    : undefined;
  const ok =
    // An unsigned index proves nothing but the files' consistency with it: a failure only when a key was given.
    (signature.kind === "verified" || (signature.kind === "unsigned" && key === undefined)) &&
    shards.bad.length === 0 &&
    files.length === 0 &&
    (mirrors ?? []).every((m) => m.status === "current");
  return {
    url: options.url,
    signature,
    revision: entry.revision,
    built: entry.built,
    indexed: indexed.length,
    checked: picked.length,
    badShards: shards.bad,
    files,
    ...(mirrors ? { mirrors } : {}),
    ok,
  };
}

/** Each mirror of the entry: its entry's revision against this one's, then, at the same revision, its files. */
async function checkMirrors(
  entry: IndexEntry,
  bytes: Buffer,
  key: PublicKey | undefined,
  picked: readonly IndexedFile[],
  concurrency: number,
  onDone: () => void,
): Promise<MirrorReport[]> {
  const reports: MirrorReport[] = [];
  for (const url of entry.mirrors) {
    const skip = () => picked.forEach(onDone);
    let theirs: Awaited<ReturnType<typeof fetchEntry>>;
    try {
      theirs = await fetchEntry(url, key);
    } catch (error) {
      skip();
      reports.push({ url, status: "unreachable", detail: error instanceof Error ? error.message : String(error) });
      continue;
    }
    const revision = theirs.entry.revision;
    if (key && theirs.signature.kind !== "verified") {
      skip();
      const why = theirs.signature.kind === "bad" ? theirs.signature.reason : "its index is unsigned";
      reports.push({ url, status: "altered", revision, detail: why });
    } else if (revision < entry.revision) {
      skip();
      reports.push({ url, status: "behind", revision, detail: `${entry.revision - revision} behind` });
    } else if (revision > entry.revision) {
      skip();
      reports.push({ url, status: "ahead", revision, detail: `${revision - entry.revision} ahead` });
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
