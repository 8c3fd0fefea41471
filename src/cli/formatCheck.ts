// What `shopfront check` prints: the conformance report as a table, one line per row.
import type { CheckReport } from "../check/checkDeployment.js";

/** The report as a table, one line per row. */
export function formatCheckReport(report: CheckReport, targetTitle?: string): string[] {
  const width = Math.max(...report.rows.map((r) => r.title.length));
  const lines = report.rows.map((r) => {
    const what =
      r.outcome === "pass"
        ? `pass (${r.checked})`
        : r.outcome === "cannot"
          ? `cannot on ${targetTitle ?? "this host"}: ${r.reason}`
          : `FAIL ${r.failures} of ${r.checked}, first: ${r.first!.method} ${r.first!.target}: ${r.first!.reason}`;
    return `${r.title.padEnd(width)}  ${what}`;
  });
  const failed = report.rows.filter((r) => r.outcome === "fail").length;
  lines.push(
    `${report.requests} requests; ${failed === 0 ? "everything this host can serve is right" : `${failed} of ${report.rows.length} checks failed`}`,
  );
  return lines;
}
