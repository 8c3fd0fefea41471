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
    .addOption(catalogueOption())
    .action(exits(create));
  fromConfig(command, { catalogue: catalogueSetting });
}

async function create({ host, name }: { host: string; name: string }, options: { catalogue: string }) {
  const { createManifest } = await import("../../scaffold/createManifest.js");
  const { formatNew } = await import("../formatScaffold.js");
  const { problems, file } = await createManifest({ catalogueDir: options.catalogue, host, name, projectDir: "." });
  if ((await reportProblems(problems, options.catalogue)) || !file) {
    process.stderr.write("nothing was written\n");
    return EXIT.invalid;
  }
  process.stdout.write(`${formatNew(displayPath(join(options.catalogue, file)))}\n`);
  return EXIT.ok;
}
