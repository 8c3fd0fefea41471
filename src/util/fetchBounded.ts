// One GET of a server that is not trusted, for every reader of a deployment (verify, diff's URL
// side, import api; check reads its bodies through readBounded): the body read in a stream and
// never past a cap (the size a signed index gives where it gives one, a stated cap where not), so an
// endless body costs no more than that; each redirect checked at its own hop (within the origin the
// reader was given, never from https to http); an idle timeout between chunks beside an overall
// deadline that grows with the size expected, so a stalled server is left soon, a trickling one
// within a bound, and a large file over a slow link still arrives.
import { createHash } from "node:crypto";

/** How long a reader waits: a request and its body are bounded in time as in size. */
export interface FetchTiming {
  /** No byte (nor headers) for this long: the server is stalled. */
  idleMs: number;
  /** The whole request has this long, plus the time the expected size takes at `bytesPerSecond`. */
  baseMs: number;
  /** The slowest link a body is waited for at: a body slower than this fails at the deadline. */
  bytesPerSecond: number;
}

export const FETCH_TIMING: FetchTiming = { idleMs: 30_000, baseMs: 30_000, bytesPerSecond: 64 * 1024 };

/** Redirects followed at most, each checked at its own hop. */
export const MAX_REDIRECTS = 5;

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** When a body of `bytes` must be done by, from the request's start. */
export function deadlineFor(bytes: number, timing: FetchTiming = FETCH_TIMING): number {
  return timing.baseMs + Math.ceil((bytes / timing.bytesPerSecond) * 1000);
}

function describeError(error: unknown): string {
  return error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : String(error);
}

/**
 * Why a redirect at one hop, from `from` to `to`, is not followed for a reader of `origin`, or
 * undefined when it is: `to` must be within the origin (or the same host moved from http to https),
 * and no hop goes from https to http, so http -> https -> http on one host is refused at its last hop.
 */
export function redirectProblem(from: URL, to: URL, origin: URL): string | undefined {
  const within =
    to.origin === origin.origin ||
    (origin.protocol === "http:" && to.protocol === "https:" && to.hostname === origin.hostname);
  if (!within)
    return `redirects to ${to.href}, outside ${origin.origin}: not followed (a redirect is followed within the deployment's origin only)`;
  if (from.protocol === "https:" && to.protocol !== "https:")
    return `redirects from ${from.href} to ${to.href}, from https to http: not followed`;
  return undefined;
}

/** What bounds one GET. */
export interface BoundedRequest {
  /** The origin every redirect must stay within (the deployment's base URL). */
  origin: URL;
  /** No more of the body than this is read. */
  cap: number;
  /** The size expected (the index's), when known: the deadline is counted from it, else from `cap`. */
  expected?: number;
  /** A deadline given (import api's --timeout), instead of the one counted from the size. */
  deadlineMs?: number;
  headers?: Record<string, string>;
  timing?: FetchTiming;
}

/**
 * Why a GET gave no body: its status when not 200, `longer` when the body passed its cap, `timeout`
 * when the idle time or the deadline passed.
 */
export interface Failed {
  problem: string;
  status?: number;
  longer?: true;
  timeout?: true;
}

/** Aborts a request when no byte came for the idle time, or at the deadline; says which. */
interface Watchdog {
  signal: AbortSignal;
  /** A byte came: the idle time starts again. */
  poke(): void;
  /** Why it aborted, once it did. */
  fired(): string | undefined;
  stop(): void;
}

function watchdog(timing: FetchTiming, deadlineMs: number): Watchdog {
  const controller = new AbortController();
  let why: string | undefined;
  const abort = (reason: string) => {
    why ??= reason;
    controller.abort(new Error(reason));
  };
  const deadline = setTimeout(() => abort(`not done within ${deadlineMs / 1000} s`), deadlineMs);
  let idle: NodeJS.Timeout | undefined;
  const poke = () => {
    clearTimeout(idle);
    idle = setTimeout(() => abort(`no byte for ${timing.idleMs / 1000} s`), timing.idleMs);
  };
  poke();
  return {
    signal: controller.signal,
    poke,
    fired: () => why,
    stop: () => {
      clearTimeout(idle);
      clearTimeout(deadline);
    },
  };
}

/** A GET of `url`, each redirect checked at its hop (redirectProblem); a string says why there is no answer. */
async function request(url: string, req: BoundedRequest, dog: Watchdog): Promise<Response | string> {
  let at = new URL(url);
  for (let hops = 0; ; hops++) {
    let res: Response;
    try {
      res = await fetch(at, {
        signal: dog.signal,
        redirect: "manual",
        ...(req.headers ? { headers: req.headers } : {}),
      });
    } catch (error) {
      return dog.fired() ?? describeError(error);
    }
    dog.poke();
    if (!REDIRECTS.has(res.status)) return res;
    await res.body?.cancel().catch(() => undefined);
    const location = res.headers.get("location");
    if (location === null) return `answered ${res.status} with no Location`;
    let next: URL;
    try {
      next = new URL(location, at);
    } catch {
      // Not a URL: the reader names the redirect.
      return `redirects to ${JSON.stringify(location)}, not a URL`;
    }
    const problem = redirectProblem(at, next, req.origin);
    if (problem !== undefined) return problem;
    if (hops >= MAX_REDIRECTS) return `redirects more than ${MAX_REDIRECTS} times`;
    at = next;
  }
}

/**
 * A body's chunks, up to `cap` bytes: "longer" as soon as it has more (the rest is never read);
 * `poke` is called at each chunk, `fired` says why the stream ended early when something aborted it.
 */
export async function readBounded(
  chunks: AsyncIterable<Uint8Array>,
  cap: number,
  onChunk: (chunk: Uint8Array) => void,
  watch: { poke(): void; fired(): string | undefined } = { poke: () => undefined, fired: () => undefined },
): Promise<{ size: number } | "longer" | { error: string }> {
  let size = 0;
  try {
    // Leaving the loop early cancels the stream: an endless body costs at most `cap` bytes.
    for await (const chunk of chunks) {
      watch.poke();
      size += chunk.byteLength;
      if (size > cap) return "longer";
      onChunk(chunk);
    }
  } catch (error) {
    return { error: watch.fired() ?? describeError(error) };
  }
  return { size };
}

function readFailure(read: "longer" | { error: string }, cap: number, dog: Watchdog): Failed {
  if (read === "longer") return { problem: `longer than ${cap} bytes (not read further)`, longer: true };
  return dog.fired() !== undefined ? { problem: read.error, timeout: true } : { problem: read.error };
}

/**
 * A GET whose body is handed to `onChunk` up to the cap, when it answers 200 (or any status but a
 * redirect, with `anyStatus`); its status and size, or why there is none.
 */
async function fetchChunks(
  url: string,
  req: BoundedRequest,
  onChunk: (chunk: Uint8Array) => void,
  anyStatus = false,
): Promise<{ status: number; statusText: string; size: number } | Failed> {
  const timing = req.timing ?? FETCH_TIMING;
  const dog = watchdog(timing, req.deadlineMs ?? deadlineFor(req.expected ?? req.cap, timing));
  try {
    const res = await request(url, req, dog);
    if (typeof res === "string") return dog.fired() !== undefined ? { problem: res, timeout: true } : { problem: res };
    if (res.status !== 200 && !anyStatus) {
      await res.body?.cancel().catch(() => undefined);
      return { problem: `answered ${res.status}`, status: res.status };
    }
    const answered = { status: res.status, statusText: res.statusText };
    const declared = Number(res.headers.get("content-length") ?? Number.NaN);
    if (declared > req.cap) {
      await res.body?.cancel().catch(() => undefined);
      return readFailure("longer", req.cap, dog);
    }
    if (res.body === null) return { ...answered, size: 0 };
    const read = await readBounded(res.body as AsyncIterable<Uint8Array>, req.cap, onChunk, dog);
    return read === "longer" || "error" in read ? readFailure(read, req.cap, dog) : { ...answered, ...read };
  } finally {
    dog.stop();
  }
}

/** Any answer but a redirect, its body up to `req.cap` bytes (an API's error page is read too, to be described). */
export async function fetchAnswer(
  url: string,
  req: BoundedRequest,
): Promise<{ status: number; statusText: string; body: Buffer } | Failed> {
  const chunks: Uint8Array[] = [];
  const got = await fetchChunks(url, req, (chunk) => chunks.push(chunk), true);
  return "size" in got
    ? { status: got.status, statusText: got.statusText, body: Buffer.concat(chunks, got.size) }
    : got;
}

/** A GET's body when it answers 200 with at most `req.cap` bytes. */
export async function fetchBounded(url: string, req: BoundedRequest): Promise<{ body: Buffer } | Failed> {
  const chunks: Uint8Array[] = [];
  const got = await fetchChunks(url, req, (chunk) => chunks.push(chunk));
  return "size" in got ? { body: Buffer.concat(chunks, got.size) } : got;
}

/** A served file's size and SHA-256, streamed up to `req.cap` bytes, or why there are none. */
export async function fetchDigestBounded(
  url: string,
  req: BoundedRequest,
): Promise<{ size: number; sha256: string } | Failed> {
  const hash = createHash("sha256");
  const got = await fetchChunks(url, req, (chunk) => hash.update(chunk));
  return "size" in got ? { size: got.size, sha256: hash.digest("hex") } : got;
}
