// `shopfront check`: the conformance suite against a deployed API, judged against what the
// catalogue builds to, with what the host cannot do marked as such rather than failed.
import { loadCatalogue } from "../build/loadCatalogue.js";
import { conformanceCases, CONFORMANCE_ROWS, expectedApi, type ConformanceRow } from "./conformance.js";
import { runConformance, type Failure } from "./runConformance.js";
import { UsageError } from "../util/errors.js";
import type { Problem } from "../catalogue/problems.js";
import { renderApi } from "../render/renderApi.js";
import type { Target } from "../targets/target.js";

export interface CheckOptions {
  baseUrl: string;
  catalogueDir: string;
  /** The host the API is deployed on: its known limits are reported as "cannot", not as failures. */
  target?: Target;
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

export interface CheckReport {
  rows: ReportRow[];
  requests: number;
  /** True when every row the host can serve passed. */
  ok: boolean;
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

  const { problems, catalogue } = await loadCatalogue(options.catalogueDir);
  if (!catalogue) return { problems };
  const api = expectedApi(renderApi(catalogue), catalogue.packages);
  const cases = conformanceCases(api);
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
  return { problems, report: { rows, requests: cases.length, ok: rows.every((r) => r.outcome !== "fail") } };
}
