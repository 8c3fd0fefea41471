// How problems read in a terminal: one line each, `file: /pointer message`, then a count. Past a
// limit the list is cut (errors first), with how many were left out and a count per kind, so a
// catalogue with thousands of problems still gives a report a maintainer can read.
import type { Problem } from "../catalogue/problems.js";
import { compareCodePoints } from "../util/codePoints.js";

export function formatProblem(problem: Problem, displayFile: (file: string) => string): string {
  const pointer = problem.pointer ? `${problem.pointer} ` : "";
  const severity = problem.severity === "error" ? "" : ` (${problem.severity})`;
  return `${displayFile(problem.file)}: ${pointer}${problem.message}${severity}`;
}

/** `1 file`, `2 files`. */
export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

function countParts(problems: readonly Problem[]): string {
  const count = (severity: Problem["severity"]) => problems.filter((p) => p.severity === severity).length;
  const parts = (["error", "warning", "notice"] as const)
    .map((severity) => (count(severity) > 0 ? plural(count(severity), severity) : ""))
    .filter(Boolean);
  return listed(parts);
}

/** `2 errors and 1 warning in 3 files` */
/** A list in prose: `a, b and c`. */
export function listed(items: readonly string[]): string {
  return items.length < 2 ? items.join("") : `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`;
}

export function formatProblemCount(problems: readonly Problem[]): string {
  return `${countParts(problems)} in ${plural(new Set(problems.map((p) => p.file)).size, "file")}`;
}

const SEVERITY_ORDER: readonly Problem["severity"][] = ["error", "warning", "notice"];

/** Errors, then warnings, then notices, each kind in the order given (by file): the ones that fail a run come first. */
function bySeverity<P extends Problem>(problems: readonly P[]): P[] {
  return SEVERITY_ORDER.flatMap((severity) => problems.filter((p) => p.severity === severity));
}

/**
 * The lines of a problem report, without the final count: errors first, then warnings, then
 * notices. With more than `limit` problems (0: no limit) only the first `limit` are listed, then how many more there are
 * and how many of each kind. `formatOne` writes a listed problem (`--format github` writes a
 * workflow command).
 */
export function formatProblems<P extends Problem>(
  problems: readonly P[],
  displayFile: (file: string) => string,
  limit: number,
  formatOne: (problem: P, displayFile: (file: string) => string) => string = formatProblem,
): string[] {
  const ordered = bySeverity(problems);
  if (limit === 0 || problems.length <= limit) return ordered.map((p) => formatOne(p, displayFile));
  const shown = ordered.slice(0, limit);
  const listed = new Set(shown);
  const hidden = problems.filter((p) => !listed.has(p));
  const kinds = new Map<string, number>();
  for (const p of problems) kinds.set(p.code, (kinds.get(p.code) ?? 0) + 1);
  const byKind = [...kinds]
    .sort((a, b) => b[1] - a[1] || compareCodePoints(a[0], b[0]))
    .map(([code, n]) => `${n} ${code}`);
  return [
    ...shown.map((p) => formatOne(p, displayFile)),
    `... and ${hidden.length} more (${countParts(hidden)}) not shown; --max-problems 0 shows them all`,
    `by kind: ${byKind.join(", ")}`,
  ];
}
