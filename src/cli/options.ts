// The options several commands share, and the one parser of numbers: commander checks every
// argument before a command runs, and a bad one is a usage error (exit 2) with commander's message.
import { InvalidArgumentError, Option, type Command } from "commander";
import { TARGETS } from "../targets/index.js";

/** A whole number from `min` to `max`, as commander's argument parser. */
export function integer(min: number, max = Number.MAX_SAFE_INTEGER): (value: string) => number {
  const expected =
    max === Number.MAX_SAFE_INTEGER ? `expected a whole number, ${min} or more` : `expected ${min} to ${max}`;
  return (value) => {
    const n = /^\d+$/.test(value) ? Number(value) : Number.NaN;
    if (!Number.isSafeInteger(n) || n < min || n > max) throw new InvalidArgumentError(expected);
    return n;
  };
}

export const FORMATS = ["text", "json", "github"] as const;
export type Format = (typeof FORMATS)[number];

/** `--format`: how the command reports; `github` says what its workflow commands point at. */
export function formatOption(github: string): Option {
  return new Option("--format <format>", `text; json: one document on stdout; github: ${github}`)
    .choices(FORMATS)
    .default("text");
}

export const DEFAULT_MAX_PROBLEMS = 100;

export function maxProblemsOption(): Option {
  return new Option("--max-problems <n>", "list at most this many problems, then a count per kind (0: all)")
    .argParser(integer(0))
    .default(DEFAULT_MAX_PROBLEMS);
}

/** `validate --strict`, `build --strict`: the core makes every warning an error, so exit 1 follows from the one rule. */
export function strictOption(): Option {
  return new Option("--strict", "treat warnings as errors: exit 1 (and build writes nothing) when there is one");
}

export function catalogueOption(description = "the catalogue folder"): Option {
  return new Option("--catalogue <dir>", description).default("catalogue");
}

export function targetOption(flags: string, description: string): Option {
  return new Option(flags, description).choices(TARGETS.map((t) => t.id));
}

/**
 * An old name of an option, kept working but out of the help: using it prints a one-line note on
 * stderr and sets the option it became (`current`, a long flag the command has).
 */
export function deprecatedAlias(command: Command, old: Option, current: string): Command {
  const option = command.options.find((o) => o.long === current);
  if (!option) throw new Error(`${command.name()} has no option ${current}`);
  // The old name takes what the new one takes.
  if (option.argChoices) old.choices(option.argChoices);
  else if (option.parseArg) old.argParser(option.parseArg);
  return command.addOption(old.hideHelp()).on(`option:${old.name()}`, (value: string) => {
    process.stderr.write(`note: ${old.long} is deprecated here; use ${current}\n`);
    command.setOptionValueWithSource(option.attributeName(), value, "cli");
  });
}
