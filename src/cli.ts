#!/usr/bin/env node
// The command line (commands that serve or check load their modules on use, so a build starts
// quickly): parses arguments, calls one core function per command, prints the result and
// turns it into an exit code: 0 ok, 1 invalid catalogue, failed check (or a failure outside the
// catalogue), 2 usage error, 3 internal error. Only this file prints, and only this file catches.
import { isAbsolute, join, relative, resolve } from "node:path";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { Argument, Command, CommanderError, Option } from "commander";
import { buildCatalogue } from "./build/buildCatalogue.js";
import { validateCatalogue } from "./load/validateCatalogue.js";
import { formatBuildSummary, formatDroppedTargets, formatValidSummary } from "./cli/formatBuild.js";
import { progressBar, progressLine } from "./cli/progress.js";
import { DEFAULT_CACHE_CONTROL } from "./deploy/planDeploy.js";
import { FailureError, isSystemError, UsageError } from "./util/errors.js";
import { formatProblemCount, formatProblems } from "./cli/formatProblems.js";
import { isError, type Problem } from "./catalogue/problems.js";
import { renderConfig } from "./targets/renderConfig.js";
import { TARGETS, targetById } from "./targets/index.js";
import type { TargetId } from "./targets/target.js";
import { VERSION } from "./util/version.js";
import type { ImportSource } from "./import/writeImport.js";
import { isValidName, NAME_RULE } from "./catalogue/names.js";
import { LOG_FORMATS, type LogFormat } from "./stats/logFormats.js";
import { CONFIG_FILE, readConfig, type ProjectConfig } from "./config/readConfig.js";
import type { CheckReport } from "./check/checkDeployment.js";

const EXIT = { ok: 0, invalid: 1, usage: 2, internal: 3 } as const;

interface CatalogueOptions {
  catalogue: string;
  quiet?: boolean;
  maxProblems: string;
  format: Format;
}

const DEFAULT_MAX_PROBLEMS = 100;

function maxProblemsOption(): Option {
  return new Option("--max-problems <n>", "list at most this many problems, then a count per kind (0: all)").default(
    String(DEFAULT_MAX_PROBLEMS),
  );
}

function parseMaxProblems(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0)
    throw new UsageError(`--max-problems ${value}: expected a whole number, 0 for no limit`);
  return n;
}

/** A path as messages show it: relative to the working folder when inside it, else absolute. */
function displayPath(path: string): string {
  const absolute = resolve(path);
  const shown = relative(process.cwd(), absolute);
  return shown === "" ? "." : shown.startsWith("..") || isAbsolute(shown) ? absolute : shown;
}

/** Prints problems to stderr; returns whether any is an error. */
function reportProblems(
  problems: readonly Problem[],
  catalogueDir: string,
  limit = DEFAULT_MAX_PROBLEMS,
  building = false,
): boolean {
  const displayFile = (file: string) => {
    const shown = displayPath(resolve(catalogueDir, file));
    return file.endsWith("/") ? `${shown}/` : shown;
  };
  for (const line of formatProblems(problems, displayFile, limit)) process.stderr.write(`${line}\n`);
  const failed = problems.some(isError);
  if (problems.length > 0)
    process.stderr.write(`${formatProblemCount(problems)}${failed && building ? "; nothing was written" : ""}\n`);
  return failed;
}

const FORMATS = ["text", "json", "github"] as const;
type Format = (typeof FORMATS)[number];

function formatOption(): Option {
  return new Option(
    "--format <format>",
    "text; json: one document on stdout; github: workflow commands that annotate the lines of the files",
  )
    .choices(FORMATS)
    .default("text");
}

function displayFileIn(catalogueDir: string): (file: string) => string {
  return (file) => {
    const shown = displayPath(resolve(catalogueDir, file));
    return file.endsWith("/") ? `${shown}/` : shown;
  };
}

/**
 * Prints problems in the chosen format (json prints them with the result, in printJson); returns
 * whether any is an error. Annotations go to stdout, where the GitHub runner reads commands.
 */
async function reportProblemsAs(
  format: Format,
  problems: readonly Problem[],
  catalogueDir: string,
  limit: number,
  building = false,
): Promise<boolean> {
  if (format === "text") return reportProblems(problems, catalogueDir, limit, building);
  const failed = problems.some(isError);
  if (format === "json" || problems.length === 0) return failed;
  const { locateProblems } = await import("./validate/locateProblems.js");
  const { formatAnnotation } = await import("./cli/formatGithub.js");
  const located = locateProblems(problems, catalogueDir);
  for (const line of formatProblems(located, displayFileIn(catalogueDir), limit, formatAnnotation))
    process.stdout.write(`${line}\n`);
  process.stderr.write(`${formatProblemCount(problems)}${failed && building ? "; nothing was written" : ""}\n`);
  return failed;
}

/** `--format json`: the command's one document on stdout, its problems with their lines. */
async function printJson(
  report: { ok: boolean; problems: readonly Problem[]; summary: object | null; rows?: CheckReport["rows"] },
  catalogueDir: string,
): Promise<void> {
  const { locateProblems } = await import("./validate/locateProblems.js");
  const { formatJsonReport } = await import("./cli/formatJson.js");
  const problems = locateProblems(report.problems, catalogueDir);
  process.stdout.write(formatJsonReport({ ...report, problems }, displayFileIn(catalogueDir)));
}

function seconds(since: number): string {
  return `${elapsed(since).toFixed(1)} s`;
}

function elapsed(since: number): number {
  return (performance.now() - since) / 1000;
}

function targetOption(flags: string, description: string): Option {
  return new Option(flags, description).choices(TARGETS.map((t) => t.id));
}

/** A command's name under the program, such as "build" or "import hbb". */
function commandPath(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(" ");
}

type Setting = (config: ProjectConfig) => unknown;
const catalogue: Setting = (config) => config.catalogue;
const out: Setting = (config) => config.out;

/** Per command, the options whose default comes from shopfront.json, and the setting that gives it. */
const CONFIGURED: Record<string, Record<string, Setting>> = {
  build: { catalogue, out, target: (config) => config.targets, site: (config) => config.site },
  validate: { catalogue },
  serve: { dir: out, catalogue, out, site: (config) => config.site },
  config: { catalogue, root: out },
  // check is about one host: the setting names it only when it lists one.
  check: {
    catalogue,
    target: (config) => (config.targets?.length === 1 ? config.targets[0] : undefined),
    site: (config) => config.site,
  },
  deploy: { dir: out },
  new: { catalogue },
  "import hbb": { catalogue },
  "import api": { catalogue },
  "stats count": { catalogue },
};

/** Fills in the options the command line left out from shopfront.json; an invalid file stops the command. */
async function applyConfig(command: Command): Promise<void> {
  const settings = CONFIGURED[commandPath(command)];
  if (!settings) return;
  const { config, problems } = await readConfig(".");
  if (reportProblems(problems, ".") || !config) throw new FailureError(`${CONFIG_FILE} is not valid: nothing was done`);
  for (const [option, setting] of Object.entries(settings)) {
    const value = setting(config);
    if (value !== undefined && command.getOptionValueSource(option) !== "cli")
      command.setOptionValueWithSource(option, value, "config");
  }
}

const program = new Command()
  .name("shopfront")
  .description("Publish a package catalogue as a static JSON API.")
  .version(VERSION)
  .exitOverride()
  .showHelpAfterError()
  .addHelpText(
    "after",
    `\nThe options naming the catalogue, the output folder, the targets and the site take their defaults from ${CONFIG_FILE}\nin the working folder when it has one; an option given on the command line wins.`,
  )
  .hook("preAction", (_program, command) => applyConfig(command));

program
  .command("build")
  .description("validate the catalogue and write every API response as a static file")
  .option("--catalogue <dir>", "the catalogue folder", "catalogue")
  .option("--out <dir>", "the output folder (made a link to the live build)", "dist")
  .addOption(targetOption("--target <target...>", "also write the config files this host reads from the deploy root"))
  .option("--no-site", "write the API without the browse site")
  .option("--force", "ignore the previous build and write every file")
  .addOption(maxProblemsOption())
  .option("--quiet", "print nothing but problems")
  .addOption(formatOption())
  .action(async (options: CatalogueOptions & { out: string; target?: TargetId[]; site: boolean; force?: boolean }) => {
    const started = performance.now();
    const limit = parseMaxProblems(options.maxProblems);
    const bar = options.quiet || options.format !== "text" ? undefined : progressBar();
    const result = await buildCatalogue({
      catalogueDir: options.catalogue,
      outDir: options.out,
      targets: options.target ?? [],
      site: options.site,
      force: options.force ?? false,
      ...(bar ? { onProgress: bar } : {}),
    });
    const failed =
      (await reportProblemsAs(options.format, result.problems, options.catalogue, limit, true)) || !result.built;
    if (failed) process.exitCode = EXIT.invalid;
    if (options.format === "json") {
      const summary = result.built && { ...result.built, out: displayPath(options.out), seconds: elapsed(started) };
      return printJson({ ok: !failed, problems: result.problems, summary: summary ?? null }, options.catalogue);
    }
    if (failed || !result.built) return;
    if (!options.quiet)
      process.stdout.write(`${formatBuildSummary(result.built, seconds(started), displayPath(options.out))}\n`);
    if (result.built.dropped)
      process.stderr.write(`${formatDroppedTargets(result.built.dropped, options.target ?? [])}\n`);
  });

program
  .command("validate")
  .description("check the catalogue without writing anything")
  .option("--catalogue <dir>", "the catalogue folder", "catalogue")
  .addOption(maxProblemsOption())
  .option("--quiet", "print nothing but problems")
  .addOption(formatOption())
  .action(async (options: CatalogueOptions) => {
    const started = performance.now();
    const limit = parseMaxProblems(options.maxProblems);
    const { problems, valid } = await validateCatalogue(options.catalogue);
    const failed = (await reportProblemsAs(options.format, problems, options.catalogue, limit)) || !valid;
    if (failed) process.exitCode = EXIT.invalid;
    if (options.format === "json") {
      const summary = valid && { ...valid, seconds: elapsed(started) };
      return printJson({ ok: !failed, problems, summary: summary ?? null }, options.catalogue);
    }
    if (failed || !valid || options.quiet) return;
    process.stdout.write(`${formatValidSummary(valid.hosts, valid.packages, seconds(started))}\n`);
  });

program
  .command("serve")
  .description("serve a built API on this machine, with every route, header and 404 of the spec")
  .option("--dir <dir>", "the built folder", "dist")
  .option("--port <port>", "port to listen on (0 picks a free one)", "8080")
  .option("--host <host>", "address to listen on", "127.0.0.1")
  .option("--watch", "build the catalogue into --out, serve it, and build again on every change")
  .option("--catalogue <dir>", "with --watch: the catalogue folder (default: catalogue)")
  .option("--out <dir>", "with --watch: the output folder (default: dist)")
  .option("--no-site", "with --watch: build without the browse site")
  .action(async (options: ServeOptions, command: Command) => {
    // shopfront.json may set all three; only what the command line says can be out of place.
    const given = (option: string) => command.getOptionValueSource(option) === "cli";
    const port = Number(options.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535)
      throw new UsageError(`--port ${options.port}: expected a port number`);
    // http-server's response wrapper (union) reads OutgoingMessage._headers, which Node deprecates
    // (DEP0066); the warning is about a dependency, not the user's setup.
    process.noDeprecation = true;
    if (options.watch) {
      if (given("dir"))
        throw new UsageError("--watch builds into --out and serves that; --dir serves a folder as it is");
      return serveWatched({ ...options, port });
    }
    if (given("catalogue") || given("out"))
      throw new UsageError("--catalogue and --out go with --watch; without it, serve serves --dir as it is");
    if (given("site")) throw new UsageError("--no-site goes with --watch; without it, serve serves --dir as it is");
    const { servePreview } = await import("./serve/servePreview.js");
    const server = await servePreview({
      dir: options.dir,
      host: options.host,
      port,
      log: (line) => process.stdout.write(`${line}\n`),
    });
    process.stdout.write(`serving ${displayPath(options.dir)} at ${server.url} (Ctrl-C to stop)\n`);
    const { onStopRequest } = await import("./util/onStopRequest.js");
    await new Promise((resolve) => onStopRequest(resolve));
    await server.close();
  });

interface ServeOptions {
  dir: string;
  port: string;
  host: string;
  watch?: boolean;
  catalogue?: string;
  out?: string;
  site: boolean;
}

/**
 * `serve --watch`: a line per build (its summary, or its problems and that the last good build is
 * still served) until Ctrl-C. An error the watch cannot go on from ends it like any other command's.
 */
async function serveWatched(options: Omit<ServeOptions, "port"> & { port: number }): Promise<void> {
  const { watchCatalogue } = await import("./serve/watchCatalogue.js");
  const catalogueDir = options.catalogue ?? "catalogue";
  const outDir = options.out ?? "dist";
  const out = displayPath(outDir);
  const { onStopRequest } = await import("./util/onStopRequest.js");
  let fatal: (error: unknown) => void = () => {};
  const stopped = new Promise<unknown>((resolve) => {
    fatal = resolve;
    onStopRequest(() => resolve(undefined));
  });
  const handle = await watchCatalogue({
    catalogueDir,
    outDir,
    site: options.site,
    host: options.host,
    port: options.port,
    log: (line) => process.stdout.write(`${line}\n`),
    onEvent: (event) => {
      if (event.kind === "building") return;
      if (event.kind === "error") {
        if (!(event.error instanceof UsageError || event.error instanceof FailureError || isSystemError(event.error)))
          fatal(event.error);
        else process.stderr.write(`error: ${(event.error as Error).message}; still serving the last good build\n`);
        return;
      }
      const time = `${(event.ms / 1000).toFixed(1)} s`;
      reportProblems(event.problems, catalogueDir, DEFAULT_MAX_PROBLEMS, event.kind === "invalid");
      if (event.kind === "built") process.stdout.write(`${formatBuildSummary(event.built, time, out)}\n`);
      else if (existsSync(outDir)) process.stderr.write("still serving the last good build; fix the catalogue\n");
      else process.stderr.write("nothing to serve (404) until the catalogue builds\n");
    },
  });
  process.stdout.write(
    `serving ${out} at ${handle.url}, rebuilt on every change to ${displayPath(catalogueDir)} (Ctrl-C to stop)\n`,
  );
  const error = await stopped;
  await handle.close();
  if (error !== undefined) throw error;
}

program
  .command("config")
  .description("write the config that makes a host answer every route (servers: to stdout or --out)")
  .addArgument(new Argument("<target>", "the host").choices(TARGETS.map((t) => t.id)))
  .option("--root <dir>", "servers: the built folder the server serves", "dist")
  .option("--listen <host:port>", "servers: the address to listen on", "127.0.0.1:8080")
  .option("--catalogue <dir>", "the catalogue whose hosts, packages and coders the rules list", "catalogue")
  .option("--out <path>", "write to this file (or folder, for several files) instead of stdout")
  .action(async (id: TargetId, options: { root: string; listen: string; catalogue: string; out?: string }) => {
    const { problems, files } = await renderConfig({
      target: id,
      root: options.root,
      listen: options.listen,
      catalogueDir: options.catalogue,
    });
    if (reportProblems(problems, options.catalogue) || !files) {
      process.exitCode = EXIT.invalid;
      return;
    }
    if (options.out && files.length === 1) writeFileSync(options.out, files[0]!.content);
    else if (options.out) {
      mkdirSync(options.out, { recursive: true });
      for (const file of files) writeFileSync(join(options.out, file.path), file.content);
    } else if (files.length === 1) process.stdout.write(files[0]!.content);
    else for (const file of files) process.stdout.write(`==> ${file.path} <==\n${file.content}\n`);
  });

interface CheckCliOptions {
  catalogue: string;
  target?: TargetId;
  site: boolean;
  concurrency: string;
  format: Format;
}

program
  .command("check")
  .description("run the conformance suite against a deployed API and print a table per route form")
  .argument("<base-url>", "the API's base URL, such as https://api.example.org")
  .option("--catalogue <dir>", "the catalogue the deployment was built from", "catalogue")
  .addOption(
    targetOption("--target <target>", "the host it is deployed on: what that host cannot do is reported, not failed"),
  )
  .option("--no-site", "the deployment was built without the browse site (build --no-site)")
  .option("--concurrency <n>", "requests in flight at once", "16")
  .addOption(formatOption())
  .action(async (baseUrl: string, options: CheckCliOptions) => {
    const concurrency = Number(options.concurrency);
    if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 256)
      throw new UsageError(`--concurrency ${options.concurrency}: expected 1 to 256`);
    const target = options.target ? targetById(options.target) : undefined;
    const onProgress = options.format === "text" ? progressLine("checked") : undefined;
    const { checkDeployment } = await import("./check/checkDeployment.js");
    const { formatCheckReport } = await import("./cli/formatCheck.js");
    const { problems, report } = await checkDeployment({
      baseUrl,
      catalogueDir: options.catalogue,
      site: options.site,
      concurrency,
      ...(target ? { target } : {}),
      ...(onProgress ? { onProgress } : {}),
    });
    const failed =
      (await reportProblemsAs(options.format, problems, options.catalogue, DEFAULT_MAX_PROBLEMS)) || !report;
    if (failed || !report.ok) process.exitCode = EXIT.invalid;
    if (options.format === "json") {
      const summary = report && {
        requests: report.requests,
        failed: report.rows.filter((r) => r.outcome === "fail").length,
        rows: report.rows.length,
        ...(report.older ? { older: report.older } : {}),
      };
      const rows = report?.rows ?? [];
      return printJson({ ok: !failed && report.ok, problems, summary: summary ?? null, rows }, options.catalogue);
    }
    if (failed) return;
    if (options.format === "github") {
      const { formatRowAnnotation } = await import("./cli/formatGithub.js");
      for (const row of report.rows) if (row.outcome === "fail") process.stdout.write(`${formatRowAnnotation(row)}\n`);
    }
    process.stdout.write(`${formatCheckReport(report, target?.title).join("\n")}\n`);
  });

program
  .command("deploy")
  .description(
    "upload a built API to S3 (or an S3-compatible store): only what changed, in an order readers never notice",
  )
  .argument("<s3-url>", "s3://BUCKET or s3://BUCKET/PREFIX")
  .option("--dir <dir>", "the built folder", "dist")
  .option("--region <region>", "the bucket's region (default: from the AWS configuration)")
  .option("--endpoint <url>", "an S3-compatible store's URL, addressed path-style")
  .option("--delete", "delete objects under the prefix that the build does not have")
  .option("--dry-run", "print the plan and change nothing")
  .option("--cache-control <value>", "Cache-Control of every API object", DEFAULT_CACHE_CONTROL)
  .option(
    "--cloudfront-help",
    "print the steps that serve the bucket through CloudFront (printed anyway after a first deploy to AWS)",
  )
  .action(
    async (
      url: string,
      options: {
        dir: string;
        region?: string;
        endpoint?: string;
        delete?: boolean;
        dryRun?: boolean;
        cacheControl: string;
        cloudfrontHelp?: boolean;
      },
    ) => {
      const started = performance.now();
      // The SDK warns on every run that its releases after January 2027 need Node 22; shopfront
      // supports Node 20 with the SDK its lockfile names, so the warning says nothing about this run.
      process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
      // Loaded here: the SDK takes 0.2 s to import, which no other command should pay.
      const { deployToS3 } = await import("./deploy/deployToS3.js");
      const { cloudFrontSetup, formatPlan, formatSummary, showCloudFrontSetup } = await import("./cli/formatDeploy.js");
      const onProgress = options.dryRun ? undefined : progressLine("deployed");
      const result = await deployToS3({ url, ...options, ...(onProgress ? { onProgress } : {}) });
      const lines = [
        ...(result.dryRun ? formatPlan(result) : []),
        ...formatSummary(result, displayPath(options.dir), seconds(started)),
      ];
      if (showCloudFrontSetup(result, options)) lines.push("", ...cloudFrontSetup(result.location));
      process.stdout.write(`${lines.join("\n")}\n`);
    },
  );

program
  .command("init")
  .description("write a new catalogue repository that builds at once; files that exist are kept")
  .argument("[dir]", "the project folder (made if missing)", ".")
  .action(async (dir: string) => {
    const { initProject } = await import("./scaffold/initProject.js");
    const { formatInit } = await import("./cli/formatScaffold.js");
    const result = initProject(dir);
    process.stdout.write(
      `${formatInit(result, (path) => displayPath(join(dir, path)), displayPath(dir)).join("\n")}\n`,
    );
  });

program
  .command("new")
  .description("write a new manifest, catalogue/HOST/NAME.json, from a template stamped with the current time")
  .argument("<host/name>", "the host the package belongs to and its name")
  .option("--catalogue <dir>", "the catalogue folder", "catalogue")
  .action(async (hostAndName: string, options: { catalogue: string }) => {
    const [host, name, ...rest] = hostAndName.split("/");
    if (host === undefined || name === undefined || rest.length > 0 || host === "")
      throw new UsageError(`${JSON.stringify(hostAndName)}: expected HOST/NAME, such as primary/snake`);
    const { createManifest } = await import("./scaffold/createManifest.js");
    const { formatNew } = await import("./cli/formatScaffold.js");
    const { problems, file } = await createManifest({ catalogueDir: options.catalogue, host, name, projectDir: "." });
    if (reportProblems(problems, options.catalogue) || !file) {
      process.stderr.write("nothing was written\n");
      process.exitCode = EXIT.invalid;
      return;
    }
    process.stdout.write(`${formatNew(displayPath(join(options.catalogue, file)))}\n`);
  });

const importer = program
  .command("import")
  .description("write a catalogue from an existing store: a Homebrew Browser list or a running API");

/**
 * What every import ends with: write what the reader found, print the summary, and validate the
 * catalogue as it now is. Exits 1 when anything was skipped or the catalogue does not validate.
 */
async function finishImport(source: ImportSource, options: { catalogue: string; force?: boolean }): Promise<void> {
  const { writeImport } = await import("./import/writeImport.js");
  const { formatImportSummary } = await import("./cli/formatImport.js");
  const { problems, summary } = await writeImport(source, {
    catalogueDir: options.catalogue,
    force: options.force ?? false,
  });
  if (reportProblems(problems, options.catalogue) || !summary) {
    process.stderr.write("nothing was imported\n");
    process.exitCode = EXIT.invalid;
    return;
  }
  process.stdout.write(`${formatImportSummary(summary, displayPath(options.catalogue)).join("\n")}\n`);
  const started = performance.now();
  const { problems: left, valid } = await validateCatalogue(options.catalogue);
  if (reportProblems(left, options.catalogue) || !valid) process.exitCode = EXIT.invalid;
  else process.stdout.write(`${formatValidSummary(valid.hosts, valid.packages, seconds(started))}\n`);
  if (summary.skipped.length > 0) process.exitCode = EXIT.invalid;
}

importer
  .command("hbb")
  .description("write a host's manifests and stats from a Homebrew Browser list (listv036.txt, listv035.txt)")
  .argument("<file>", "the list file")
  .requiredOption("--host <id>", "the host the packages belong to (declared in hosts.json if it is not yet)")
  .option("--catalogue <dir>", "the catalogue folder", "catalogue")
  .option("--force", "overwrite existing manifests and their stats entries")
  .action(async (file: string, options: { host: string; catalogue: string; force?: boolean }) => {
    if (!isValidName(options.host)) throw new UsageError(`--host ${JSON.stringify(options.host)}: ${NAME_RULE}`);
    const { parseHbbList } = await import("./import/parseHbbList.js");
    let bytes: Buffer;
    try {
      bytes = readFileSync(file);
    } catch (e) {
      throw new UsageError(`cannot read the list ${file}: ${(e as Error).message}`);
    }
    await finishImport(parseHbbList(bytes, options.host), options);
  });

importer
  .command("api")
  .description("import a running API's hosts, packages and numbers (or the same JSON saved in files)")
  .argument("[url]", "the API's base URL, such as https://api.example.org")
  .option("--from-files <dir>", "read DIR/v1/hosts and DIR/v1/<host>/packages instead (a build's dist/ works)")
  .option("--catalogue <dir>", "the catalogue to write into", "catalogue")
  .option("--force", "overwrite existing manifests, stats entries and hosts.json")
  .option("--concurrency <n>", "hosts fetched at once (default 4)")
  .option("--timeout <seconds>", "give up on a request after this long (default 30)")
  .action(
    async (
      url: string | undefined,
      options: { fromFiles?: string; catalogue: string; force?: boolean; concurrency?: string; timeout?: string },
    ) => {
      const either = "import api: give either the API's URL or --from-files DIR";
      const { fetchApi, readApiFiles } = await import("./import/fetchApi.js");
      if (options.fromFiles !== undefined) {
        if (url !== undefined) throw new UsageError(either);
        if (options.concurrency !== undefined || options.timeout !== undefined)
          throw new UsageError("--concurrency and --timeout apply to a URL, not to --from-files");
        await finishImport(await readApiFiles(options.fromFiles), options);
        return;
      }
      if (url === undefined) throw new UsageError(either);
      const concurrency = Number(options.concurrency ?? 4);
      if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64)
        throw new UsageError(`--concurrency ${options.concurrency}: expected 1 to 64`);
      const timeoutSeconds = Number(options.timeout ?? 30);
      if (!Number.isFinite(timeoutSeconds) || timeoutSeconds <= 0 || timeoutSeconds > 3600)
        throw new UsageError(`--timeout ${options.timeout}: expected seconds, more than 0 and at most 3600`);
      const onProgress = progressLine("fetched");
      let source: ImportSource;
      try {
        source = await fetchApi({ baseUrl: url, concurrency, timeoutSeconds, ...(onProgress ? { onProgress } : {}) });
      } finally {
        // A failure leaves the progress line unfinished: clear it, so the error is a line of its own.
        if (onProgress) process.stderr.write("\r\x1b[K");
      }
      await finishImport(source, options);
    },
  );

const stats = program.command("stats").description("download counts: catalogue/stats/<host>.json");

stats
  .command("count")
  .description("count package downloads in web server access logs into a host's stats file")
  .argument("<logfile...>", "access logs (combined, S3 or CloudFront; gzipped or not)")
  .requiredOption("--host <id>", "the host whose packages the logs serve")
  .requiredOption("--url-pattern <pattern>", "the path of a download, {name} standing for the package name")
  .option("--catalogue <dir>", "the catalogue folder", "catalogue")
  .addOption(
    new Option("--format <format>", "the logs' format (auto: detected per log)")
      .choices(["auto", ...LOG_FORMATS])
      .default("auto"),
  )
  .option("--replace", "set the host's downloads to what these logs give, instead of adding to them")
  .action(
    async (
      logs: string[],
      options: {
        host: string;
        urlPattern: string;
        catalogue: string;
        format: LogFormat | "auto";
        replace?: boolean;
      },
    ) => {
      const { countLogs } = await import("./stats/countLogs.js");
      const { formatCountSummary } = await import("./cli/formatStats.js");
      const { problems, summary } = await countLogs({
        catalogueDir: options.catalogue,
        host: options.host,
        urlPattern: options.urlPattern,
        logs,
        format: options.format,
        replace: options.replace ?? false,
      });
      if (reportProblems(problems, options.catalogue) || !summary) {
        process.stderr.write("nothing was counted or written\n");
        process.exitCode = EXIT.invalid;
        return;
      }
      const statsPath = displayPath(join(options.catalogue, summary.statsFile));
      process.stdout.write(`${formatCountSummary(summary, statsPath).join("\n")}\n`);
      if (summary.logs.some((log) => log.state === "failed")) process.exitCode = EXIT.invalid;
    },
  );

function exitCodeFor(error: unknown): number {
  if (error instanceof CommanderError) {
    // Commander has printed its message already; help and --version are not errors.
    return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
  }
  if (error instanceof UsageError) {
    process.stderr.write(`error: ${error.message}\n`);
    return EXIT.usage;
  }
  if (error instanceof FailureError || isSystemError(error)) {
    // A file system out of inodes says ENOSPC too, with room to spare on `df -h`.
    const hint =
      isSystemError(error) && error.code === "ENOSPC"
        ? " (out of space or of inodes: see df -h and df -i); the previous output is unchanged"
        : "";
    process.stderr.write(`error: ${(error as Error).message}${hint}\n`);
    return EXIT.invalid;
  }
  process.stderr.write(
    `internal error: this is a bug in shopfront ${VERSION}; please report it with this output.\n${error instanceof Error ? error.stack : String(error)}\n`,
  );
  return EXIT.internal;
}

// A reader that closes the pipe early (`shopfront ... | head`) has what it wanted: not an error.
for (const stream of [process.stdout, process.stderr])
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error;
    process.exit(process.exitCode ?? EXIT.ok);
  });

try {
  await program.parseAsync(process.argv);
} catch (error) {
  process.exitCode = exitCodeFor(error);
}
