import type { Command } from "commander";
import { targetById } from "../../targets/index.js";
import type { TargetId } from "../../targets/target.js";
import { catalogueSetting, fromConfig, siteSetting } from "../applyConfig.js";
import { EXIT, exits } from "../exit.js";
import { catalogueOption, formatOption, integer, targetOption, type Format } from "../options.js";
import { progressLine } from "../progress.js";
import { printJson, printLines, reportProblems } from "../report.js";

interface CheckCliOptions {
  catalogue: string;
  target?: TargetId;
  site: boolean;
  baseUrl?: string;
  concurrency: number;
  format: Format;
}

export function registerCheck(program: Command): void {
  const command = program
    .command("check")
    .description("run the conformance suite against a deployed API and print a table per route form")
    .argument("<url>", "where the API is deployed, such as https://api.example.org")
    .addOption(catalogueOption("the catalogue the deployment was built from"))
    .addOption(
      targetOption(
        "--target <target>",
        "the host it is deployed on: what that host cannot do is reported, not failed (shopfront.json's one target is not used for a URL on this machine)",
      ),
    )
    .option("--no-site", "the deployment was built without the browse site (build --no-site)")
    .option(
      "--base-url <url>",
      "the base URL the deployment was built with (build --base-url; default: shopfront.json's baseUrl, else http://<default host>)",
    )
    .option("--concurrency <n>", "requests in flight at once", integer(1, 256), 16)
    .addOption(
      // A failed row is about a route, not a file: its command has no file, so GitHub shows it on the run.
      formatOption("an ::error workflow command per failed row (on the run, not on a file), then the table"),
    )
    .action(exits(check));
  fromConfig(command, {
    catalogue: catalogueSetting,
    // check is about one host: the setting names it only when it lists one.
    target: (config) => (config.targets?.length === 1 ? config.targets[0] : undefined),
    site: siteSetting,
    baseUrl: (config) => config.baseUrl,
  });
}

async function check(url: string, options: CheckCliOptions, command: Command) {
  const { checkDeployment, isLocalUrl } = await import("../../check/checkDeployment.js");
  // A server on this machine is a preview (serve), not the host shopfront.json deploys to.
  const fromConfigOnly = command.getOptionValueSource("target") === "config";
  const target = options.target && !(fromConfigOnly && isLocalUrl(url)) ? targetById(options.target) : undefined;
  const onProgress = options.format === "text" ? progressLine("checked") : undefined;
  const { formatCheckReport } = await import("../formatCheck.js");
  const { problems, report } = await checkDeployment({
    baseUrl: url,
    catalogueDir: options.catalogue,
    ...(options.baseUrl !== undefined ? { builtBaseUrl: options.baseUrl } : {}),
    site: options.site,
    concurrency: options.concurrency,
    ...(target ? { target } : {}),
    ...(onProgress ? { onProgress } : {}),
  });
  const failed = (await reportProblems(problems, options.catalogue, { format: options.format })) || !report;
  const code = failed || !report.ok ? EXIT.invalid : EXIT.ok;
  if (options.format === "json") {
    const summary = report && {
      requests: report.requests,
      failed: report.rows.filter((r) => r.outcome === "fail").length,
      rows: report.rows.length,
      ...(report.older ? { older: report.older } : {}),
      ...(report.baseUrl ? { baseUrl: report.baseUrl } : {}),
    };
    const rows = report?.rows ?? [];
    await printJson({ ok: !failed && report.ok, problems, summary: summary ?? null, rows }, options.catalogue);
    return code;
  }
  if (failed) return code;
  if (options.format === "github") {
    const { formatRowAnnotation } = await import("../formatGithub.js");
    printLines(report.rows.filter((row) => row.outcome === "fail").map(formatRowAnnotation));
  }
  printLines(formatCheckReport(report, target?.title));
  return code;
}
