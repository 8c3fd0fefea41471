// What `import hbb` and `import api` print: the import's summary, then the catalogue's validation.
import type { ImportReport } from "../import/importCatalogue.js";
import { EXIT, type ExitCode } from "./exit.js";
import { formatValidSummary } from "./formatBuild.js";
import { formatImportSummary } from "./formatImport.js";
import { displayPath, printLines, reportProblems, seconds } from "./report.js";

/** Prints the report; 1 when nothing was imported, anything was skipped or the catalogue does not validate. */
export async function printImport(report: ImportReport, catalogueDir: string): Promise<ExitCode> {
  const { summary, validation } = report;
  if ((await reportProblems(report.problems, catalogueDir)) || !summary) {
    process.stderr.write("nothing was imported\n");
    return EXIT.invalid;
  }
  printLines(formatImportSummary(summary, displayPath(catalogueDir)));
  if (!validation) return EXIT.invalid;
  const invalid = (await reportProblems(validation.problems, catalogueDir)) || !validation.valid;
  if (validation.valid && !invalid)
    process.stdout.write(
      `${formatValidSummary(validation.valid.hosts, validation.valid.packages, seconds(validation.ms))}\n`,
    );
  return invalid || summary.skipped.length > 0 ? EXIT.invalid : EXIT.ok;
}
