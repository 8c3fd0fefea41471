// Adds the line and column to problems for reports that point at lines (`--format json|github`).
// Validation keeps no text, so each file with a problem is read again: cheap, as it happens only
// for files that have problems, and a file changed in between at worst moves a line.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Problem } from "../catalogue/problems.js";
import { pointerPosition, syntaxErrorPosition, type Position } from "./pointerLine.js";

export type LocatedProblem = Problem & Partial<Position>;

export function locateProblems(problems: readonly Problem[], catalogueDir: string): LocatedProblem[] {
  const texts = new Map<string, string | undefined>();
  const textOf = (file: string): string | undefined => {
    if (!texts.has(file)) texts.set(file, readText(join(catalogueDir, file)));
    return texts.get(file);
  };
  return problems.map((problem) => {
    const position = locate(problem, textOf);
    return position ? { ...problem, ...position } : problem;
  });
}

function locate(problem: Problem, textOf: (file: string) => string | undefined): Position | undefined {
  if (problem.file.endsWith("/") || !problem.file.endsWith(".json")) return undefined;
  if (problem.code === "JSON_SYNTAX") {
    const text = textOf(problem.file);
    return text === undefined ? undefined : syntaxErrorPosition(text);
  }
  // A problem of the whole file (empty, not UTF-8, a byte order mark) has no line.
  if (problem.pointer === "") return undefined;
  const text = textOf(problem.file);
  return text === undefined ? undefined : pointerPosition(text, problem.pointer);
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    // The file is gone or unreadable now: the problem is reported without its line.
    return undefined;
  }
}
