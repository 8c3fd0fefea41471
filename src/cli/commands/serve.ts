import { Option, type Command } from "commander";
import type { WatchEvent } from "../../serve/watchCatalogue.js";
import { catalogueSetting, fromConfig, outSetting, siteSetting } from "../applyConfig.js";
import { EXIT, exits, expectedExit } from "../exit.js";
import { formatWatchBuild } from "../formatWatch.js";
import { catalogueOption, deprecatedAlias, integer } from "../options.js";
import { displayPath, reportProblems } from "../report.js";
import { onStopRequest } from "../../util/onStopRequest.js";

interface ServeOptions {
  dir: string;
  port: number;
  listen: string;
  watch?: boolean;
  catalogue: string;
  out: string;
  site: boolean;
  baseUrl?: string;
}

// --catalogue, --out and --no-site describe the build that --watch makes, so they imply it; --dir
// serves a folder as it is, which --watch does not.
export function registerServe(program: Command): void {
  const command = program
    .command("serve")
    .description("serve a built API on this machine, with every route, header and 404 of the spec")
    .addOption(new Option("--dir <dir>", "the built folder").default("dist").conflicts("watch"))
    .addOption(
      new Option("--port <port>", "port to listen on (0 picks a free one)").argParser(integer(0, 65535)).default(8080),
    )
    .option("--listen <address>", "address to listen on", "127.0.0.1")
    .option("--watch", "build the catalogue into --out, serve it, and build again on every change")
    .addOption(catalogueOption("the catalogue folder (implies --watch)").implies({ watch: true }))
    .addOption(
      new Option("--out <dir>", "the output folder (implies --watch)").default("dist").implies({ watch: true }),
    )
    .addOption(new Option("--no-site", "build without the browse site (implies --watch)").implies({ watch: true }))
    .addOption(
      new Option(
        "--base-url <url>",
        "the origin the v3/v4 URLs of the build name (implies --watch; default: shopfront.json's baseUrl, else the address it serves at)",
      ).implies({ watch: true }),
    )
    .action(exits(serve));
  deprecatedAlias(command, new Option("--host <address>"), "--listen");
  fromConfig(command, {
    dir: outSetting,
    catalogue: catalogueSetting,
    out: outSetting,
    site: siteSetting,
    baseUrl: (config) => config.baseUrl,
  });
}

async function serve(options: ServeOptions) {
  // http-server's response wrapper (union) reads OutgoingMessage._headers, which Node deprecates
  // (DEP0066); the warning is about a dependency, not the user's setup.
  process.noDeprecation = true;
  if (options.watch) return serveWatched(options);
  const { servePreview } = await import("../../serve/servePreview.js");
  const server = await servePreview({
    dir: options.dir,
    host: options.listen,
    port: options.port,
    log: (line) => process.stdout.write(`${line}\n`),
  });
  process.stdout.write(`serving ${displayPath(options.dir)} at ${server.url} (Ctrl-C to stop)\n`);
  await new Promise((resolve) => onStopRequest(resolve));
  await server.close();
  return EXIT.ok;
}

/**
 * `serve --watch`: a line per build (its summary, or its problems and what is still served) until
 * Ctrl-C. An error the watch cannot go on from ends it like any other command's.
 */
async function serveWatched(options: ServeOptions) {
  const { watchCatalogue } = await import("../../serve/watchCatalogue.js");
  const out = displayPath(options.out);
  let fatal: (error: unknown) => void = () => {};
  const stopped = new Promise<unknown>((resolve) => {
    fatal = resolve;
    onStopRequest(() => resolve(undefined));
  });
  const onEvent = async (event: WatchEvent) => {
    if (event.kind === "building") return;
    if (event.kind === "error") {
      const expected = expectedExit(event.error);
      if (!expected) fatal(event.error);
      else process.stderr.write(`error: ${expected.message}; still serving the last good build\n`);
      return;
    }
    await reportProblems(event.problems, options.catalogue, { building: event.kind === "invalid" });
    const { stream, line } = formatWatchBuild(event, out);
    process[stream].write(`${line}\n`);
  };
  const handle = await watchCatalogue({
    catalogueDir: options.catalogue,
    outDir: options.out,
    site: options.site,
    ...(options.baseUrl !== undefined ? { baseUrl: options.baseUrl } : {}),
    host: options.listen,
    port: options.port,
    log: (line) => process.stdout.write(`${line}\n`),
    onEvent: (event) => void onEvent(event),
  });
  process.stdout.write(
    `serving ${out} at ${handle.url}, rebuilt on every change to ${displayPath(options.catalogue)} (Ctrl-C to stop)\n`,
  );
  const error = await stopped;
  await handle.close();
  if (error !== undefined) throw error;
  return EXIT.ok;
}
