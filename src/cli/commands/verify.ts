import type { Command } from "commander";
import { readFileSync } from "node:fs";
import { fromConfig } from "../applyConfig.js";
import { EXIT, exits } from "../exit.js";
import { integer } from "../options.js";
import { countBar } from "../progress.js";
import { printLines } from "../report.js";
import { formatVerifyReport } from "../formatVerify.js";
import { UsageError } from "../../util/errors.js";

interface VerifyCliOptions {
  key?: string;
  sample?: number;
  mirrors?: boolean;
  concurrency: number;
  state?: string;
}

export function registerVerify(program: Command): void {
  const command = program
    .command("verify")
    .description(
      "check a deployment against its signed file index: the signature, every shard, then every file's size and SHA-256 (or a sample)",
    )
    .argument("<url>", "where the build is deployed, such as https://api.example.org")
    .option(
      "--key <file>",
      "the minisign public key to trust (default: shopfront.json's publicKey, else the served minisign.pub, which proves consistency only)",
    )
    .option(
      "--state <file>",
      "remember here the largest revision and the key accepted of each deployment, and refuse an older index, the same revision with other bytes, or another key",
    )
    .option("--sample <n>", "check this many files picked at random instead of all", integer(1))
    .option("--mirrors", "also say of each mirror the index lists whether it is current, behind or altered")
    .option("--concurrency <n>", "requests in flight at once", integer(1, 256), 16)
    .action(exits(verify));
  fromConfig(command, { key: (config) => config.publicKey });
}

async function verify(url: string, options: VerifyCliOptions) {
  if (!/^https?:\/\//.test(url)) throw new UsageError(`${url} is not an http:// or https:// URL`);
  let publicKey: string | undefined;
  if (options.key !== undefined) {
    try {
      publicKey = readFileSync(options.key, "latin1");
    } catch (error) {
      throw new UsageError(`--key ${options.key}: ${(error as Error).message}`);
    }
  }
  const { verifyDeployment } = await import("../../trust/verifyDeployment.js");
  const onProgress = countBar("files");
  const report = await verifyDeployment({
    url,
    concurrency: options.concurrency,
    mirrors: options.mirrors === true,
    ...(publicKey !== undefined ? { publicKey } : {}),
    ...(options.sample !== undefined ? { sample: options.sample } : {}),
    ...(options.state !== undefined ? { stateFile: options.state } : {}),
    ...(onProgress ? { onProgress } : {}),
  });
  printLines(formatVerifyReport(report));
  return report.ok ? EXIT.ok : EXIT.invalid;
}
