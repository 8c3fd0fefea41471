import type { Command } from "commander";
import { validateCatalogue } from "../../load/validateCatalogue.js";
import { catalogueSetting, fromConfig } from "../applyConfig.js";
import { EXIT, exits } from "../exit.js";
import { formatValidSummary } from "../formatBuild.js";
import { catalogueOption, formatOption, maxProblemsOption, strictOption, type Format } from "../options.js";
import { printJson, reportProblems, seconds } from "../report.js";

interface ValidateOptions {
  catalogue: string;
  maxProblems: number;
  quiet?: boolean;
  strict?: boolean;
  format: Format;
}

export function registerValidate(program: Command): void {
  const command = program
    .command("validate")
    .description("check the catalogue without writing anything")
    .addOption(catalogueOption())
    .addOption(maxProblemsOption())
    .option("--quiet", "print nothing but problems")
    .addOption(strictOption())
    .addOption(formatOption("workflow commands that annotate the catalogue's files (and lines)"))
    .action(exits(validate));
  fromConfig(command, { catalogue: catalogueSetting });
}

async function validate(options: ValidateOptions) {
  const started = performance.now();
  const { problems, valid } = await validateCatalogue(options.catalogue, { strict: options.strict ?? false });
  const { format, maxProblems: limit } = options;
  const failed = (await reportProblems(problems, options.catalogue, { format, limit })) || !valid;
  const code = failed ? EXIT.invalid : EXIT.ok;
  const ms = performance.now() - started;
  if (format === "json") {
    const summary = valid && { ...valid, seconds: ms / 1000 };
    await printJson({ ok: !failed, problems, summary: summary ?? null }, options.catalogue);
  } else if (!failed && valid && !options.quiet)
    process.stdout.write(`${formatValidSummary(valid.hosts, valid.packages, seconds(ms))}\n`);
  return code;
}
