import type { Command } from "commander";
import { homedir } from "node:os";
import { join } from "node:path";
import { EXIT, exits } from "../exit.js";
import { printLines } from "../report.js";
import { formatKeyPair } from "../formatVerify.js";

export function registerKey(program: Command): void {
  const key = program.command("key").description("the key that signs the file index (docs/trust.md)");
  key
    .command("new")
    .description(
      "make a signing key pair: the secret key for a CI secret (never in a repository) and minisign.pub for clients",
    )
    .option(
      "--out <dir>",
      "the folder to write them into, outside any git work tree",
      join(homedir(), ".config", "shopfront"),
    )
    .action(exits(keyNew));
}

async function keyNew(options: { out: string }) {
  const { createKeyPair } = await import("../../trust/createKeyPair.js");
  printLines(formatKeyPair(createKeyPair(options.out)));
  return EXIT.ok;
}
