import type { Command } from "commander";
import { join } from "node:path";
import { EXIT, exits } from "../exit.js";
import { displayPath, printLines } from "../report.js";

export function registerInit(program: Command): void {
  program
    .command("init")
    .description("write a new catalogue repository that builds at once; files that exist are kept")
    .argument("[dir]", "the project folder (made if missing)", ".")
    .addHelpText(
      "after",
      [
        "",
        "It writes shopfront.json, catalogue/hosts.json, catalogue/primary/example.json,",
        "catalogue/themes/.gitkeep, .gitignore, .github/workflows/pages.yml (GitHub Pages),",
        ".vscode/settings.json (the schemas for editors), package.json, and",
        "vendor/shopfront-<version>.tgz: this shopfront packed, which package.json depends on",
        "(shopfront is in no registry yet); commit vendor/ with the rest.",
        "",
        "Next: cd DIR, npm install, npm run build; fill in catalogue/hosts.json and the example manifest,",
        "and add packages with `npx shopfront new HOST/NAME` (or `npx shopfront import ...`).",
      ].join("\n"),
    )
    .action(exits(init));
}

async function init(dir: string) {
  const { initProject } = await import("../../scaffold/initProject.js");
  const { formatInit } = await import("../formatScaffold.js");
  const result = initProject(dir);
  printLines(formatInit(result, (path) => displayPath(join(dir, path)), displayPath(dir)));
  return EXIT.ok;
}
