// `import api`, the I/O half: fetch /v1/hosts and every host's package list from a running API (or
// read them from files saved in the same layout, such as a build's dist/), and hand the JSON to the
// pure reader. Any list that cannot be had fails the whole import before anything is written: a
// catalogue silently missing a host is worse than a rerun, and a rerun needs no --force.
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { schemaValidators } from "../catalogue/schemas.js";
import { FailureError, UsageError } from "../util/errors.js";
import { forEachConcurrently } from "../util/forEachConcurrently.js";
import { VERSION } from "../util/version.js";
import type { ImportSource } from "./writeImport.js";
import { importSourceOf, parseApiJson, parseHostList, parsePackageList, type HostPackages } from "./parseApi.js";

export interface FetchApiOptions {
  /** The API's base URL, with or without a path prefix and a trailing slash. */
  baseUrl: string;
  /** Hosts whose lists are fetched at once. */
  concurrency: number;
  /** How long one request may take, answer and body, in seconds. */
  timeoutSeconds: number;
  /** Requests done out of those known so far (the hosts' count is known once /v1/hosts is read). */
  onProgress?: (done: number, total: number) => void;
}

/**
 * Statuses with which v2 says it has no such route, so v1 is asked instead: 404 (what the original's
 * Flask and any static host answer for an unknown path), 405 and 501 (a server that has the path but
 * not GET on it), 410 (removed). Anything else, such as a 500 or an HTML page with 200, is an API that
 * has the route and is broken: that is reported, not hidden behind v1.
 */
const NO_SUCH_ROUTE = new Set([404, 405, 410, 501]);

/** The base URL as paths are appended to it, or a UsageError. */
export function apiBaseUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`${text} is not a URL: expected the API's base URL, such as https://api.example.org`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new UsageError(`${text}: expected an http:// or https:// URL`);
  if (url.search !== "" || url.hash !== "")
    throw new UsageError(`${text}: expected the API's base URL, without a query or fragment`);
  return url.href.replace(/\/+$/, "");
}

interface Answer {
  status: number;
  statusText: string;
  text: string;
}

/** One GET, its body read whole within the time limit; a connection failure or timeout is a FailureError. */
async function get(url: string, timeoutSeconds: number): Promise<Answer> {
  try {
    const response = await fetch(url, {
      headers: { "User-Agent": `shopfront/${VERSION}`, Accept: "application/json" },
      signal: AbortSignal.timeout(timeoutSeconds * 1000),
    });
    return { status: response.status, statusText: response.statusText, text: await response.text() };
  } catch (error) {
    if (error instanceof DOMException && (error.name === "TimeoutError" || error.name === "AbortError"))
      throw new FailureError(`${url}: no complete answer within ${timeoutSeconds} s (--timeout)`);
    // Node's fetch rejects with "fetch failed" and puts the reason (ECONNREFUSED, ENOTFOUND, a
    // certificate error) in `cause`.
    if (error instanceof TypeError) {
      const cause = (error as { cause?: unknown }).cause;
      const reason = cause instanceof Error ? cause.message : error.message;
      throw new FailureError(`${url}: cannot be fetched (${reason})`);
    }
    throw error;
  }
}

/** The JSON of a 200 answer; any other status is a FailureError naming it. */
function jsonOf(answer: Answer, url: string): unknown {
  if (answer.status !== 200) {
    const page = /^\s*</.test(answer.text) ? ", an HTML page" : "";
    const status = [answer.status, answer.statusText].filter((part) => part !== "").join(" ");
    throw new FailureError(`${url}: answered ${status}${page}, not 200`);
  }
  return parseApiJson(answer.text, url);
}

/** Reads the hosts, then every host's list, `concurrency` at a time, into one import. */
async function collect(
  hostsJson: { json: unknown; where: string },
  readList: (host: string) => Promise<HostPackages>,
  concurrency: number,
  onProgress?: (done: number, total: number) => void,
): Promise<ImportSource> {
  const hosts = parseHostList(hostsJson.json, hostsJson.where, await schemaValidators());
  const ids = hosts.hosts.map((h) => h.id);
  const lists = new Map<string, HostPackages>();
  let done = 1;
  onProgress?.(done, ids.length + 1);
  await forEachConcurrently(ids, concurrency, async (id) => {
    lists.set(id, await readList(id));
    onProgress?.(++done, ids.length + 1);
  });
  return importSourceOf(
    hosts,
    ids.map((id) => lists.get(id)!),
  );
}

/** A running API's hosts and packages: /v1/hosts, then each host's /v2/<host>/packages (or /v1/ where v2 has no such route). */
export async function fetchApi(options: FetchApiOptions): Promise<ImportSource> {
  const base = apiBaseUrl(options.baseUrl);
  const fetchJson = async (path: string) => {
    const url = `${base}/${path}`;
    return { url, answer: await get(url, options.timeoutSeconds) };
  };
  const hosts = await fetchJson("v1/hosts");
  const readList = async (id: string) => {
    let { url, answer } = await fetchJson(`v2/${encodeURIComponent(id)}/packages`);
    if (NO_SUCH_ROUTE.has(answer.status)) ({ url, answer } = await fetchJson(`v1/${encodeURIComponent(id)}/packages`));
    return parsePackageList(jsonOf(answer, url), id, url);
  };
  return collect(
    { json: jsonOf(hosts.answer, hosts.url), where: hosts.url },
    readList,
    options.concurrency,
    options.onProgress,
  );
}

/** A file's JSON, or a FailureError naming it. */
function readJsonFile(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new FailureError(`${path}: cannot be read (${(error as Error).message})`);
  }
  return parseApiJson(text, path);
}

/**
 * The same answers saved as files, in the API's own paths: DIR/v1/hosts and DIR/v1/<host>/packages.
 * A build's output folder has exactly these, and so has a copy saved with `curl -o` or `wget -x`.
 */
export async function readApiFiles(dir: string): Promise<ImportSource> {
  const hostsPath = join(dir, "v1", "hosts");
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new UsageError(`--from-files ${dir}: no such folder`);
  if (!existsSync(hostsPath))
    throw new UsageError(
      `--from-files ${dir}: it has no v1/hosts (expected the API's answers saved in its paths: v1/hosts, v1/<host>/packages, as in a build's output)`,
    );
  const readList = async (id: string) => {
    const path = join(dir, "v1", id, "packages");
    return parsePackageList(readJsonFile(path), id, path);
  };
  return collect({ json: readJsonFile(hostsPath), where: hostsPath }, readList, 1);
}
