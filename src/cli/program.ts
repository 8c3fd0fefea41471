// The commander program: every command registered (one module each, src/cli/commands/), with
// shopfront.json applied before a command runs. src/cli.ts parses the process's arguments with it;
// the tests parse the docs' examples with it, their actions stubbed.
import { Command } from "commander";
import { applyConfig } from "./applyConfig.js";
import { registerBuild } from "./commands/build.js";
import { registerCheck } from "./commands/check.js";
import { registerConfig } from "./commands/config.js";
import { registerDeploy } from "./commands/deploy.js";
import { registerDiff } from "./commands/diff.js";
import { registerImportApi } from "./commands/importApi.js";
import { registerImportApps } from "./commands/importApps.js";
import { registerImportHbb } from "./commands/importHbb.js";
import { registerImportOscmeta } from "./commands/importOscmeta.js";
import { registerInit } from "./commands/init.js";
import { registerKey } from "./commands/key.js";
import { registerNew } from "./commands/new.js";
import { registerServe } from "./commands/serve.js";
import { registerStatsCount } from "./commands/statsCount.js";
import { registerValidate } from "./commands/validate.js";
import { registerVerify } from "./commands/verify.js";
import { CONFIG_FILE } from "../config/readConfig.js";
import { VERSION } from "../util/version.js";

export function createProgram(): Command {
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
    registerVerify,
    registerDiff,
    registerDeploy,
    registerInit,
    registerNew,
    registerKey,
  ])
    register(program);
  const importer = program
    .command("import")
    .description(
      "write a catalogue from an existing store: a Homebrew Browser list (hbb), a running API (api), an Open Shop Channel app repository (oscmeta) or an SD card's apps (apps)",
    );
  registerImportHbb(importer);
  registerImportApi(importer);
  registerImportOscmeta(importer);
  registerImportApps(importer);
  registerStatsCount(program.command("stats").description("download counts: catalogue/stats/<host>.json"));
  return program;
}
