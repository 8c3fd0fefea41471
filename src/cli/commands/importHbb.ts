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

interface ImportHbbOptions {
  host?: string;
  files?: string;
  catalogue: string;
  force?: boolean;
}

/** `import hbb`, under the `import` group. */
export function registerImportHbb(importer: Command): void {
  const command = importer
    .command("hbb")
    .description("write a host's manifests and stats from a Homebrew Browser list (listv036.txt, listv035.txt)")
    .argument("<file>", "the list file")
    .addOption(
      new Option(
        "--host <id>",
        "the host the packages belong to, declared in hosts.json if it is not yet (default: primary when hosts.json has it or there is none yet, else its only host)",
      ).argParser(hostId),
    )
    .addOption(catalogueOption())
    .option("--files <dir>", "a mirror's folder holding hbb/<name>/<name>.zip: copy each archive in as package files")
    .option("--force", "overwrite existing manifests, their stats entries and archives")
    .action(exits(importHbb));
  fromConfig(command, { catalogue: catalogueSetting });
}

async function importHbb(file: string, options: ImportHbbOptions) {
  const { importHbbList } = await import("../../import/importCatalogue.js");
  const report = await importHbbList({
    file,
    ...(options.host !== undefined ? { host: options.host } : {}),
    ...(options.files !== undefined ? { files: options.files } : {}),
    catalogueDir: options.catalogue,
    force: !!options.force,
  });
  return printImport(report, options.catalogue);
}
