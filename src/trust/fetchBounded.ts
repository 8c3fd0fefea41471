// A GET of a server that is not trusted: its body read in a stream and never past a cap (the size
// the signed index gives), so an endless body costs no more than that; redirects followed only
// within the deployment's origin, never from https to http; a request and its body bounded in time.
import { createHash } from "node:crypto";
import { INDEX_LIMITS } from "./fileIndex.js";

/** A request and the reading of its body end after this long (a server that drips a body slowly). */
const TIMEOUT_MS = 60_000;

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

function describeError(error: unknown): string {
  return error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : String(error);
}

/**
 * Whether a redirect from a deployment at `base` may be followed to `to`: within its own origin, or
 * from http to https on the same host; never to another host, never from https to http.
 */
function withinOrigin(to: URL, base: URL): boolean {
  if (to.origin === base.origin) return true;
  return base.protocol === "http:" && to.protocol === "https:" && to.hostname === base.hostname;
}

/**
 * A GET of `url`, following redirects only within `base`'s origin (withinOrigin), at most
 * INDEX_LIMITS.redirects of them; a string says why there is no answer.
 */
async function request(url: string, base: URL): Promise<Response | string> {
  const signal = AbortSignal.timeout(TIMEOUT_MS);
  let at = url;
  for (let hops = 0; ; hops++) {
    let res: Response;
    try {
      res = await fetch(at, { signal, redirect: "manual" });
    } catch (error) {
      return describeError(error);
    }
    if (!REDIRECTS.has(res.status)) return res;
    await res.body?.cancel().catch(() => undefined);
    const location = res.headers.get("location");
    if (location === null) return `answered ${res.status} with no Location`;
    let next: URL;
    try {
      next = new URL(location, at);
    } catch {
      // Not a URL: verify names the redirect.
      return `redirects to ${JSON.stringify(location)}, not a URL`;
    }
    if (!withinOrigin(next, base))
      return `redirects to ${next.href}, outside ${base.origin}: not followed (a redirect is followed within the deployment's origin only)`;
    if (hops >= INDEX_LIMITS.redirects) return `redirects more than ${INDEX_LIMITS.redirects} times`;
    at = next.href;
  }
}

/** The body's chunks, up to `cap` bytes: "longer" as soon as it has more (the rest is never read). */
async function readChunks(
  res: Response,
  cap: number,
  onChunk: (chunk: Uint8Array) => void,
): Promise<{ size: number } | "longer" | { error: string }> {
  const declared = Number(res.headers.get("content-length") ?? Number.NaN);
  if (declared > cap || res.body === null) {
    await res.body?.cancel().catch(() => undefined);
    return res.body === null ? { size: 0 } : "longer";
  }
  let size = 0;
  try {
    // Leaving the loop early cancels the stream: an endless body costs at most `cap` bytes.
    for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
      size += chunk.byteLength;
      if (size > cap) return "longer";
      onChunk(chunk);
    }
  } catch (error) {
    return { error: describeError(error) };
  }
  return { size };
}

/** Why a GET gave no body: its status when not 200, `longer` when the body passed its cap. */
export interface Failed {
  problem: string;
  status?: number;
  longer?: true;
}

/** No request, or a response that is not 200, as a Failed (its body left unread). */
async function failedOf(res: Response | string): Promise<Failed | undefined> {
  if (typeof res === "string") return { problem: res };
  if (res.status === 200) return undefined;
  await res.body?.cancel().catch(() => undefined);
  return { problem: `answered ${res.status}`, status: res.status };
}

function readFailure(read: "longer" | { error: string }, cap: number): Failed {
  return read === "longer"
    ? { problem: `longer than ${cap} bytes (not read further)`, longer: true }
    : { problem: read.error };
}

/** A GET's body when it answers 200 with at most `cap` bytes. */
export async function fetchBounded(url: string, base: URL, cap: number): Promise<{ body: Buffer } | Failed> {
  const res = await request(url, base);
  const failed = await failedOf(res);
  if (failed) return failed;
  const chunks: Uint8Array[] = [];
  const read = await readChunks(res as Response, cap, (chunk) => chunks.push(chunk));
  if (read === "longer" || "error" in read) return readFailure(read, cap);
  return { body: Buffer.concat(chunks, read.size) };
}

/** A served file's size and SHA-256, streamed up to `cap` bytes, or why there are none. */
export async function fetchDigestBounded(
  url: string,
  base: URL,
  cap: number,
): Promise<{ size: number; sha256: string } | Failed> {
  const res = await request(url, base);
  const failed = await failedOf(res);
  if (failed) return failed;
  const hash = createHash("sha256");
  const read = await readChunks(res as Response, cap, (chunk) => hash.update(chunk));
  if (read === "longer" || "error" in read) return readFailure(read, cap);
  return { size: read.size, sha256: hash.digest("hex") };
}
