// Over 350 lines: sending the suite's cases and judging their answers, with the bounded raw
// request they share.
// Runs the conformance suite: sends each case exactly as written, judges each answer against the
// build, and counts per report row what was checked and what failed.
import { request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { request as httpsRequest } from "node:https";
import { contentTypeOf, RESPONSE_HEADERS, servedCacheControlOf } from "../routes/routeTable.js";
import { escapeRegex } from "../routes/routeSyntax.js";
import { forEachConcurrently } from "../util/forEachConcurrently.js";
import { deadlineFor, readBounded } from "../util/fetchBounded.js";
import { VERSION } from "../util/version.js";
import { CONFORMANCE_ROWS, type ConformanceRow } from "../routes/conformanceRows.js";
import type { ConformanceCase, ExpectedApi } from "./conformance.js";

export interface HttpResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/**
 * The User-Agent of every request `check` sends: `stats count` knows it and counts none of them as
 * a download (stats/countDownloads.ts).
 */
export const CHECK_USER_AGENT = `shopfront-check/${VERSION}`;

/** The most of a body check reads when it expects no file (a 404's JSON, a refusal, a redirect's page). */
export const CHECK_BODY_BYTES = 1024 * 1024;

/** What bounds one request of check: its body's cap and how long it may go without a byte. */
export interface RawLimits {
  cap?: number;
  idleMs?: number;
}

/**
 * Sends the request-target exactly as given (fetch would normalize `..` and `%2e` away). The answer
 * is not trusted: its body is read up to `cap` (util/fetchBounded.ts's readBounded, as every reader
 * of a deployment does), within an idle time between chunks and a deadline that grows with the cap.
 */
export function sendRaw(
  baseUrl: string,
  method: string,
  target: string,
  limits: RawLimits = {},
): Promise<HttpResponse> {
  const base = new URL(baseUrl);
  const send = base.protocol === "https:" ? httpsRequest : httpRequest;
  const prefix = base.pathname.replace(/\/$/, "");
  const cap = limits.cap ?? CHECK_BODY_BYTES;
  const idleMs = limits.idleMs ?? 15_000;
  const deadlineMs = deadlineFor(cap);
  return new Promise((resolve, reject) => {
    const req = send(
      {
        method,
        host: base.hostname,
        port: base.port,
        path: `${prefix}${target}`,
        headers: { host: base.host, connection: "close", "user-agent": CHECK_USER_AGENT },
        timeout: idleMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        void readBounded(res, cap, (chunk) => chunks.push(chunk as Buffer)).then((read) => {
          clearTimeout(deadline);
          if (read === "longer") {
            req.destroy();
            reject(new Error(`a body longer than ${cap} bytes (not read further)`));
          } else if ("error" in read) reject(new Error(read.error));
          else resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks, read.size) });
        });
      },
    );
    const deadline = setTimeout(() => req.destroy(new Error(`not done within ${deadlineMs / 1000} s`)), deadlineMs);
    req.on("timeout", () => req.destroy(new Error(`no byte within ${idleMs / 1000} s`)));
    req.on("error", (error) => {
      clearTimeout(deadline);
      reject(error);
    });
    req.end();
  });
}

/**
 * A case's cap: a file's own size four times over (a v3 or v4 file with a longer origin in its URLs
 * is still read, to be named as such), and never less than CHECK_BODY_BYTES.
 */
function capOf(c: ConformanceCase, api: ExpectedApi): number {
  const expected = c.expect.kind === "file" ? (api.files.get(c.expect.file)?.length ?? 0) : 0;
  return Math.max(CHECK_BODY_BYTES, 4 * expected);
}

export interface Failure {
  row: ConformanceRow;
  target: string;
  method: string;
  reason: string;
  /**
   * For a file of the build answered as an older build would: missing (404), or different (200
   * with a JSON body of the same shape that is no file of this build).
   */
  stale?: { file: string; how: "missing" | "different" };
  /**
   * For a v3 or v4 file served as this build makes it but for its URLs, which name another origin:
   * that origin (the deployment was built with another base URL).
   */
  baseUrl?: string;
}

function mediaType(headers: IncomingHttpHeaders): string {
  return String(headers["content-type"] ?? "")
    .split(";")[0]!
    .trim()
    .toLowerCase();
}

function describeBody(body: Buffer): string {
  const text = body.toString("utf8");
  return text.length > 60 ? `${JSON.stringify(text.slice(0, 57))}...` : JSON.stringify(text);
}

type HeaderCheck = "cors" | "content-type" | "error-body" | "cache";

/**
 * What of an answer's headers and body is judged besides its status. A malformed or traversing
 * request may be refused by the server before any config is read (Go's net/http answers a bad
 * escape with a bare 400, Apache an encoded slash before .htaccess): then only the refusal matters.
 * Every answer to a well-formed request, and anything served with 200, carries the API's headers.
 */
function headerChecksFor(c: ConformanceCase, status: number): HeaderCheck[] {
  if ((c.expect.kind === "safe" || c.expect.kind === "refused") && status !== 200) return [];
  const checks: HeaderCheck[] = ["cors"];
  if ((status === 200 || status === 404 || status === 405) && c.method !== "OPTIONS") checks.push("content-type");
  if (status === 404 && c.method !== "HEAD") checks.push("error-body");
  if (status === 200 && c.expect.kind === "file") checks.push("cache");
  return checks;
}

/** The row a header check of a case counts in: the site's, the package files' or the Homebrew Browser's own row for their URLs, else the check's. */
function rowOf(c: ConformanceCase, check: HeaderCheck): ConformanceRow {
  if (check === "cache") return check;
  return c.row === "site" || c.row === "package-files" || c.row === "hbb" ? c.row : check;
}

/** The rows about headers and bodies that an answer is judged on. */
export function headerRowsFor(c: ConformanceCase, status: number): ConformanceRow[] {
  return [...new Set(headerChecksFor(c, status).map((check) => rowOf(c, check)))];
}

/** What is wrong with one response, as failures per row (none when it is right). */
export function judge(
  c: ConformanceCase,
  res: HttpResponse,
  api: ExpectedApi,
  anyFile: ReadonlySet<string>,
): Failure[] {
  const failures: Failure[] = [];
  const fail = (row: ConformanceRow, reason: string, stale?: Failure["stale"], baseUrl?: string) =>
    failures.push({
      row,
      target: c.target,
      method: c.method,
      reason,
      ...(stale ? { stale } : {}),
      ...(baseUrl !== undefined ? { baseUrl } : {}),
    });
  const isHead = c.method === "HEAD";
  const { expect } = c;
  const status = res.status;

  if (status >= 300 && status < 400) fail(c.row, `redirects (${status}) to ${String(res.headers.location)}`);
  else if (expect.kind === "file") {
    const wanted = api.files.get(expect.file)!;
    const body = res.body.toString("latin1");
    if (status !== 200)
      fail(
        c.row,
        `status ${status}, expected 200 with ${expect.file}`,
        status === 404 ? { file: expect.file, how: "missing" } : undefined,
      );
    else if (!isHead && body !== wanted && !isOtherDaysFeatured(expect.file, body, api)) {
      const other =
        api.baseUrl === undefined
          ? undefined
          : (otherBaseUrl(wanted, body, api.baseUrl) ?? otherDaysFeaturedAt(expect.file, body, api, api.baseUrl));
      if (other !== undefined)
        fail(c.row, `body is ${expect.file} with its URLs at ${other}, not at ${api.baseUrl}`, undefined, other);
      else
        fail(
          c.row,
          `body ${describeBody(res.body)} is not ${expect.file}`,
          !anyFile.has(body) && jsonShape(body) === jsonShape(wanted)
            ? { file: expect.file, how: "different" }
            : undefined,
        );
    } else if (isHead && res.body.length > 0) fail(c.row, "HEAD answered with a body");
  } else if (expect.kind === "body") {
    if (status !== 200) fail(c.row, `status ${status}, expected 200 with ${describeBody(Buffer.from(expect.body))}`);
    else if (!isHead && res.body.toString("latin1") !== expect.body)
      fail(c.row, `body ${describeBody(res.body)} is not ${describeBody(Buffer.from(expect.body))}`);
  } else if (expect.kind === "not-found") {
    if (status !== 404)
      fail(c.row, `status ${status}${status === 200 ? ` with body ${describeBody(res.body)}` : ""}, expected 404`);
  } else if (expect.kind === "safe") {
    if (status === 200 && !anyFile.has(res.body.toString("latin1")))
      fail(c.row, `status 200 with body ${describeBody(res.body)}, which is no file of the API`);
    else if (status !== 200 && status !== 404 && status !== 400) fail(c.row, `status ${status}, expected 404 (or 400)`);
  } else if (expect.kind === "refused") {
    if (status < 400 || status >= 500) fail(c.row, `status ${status}, expected a 4xx refusal`);
  } else if (expect.kind === "preflight") {
    if (status !== 204 && status !== 200) fail(c.row, `status ${status}, expected 204`);
  } else if (expect.kind === "method-not-allowed") {
    if (status !== 405) fail(c.row, `status ${status}, expected 405`);
  }

  const checks = headerChecksFor(c, status);
  // A site file has its own type; everything else, a 404 at a site URL included, is the API's JSON.
  const type = expect.kind === "file" && status === 200 ? contentTypeOf(expect.file) : RESPONSE_HEADERS["Content-Type"];
  if (checks.includes("content-type") && mediaType(res.headers) !== type) {
    fail(
      rowOf(c, "content-type"),
      `Content-Type is ${res.headers["content-type"] === undefined ? "missing" : JSON.stringify(res.headers["content-type"])}, expected ${type}`,
    );
  }
  if (checks.includes("cors") && res.headers["access-control-allow-origin"] !== "*") {
    fail(
      rowOf(c, "cors"),
      `Access-Control-Allow-Origin is ${res.headers["access-control-allow-origin"] === undefined ? "missing" : JSON.stringify(res.headers["access-control-allow-origin"])}`,
    );
  }
  const cacheControl = expect.kind === "file" ? servedCacheControlOf(expect.file) : undefined;
  if (
    checks.includes("cache") &&
    cacheControl !== undefined &&
    maxAge(res.headers) !== maxAge({ "cache-control": cacheControl })
  )
    fail(
      "cache",
      `Cache-Control is ${res.headers["cache-control"] === undefined ? "missing" : JSON.stringify(res.headers["cache-control"])}, expected ${cacheControl}`,
    );
  if (checks.includes("error-body") && !isErrorBody(res.body))
    fail(rowOf(c, "error-body"), `404 body ${describeBody(res.body)} is not the JSON error object`);
  return failures;
}

/**
 * The origin `served` names where `wanted` names `baseUrl`, when that is the only difference
 * between them: a build of the same catalogue made with another base URL. Undefined otherwise. A URL
 * of the build starts a JSON string or an XML attribute (after `"`), an XML element's text (after
 * `>`) or a URL inside escaped HTML (after `&quot;` in the Atom feed, `\"` in the JSON Feed).
 */
export function otherBaseUrl(wanted: string, served: string, baseUrl: string): string | undefined {
  const urls = new RegExp(`([">;])${escapeRegex(baseUrl)}/`, "g");
  const first = urls.exec(wanted);
  if (first === null) return undefined;
  const at = first.index + 1;
  if (served.slice(0, at) !== wanted.slice(0, at)) return undefined;
  const other = /^https?:\/\/[^/"\\<&]+/.exec(served.slice(at))?.[0];
  if (other === undefined || other === baseUrl) return undefined;
  return wanted.replace(urls, (_, before: string) => `${before}${other}/`) === served ? other : undefined;
}

const FEATURED_FILE = /api\/v[34]\/featured-app$/;

/**
 * Whether `body`, served for a featured-app file, is the featured app of another day: the build
 * picks one of its apps by the UTC day it runs, so a deployment built on another day serves another
 * of the same contents, and is right.
 */
function isOtherDaysFeatured(file: string, body: string, api: ExpectedApi): boolean {
  if (!FEATURED_FILE.test(file)) return false;
  const contents = api.files.get(file.replace(/featured-app$/, "contents"));
  if (contents === undefined) return false;
  try {
    const served = JSON.stringify(JSON.parse(body));
    return (JSON.parse(contents) as unknown[]).some((app) => JSON.stringify(app) === served);
  } catch {
    // A body that is not JSON is not the answer sought: the row reports the body.
    return false;
  }
}

/**
 * The origin a featured-app file names, when it is the featured app of another day built with
 * another base URL (a build of another day and another base URL is both at once): its URLs put at
 * `baseUrl`, it is one of today's contents. Undefined otherwise.
 */
function otherDaysFeaturedAt(file: string, body: string, api: ExpectedApi, baseUrl: string): string | undefined {
  if (!FEATURED_FILE.test(file)) return undefined;
  const other = /"(https?:\/\/[^/"\\<&]+)\//.exec(body)?.[1];
  if (other === undefined || other === baseUrl) return undefined;
  return isOtherDaysFeatured(file, body.replaceAll(`"${other}/`, `"${baseUrl}/`), api) ? other : undefined;
}

/** The max-age of a Cache-Control header, or undefined. */
function maxAge(headers: IncomingHttpHeaders): string | undefined {
  return /(?:^|,)\s*max-age=(\d+)/.exec(String(headers["cache-control"] ?? ""))?.[1];
}

/** "array" or "object" for a JSON text of one, else undefined. */
function jsonShape(text: string): "array" | "object" | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? "array" : value !== null && typeof value === "object" ? "object" : undefined;
  } catch {
    // Not JSON: no shape, which the row reports.
    return undefined;
  }
}

function isErrorBody(body: Buffer): boolean {
  try {
    const value = JSON.parse(body.toString("utf8")) as { error?: unknown };
    return value !== null && typeof value === "object" && value.error === "not_found";
  } catch {
    // A body that is not JSON is not the answer sought: the row reports the body.
    return false;
  }
}

export interface RunOptions {
  baseUrl: string;
  api: ExpectedApi;
  cases: readonly ConformanceCase[];
  /** Requests in flight at once. */
  concurrency?: number;
  onProgress?: (done: number, total: number) => void;
}

export interface RunResult {
  /** Requests sent per row (a row counts every case whose response it judges). */
  checked: Record<ConformanceRow, number>;
  /** Per row, the GETs of a file of the build that were answered 200, with its body or another. */
  served: Record<ConformanceRow, number>;
  failures: Failure[];
}

/** Sends every case with bounded concurrency and judges every response. */
export async function runConformance(options: RunOptions): Promise<RunResult> {
  const anyFile = new Set(options.api.files.values());
  const perRow = () =>
    Object.fromEntries(Object.keys(CONFORMANCE_ROWS).map((row) => [row, 0])) as Record<ConformanceRow, number>;
  const checked = perRow();
  const served = perRow();
  const failures: Failure[] = [];
  let done = 0;
  await forEachConcurrently(options.cases, Math.max(1, options.concurrency ?? 8), async (c) => {
    checked[c.row]++;
    try {
      const res = await sendRaw(options.baseUrl, c.method, c.target, { cap: capOf(c, options.api) });
      for (const row of headerRowsFor(c, res.status)) checked[row]++;
      if (c.expect.kind === "file" && c.method === "GET" && res.status === 200) served[c.row]++;
      failures.push(...judge(c, res, options.api, anyFile));
    } catch (e) {
      failures.push({
        row: c.row,
        target: c.target,
        method: c.method,
        reason: `request failed: ${(e as Error).message}`,
      });
    }
    options.onProgress?.(++done, options.cases.length);
  });
  return { checked, served, failures };
}
