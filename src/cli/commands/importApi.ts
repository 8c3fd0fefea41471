import { InvalidArgumentError, Option, type Command } from "commander";
import { isValidName, NAME_RULE } from "../../catalogue/names.js";
import { DEFAULT_STORE_HOST, type ApiChoice } from "../../import/fetchApi.js";
import type { ImportReport } from "../../import/importCatalogue.js";
import { catalogueSetting, fromConfig } from "../applyConfig.js";
import { exits } from "../exit.js";
import { catalogueOption, integer } from "../options.js";
import { printImport } from "../printImport.js";
import { downloadBar, progressLine } from "../progress.js";

interface ImportApiCliOptions {
  fromFiles?: string;
  catalogue: string;
  force?: boolean;
  concurrency: number;
  timeout: number;
  api: ApiChoice;
  host?: string;
}

function hostId(value: string): string {
  if (!isValidName(value)) throw new InvalidArgumentError(NAME_RULE);
  return value;
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
      ).conflicts(["concurrency", "timeout", "api", "host"]),
    )
    .addOption(catalogueOption("the catalogue to write into"))
    .option("--force", "overwrite existing manifests, stats entries, archives and hosts.json")
    .option("--concurrency <n>", "requests and archives fetched at once", integer(1, 64), 4)
    .option(
      "--timeout <seconds>",
      "give up on a request (or an archive that stalls) after this long",
      integer(1, 3600),
      30,
    )
    .addOption(
      new Option("--api <version>", "which API to read: the newest the server has (v4, v3, then v1/v2), or one")
        .choices(["auto", "v4", "v3", "v2"])
        .default("auto"),
    )
    .addOption(
      new Option(
        "--host <id>",
        `the host a v4 or v3 API's one repository becomes (default: ${DEFAULT_STORE_HOST})`,
      ).argParser(hostId),
    )
    .action(exits(importApiCommand));
  fromConfig(command, { catalogue: catalogueSetting });
}

async function importApiCommand(url: string | undefined, options: ImportApiCliOptions) {
  const { importApi } = await import("../../import/importCatalogue.js");
  const onProgress = url !== undefined ? progressLine("fetched") : undefined;
  const onDownload = url !== undefined ? downloadBar() : undefined;
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
      ...(onDownload ? { onDownload } : {}),
      api: options.api,
      ...(options.host !== undefined ? { host: options.host } : {}),
    });
  } finally {
    // A failure leaves the progress line unfinished: clear it, so what follows is a line of its own.
    if (onProgress) process.stderr.write("\r\x1b[K");
  }
  return printImport(report, options.catalogue);
}
