// Cloudflare Pages in advanced mode, emulated just enough to run the conformance suite against the
// generated `_worker.js`: its default export's fetch(request, env) gets a real Request (Node's
// fetch API) and an env.ASSETS that serves the built folder the way Cloudflare's "Serving Pages"
// documents it:
// - an exact file is served with a type guessed from its extension (application/octet-stream
//   without one); `_worker.js`, `_headers`, `_redirects` and `_routes.json` are never assets;
// - x.html is redirected (308) to x unless a file x exists, x/index.html to x/; x is served
//   x.html, x/ is served x/index.html;
// - a miss gets the nearest 404.html with status 404, or, with no 404.html anywhere above it, the
//   single-page-app fallback: /index.html with status 200;
// - a HEAD gets the headers and no body (a worker that needs a file's bytes must fetch it with GET);
// - methods other than GET and HEAD get 405.
// `_headers` is not applied: the test shows that the worker sets every header itself.
import { copyFileSync } from "node:fs";
import type { IncomingMessage } from "node:http";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { readTree, tempDir } from "../helpers.js";
import type { RunningServer, Site } from "../servers/common.js";
import { listen } from "./listen.js";

const NOT_ASSETS = new Set(["_worker.js", "_headers", "_redirects", "_routes.json"]);
const TYPES: Record<string, string> = {
  html: "text/html; charset=utf-8",
  css: "text/css; charset=utf-8",
  json: "application/json",
  js: "application/javascript",
  txt: "text/plain; charset=utf-8",
  svg: "image/svg+xml",
};

export interface Assets {
  fetch(input: Request | URL | string, init?: RequestInit): Promise<Response>;
}

export function pagesAssets(root: string): Assets {
  const files = new Map([...readTree(root)].filter(([path]) => !NOT_ASSETS.has(path)));
  const has = (path: string) => files.has(path.slice(1));

  return {
    async fetch(input, init) {
      const request = new Request(input, init);
      if (request.method !== "GET" && request.method !== "HEAD") return new Response(null, { status: 405 });
      const url = new URL(request.url);
      let path = url.pathname;
      try {
        path = decodeURIComponent(path);
      } catch {
        // Served under its encoded name, as Pages does when the name does not decode.
      }
      const serve = (file: string, status = 200) => {
        const extension = /\.([a-z0-9]+)$/i.exec(file)?.[1]?.toLowerCase() ?? "";
        return new Response(request.method === "HEAD" ? null : files.get(file.slice(1))!, {
          status,
          headers: { "content-type": TYPES[extension] ?? "application/octet-stream" },
        });
      };
      const redirect = (to: string) => new Response(null, { status: 308, headers: { location: `${to}${url.search}` } });
      const notFound = () => {
        for (let dir = path.slice(0, path.lastIndexOf("/")); ; dir = dir.slice(0, dir.lastIndexOf("/"))) {
          if (has(`${dir}/404.html`)) return serve(`${dir}/404.html`, 404);
          if (dir === "") break;
        }
        return has("/index.html") ? serve("/index.html") : new Response(null, { status: 404 });
      };

      if (path.endsWith("/")) {
        if (has(`${path}index.html`)) return serve(`${path}index.html`);
        if (path.length > 1 && has(`${path.slice(0, -1)}.html`)) return redirect(path.slice(0, -1));
        return notFound();
      }
      if (has(path)) {
        if (path.endsWith("/index.html")) return redirect(path.slice(0, -"index.html".length));
        if (path.endsWith(".html") && !has(path.slice(0, -".html".length)))
          return redirect(path.slice(0, -".html".length));
        return serve(path);
      }
      if (has(`${path}.html`)) return serve(`${path}.html`);
      if (has(`${path}/index.html`)) return redirect(`${path}/`);
      return notFound();
    },
  };
}

interface Worker {
  fetch(request: Request, env: { ASSETS: Assets }): Promise<Response>;
}

/** The built folder's `_worker.js`, loaded as the module it is (copied to .mjs: the folder has no package.json). */
export async function loadWorker(root: string): Promise<Worker> {
  const copy = join(tempDir("shopfront-worker-"), "_worker.mjs");
  copyFileSync(join(root, "_worker.js"), copy);
  return ((await import(pathToFileURL(copy).href)) as { default: Worker }).default;
}

/** The worker and the emulated assets of a site built with --target cloudflare. */
export async function startCloudflare(site: Site): Promise<RunningServer> {
  const worker = await loadWorker(site.root);
  const env = { ASSETS: pagesAssets(site.root) };
  return listen(async (req: IncomingMessage) => {
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) if (value !== undefined) headers.set(name, String(value));
    // Workers see request.url as the URL parser leaves it, as here.
    const response = await worker.fetch(
      new Request(new URL(req.url ?? "/", "http://127.0.0.1"), { method: req.method ?? "GET", headers }),
      env,
    );
    return {
      status: response.status,
      headers: Object.fromEntries(response.headers),
      body: new Uint8Array(await response.arrayBuffer()),
    };
  });
}
