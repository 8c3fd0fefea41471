import type { Command } from "commander";
import { join } from "node:path";
import { EXIT, exits } from "../exit.js";
import { displayPath, printLines } from "../report.js";

export function registerInit(program: Command): void {
  program
    .command("init")
    .description("write a new catalogue repository that builds at once; files that exist are kept")
    .argument("[dir]", "the project folder (made if missing)", ".")
    .action(exits(init));
}

async function init(dir: string) {
  const { initProject } = await import("../../scaffold/initProject.js");
  const { formatInit } = await import("../formatScaffold.js");
  const result = initProject(dir);
  printLines(formatInit(result, (path) => displayPath(join(dir, path)), displayPath(dir)));
  return EXIT.ok;
}
