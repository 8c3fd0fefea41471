import type { Command } from "commander";
import { closeSync, fstatSync, openSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { recordBuildSource } from "../../diff/buildSource.js";
import { buildCatalogue } from "../../engine/buildCatalogue.js";
import type { TargetId } from "../../targets/target.js";
import { catalogueSetting, fromConfig, outSetting, siteSetting } from "../applyConfig.js";
import { EXIT, exits } from "../exit.js";
import { formatBuildSummary, formatDroppedTargets, type IndexChange } from "../formatBuild.js";
import {
  catalogueOption,
  formatOption,
  integer,
  maxProblemsOption,
  strictOption,
  targetOption,
  type Format,
} from "../options.js";
import { progressBar } from "../progress.js";
import { displayPath, printJson, reportProblems, seconds } from "../report.js";
import { parseSecretKey, type SecretKey } from "../../trust/minisign.js";
import { INDEX_LIMITS } from "../../trust/fileIndex.js";
import { FILE_INDEX } from "../../routes/routeTable.js";
import { UsageError } from "../../util/errors.js";

/** The environment variable that holds the signing key's text (a CI secret). */
const SIGNING_KEY_VARIABLE = "SHOPFRONT_SIGNING_KEY";

/** What a build without a key says, once, on stderr. */
export const UNSIGNED_NOTE = `note: no signing key (--signing-key or $${SIGNING_KEY_VARIABLE}): the file index is unsigned (docs/trust.md)`;

/**
 * A secret key file's text, refused when its group or others may read it, as ssh refuses such a
 * private key: any user of the machine could sign an index that every client trusts.
 */
function readSecretKeyFile(file: string, from: string): string {
  let fd: number;
  try {
    fd = openSync(file, "r");
  } catch (error) {
    throw new UsageError(`${from}: ${(error as Error).message}`);
  }
  try {
    const mode = fstatSync(fd).mode & 0o777;
    // Windows keeps no such bits: Node reports every file readable by all there.
    if (process.platform !== "win32" && (mode & 0o077) !== 0)
      throw new UsageError(
        `${from}: the secret key is open to group or others (mode ${mode.toString(8).padStart(4, "0")}): anyone who can read it can sign an index your clients trust; make it the owner's alone (chmod 600 ${file}), as shopfront key new writes it`,
      );
    return readFileSync(fd, "latin1");
  } finally {
    closeSync(fd);
  }
}

/** The key that signs the file index: --signing-key's file, else the variable's text, else none. */
function signingKey(file: string | undefined): SecretKey | undefined {
  let text: string;
  let from: string;
  if (file !== undefined) {
    from = `--signing-key ${file}`;
    text = readSecretKeyFile(file, from);
  } else {
    const value = process.env[SIGNING_KEY_VARIABLE];
    if (value === undefined || value.trim() === "") return undefined;
    from = `$${SIGNING_KEY_VARIABLE}`;
    text = value;
  }
  const key = parseSecretKey(text);
  if (typeof key === "string") throw new UsageError(`${from}: ${key}`);
  return key;
}

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
  mirror?: string[];
  signingKey?: string;
  indexLifetime?: number;
}

/** The mirrors, each an http or https URL (the signed entry names no other kind), at most INDEX_LIMITS.mirrors. */
function checkMirrors(mirrors: readonly string[]): void {
  if (mirrors.length > INDEX_LIMITS.mirrors)
    throw new UsageError(`--mirror: ${mirrors.length} mirrors, more than the ${INDEX_LIMITS.mirrors} a client reads`);
  for (const mirror of mirrors) {
    let url: URL | undefined;
    try {
      url = new URL(mirror);
    } catch {
      // Not a URL: the usage error below names the mirror.
      url = undefined;
    }
    if (url === undefined || !/^https?:$/.test(url.protocol) || /\s/.test(mirror))
      throw new UsageError(`--mirror ${mirror}: not an http:// or https:// URL`);
  }
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
    .option(
      "--mirror <url...>",
      "a mirror's base URL, listed in the signed file index (default: shopfront.json's mirrors)",
    )
    .option(
      "--signing-key <file>",
      "the secret key that signs the file index (default: the key text in $SHOPFRONT_SIGNING_KEY; shopfront key new makes one)",
    )
    .option(
      "--index-lifetime <days>",
      "days until the signed index expires and clients refuse it, unless a build renews it (default: shopfront.json's indexLifetimeDays, else never)",
      integer(2, 366),
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
    mirror: (config) => config.mirrors,
    indexLifetime: (config) => config.indexLifetimeDays,
  });
}

/** The file index's entry and signature as the output serves them, to tell what a build did to them. */
function indexFiles(out: string): string {
  const read = (file: string) => {
    try {
      return readFileSync(join(out, file), "latin1");
    } catch {
      // No index served (a build without one): nothing to compare, which reads as changed.
      return "";
    }
  };
  return `${read(FILE_INDEX.entry)}\n${read(FILE_INDEX.signature)}`;
}

/** What the build did to the file index: its entry or signature changed, signed or not; or neither. */
function indexChange(before: string, after: string, signed: boolean): IndexChange {
  return before === after ? "kept" : signed ? "signed" : "written";
}

async function build(options: BuildOptions) {
  const started = performance.now();
  const indexBefore = indexFiles(options.out);
  const bar = options.quiet || options.format !== "text" ? undefined : progressBar();
  const secretKey = signingKey(options.signingKey);
  checkMirrors(options.mirror ?? []);
  const result = await buildCatalogue({
    catalogueDir: options.catalogue,
    outDir: options.out,
    targets: options.target ?? [],
    site: options.site,
    force: options.force ?? false,
    strict: options.strict ?? false,
    ...(options.baseUrl !== undefined ? { baseUrl: options.baseUrl } : {}),
    ...(bar ? { onProgress: bar } : {}),
    index: { mirrors: options.mirror ?? [], secretKey, lifetimeDays: options.indexLifetime },
  });
  // Which commit it was built from, for `diff` to name and check against the merge base.
  if (result.built) await recordBuildSource(options.out, options.catalogue);
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
      `${formatBuildSummary(result.built, seconds(performance.now() - started), displayPath(options.out), indexChange(indexBefore, indexFiles(options.out), !!secretKey))}\n`,
    );
  if (!secretKey && !options.quiet) process.stderr.write(`${UNSIGNED_NOTE}\n`);
  if (result.built.dropped)
    process.stderr.write(`${formatDroppedTargets(result.built.dropped, options.target ?? [])}\n`);
  return code;
}
