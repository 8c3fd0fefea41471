// `shopfront check`: the conformance suite against a deployed API, judged against what the
// catalogue builds to, with what the host cannot do marked as such rather than failed.
import { CONFORMANCE_ROWS, type ConformanceRow } from "../routes/conformanceRows.js";
import { conformanceCases } from "./conformance.js";
import { expectedDeployment } from "./expectedDeployment.js";
import { runConformance, type Failure, type HttpResponse, type RunResult } from "./runConformance.js";
import { reachDeployment } from "./reachDeployment.js";
import { UsageError } from "../util/errors.js";
import type { Problem } from "../catalogue/problems.js";
import type { Target } from "../targets/target.js";

export interface CheckOptions {
  /** Where the deployment is: the URL requests go to. */
  baseUrl: string;
  catalogueDir: string;
  /**
   * The base URL the build was made with (build --base-url, shopfront.json's baseUrl): the origin
   * its v3 and v4 files name. The build's default (http://<default host>) when left out.
   */
  builtBaseUrl?: string;
  /** The host the API is deployed on: its known limits are reported as "cannot", not as failures. */
  target?: Target;
  /** Whether the build has the browse site (build --no-site leaves it out); on unless false. */
  site?: boolean;
  concurrency?: number;
  onProgress?: (done: number, total: number) => void;
}

export interface ReportRow {
  row: ConformanceRow;
  title: string;
  outcome: "pass" | "fail" | "cannot";
  /** Responses judged for this row. */
  checked: number;
  failures: number;
  /** The first failing request, for fail rows. */
  first?: Failure;
  /** Why the host cannot serve this row, for cannot rows. */
  reason?: string;
}

/** v3 and v4 files served as the build makes them but with their URLs at another origin. */
export interface OtherBaseUrl {
  /** The origin the catalogue's build names (the given base URL, or the default). */
  expected: string;
  /** The origin the deployment's files name (the first one found). */
  served: string;
  files: number;
}

/** Files of the build that the deployment serves as an older build would. */
export interface OlderDeployment {
  /** Served with another body of the same shape. */
  different: number;
  /** Answered 404 where other files of their route are served. */
  missing: number;
}

export interface CheckReport {
  rows: ReportRow[];
  requests: number;
  /** True when every row the host can serve passed. */
  ok: boolean;
  /** Set when the failures look like a deployment of an older build of the catalogue. */
  older?: OlderDeployment;
  /** Set when the deployment was built with another base URL than the one checked against. */
  baseUrl?: OtherBaseUrl;
}

export async function checkDeployment(options: CheckOptions): Promise<{ problems: Problem[]; report?: CheckReport }> {
  let url: URL;
  try {
    url = new URL(options.baseUrl);
  } catch {
    throw new UsageError(
      `${JSON.stringify(options.baseUrl)} is not a URL; expected one such as https://api.example.org`,
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new UsageError(`${options.baseUrl}: only http and https URLs can be checked`);
  if (url.search || url.hash)
    throw new UsageError(`${options.baseUrl}: give the API's base URL, without a query or fragment`);

  const builtBaseUrl = options.builtBaseUrl === undefined ? undefined : originOf(options.builtBaseUrl);
  const { problems, api } = await expectedDeployment(options.catalogueDir, {
    site: options.site !== false,
    baseUrl: builtBaseUrl,
  });
  if (!api) return { problems };
  const cases = conformanceCases(api);
  const hosts = await reachDeployment(url);
  const result = await runConformance({
    baseUrl: url.href,
    api,
    cases,
    concurrency: options.concurrency ?? 16,
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
  });

  const cannot = options.target?.cannot ?? {};
  const rows = (Object.keys(CONFORMANCE_ROWS) as ConformanceRow[]).map((row): ReportRow => {
    const failures = result.failures.filter((f) => f.row === row);
    const base = { row, title: CONFORMANCE_ROWS[row], checked: result.checked[row], failures: failures.length };
    const reason = cannot[row];
    if (reason !== undefined) return { ...base, outcome: "cannot", reason };
    return failures.length > 0 ? { ...base, outcome: "fail", first: failures[0]! } : { ...base, outcome: "pass" };
  });
  const older = olderDeployment(hosts, result);
  const otherBase = otherBaseUrlOf(api.baseUrl, result);
  const ok = rows.every((r) => r.outcome !== "fail");
  return {
    problems,
    report: {
      rows,
      requests: cases.length,
      ok,
      ...(older && !ok ? { older } : {}),
      ...(otherBase && !ok ? { baseUrl: otherBase } : {}),
    },
  };
}

/**
 * The origin of a base URL the build was made with, as the build writes it (no trailing slash); a
 * usage error for one that cannot be (shopfront.json's pattern: http or https, a host, a port).
 */
function originOf(text: string): string {
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    // Not a URL: the usage error below says what is expected.
    url = undefined;
  }
  if (
    !url ||
    (url.protocol !== "http:" && url.protocol !== "https:") ||
    url.pathname !== "/" ||
    url.search ||
    url.hash ||
    url.username ||
    url.password
  )
    throw new UsageError(
      `--base-url ${JSON.stringify(text)}: give the origin the build was made with, such as http://hbb1.example.org`,
    );
  return text.replace(/\/+$/, "");
}

/** The other base URL the deployment's v3 and v4 files name, when some were found so. */
function otherBaseUrlOf(expected: string | undefined, result: RunResult): OtherBaseUrl | undefined {
  const found = result.failures.filter((f) => f.baseUrl !== undefined);
  if (expected === undefined || found.length === 0) return undefined;
  return { expected, served: found[0]!.baseUrl!, files: new Set(found.map((f) => f.target)).size };
}

/** Whether a URL names this machine (a preview served by `serve`), by its host name. */
export function isLocalUrl(text: string): boolean {
  let hostname: string;
  try {
    hostname = new URL(text).hostname;
  } catch {
    // Not a URL, or a body that is not JSON: not what is asked about.
    return false;
  }
  return hostname === "localhost" || hostname === "[::1]" || /^127(?:\.\d{1,3}){3}$/.test(hostname);
}

/**
 * Whether the deployment looks like an older build of the catalogue: its routes answer (GET
 * /v1/hosts gives a JSON object), and files of the build come back with other bodies of the same
 * shape, or as 404 where other files of the same route are served (packages added since). A server
 * whose rules are wrong fails otherwise: a route that answers nothing, or the wrong file.
 */
function olderDeployment(hosts: HttpResponse, result: RunResult): OlderDeployment | undefined {
  if (hosts.status !== 200 || !isJsonObject(hosts.body)) return undefined;
  const files = (how: "missing" | "different") =>
    new Set(
      result.failures
        .filter((f) => f.stale?.how === how && (how === "different" || result.served[f.row] > 0))
        .map((f) => f.stale!.file),
    ).size;
  const different = files("different");
  const missing = files("missing");
  return different + missing > 0 ? { different, missing } : undefined;
}

function isJsonObject(body: Buffer): boolean {
  try {
    const value: unknown = JSON.parse(body.toString("utf8"));
    return value !== null && typeof value === "object" && !Array.isArray(value);
  } catch {
    // Not a URL, or a body that is not JSON: not what is asked about.
    return false;
  }
}
