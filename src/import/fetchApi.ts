// `import api`, the I/O half: fetch /v1/hosts and every host's package list from a running API (or
// read them from files saved in the same layout, such as a build's dist/), and hand the JSON to the
// pure reader. Any list that cannot be had fails the whole import before anything is written: a
// catalogue silently missing a host is worse than a rerun, and a rerun needs no --force.
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { schemaValidators } from "../catalogue/schemas.js";
import { FailureError, UsageError } from "../util/errors.js";
import { FETCH_TIMING, fetchAnswer } from "../util/fetchBounded.js";
import { forEachConcurrently } from "../util/forEachConcurrently.js";
import { VERSION } from "../util/version.js";
import type { ImportSource } from "./writeImport.js";
import { importSourceOf, parseApiJson, parseHostList, parsePackageList, type HostPackages } from "./parseApi.js";
import { parseContents, parseInformation, withStoreFields, type StoreApiVersion } from "./parseStoreApi.js";

export interface FetchApiOptions {
  /** The API's base URL, with or without a path prefix and a trailing slash. */
  baseUrl: string;
  /** Hosts whose lists are fetched at once. */
  concurrency: number;
  /** How long one request may take, answer and body, in seconds. */
  timeoutSeconds: number;
  /** Requests done out of those known so far (the hosts' count is known once /v1/hosts is read). */
  onProgress?: (done: number, total: number) => void;
  /** Which API to read: the newest the server has (v4, then v3, then v1/v2), or one of them. */
  api?: ApiChoice;
  /** The host id that the one repository of a v4 or v3 API becomes. */
  host?: string;
}

export type ApiChoice = "auto" | StoreApiVersion | "v2";

/** The host id a v4 or v3 API's repository becomes unless the user names one: the Open Shop Channel's first API called it so. */
export const DEFAULT_STORE_HOST = "primary";

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

/** The most of one answer import reads: the Open Shop Channel's v4 contents are about 1 MB. */
export const API_ANSWER_BYTES = 128 * 1024 * 1024;

/**
 * One GET through the bounded GET every reader of a store uses (util/fetchBounded.ts): its body up
 * to API_ANSWER_BYTES, redirects within the API's origin only, within the time limit (between
 * chunks and in all); no answer, a body past the cap or a refused redirect is a FailureError.
 */
async function get(url: string, origin: URL, timeoutSeconds: number): Promise<Answer> {
  const timeoutMs = timeoutSeconds * 1000;
  const got = await fetchAnswer(url, {
    origin,
    cap: API_ANSWER_BYTES,
    deadlineMs: timeoutMs,
    headers: { "User-Agent": `shopfront/${VERSION}`, Accept: "application/json" },
    timing: { ...FETCH_TIMING, idleMs: timeoutMs },
  });
  if ("body" in got) return { status: got.status, statusText: got.statusText, text: got.body.toString("utf8") };
  if (got.timeout) throw new FailureError(`${url}: no complete answer within ${timeoutSeconds} s (--timeout)`);
  if (got.longer || got.problem.startsWith("redirects")) throw new FailureError(`${url}: ${got.problem}`);
  throw new FailureError(`${url}: cannot be fetched (${got.problem})`);
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
  readList: (host: string, defaultHost: string) => Promise<HostPackages>,
  concurrency: number,
  onProgress?: (done: number, total: number) => void,
): Promise<ImportSource> {
  const hosts = parseHostList(hostsJson.json, hostsJson.where, await schemaValidators());
  const ids = hosts.hosts.map((h) => h.id);
  const lists = new Map<string, HostPackages>();
  let done = 1;
  onProgress?.(done, ids.length + 1);
  await forEachConcurrently(ids, concurrency, async (id) => {
    lists.set(id, await readList(id, hosts.default));
    onProgress?.(++done, ids.length + 1);
  });
  return importSourceOf(
    hosts,
    ids.map((id) => lists.get(id)!),
  );
}

/**
 * A v4 or v3 API alone (the Open Shop Channel today): its one repository, declared from
 * `/api/<version>/information` (already read) and the URL's host name, and its apps from
 * `/api/<version>/contents`.
 */
async function readStoreApi(
  version: StoreApiVersion,
  information: { url: string; answer: Answer },
  fetchJson: (path: string) => Promise<{ url: string; answer: Answer }>,
  base: string,
  options: FetchApiOptions,
): Promise<ImportSource> {
  const id = options.host ?? DEFAULT_STORE_HOST;
  const hosts = parseInformation(
    jsonOf(information.answer, information.url),
    information.url,
    id,
    new URL(base).hostname,
  );
  options.onProgress?.(1, 2);
  const contents = await fetchJson(`api/${version}/contents`);
  const list = parseContents(jsonOf(contents.answer, contents.url), id, contents.url, version);
  options.onProgress?.(2, 2);
  return importSourceOf(hosts, [list]);
}

/**
 * Where a host's apps are in a v4 or v3 API that also has the first API (a shopfront build): the
 * default host's at `/api/<version>/contents`, any other's under `hosts/<host>/`, where its package
 * files are.
 */
function storeContentsPath(version: StoreApiVersion, id: string, defaultHost: string): string {
  return `${id === defaultHost ? "" : `hosts/${encodeURIComponent(id)}/`}api/${version}/contents`;
}

/**
 * A running API's hosts and packages. The newest API the server has is asked first: when
 * `/api/v4/information` (else v3's) answers and `/v1/hosts` does not, that API alone is read (the
 * Open Shop Channel today); when both answer (a shopfront build), the hosts and their packages come
 * from the first API and each package's archive and the fields only v4 has from v4; otherwise
 * /v1/hosts and each host's /v2/<host>/packages (or /v1/ where v2 has no such route).
 */
export async function fetchApi(options: FetchApiOptions): Promise<ImportSource> {
  const base = apiBaseUrl(options.baseUrl);
  const origin = new URL(base);
  const fetchJson = async (path: string) => {
    const url = `${base}/${path}`;
    return { url, answer: await get(url, origin, options.timeoutSeconds) };
  };
  const api = options.api ?? "auto";
  let store: { version: StoreApiVersion; information: { url: string; answer: Answer } } | undefined;
  for (const version of ["v4", "v3"] as const) {
    if (api !== "auto" && api !== version) continue;
    const information = await fetchJson(`api/${version}/information`);
    // Asked for this version, or it is there: read it; any answer but "no such route" is its answer.
    if (api === version || !NO_SUCH_ROUTE.has(information.answer.status)) {
      store = { version, information };
      break;
    }
  }
  if (store && api !== "auto") return readStoreApi(store.version, store.information, fetchJson, base, options);
  const hosts = await fetchJson("v1/hosts");
  if (store && hosts.answer.status !== 200)
    return readStoreApi(store.version, store.information, fetchJson, base, options);
  const readList = async (id: string, defaultHost: string) => {
    let { url, answer } = await fetchJson(`v2/${encodeURIComponent(id)}/packages`);
    if (NO_SUCH_ROUTE.has(answer.status)) ({ url, answer } = await fetchJson(`v1/${encodeURIComponent(id)}/packages`));
    const list = parsePackageList(jsonOf(answer, url), id, url);
    if (!store) return list;
    const contents = await fetchJson(storeContentsPath(store.version, id, defaultHost));
    if (NO_SUCH_ROUTE.has(contents.answer.status)) return list;
    return withStoreFields(list, parseContents(jsonOf(contents.answer, contents.url), id, contents.url, store.version));
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
