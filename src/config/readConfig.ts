// shopfront.json, the settings of a project: the defaults of the options that name the catalogue,
// the output and the targets, so a plain `shopfront build` always writes the same output.
// validateConfig is pure; readConfig reads the file from the project folder.
import { existsSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { inFile, type Problem } from "../catalogue/problems.js";
import { schemaValidators, type Validators } from "../catalogue/schemas.js";
import { readSourceFile, type SourceBytes } from "../read/readCatalogue.js";
import type { TargetId } from "../targets/target.js";
import { MAX_SOURCE_BYTES, validateJsonFile } from "../validate/catalogueRules.js";

export const CONFIG_FILE = "shopfront.json";

/** The settings (schemas/config.schema.json); each one left out means the option's own default. */
export interface ProjectConfig {
  $schema?: string;
  catalogue?: string;
  out?: string;
  targets?: TargetId[];
  site?: boolean;
  baseUrl?: string;
  /** Base URLs of the deployment's mirrors, listed in the file index (docs/trust.md). */
  mirrors?: string[];
  /** Days until the signed index's entry expires (docs/trust.md); without it, never. */
  indexLifetimeDays?: number;
  /** The store's minisign public key file (docs/trust.md): the key diff and verify hold its index to. */
  publicKey?: string;
}

export interface ConfigResult {
  /** The settings, when the file is valid or absent (then empty). */
  config?: ProjectConfig;
  /** Problems of the file, in `shopfront.json`. */
  problems: Problem[];
}

export function validateConfig(source: SourceBytes, validators: Validators): ConfigResult {
  const { value, findings } = validateJsonFile(source, validators.config);
  const problems = inFile(CONFIG_FILE, findings);
  return value === undefined ? { problems } : { config: value as ProjectConfig, problems };
}

/**
 * The settings of the project in `dir`: its shopfront.json, or none when there is no such file.
 * Paths in the file are relative to `dir`, and are returned so.
 */
export async function readConfig(dir: string): Promise<ConfigResult> {
  const path = join(dir, CONFIG_FILE);
  if (!existsSync(path)) return { config: {}, problems: [] };
  const result = validateConfig(readSourceFile(path, MAX_SOURCE_BYTES), await schemaValidators());
  if (!result.config) return result;
  const { catalogue, out, publicKey } = result.config;
  const inDir = (path: string) => (isAbsolute(path) ? path : join(dir, path));
  return {
    problems: result.problems,
    config: {
      ...result.config,
      ...(catalogue !== undefined ? { catalogue: inDir(catalogue) } : {}),
      ...(out !== undefined ? { out: inDir(out) } : {}),
      ...(publicKey !== undefined ? { publicKey: inDir(publicKey) } : {}),
    },
  };
}
