// How problems read in a terminal: one line each, `file: /pointer message`, then a count.
import { isError, type Problem } from "./problems.js";

export function formatProblem(problem: Problem, displayFile: (file: string) => string): string {
  const pointer = problem.pointer ? `${problem.pointer} ` : "";
  const severity = problem.severity === "warning" ? " (warning)" : "";
  return `${displayFile(problem.file)}: ${pointer}${problem.message}${severity}`;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/** `2 errors and 1 warning in 3 files` */
export function formatProblemCount(problems: readonly Problem[]): string {
  const errors = problems.filter(isError).length;
  const warnings = problems.length - errors;
  const files = new Set(problems.map((p) => p.file)).size;
  const parts = [errors > 0 ? plural(errors, "error") : "", warnings > 0 ? plural(warnings, "warning") : ""].filter(Boolean);
  return `${parts.join(" and ")} in ${plural(files, "file")}`;
}
