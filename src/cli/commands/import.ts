// `import hbb` and `import api`: one core call each, which writes and then validates the catalogue.
import { InvalidArgumentError, Option, type Command } from "commander";
import { isValidName, NAME_RULE } from "../../catalogue/names.js";
import type { ImportReport } from "../../import/importCatalogue.js";
import { catalogueSetting, fromConfig } from "../applyConfig.js";
import { EXIT, exits, type ExitCode } from "../exit.js";
import { formatValidSummary } from "../formatBuild.js";
import { catalogueOption, integer } from "../options.js";
import { progressLine } from "../progress.js";
import { displayPath, printLines, reportProblems, seconds } from "../report.js";

function hostId(value: string): string {
  if (!isValidName(value)) throw new InvalidArgumentError(NAME_RULE);
  return value;
}

export function registerImport(program: Command): void {
  const importer = program
    .command("import")
    .description("write a catalogue from an existing store: a Homebrew Browser list or a running API");

  const hbb = importer
    .command("hbb")
    .description("write a host's manifests and stats from a Homebrew Browser list (listv036.txt, listv035.txt)")
    .argument("<file>", "the list file")
    .addOption(
      new Option("--host <id>", "the host the packages belong to (declared in hosts.json if it is not yet)")
        .argParser(hostId)
        .makeOptionMandatory(),
    )
    .addOption(catalogueOption())
    .option("--force", "overwrite existing manifests and their stats entries")
    .action(exits(importHbb));
  fromConfig(hbb, { catalogue: catalogueSetting });

  const api = importer
    .command("api")
    .description("import a running API's hosts, packages and numbers (or the same JSON saved in files)")
    .argument("[url]", "the API's base URL, such as https://api.example.org")
    .addOption(
      new Option(
        "--from-files <dir>",
        "read DIR/v1/hosts and DIR/v1/<host>/packages instead (a build's dist/ works)",
      ).conflicts(["concurrency", "timeout"]),
    )
    .addOption(catalogueOption("the catalogue to write into"))
    .option("--force", "overwrite existing manifests, stats entries and hosts.json")
    .option("--concurrency <n>", "hosts fetched at once", integer(1, 64), 4)
    .option("--timeout <seconds>", "give up on a request after this long", integer(1, 3600), 30)
    .action(exits(importApiCommand));
  fromConfig(api, { catalogue: catalogueSetting });
}

interface ImportCliOptions {
  catalogue: string;
  force?: boolean;
}

async function importHbb(file: string, options: ImportCliOptions & { host: string }) {
  const { importHbbList } = await import("../../import/importCatalogue.js");
  const report = await importHbbList({
    file,
    host: options.host,
    catalogueDir: options.catalogue,
    force: !!options.force,
  });
  return printImport(report, options.catalogue);
}

async function importApiCommand(
  url: string | undefined,
  options: ImportCliOptions & { fromFiles?: string; concurrency: number; timeout: number },
) {
  const { importApi } = await import("../../import/importCatalogue.js");
  const onProgress = url !== undefined ? progressLine("fetched") : undefined;
  let report: ImportReport;
  try {
    report = await importApi({
      ...(url !== undefined ? { url } : {}),
      ...(options.fromFiles !== undefined ? { fromFiles: options.fromFiles } : {}),
      concurrency: options.concurrency,
      timeoutSeconds: options.timeout,
      catalogueDir: options.catalogue,
      force: !!options.force,
      ...(onProgress ? { onProgress } : {}),
    });
  } finally {
    // A failure leaves the progress line unfinished: clear it, so what follows is a line of its own.
    if (onProgress) process.stderr.write("\r\x1b[K");
  }
  return printImport(report, options.catalogue);
}

/** The import's summary, then the catalogue's validation; 1 when anything was skipped or it does not validate. */
async function printImport(report: ImportReport, catalogueDir: string): Promise<ExitCode> {
  const { formatImportSummary } = await import("../formatImport.js");
  const { summary, validation } = report;
  if ((await reportProblems(report.problems, catalogueDir)) || !summary || !validation) {
    process.stderr.write("nothing was imported\n");
    return EXIT.invalid;
  }
  printLines(formatImportSummary(summary, displayPath(catalogueDir)));
  const invalid = (await reportProblems(validation.problems, catalogueDir)) || !validation.valid;
  if (validation.valid && !invalid)
    process.stdout.write(
      `${formatValidSummary(validation.valid.hosts, validation.valid.packages, seconds(validation.ms))}\n`,
    );
  return invalid || summary.skipped.length > 0 ? EXIT.invalid : EXIT.ok;
}
