// `shopfront serve --watch`: watch the catalogue, build once, serve the output, and build again
// whenever the catalogue changes. A build that finds errors writes nothing, so the server keeps answering from the last
// good build until the catalogue is fixed. Builds run one at a time: changes that arrive during a
// build start one more build after it, never a second build beside it (both would want the
// output's lock). It reports what happens through a callback and prints nothing. The server listens
// before the first build, so that the build's v3 and v4 URLs name the address it serves at (a
// client of the preview, `import api` among them, fetches the package files from the preview
// itself), unless a base URL is given; until that build ends, it answers 503 with Retry-After.
import { existsSync, watch, type FSWatcher } from "node:fs";
import { buildCatalogue, type BuildResult, type BuildSummary } from "../engine/buildCatalogue.js";
import type { Problem } from "../catalogue/problems.js";
import type { TargetId } from "../targets/target.js";
import { servePreview, type PreviewServer } from "./servePreview.js";

export interface WatchOptions {
  catalogueDir: string;
  outDir: string;
  host: string;
  /** 0 picks a free port. */
  port: number;
  targets?: readonly TargetId[];
  /** Whether each build writes the browse site; on unless false. */
  site?: boolean;
  /** The origin the v3 and v4 files name (shopfront.json's baseUrl); the preview's own address when left out. */
  baseUrl?: string;
  /** How long the catalogue must stay still before a build starts: an editor's save or a checkout is a burst of changes. */
  quietMs?: number;
  onEvent: (event: WatchEvent) => void;
  /** The server's request log. */
  log?: (line: string) => void;
  /** The build each change runs; buildCatalogue unless given (a test holds one back). */
  build?: typeof buildCatalogue;
}

export type WatchEvent =
  /** A build starts (the first one too, while the server at `url` answers 503); every one ends with one of the events below. */
  | { kind: "building"; url: string; first: boolean }
  /** A build published the catalogue as it now is; `problems` holds its warnings. */
  | { kind: "built"; built: BuildSummary; problems: Problem[]; ms: number }
  /**
   * A build found errors and wrote nothing: the last good build is still served, if there is one
   * (`served`; else every request is a 404 until the catalogue builds).
   */
  | { kind: "invalid"; problems: Problem[]; ms: number; served: boolean }
  /** A build failed for a reason outside the catalogue (another build holds the output, a full disk, a bug). */
  | { kind: "error"; error: unknown };

export interface WatchHandle {
  url: string;
  /** Stops watching, waits for a running build to finish, and stops the server. */
  close(): Promise<void>;
}

export const DEFAULT_QUIET_MS = 150;

/**
 * Builds the catalogue, serves the output and rebuilds on every change. The first build's thrown
 * errors (a missing catalogue, an output folder shopfront did not make) reject; later ones are
 * reported as events, and watching goes on.
 */
export async function watchCatalogue(options: WatchOptions): Promise<WatchHandle> {
  let baseUrl = options.baseUrl;
  let server: PreviewServer | undefined;
  let firstBuildDone = false;
  const build = async (): Promise<void> => {
    options.onEvent({ kind: "building", url: server!.url, first: !firstBuildDone });
    const started = performance.now();
    const result: BuildResult = await (options.build ?? buildCatalogue)({
      catalogueDir: options.catalogueDir,
      outDir: options.outDir,
      targets: options.targets ?? [],
      site: options.site ?? true,
      baseUrl,
    });
    const ms = performance.now() - started;
    options.onEvent(
      result.built
        ? { kind: "built", built: result.built, problems: result.problems, ms }
        : { kind: "invalid", problems: result.problems, ms, served: existsSync(options.outDir) },
    );
  };

  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let again = false;

  const runBuilds = async (): Promise<void> => {
    do {
      again = false;
      try {
        await build();
      } catch (error) {
        options.onEvent({ kind: "error", error });
      }
    } while (again && !closed);
  };
  const startBuild = (): void => {
    timer = undefined;
    if (closed) return;
    if (running) {
      again = true;
      return;
    }
    running = runBuilds().finally(() => {
      running = undefined;
    });
  };
  const onChange = (): void => {
    if (closed) return;
    clearTimeout(timer);
    timer = setTimeout(startBuild, options.quietMs ?? DEFAULT_QUIET_MS);
  };
  const stopWatching = (watcher: FSWatcher | undefined): void => {
    closed = true;
    clearTimeout(timer);
    watcher?.close();
  };

  // Watching starts before the first build, which may take long: a save made while it runs is a
  // change like any other, built after it.
  let watcher: FSWatcher | undefined;
  let watchError: unknown;
  try {
    watcher = watch(options.catalogueDir, { recursive: true }, onChange);
    watcher.on("error", (error) => options.onEvent({ kind: "error", error }));
  } catch (error) {
    // The first build says better what is wrong with the folder (missing, not a folder).
    watchError = error;
  }
  try {
    server = await servePreview({
      dir: options.outDir,
      host: options.host,
      port: options.port,
      beforeBuild: true,
      ready: () => firstBuildDone,
      ...(options.log ? { log: options.log } : {}),
    });
    baseUrl ??= previewOrigin(server.url);
    running = build();
    await running.finally(() => (firstBuildDone = true));
    running = undefined;
    if (watchError !== undefined) throw watchError;
  } catch (error) {
    stopWatching(watcher);
    await server?.close();
    throw error;
  }
  const listening = server;
  if (again) startBuild();

  return {
    url: listening.url,
    close: async () => {
      stopWatching(watcher);
      await running;
      await listening.close();
    },
  };
}

/**
 * The origin a client of the preview reaches it at: its URL, with the loopback address for an
 * address that stands for every address of the machine (0.0.0.0, ::), which no client can ask for.
 */
export function previewOrigin(url: string): string {
  const origin = new URL(url);
  if (origin.hostname === "0.0.0.0") origin.hostname = "127.0.0.1";
  else if (origin.hostname === "[::]") origin.hostname = "[::1]";
  return origin.origin;
}
