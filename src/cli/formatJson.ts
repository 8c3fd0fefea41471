// `--format json`: one JSON document on stdout per command, for scripts and editors. Its shape:
// `{ "ok", "problems": [{ "code", "severity", "file", "pointer", "line"?, "column"?, "message" }],
// "summary" }`, and for `check` the report's rows. Paths are as the text report shows them.
import type { CheckReport } from "../check/checkDeployment.js";
import type { LocatedProblem } from "../validate/locateProblems.js";

export interface JsonReport {
  ok: boolean;
  problems: readonly LocatedProblem[];
  /** What the command did; null when it did nothing (the catalogue has errors). */
  summary: object | null;
  /** `check` only: every row of the conformance report. */
  rows?: CheckReport["rows"];
}

/** The document, with the problems' fields in a fixed order and files as `displayFile` shows them. */
export function formatJsonReport(report: JsonReport, displayFile: (file: string) => string): string {
  const problems = report.problems.map((p) => ({
    code: p.code,
    severity: p.severity,
    file: displayFile(p.file),
    pointer: p.pointer,
    ...(p.line !== undefined ? { line: p.line, column: p.column } : {}),
    message: p.message,
  }));
  return `${JSON.stringify({ ok: report.ok, problems, summary: report.summary, ...(report.rows ? { rows: report.rows } : {}) }, null, 2)}\n`;
}
