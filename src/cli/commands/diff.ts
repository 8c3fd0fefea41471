import { Option, type Command } from "commander";
import { readFileSync } from "node:fs";
import { UsageError } from "../../util/errors.js";
import type { TargetId } from "../../targets/target.js";
import { catalogueSetting, fromConfig, siteSetting } from "../applyConfig.js";
import { EXIT, exits } from "../exit.js";
import { formatDiffMarkdown, formatDiffText } from "../formatDiff.js";
import { catalogueOption, targetOption } from "../options.js";
import { printLines } from "../report.js";

const DIFF_FORMATS = ["text", "json", "markdown"] as const;

interface DiffCliOptions {
  catalogue: string;
  out?: string;
  site: boolean;
  target?: TargetId[];
  baseUrl?: string;
  mirror?: string[];
  format: (typeof DIFF_FORMATS)[number];
  key?: string;
}

export function registerDiff(program: Command): void {
  const command = program
    .command("diff")
    .description(
      "what clients would receive differently from build A to build B: apps added, removed, renamed and updated, per client, problems, bytes to deploy",
    )
    .argument("<a>", "the first build: a built folder, a deployment's base URL, or a git revision of the catalogue")
    .argument("<b>", "the second build, as <a>")
    .addOption(catalogueOption("the catalogue folder, whose git revisions <a> and <b> may name"))
    .option(
      "--out <dir>",
      "build a git revision into this output folder, as build --out (a previous build there, such as a restored CI cache, makes it a rebuild); default: a temporary folder",
    )
    .addOption(targetOption("--target <target...>", "as build --target, for the git revisions' builds"))
    .option("--no-site", "build git revisions without the browse site")
    .option("--base-url <url>", "as build --base-url, for the git revisions' builds")
    .option(
      "--key <file>",
      "the minisign public key a built folder's or deployment's entry.json must be signed by: a bad signature stops diff before anything the entry names is read (default: shopfront.json's publicKey)",
    )
    .addOption(
      new Option(
        "--format <format>",
        "text; json: one document on stdout (schemas/diff.schema.json); markdown: for a pull request",
      )
        .choices(DIFF_FORMATS)
        .default("text"),
    )
    .action(exits(diff));
  fromConfig(command, {
    catalogue: catalogueSetting,
    site: siteSetting,
    target: (config) => config.targets,
    baseUrl: (config) => config.baseUrl,
    mirror: (config) => config.mirrors,
    key: (config) => config.publicKey,
  });
}

async function diff(a: string, b: string, options: DiffCliOptions) {
  let publicKey: string | undefined;
  if (options.key !== undefined) {
    try {
      publicKey = readFileSync(options.key, "latin1");
    } catch (error) {
      throw new UsageError(`--key ${options.key}: ${(error as Error).message}`);
    }
  }
  const { diffBuilds } = await import("../../diff/diffBuilds.js");
  const report = await diffBuilds({
    a,
    b,
    catalogueDir: options.catalogue,
    site: options.site,
    targets: options.target ?? [],
    mirrors: options.mirror ?? [],
    featuredDay: Math.floor(Date.now() / (24 * 3600 * 1000)),
    ...(options.out !== undefined ? { outDir: options.out } : {}),
    ...(options.baseUrl !== undefined ? { baseUrl: options.baseUrl } : {}),
    ...(publicKey !== undefined ? { publicKey } : {}),
    onSide: (side, what) => {
      if (options.format === "text" && process.stderr.isTTY) process.stderr.write(`${what} ${side === "a" ? a : b}\n`);
    },
  });
  if (options.format === "json") process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  else if (options.format === "markdown") process.stdout.write(formatDiffMarkdown(report));
  else printLines(formatDiffText(report));
  return EXIT.ok;
}
