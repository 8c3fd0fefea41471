// `shopfront config <target> [--out PATH]`: the target's files, written to a file (one file) or a
// folder (several), or returned for the caller to print when there is nowhere to write them.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Problem } from "../catalogue/problems.js";
import { renderConfig, type ConfigOptions } from "./renderConfig.js";
import type { TargetFile } from "./target.js";

export interface WriteConfigResult {
  problems: Problem[];
  /** The files rendered; absent when the catalogue's problems stopped them. */
  files?: TargetFile[];
  /** Whether they were written to `out` (else the caller prints them). */
  written: boolean;
}

export async function writeConfig(options: ConfigOptions & { out?: string }): Promise<WriteConfigResult> {
  const { problems, files } = await renderConfig(options);
  if (!files || options.out === undefined) return { problems, ...(files ? { files } : {}), written: false };
  if (files.length === 1) writeFileSync(options.out, files[0]!.content);
  else {
    mkdirSync(options.out, { recursive: true });
    for (const file of files) writeFileSync(join(options.out, file.path), file.content);
  }
  return { problems, files, written: true };
}
