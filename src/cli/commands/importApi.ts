import { Option, type Command } from "commander";
import type { ImportReport } from "../../import/importCatalogue.js";
import { catalogueSetting, fromConfig } from "../applyConfig.js";
import { exits } from "../exit.js";
import { catalogueOption, integer } from "../options.js";
import { printImport } from "../printImport.js";
import { progressLine } from "../progress.js";

interface ImportApiCliOptions {
  fromFiles?: string;
  catalogue: string;
  force?: boolean;
  concurrency: number;
  timeout: number;
}

/** `import api`, under the `import` group. */
export function registerImportApi(importer: Command): void {
  const command = importer
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
  fromConfig(command, { catalogue: catalogueSetting });
}

async function importApiCommand(url: string | undefined, options: ImportApiCliOptions) {
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
