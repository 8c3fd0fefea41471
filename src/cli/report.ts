// How commands print problems and paths: text to stderr, `--format github` workflow commands to
// stdout (where the runner reads them), `--format json` one document with the command's result.
import { isAbsolute, relative, resolve } from "node:path";
import { isError, type Problem } from "../catalogue/problems.js";
import type { CheckReport } from "../check/checkDeployment.js";
import { formatProblemCount, formatProblems } from "./formatProblems.js";
import { DEFAULT_MAX_PROBLEMS, type Format } from "./options.js";

/** A path as messages show it: relative to the working folder when inside it, else absolute. */
export function displayPath(path: string): string {
  const absolute = resolve(path);
  const shown = relative(process.cwd(), absolute);
  return shown === "" ? "." : shown.startsWith("..") || isAbsolute(shown) ? absolute : shown;
}

/** A catalogue's file (a folder ends in `/`) as messages show it. */
export function displayFileIn(catalogueDir: string): (file: string) => string {
  return (file) => {
    const shown = displayPath(resolve(catalogueDir, file));
    return file.endsWith("/") ? `${shown}/` : shown;
  };
}

/** `1.2 s` */
export function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

export interface ReportOptions {
  format?: Format;
  limit?: number;
  /** A build's count says that nothing was written when it failed. */
  building?: boolean;
}

/**
 * Prints problems in the chosen format (json prints them with the result, in printJson); returns
 * whether any is an error.
 */
export async function reportProblems(
  problems: readonly Problem[],
  catalogueDir: string,
  { format = "text", limit = DEFAULT_MAX_PROBLEMS, building = false }: ReportOptions = {},
): Promise<boolean> {
  const failed = problems.some(isError);
  if (format === "json" || problems.length === 0) return failed;
  let lines: string[];
  if (format === "github") {
    const { locateProblems } = await import("../validate/locateProblems.js");
    const { formatAnnotation } = await import("./formatGithub.js");
    lines = formatProblems(
      locateProblems(problems, catalogueDir),
      displayFileIn(catalogueDir),
      limit,
      formatAnnotation,
    );
  } else lines = formatProblems(problems, displayFileIn(catalogueDir), limit);
  const out = format === "github" ? process.stdout : process.stderr;
  for (const line of lines) out.write(`${line}\n`);
  process.stderr.write(`${formatProblemCount(problems)}${failed && building ? "; nothing was written" : ""}\n`);
  return failed;
}

/** `--format json`: the command's one document on stdout, its problems with their lines. */
export async function printJson(
  report: { ok: boolean; problems: readonly Problem[]; summary: object | null; rows?: CheckReport["rows"] },
  catalogueDir: string,
): Promise<void> {
  const { locateProblems } = await import("../validate/locateProblems.js");
  const { formatJsonReport } = await import("./formatJson.js");
  const problems = locateProblems(report.problems, catalogueDir);
  process.stdout.write(formatJsonReport({ ...report, problems }, displayFileIn(catalogueDir)));
}

/** Lines on stdout, each ended by a line break. */
export function printLines(lines: readonly string[]): void {
  if (lines.length > 0) process.stdout.write(`${lines.join("\n")}\n`);
}
