import { InvalidArgumentError, type Command } from "commander";
import { join } from "node:path";
import { isValidName, NAME_RULE } from "../../catalogue/names.js";
import { catalogueSetting, fromConfig } from "../applyConfig.js";
import { exits } from "../exit.js";
import { formatMetaWritten } from "../formatScaffold.js";
import { catalogueOption } from "../options.js";
import { printImport } from "../printImport.js";
import { displayPath } from "../report.js";

function hostId(value: string): string {
  if (!isValidName(value)) throw new InvalidArgumentError(NAME_RULE);
  return value;
}

interface ImportAppsOptions {
  host?: string;
  catalogue: string;
  force?: boolean;
  hbbList?: string;
}

/** `import apps`, under the `import` group. */
export function registerImportApps(importer: Command): void {
  const command = importer
    .command("apps")
    .description(
      "write a manifest and package files for each app of an SD card: its apps/ folder, its root, or a folder of app folders and app zips",
    )
    .argument("<dir>", "the folder holding the apps")
    .option(
      "--host <id>",
      "the host the apps belong to, one hosts.json declares (default: primary, or hosts.json's only host; with no hosts.json yet, one is written declaring it)",
      hostId,
    )
    .addOption(catalogueOption())
    .option(
      "--hbb-list <file>",
      "a Homebrew Browser list (listv036.txt) to take categories, dates and controllers from, instead of the card's own apps/homebrew_browser/listv036.txt",
    )
    .option("--force", "overwrite the manifests and package files of apps already in the catalogue")
    .action(exits(importAppsCommand));
  fromConfig(command, { catalogue: catalogueSetting });
}

async function importAppsCommand(dir: string, options: ImportAppsOptions) {
  const { importApps } = await import("../../import/importCatalogue.js");
  const report = await importApps({
    dir,
    ...(options.host !== undefined ? { host: options.host } : {}),
    catalogueDir: options.catalogue,
    force: !!options.force,
    ...(options.hbbList !== undefined ? { hbbList: options.hbbList } : {}),
  });
  if (report.summary) {
    for (const origin of report.origins) process.stdout.write(`${origin}\n`);
    for (const warning of report.warnings) process.stderr.write(`warning: ${warning}\n`);
    for (const { file, text } of report.metaWritten)
      process.stdout.write(`${formatMetaWritten(displayPath(join(options.catalogue, file)), text)}\n`);
    if (report.alreadyThere.length > 0)
      process.stdout.write(
        `already in the catalogue, left as they are (--force overwrites): ${report.alreadyThere.join(", ")}\n`,
      );
  }
  return printImport(report, options.catalogue);
}
