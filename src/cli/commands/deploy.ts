import type { Command } from "commander";
import { DEFAULT_CACHE_CONTROL } from "../../deploy/planDeploy.js";
import { fromConfig, outSetting } from "../applyConfig.js";
import { EXIT, exits } from "../exit.js";
import { UsageError } from "../../util/errors.js";
import { progressLine } from "../progress.js";
import { displayPath, printLines, seconds } from "../report.js";

interface DeployOptions {
  dir: string;
  region?: string;
  endpoint?: string;
  delete?: boolean;
  dryRun?: boolean;
  cacheControl: string;
  cloudfrontHelp?: boolean;
}

export function registerDeploy(program: Command): void {
  const command = program
    .command("deploy")
    .description(
      "upload a built API to S3 (or an S3-compatible store) or any rclone remote: only what changed, in an order readers never notice",
    )
    .argument("<target>", "s3://BUCKET[/PREFIX], rclone:REMOTE:PATH or rclone:/ABSOLUTE/PATH")
    .option("--dir <dir>", "the built folder", "dist")
    .option("--region <region>", "the bucket's region, if the AWS configuration does not give it")
    .option("--endpoint <url>", "an S3-compatible store's URL, addressed path-style")
    .option("--delete", "delete objects under the prefix that the build does not have")
    .option("--dry-run", "print the plan and change nothing")
    .option("--cache-control <value>", "Cache-Control of every file but the package files", DEFAULT_CACHE_CONTROL)
    .option(
      "--cloudfront-help",
      "print the steps that serve the bucket through CloudFront (printed anyway after a first deploy to AWS)",
    )
    .action(exits(deploy));
  fromConfig(command, { dir: outSetting });
}

async function deploy(url: string, options: DeployOptions) {
  if (url.startsWith("rclone:")) return deployRclone(url, options);
  const started = performance.now();
  // The SDK warns on every run that its releases after January 2027 need Node 22; shopfront
  // supports Node 20 with the SDK its lockfile names, so the warning says nothing about this run.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
  // Loaded here: the SDK takes 0.2 s to import, which no other command should pay.
  const { deployToS3 } = await import("../../deploy/deployToS3.js");
  const { cloudFrontSetup, formatPlan, formatSummary, showCloudFrontSetup } = await import("../formatDeploy.js");
  const onProgress = options.dryRun ? undefined : progressLine("deployed");
  const result = await deployToS3({ url, ...options, ...(onProgress ? { onProgress } : {}) });
  const lines = [
    ...(result.dryRun ? formatPlan(result) : []),
    ...formatSummary(result, displayPath(options.dir), seconds(performance.now() - started)),
  ];
  if (showCloudFrontSetup(result, options)) lines.push("", ...cloudFrontSetup(result.location));
  printLines(lines);
  return EXIT.ok;
}

async function deployRclone(url: string, options: DeployOptions) {
  const started = performance.now();
  const s3Only = (["region", "endpoint", "cloudfrontHelp"] as const).filter((o) => options[o] !== undefined);
  if (s3Only.length > 0)
    throw new UsageError(
      `${s3Only.map((o) => `--${o.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`).join(", ")}: only for an s3:// deploy`,
    );
  const { deployToRclone } = await import("../../deploy/deployToRclone.js");
  const { formatRclonePlan, formatRcloneSummary } = await import("../formatRcloneDeploy.js");
  const onProgress = options.dryRun ? undefined : progressLine("deployed");
  const result = await deployToRclone({ url, ...options, ...(onProgress ? { onProgress } : {}) });
  printLines([
    ...(result.dryRun ? formatRclonePlan(result) : []),
    ...formatRcloneSummary(result, displayPath(options.dir), seconds(performance.now() - started)),
  ]);
  return EXIT.ok;
}
