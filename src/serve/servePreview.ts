// The preview server: serves a built folder with exactly the behaviour of the route table, on
// http-server. Every request goes through matchRequest first; http-server then serves only the one
// API or site file that the route names (with its ETag, Last-Modified, Range and HEAD handling), and this
// module answers everything else itself with the JSON 404 body, 204 or 405.
import { existsSync, readFileSync, statSync } from "node:fs";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join, resolve } from "node:path";
import { createServer, type UnionResponse } from "http-server";
import { UsageError } from "../util/errors.js";
import { filterList } from "../routes/filterList.js";
import { matchFileRequest, matchRequest } from "../routes/matchRequest.js";
import { renderMethodNotAllowed, renderNotFound } from "../render/renderApi.js";
import {
  contentTypeOf,
  fileFor,
  NOT_FOUND_FILE,
  PORTABLE_ROUTES,
  PREFLIGHT_HEADERS,
  RESPONSE_HEADERS,
  SITE_HEADERS,
  servedCacheControlOf,
} from "../routes/routeTable.js";

export interface PreviewOptions {
  /** The built folder (the output of `shopfront build`). */
  dir: string;
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** Called once per finished request with a log line. */
  log?: (line: string) => void;
  /** Serve even when the folder holds no build yet (`serve --watch` builds it later). */
  beforeBuild?: boolean;
  /**
   * False while the first build runs (`serve --watch`): every request is then answered 503 with
   * Retry-After, which says "not yet" to a browser, a client or a test, where a 404 would say "no such file".
   */
  ready?: () => boolean;
}

/** Seconds a client is asked to wait while the first build runs. */
export const FIRST_BUILD_RETRY_AFTER = 1;

export interface PreviewServer {
  url: string;
  close(): Promise<void>;
}

function setHeaders(res: ServerResponse, headers: Record<string, string>): void {
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
}

/**
 * http-server's contentType option is broken in 14.1.1 and it guesses types from names (chart.js),
 * so every Content-Type it sets is replaced by the route table's for the file; so is its
 * Cache-Control (none, by `cache: -1`), by the lifetime the hosts send (servedCacheControlOf).
 */
function forceHeaders(res: ServerResponse, forced: Record<string, string>): void {
  const setHeader = res.setHeader.bind(res);
  const byName = new Map(Object.entries(forced).map(([name, value]) => [name.toLowerCase(), value]));
  for (const [name, value] of Object.entries(forced)) setHeader(name, value);
  res.setHeader = (name, value) => setHeader(name, byName.get(name.toLowerCase()) ?? value);
}

function answer(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  body: string,
  extra: Record<string, string> = {},
): void {
  res.statusCode = status;
  setHeaders(res, { ...RESPONSE_HEADERS, ...extra });
  if (body === "") {
    res.end();
    return;
  }
  res.setHeader("Content-Length", Buffer.byteLength(body));
  res.end(req.method === "HEAD" ? undefined : body);
}

export function servePreview(options: PreviewOptions): Promise<PreviewServer> {
  // The path as given, never its real path: `dist` is a link that each build swaps to another slot,
  // and every request resolves it again, so a rebuild shows at once.
  const root = resolve(options.dir);
  if (!options.beforeBuild && !existsSync(join(root, fileFor("hosts")))) {
    throw new UsageError(
      `${options.dir} is not a built API (it has no ${fileFor("hosts")}); run shopfront build first`,
    );
  }
  // Read per request too.
  const notFoundBody = () => {
    try {
      return readFileSync(join(root, NOT_FOUND_FILE), "utf8");
    } catch {
      // A build without its 404 body still answers 404, with the standard one.
      return renderNotFound();
    }
  };

  const route = (req: IncomingMessage, union: UnionResponse): void => {
    const res = union.response;
    if (options.log) {
      const target = req.url ?? "";
      // "close", not "finish": a client that hangs up once it has the whole body (curl, one-shot
      // downloaders) can do so before http-server's stream chain ends the response, and then
      // "finish" never comes. "close" comes either way.
      res.once("close", () => options.log!(`${req.method} ${target} ${res.statusCode}`));
    }
    if (options.ready && !options.ready())
      return answer(
        req,
        res,
        503,
        JSON.stringify({
          error: "not_ready",
          message: "The preview is running its first build; try again in a moment.",
        }),
        { "Retry-After": String(FIRST_BUILD_RETRY_AFTER), "Cache-Control": "no-store" },
      );
    const match =
      matchFileRequest(PORTABLE_ROUTES, req.method ?? "", req.url ?? "") ??
      matchRequest(PORTABLE_ROUTES, req.method ?? "", req.url ?? "");
    if (match.status === 204) return answer(req, res, 204, "", PREFLIGHT_HEADERS);
    if (match.status === 405) return answer(req, res, 405, renderMethodNotAllowed(), PREFLIGHT_HEADERS);
    if (match.status === 404) return answer(req, res, 404, notFoundBody());
    // A filter's list, or the host's empty list when no package has the value (an unknown host has neither).
    const file = [match.file, match.fallback].find((f) => f !== undefined && isFile(join(root, f)));
    if (file === undefined) return answer(req, res, 404, notFoundBody());
    if (match.search !== undefined)
      return answer(req, res, 200, filterList(readFileSync(join(root, file), "latin1"), match.search));
    setHeaders(res, match.route === "site" || match.route === "file" ? SITE_HEADERS : RESPONSE_HEADERS);
    forceHeaders(res, { "Content-Type": contentTypeOf(file), "Cache-Control": servedCacheControlOf(file) });
    req.url = `/${file}`;
    union.emit("next");
  };

  const server = createServer({
    root,
    cache: -1,
    showDir: "false",
    autoIndex: "false",
    showDotfiles: false,
    before: [route],
  });
  withoutDeprecatedHeaders(server.server);
  return new Promise((resolvePromise, reject) => {
    server.server.once("error", (error) => reject(listenError(error, options)));
    server.listen(options.port, options.host, () => {
      const { address, port } = server.server.address() as AddressInfo;
      const host = address.includes(":") ? `[${address}]` : address;
      resolvePromise({
        url: `http://${host}:${port}`,
        close: () =>
          new Promise<void>((done) => {
            server.server.close(() => done());
            server.server.closeAllConnections();
          }),
      });
    });
  });
}

/**
 * http-server's server (union) still patches each response through `_headers` and `_headerNames`,
 * accessors of Node's responses deprecated since Node 12 (DEP0066, a warning on first use). Each
 * response gets plain properties of its own under those names, which union reads and writes instead.
 * Their setters rebuilt the headers set so far, of which there are none then (no `headers` option).
 */
function withoutDeprecatedHeaders(server: Server): void {
  const [handle] = server.listeners("request") as ((req: IncomingMessage, res: ServerResponse) => void)[];
  server.removeAllListeners("request");
  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    Object.defineProperties(res, {
      _headers: { value: {}, writable: true },
      _headerNames: { value: {}, writable: true },
    });
    handle!(req, res);
  });
}

/** The errors of listening that the user fixes with another --port or --listen, as usage errors saying so. */
function listenError(error: NodeJS.ErrnoException, options: PreviewOptions): Error {
  const { port, host } = options;
  const other = port < 65535 ? port + 1 : port - 1;
  if (error.code === "EADDRINUSE")
    return new UsageError(
      `port ${port} is in use on ${host}: pick another with --port ${other}, or --port 0 for any free one`,
    );
  if (error.code === "EACCES")
    return new UsageError(
      `port ${port} needs more privileges than this user has (ports below 1024 usually do): pick another with --port ${other < 1024 ? 8080 : other}, or --port 0 for any free one`,
    );
  if (error.code === "EADDRNOTAVAIL")
    return new UsageError(`--listen ${host} is not an address of this machine; 127.0.0.1 and 0.0.0.0 always are`);
  return error;
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    // Not there or not readable: the route answers 404.
    return false;
  }
}
