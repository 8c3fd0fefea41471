#!/usr/bin/env node
// The command line: commander parses and checks the arguments, each command (src/cli/commands/)
// calls one core function and prints its result, and this file turns what is thrown into an exit
// code: 0 ok, 1 invalid catalogue, failed check (or a failure outside the catalogue), 2 usage
// error, 3 internal error. Commands that serve, check or import load their modules on use, so a
// build starts quickly. Only this file catches.
import { Command } from "commander";
import { applyConfig } from "./cli/applyConfig.js";
import { registerBuild } from "./cli/commands/build.js";
import { registerCheck } from "./cli/commands/check.js";
import { registerConfig } from "./cli/commands/config.js";
import { registerDeploy } from "./cli/commands/deploy.js";
import { registerImportApi } from "./cli/commands/importApi.js";
import { registerImportApps } from "./cli/commands/importApps.js";
import { registerImportHbb } from "./cli/commands/importHbb.js";
import { registerImportOscmeta } from "./cli/commands/importOscmeta.js";
import { registerInit } from "./cli/commands/init.js";
import { registerNew } from "./cli/commands/new.js";
import { registerServe } from "./cli/commands/serve.js";
import { registerStatsCount } from "./cli/commands/statsCount.js";
import { registerValidate } from "./cli/commands/validate.js";
import { EXIT, exitCodeFor } from "./cli/exit.js";
import { CONFIG_FILE } from "./config/readConfig.js";
import { VERSION } from "./util/version.js";

const program = new Command()
  .name("shopfront")
  .description("Publish a package catalogue as a static JSON API.")
  .version(VERSION)
  .exitOverride()
  .showHelpAfterError()
  .addHelpText(
    "after",
    `\nThe options naming the catalogue, the output folder, the targets and the site take their defaults from ${CONFIG_FILE}\nin the working folder when it has one; an option given on the command line wins.`,
  )
  .hook("preAction", (_program, command) => applyConfig(command));

for (const register of [
  registerBuild,
  registerValidate,
  registerServe,
  registerConfig,
  registerCheck,
  registerDeploy,
  registerInit,
  registerNew,
])
  register(program);
const importer = program
  .command("import")
  .description("write a catalogue from an existing store: a Homebrew Browser list or a running API");
registerImportHbb(importer);
registerImportApi(importer);
registerImportOscmeta(importer);
registerImportApps(importer);
registerStatsCount(program.command("stats").description("download counts: catalogue/stats/<host>.json"));

// A reader that closes the pipe early (`shopfront ... | head`) has what it wanted: not an error.
for (const stream of [process.stdout, process.stderr])
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error;
    process.exit(process.exitCode ?? EXIT.ok);
  });

try {
  await program.parseAsync(process.argv);
} catch (error) {
  process.exitCode = exitCodeFor(error);
}
