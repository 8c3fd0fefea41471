// What `shopfront check` prints: the conformance report as a table, one line per row.
import type { CheckReport, OlderDeployment, OtherBaseUrl } from "../check/checkDeployment.js";
import { plural } from "./formatProblems.js";

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
  if (report.baseUrl) lines.push(formatOtherBaseUrl(report.baseUrl));
  if (report.older) lines.push(formatOlder(report.older));
  return lines;
}

/** The hint for a deployment built with another base URL: which, and what to pass. */
function formatOtherBaseUrl(other: OtherBaseUrl): string {
  return `hint: the base URL differs: ${plural(other.files, "v3/v4 or feed file")} of the deployment name ${other.served} where this check expects ${other.expected}; if it was built so, check with --base-url ${other.served} (or set "baseUrl" in shopfront.json), else build again with the base URL it is served at`;
}

/** The hint for a deployment that looks like an older build: what points to it, and what to do. */
function formatOlder(older: OlderDeployment): string {
  const evidence = [
    ...(older.different > 0 ? [`${plural(older.different, "file")} of the build served with another body`] : []),
    ...(older.missing > 0 ? [`${plural(older.missing, "file")} missing where others of their route are served`] : []),
  ];
  return `hint: the deployment is likely older than the catalogue (${evidence.join(", ")}): build and deploy again, or check against the catalogue it was built from`;
}
