import type { Command } from "commander";
import { buildCatalogue } from "../../engine/buildCatalogue.js";
import type { TargetId } from "../../targets/target.js";
import { catalogueSetting, fromConfig, outSetting, siteSetting } from "../applyConfig.js";
import { EXIT, exits } from "../exit.js";
import { formatBuildSummary, formatDroppedTargets } from "../formatBuild.js";
import {
  catalogueOption,
  formatOption,
  maxProblemsOption,
  strictOption,
  targetOption,
  type Format,
} from "../options.js";
import { progressBar } from "../progress.js";
import { displayPath, printJson, reportProblems, seconds } from "../report.js";

interface BuildOptions {
  catalogue: string;
  out: string;
  target?: TargetId[];
  site: boolean;
  force?: boolean;
  baseUrl?: string;
  maxProblems: number;
  quiet?: boolean;
  strict?: boolean;
  format: Format;
}

export function registerBuild(program: Command): void {
  const command = program
    .command("build")
    .description("validate the catalogue and write every API response as a static file")
    .addOption(catalogueOption())
    .option("--out <dir>", "the output folder (made a link to the live build)", "dist")
    .addOption(targetOption("--target <target...>", "also write the config files this host reads from the deploy root"))
    .option("--no-site", "write the API without the browse site")
    .option("--force", "ignore the previous build and write every file")
    .option(
      "--base-url <url>",
      "the origin the build is served from, for the v3/v4 URLs (default: http://<default host>)",
    )
    .addOption(maxProblemsOption())
    .option("--quiet", "print nothing but problems")
    .addOption(strictOption())
    .addOption(formatOption("workflow commands that annotate the catalogue's files (and lines)"))
    .action(exits(build));
  fromConfig(command, {
    catalogue: catalogueSetting,
    out: outSetting,
    target: (config) => config.targets,
    site: siteSetting,
    baseUrl: (config) => config.baseUrl,
  });
}

async function build(options: BuildOptions) {
  const started = performance.now();
  const bar = options.quiet || options.format !== "text" ? undefined : progressBar();
  const result = await buildCatalogue({
    catalogueDir: options.catalogue,
    outDir: options.out,
    targets: options.target ?? [],
    site: options.site,
    force: options.force ?? false,
    strict: options.strict ?? false,
    ...(options.baseUrl !== undefined ? { baseUrl: options.baseUrl } : {}),
    ...(bar ? { onProgress: bar } : {}),
  });
  const { format, maxProblems: limit } = options;
  const failed =
    (await reportProblems(result.problems, options.catalogue, { format, limit, building: true })) || !result.built;
  const code = failed ? EXIT.invalid : EXIT.ok;
  if (format === "json") {
    const ms = performance.now() - started;
    const summary = result.built && { ...result.built, out: displayPath(options.out), seconds: ms / 1000 };
    await printJson({ ok: !failed, problems: result.problems, summary: summary ?? null }, options.catalogue);
    return code;
  }
  if (failed || !result.built) return code;
  if (!options.quiet)
    process.stdout.write(
      `${formatBuildSummary(result.built, seconds(performance.now() - started), displayPath(options.out))}\n`,
    );
  if (result.built.dropped)
    process.stderr.write(`${formatDroppedTargets(result.built.dropped, options.target ?? [])}\n`);
  return code;
}
