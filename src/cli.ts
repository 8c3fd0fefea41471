#!/usr/bin/env node
// The command line: parses arguments, calls one core function per command, prints the result and
// turns it into an exit code: 0 ok, 1 invalid catalogue (or a failure outside it), 2 usage error,
// 3 internal error. Only this file prints, and only this file catches.
import { isAbsolute, relative, resolve } from "node:path";
import { Command, CommanderError } from "commander";
import { buildCatalogue, checkCatalogue } from "./buildCatalogue.js";
import { FailureError, isSystemError, UsageError } from "./errors.js";
import { formatProblem, formatProblemCount } from "./formatProblems.js";
import { isError, type Problem } from "./problems.js";
import { VERSION } from "./version.js";

const EXIT = { ok: 0, invalid: 1, usage: 2, internal: 3 } as const;

interface CatalogueOptions {
  catalogue: string;
  quiet?: boolean;
}

/** A path as messages show it: relative to the working folder when inside it, else absolute. */
function displayPath(path: string): string {
  const absolute = resolve(path);
  const shown = relative(process.cwd(), absolute);
  return shown === "" ? "." : shown.startsWith("..") || isAbsolute(shown) ? absolute : shown;
}

/** Prints problems to stderr; returns whether any is an error. */
function reportProblems(problems: readonly Problem[], catalogueDir: string): boolean {
  const displayFile = (file: string) => {
    const shown = displayPath(resolve(catalogueDir, file));
    return file.endsWith("/") ? `${shown}/` : shown;
  };
  for (const problem of problems) process.stderr.write(`${formatProblem(problem, displayFile)}\n`);
  const failed = problems.some(isError);
  if (problems.length > 0) process.stderr.write(`${formatProblemCount(problems)}${failed ? "; nothing was written" : ""}\n`);
  return failed;
}

function seconds(since: number): string {
  return `${((performance.now() - since) / 1000).toFixed(1)} s`;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

const program = new Command()
  .name("shopfront")
  .description("Publish a package catalogue as a static JSON API.")
  .version(VERSION)
  .exitOverride()
  .showHelpAfterError();

program
  .command("build")
  .description("validate the catalogue and write every API response as a static file")
  .option("--catalogue <dir>", "the catalogue folder", "catalogue")
  .option("--out <dir>", "the output folder (made a link to the live build)", "dist")
  .option("--quiet", "print nothing but problems")
  .action(async (options: CatalogueOptions & { out: string }) => {
    const started = performance.now();
    const result = await buildCatalogue({ catalogueDir: options.catalogue, outDir: options.out });
    if (reportProblems(result.problems, options.catalogue) || !result.built) {
      process.exitCode = EXIT.invalid;
      return;
    }
    const { hosts, packages, files } = result.built;
    if (!options.quiet) {
      process.stdout.write(`built ${plural(hosts, "host")}, ${plural(packages, "package")}, ${plural(files, "file")} in ${seconds(started)} into ${displayPath(options.out)}\n`);
    }
  });

program
  .command("validate")
  .description("check the catalogue without writing anything")
  .option("--catalogue <dir>", "the catalogue folder", "catalogue")
  .option("--quiet", "print nothing but problems")
  .action(async (options: CatalogueOptions) => {
    const started = performance.now();
    const result = await checkCatalogue(options.catalogue);
    if (reportProblems(result.problems, options.catalogue) || !result.catalogue) {
      process.exitCode = EXIT.invalid;
      return;
    }
    let packages = 0;
    for (const list of result.catalogue.packages.values()) packages += list.length;
    if (!options.quiet) {
      process.stdout.write(`valid: ${plural(result.catalogue.hosts.length, "host")}, ${plural(packages, "package")} in ${seconds(started)}\n`);
    }
  });

function exitCodeFor(error: unknown): number {
  if (error instanceof CommanderError) {
    // Commander has printed its message already; help and --version are not errors.
    return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
  }
  if (error instanceof UsageError) {
    process.stderr.write(`error: ${error.message}\n`);
    return EXIT.usage;
  }
  if (error instanceof FailureError || isSystemError(error)) {
    process.stderr.write(`error: ${(error as Error).message}\n`);
    return EXIT.invalid;
  }
  process.stderr.write(`internal error: this is a bug in shopfront ${VERSION}; please report it with this output.\n${error instanceof Error ? error.stack : String(error)}\n`);
  return EXIT.internal;
}

try {
  await program.parseAsync(process.argv);
} catch (error) {
  process.exitCode = exitCodeFor(error);
}
