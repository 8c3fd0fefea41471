import { InvalidArgumentError, Option, type Command } from "commander";
import { isValidName, NAME_RULE } from "../../catalogue/names.js";
import { catalogueSetting, fromConfig } from "../applyConfig.js";
import { exits } from "../exit.js";
import { catalogueOption } from "../options.js";
import { printImport } from "../printImport.js";

function hostId(value: string): string {
  if (!isValidName(value)) throw new InvalidArgumentError(NAME_RULE);
  return value;
}

interface ImportOscmetaCliOptions {
  host?: string;
  files?: string;
  catalogue: string;
  force?: boolean;
}

/** `import oscmeta`, under the `import` group. */
export function registerImportOscmeta(importer: Command): void {
  const command = importer
    .command("oscmeta")
    .description(
      "write a host's manifests and package files from an Open Shop Channel app repository (contents/*.oscmeta)",
    )
    .argument("<dir>", "the repository: its contents/ folder and repository.json")
    .addOption(
      new Option(
        "--host <id>",
        "the host the apps belong to, declared in hosts.json if it is not yet (default: primary when hosts.json has it or there is none yet, else its only host)",
      ).argParser(hostId),
    )
    .option(
      "--files <dir>",
      "where the package files are: <name>.zip, <name>/apps/<name>/ or hbb/<name>/<name>.zip (default: the repository)",
    )
    .addOption(catalogueOption())
    .option("--force", "overwrite existing manifests and package files")
    .action(exits(importOscmetaCommand));
  fromConfig(command, { catalogue: catalogueSetting });
}

async function importOscmetaCommand(dir: string, options: ImportOscmetaCliOptions) {
  const { importOscmeta } = await import("../../import/importCatalogue.js");
  const report = await importOscmeta({
    dir,
    ...(options.host !== undefined ? { host: options.host } : {}),
    ...(options.files !== undefined ? { filesDir: options.files } : {}),
    catalogueDir: options.catalogue,
    force: !!options.force,
  });
  return printImport(report, options.catalogue);
}
