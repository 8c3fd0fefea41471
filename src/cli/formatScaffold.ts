// What `shopfront init` and `shopfront new` print: the files written and kept, and what to do next.
import { CHECK, FILL_IN } from "../catalogue/manifestTemplate.js";
import { listed } from "./formatProblems.js";
import { EXAMPLE_PACKAGE, type InitResult } from "../scaffold/initProject.js";

/** One line per file, then the next steps. `shown` turns a project path into the path to print. */
export function formatInit(result: InitResult, shown: (path: string) => string, dir: string): string[] {
  const lines = result.written.map((path) => `wrote ${shown(path)}`);
  for (const { path, lacks } of result.kept)
    lines.push(`kept ${shown(path)}: it exists${lacks ? `, and lacks ${lacks} (add them by hand)` : ""}`);
  if (result.written.length === 0) return [...lines, `nothing was written: ${dir} has every file already`];
  const next = [...(dir === "." ? [] : [`cd ${dir}`]), "npm install", "npm run build"];
  lines.push(
    "",
    `next: ${next.join(", then ")}; fill in catalogue/hosts.json and catalogue/${EXAMPLE_PACKAGE},`,
    "and add packages with `npx shopfront new HOST/NAME` (`--from DIR|ZIP` copies a package's files beside",
    "its manifest, as HOST/NAME.zip or a folder HOST/NAME/, and fills it from meta.xml; the build derives",
    "zip_size, extracted and package_type from them). Commit vendor/ and package-lock.json with the",
    "rest: shopfront is in no registry yet, and the workflow's `npm ci` installs it from them.",
  );
  return lines;
}

/** `wrote catalogue/primary/snake.json: fill in display_name, ...` */
export function formatNew(file: string, fillIn?: readonly string[]): string {
  // With package files: only what meta.xml did not give; the sizes and the type come from the files.
  if (fillIn !== undefined) {
    const check = CHECK.filter((f) => f !== "package_type");
    return fillIn.length > 0
      ? `wrote ${file}: fill in ${listed(fillIn)}, and check ${listed(check)}`
      : `wrote ${file} from meta.xml: check ${listed(check)}`;
  }
  return `wrote ${file}: fill in ${listed(FILL_IN)}, and check ${listed(CHECK)}`;
}

/** The warning for an app whose folder is renamed to its package name: its path on the SD card changes. */
export function formatRenamed(folder: string, name: string): string {
  return `warning: the app's folder ${JSON.stringify(folder)} is apps/${name}/ in the package: it installs at sd:/apps/${name}/, not sd:/apps/${folder}/ (an app that looks for its own files at its old path needs them there)`;
}

/** A meta.xml shopfront wrote for an app that had none, shown whole for the maintainer to complete. */
export function formatMetaWritten(file: string, text: string): string {
  const lines = text
    .trimEnd()
    .split("\n")
    .map((line) => `  ${line}`);
  return [`wrote ${file} (the app had none): complete it`, ...lines].join("\n");
}
