import { Option, type Command } from "commander";
import { join } from "node:path";
import { LOG_FORMATS, type LogFormat } from "../../stats/logFormats.js";
import { catalogueSetting, fromConfig } from "../applyConfig.js";
import { EXIT, exits } from "../exit.js";
import { catalogueOption, deprecatedAlias } from "../options.js";
import { displayPath, printLines, reportProblems } from "../report.js";

interface CountOptions {
  host: string;
  urlPattern?: string[];
  catalogue: string;
  logFormat: LogFormat | "auto";
  replace?: boolean;
}

const LOG_FORMAT_CHOICES = ["auto", ...LOG_FORMATS];

/** `stats count`, under the `stats` group. */
export function registerStatsCount(stats: Command): void {
  const count = stats
    .command("count")
    .description("count package downloads in web server access logs into a host's stats file")
    .argument("<logfile...>", "access logs (combined, S3 or CloudFront; gzipped or not)")
    .requiredOption("--host <id>", "the host whose packages the logs serve")
    .option(
      "--url-pattern <pattern>",
      "the path of a download, {name} standing for the package name; repeat it for more (default: every URL the build serves the host's archives at)",
      (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
    )
    .addOption(catalogueOption())
    .addOption(
      new Option("--log-format <format>", "the logs' format (auto: detected per log)")
        .choices(LOG_FORMAT_CHOICES)
        .default("auto"),
    )
    .option("--replace", "set the host's downloads to what these logs give, instead of adding to them")
    .action(exits(countCommand));
  // --format is the output's format in every other command.
  deprecatedAlias(count, new Option("--format <format>"), "--log-format");
  fromConfig(count, { catalogue: catalogueSetting });
}

async function countCommand(logs: string[], options: CountOptions) {
  const { countLogs } = await import("../../stats/countLogs.js");
  const { formatCountSummary } = await import("../formatStats.js");
  const { problems, summary } = await countLogs({
    catalogueDir: options.catalogue,
    host: options.host,
    urlPatterns: options.urlPattern ?? [],
    logs,
    format: options.logFormat,
    replace: options.replace ?? false,
  });
  if ((await reportProblems(problems, options.catalogue)) || !summary) {
    process.stderr.write("nothing was counted or written\n");
    return EXIT.invalid;
  }
  printLines(formatCountSummary(summary, displayPath(join(options.catalogue, summary.statsFile))));
  return summary.logs.some((log) => log.state === "failed") ? EXIT.invalid : EXIT.ok;
}
