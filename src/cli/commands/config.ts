import { Argument, type Command } from "commander";
import { isError } from "../../catalogue/problems.js";
import { TARGETS } from "../../targets/index.js";
import type { TargetId } from "../../targets/target.js";
import { writeConfig } from "../../targets/writeConfig.js";
import { catalogueSetting, fromConfig, outSetting } from "../applyConfig.js";
import { EXIT, exits } from "../exit.js";
import { catalogueOption } from "../options.js";
import { reportProblems } from "../report.js";

interface ConfigCliOptions {
  root: string;
  listen: string;
  catalogue: string;
  out?: string;
}

export function registerConfig(program: Command): void {
  const command = program
    .command("config")
    .description("write the config that makes a host answer every route (servers: to stdout or --out)")
    .addArgument(new Argument("<target>", "the host").choices(TARGETS.map((t) => t.id)))
    .option("--root <dir>", "servers: the built folder the server serves", "dist")
    .option("--listen <host:port>", "servers: the address to listen on", "127.0.0.1:8080")
    .addOption(catalogueOption("the catalogue whose hosts, packages and coders the rules list"))
    .option("--out <path>", "write to this file (or folder, for several files) instead of stdout")
    .action(exits(config));
  fromConfig(command, { catalogue: catalogueSetting, root: outSetting });
}

async function config(target: TargetId, options: ConfigCliOptions) {
  const { problems, files, written } = await writeConfig({
    target,
    root: options.root,
    listen: options.listen,
    catalogueDir: options.catalogue,
    ...(options.out !== undefined ? { out: options.out } : {}),
  });
  // A config depends on the catalogue's names alone: its warnings are validate's and build's to report.
  if ((await reportProblems(problems.filter(isError), options.catalogue)) || !files) return EXIT.invalid;
  if (written) return EXIT.ok;
  if (files.length === 1) process.stdout.write(files[0]!.content);
  else for (const file of files) process.stdout.write(`==> ${file.path} <==\n${file.content}\n`);
  return EXIT.ok;
}
