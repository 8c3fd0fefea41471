import { Argument, InvalidArgumentError, type Command } from "commander";
import { join } from "node:path";
import { catalogueSetting, fromConfig } from "../applyConfig.js";
import { EXIT, exits } from "../exit.js";
import { catalogueOption } from "../options.js";
import { displayPath, reportProblems } from "../report.js";

/** `HOST/NAME`, split; the name rule and the host's declaration are the core's to check. */
function hostAndName(value: string): { host: string; name: string } {
  const [host, name, ...rest] = value.split("/");
  if (host === undefined || name === undefined || rest.length > 0 || host === "")
    throw new InvalidArgumentError("expected HOST/NAME, such as primary/snake");
  return { host, name };
}

export function registerNew(program: Command): void {
  const command = program
    .command("new")
    .description("write a new manifest, catalogue/HOST/NAME.json, from a template stamped with the current time")
    .addArgument(new Argument("<host/name>", "the host the package belongs to and its name").argParser(hostAndName))
    .option(
      "--from <path>",
      "copy a package's files into the catalogue (a zip to HOST/NAME.zip, a folder holding apps/NAME/ to HOST/NAME/, an app's own folder, holding boot.dol or boot.elf, to HOST/NAME/apps/NAME/) and fill the manifest from its meta.xml",
    )
    .addOption(catalogueOption())
    .action(exits(create));
  fromConfig(command, { catalogue: catalogueSetting });
}

async function create({ host, name }: { host: string; name: string }, options: { catalogue: string; from?: string }) {
  const { createManifest } = await import("../../scaffold/createManifest.js");
  const { formatMetaWritten, formatNew, formatRenamed } = await import("../formatScaffold.js");
  const { problems, file, files, fillIn, metaWritten, renamedFrom, leftOut } = await createManifest({
    catalogueDir: options.catalogue,
    host,
    name,
    projectDir: ".",
    ...(options.from !== undefined ? { from: options.from } : {}),
  });
  if ((await reportProblems(problems, options.catalogue)) || !file) {
    process.stderr.write("nothing was written\n");
    return EXIT.invalid;
  }
  if (files !== undefined)
    process.stdout.write(`copied the package's files to ${displayPath(join(options.catalogue, files))}\n`);
  if (renamedFrom !== undefined) process.stderr.write(`${formatRenamed(renamedFrom, name)}\n`);
  for (const { entry, what } of leftOut ?? [])
    process.stdout.write(
      `${entry} is left out: ${what}, which the app writes for whoever uses it, not part of the app\n`,
    );
  if (metaWritten !== undefined)
    process.stdout.write(
      `${formatMetaWritten(displayPath(join(options.catalogue, metaWritten.file)), metaWritten.text)}\n`,
    );
  process.stdout.write(`${formatNew(displayPath(join(options.catalogue, file)), fillIn)}\n`);
  return EXIT.ok;
}
