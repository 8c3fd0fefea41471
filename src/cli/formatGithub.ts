// `--format github`: problems as GitHub Actions workflow commands, which the runner reads from stdout
// and shows as annotations on the named lines of a pull request's files.
// https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-commands
import type { ReportRow } from "../check/checkDeployment.js";
import type { LocatedProblem } from "../validate/locateProblems.js";

/** A command's message: `%`, CR and LF are escaped, or the command would end at the line break. */
export function escapeData(text: string): string {
  return text.replaceAll("%", "%25").replaceAll("\r", "%0D").replaceAll("\n", "%0A");
}

/** A property's value: also `:` and `,`, which end a value. */
export function escapeProperty(text: string): string {
  return escapeData(text).replaceAll(":", "%3A").replaceAll(",", "%2C");
}

function command(name: string, properties: Record<string, string | number | undefined>, message: string): string {
  const list = Object.entries(properties)
    .filter((entry): entry is [string, string | number] => entry[1] !== undefined)
    .map(([key, value]) => `${key}=${escapeProperty(String(value))}`)
    .join(",");
  return `::${name}${list ? ` ${list}` : ""}::${escapeData(message)}`;
}

/**
 * `::error file=catalogue/primary/x.json,line=3,col=5,title=WRONG_TYPE::/zip_size must be integer`;
 * `displayFile` gives the path relative to the repository, as GitHub matches annotations by it.
 */
export function formatAnnotation(problem: LocatedProblem, displayFile: (file: string) => string): string {
  const message = problem.pointer ? `${problem.pointer} ${problem.message}` : problem.message;
  return command(
    problem.severity,
    { file: displayFile(problem.file), line: problem.line, col: problem.column, title: problem.code },
    message,
  );
}

/** A failed conformance row, with no file to point at: `::error title=CORS header::FAIL 3 of 40, first: ...`. */
export function formatRowAnnotation(row: ReportRow): string {
  const first = row.first ? `, first: ${row.first.method} ${row.first.target}: ${row.first.reason}` : "";
  return command("error", { title: row.title }, `FAIL ${row.failures} of ${row.checked}${first}`);
}
