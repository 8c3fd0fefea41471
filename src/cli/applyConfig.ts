// shopfront.json's settings as option defaults: each command declares which of its options a
// setting fills in; an option given on the command line wins, and an invalid file stops the command.
import type { Command } from "commander";
import { CONFIG_FILE, readConfig, type ProjectConfig } from "../config/readConfig.js";
import { FailureError } from "../util/errors.js";
import { reportProblems } from "./report.js";

export type Setting = (config: ProjectConfig) => unknown;
export const catalogueSetting: Setting = (config) => config.catalogue;
export const outSetting: Setting = (config) => config.out;
export const siteSetting: Setting = (config) => config.site;

const SETTINGS = new WeakMap<Command, Record<string, Setting>>();

/** Declares the options of `command` that shopfront.json fills in, by option name. */
export function fromConfig(command: Command, settings: Record<string, Setting>): Command {
  SETTINGS.set(command, settings);
  return command;
}

/** Fills in the options the command line left out from shopfront.json, before the command runs. */
export async function applyConfig(command: Command): Promise<void> {
  const settings = SETTINGS.get(command);
  if (!settings) return;
  const { config, problems } = await readConfig(".");
  if ((await reportProblems(problems, ".")) || !config)
    throw new FailureError(`${CONFIG_FILE} is not valid: nothing was done`);
  for (const [option, setting] of Object.entries(settings)) {
    const value = setting(config);
    if (value !== undefined && command.getOptionValueSource(option) !== "cli")
      command.setOptionValueWithSource(option, value, "config");
  }
}
