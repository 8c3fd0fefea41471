import { Option, type Command } from "commander";
import { readFileSync } from "node:fs";
import { FAIL_ON, type FailOn } from "../../diff/diffFailures.js";
import { UsageError } from "../../util/errors.js";
import type { TargetId } from "../../targets/target.js";
import { catalogueSetting, fromConfig, siteSetting } from "../applyConfig.js";
import { EXIT, exits } from "../exit.js";
import {
  formatDiffMarkdown,
  formatDiffText,
  formatUnbuiltMarkdown,
  formatUnbuiltText,
  markdownText,
} from "../formatDiff.js";
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
  exitCode: boolean;
  failOn?: FailOn[];
  host?: string[];
  key?: string;
}

export function registerDiff(program: Command): void {
  const command = program
    .command("diff")
    .description(
      "what clients would receive differently from build A to build B: apps added, removed, renamed and updated, per client, problems, bytes to deploy",
    )
    .argument(
      "<a>",
      "the first build: a built folder, a deployment's base URL, a git revision of the catalogue, or the catalogue folder (its working tree)",
    )
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
    .option("--host <id...>", "report only these hosts' apps")
    .option("--exit-code", "exit 1 when the two sides differ (as --fail-on difference)", false)
    .addOption(
      new Option(
        "--fail-on <condition...>",
        "exit 1 when the change introduces problems, makes an app write to the NAND, removes an app, or its first side is not the merge base",
      ).choices(FAIL_ON),
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
  const { diffFailures } = await import("../../diff/diffFailures.js");
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
    ...(options.host !== undefined ? { hosts: options.host } : {}),
    ...(publicKey !== undefined ? { publicKey } : {}),
    onSide: (side, what) => {
      if (options.format === "text" && process.stderr.isTTY) process.stderr.write(`${what} ${side === "a" ? a : b}\n`);
    },
  });
  if ("unbuilt" in report) {
    if (options.format === "json") process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    else if (options.format === "markdown") process.stdout.write(formatUnbuiltMarkdown(report));
    else printLines(formatUnbuiltText(report));
    return EXIT.invalid;
  }
  const failures = diffFailures(report, [
    ...(options.exitCode ? ["difference" as const] : []),
    ...(options.failOn ?? []),
  ]);
  if (options.format === "json") process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  else if (options.format === "markdown")
    process.stdout.write(
      `${formatDiffMarkdown(report)}${failures.length > 0 ? `\n**Check failed**: ${failures.map(markdownText).join("; ")}.\n` : ""}`,
    );
  else printLines(formatDiffText(report));
  for (const reason of failures) process.stderr.write(`check failed: ${reason}\n`);
  return failures.length > 0 ? EXIT.invalid : EXIT.ok;
}
