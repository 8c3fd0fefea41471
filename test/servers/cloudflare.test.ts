// The Cloudflare Pages worker: the `_worker.js` that the compiled CLI builds, executed in Node with
// real Request objects and an emulation of env.ASSETS (test/support/edge/cloudflare.ts), against the whole
// conformance suite, with the browse site the build writes in the built folder.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { conformanceCases, type ExpectedApi } from "../../src/check/conformance.js";
import { CONFORMANCE_ROWS, type ConformanceRow } from "../../src/routes/conformanceRows.js";
import { runConformance, type RunResult } from "../../src/check/runConformance.js";
import { renderNotFound } from "../../src/render/renderApi.js";
import { filterList } from "../../src/routes/filterList.js";
import { fallbackFor, fileFor, RESPONSE_HEADERS } from "../../src/routes/routeTable.js";
import { cloudflare } from "../../src/targets/cloudflare.js";
import { renderHeadersFile } from "../../src/targets/shared/headersFile.js";
import { loadWorker, pagesAssets, startCloudflare, type Assets } from "../support/edge/cloudflare.js";
import { runCompiledCli } from "../support/edge/compiledCli.js";
import { copyConformanceWithFiles, tempDir, undeclaredFailures } from "../support/helpers.js";
import { CANARY, type RunningServer, type Site } from "../support/servers/common.js";
import { fixtureApi, siteRequests } from "../support/site.js";

/** The conformance fixture with package files, built by the compiled CLI with --target cloudflare, a canary beside it. */
function shippedSite(): Site {
  const dir = tempDir("shopfront-site-");
  const root = join(dir, "dist");
  runCompiledCli([
    "build",
    "--catalogue",
    copyConformanceWithFiles(),
    "--out",
    root,
    "--target",
    "cloudflare",
    "--quiet",
  ]);
  writeFileSync(join(dir, "secret.txt"), CANARY);
  return { root, dir };
}

let site: Site;
beforeAll(() => {
  site = shippedSite();
});

let api: ExpectedApi;
beforeAll(async () => {
  api = await fixtureApi();
});

describe("Cloudflare Pages worker with emulated assets", () => {
  let server: RunningServer;
  let result: RunResult;
  beforeAll(async () => {
    server = await startCloudflare(site);
    result = await runConformance({ baseUrl: server.url, api, cases: conformanceCases(api), concurrency: 8 });
  });
  afterAll(() => server?.stop());

  it.each(Object.keys(CONFORMANCE_ROWS) as ConformanceRow[])("%s", (row) => {
    expect(result.checked[row]).toBeGreaterThan(0);
    expect(undeclaredFailures(result, row, cloudflare.cannot)).toEqual([]);
  });
});

describe("the site", () => {
  it("is served at `/` and every file's URL, with its type and the site's headers, after Pages' redirect of a page", async () => {
    const worker = await loadWorker(site.root);
    const assets = pagesAssets(site.root);
    expect((await assets.fetch("http://h/browse/primary/package/chart.js/index.html")).status).toBe(308);
    for (const { target, file, type } of siteRequests(api)) {
      const res = await worker.fetch(new Request(`http://h${target}`), { ASSETS: assets });
      expect({ target, status: res.status, type: res.headers.get("content-type") }).toEqual({
        target,
        status: 200,
        type,
      });
      expect(res.headers.get("access-control-allow-origin")).toBe("*");
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      expect(await res.text()).toBe(api.files.get(file));
    }
  });

  it("answers a page or asset the build lacks with the worker's JSON 404", async () => {
    const worker = await loadWorker(site.root);
    for (const target of ["/browse/primary/package/nope/", "/assets/nope.css", "/browse/nohost/index.html"]) {
      const res = await worker.fetch(new Request(`http://h${target}`), { ASSETS: pagesAssets(site.root) });
      expect({ target, status: res.status, type: res.headers.get("content-type") }).toEqual({
        target,
        status: 404,
        type: "application/json",
      });
      expect(await res.text()).toBe(renderNotFound());
    }
  });
});

describe("the Pages deploy root", () => {
  it("holds _headers, and a 404.html with the JSON error body", () => {
    expect(readFileSync(join(site.root, "_headers"), "utf8")).toBe(renderHeadersFile());
    expect(readFileSync(join(site.root, "404.html"), "utf8")).toBe(renderNotFound());
  });

  it("serves a package named index.html, which Pages itself only serves under x/ after a redirect", async () => {
    const assets = pagesAssets(site.root);
    expect((await assets.fetch("http://h/v1/primary/package/index.html")).status).toBe(308);
    const worker = await loadWorker(site.root);
    const res = await worker.fetch(new Request("http://h/v1/primary/package/index.html"), { ASSETS: assets });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(JSON.parse(await res.text())).toMatchObject({ internal_name: "index.html" });
  });

  it("answers a miss with the worker's JSON 404, not the assets' 404.html", async () => {
    const worker = await loadWorker(site.root);
    const res = await worker.fetch(new Request("http://h/v1/primary/package/nope"), { ASSETS: pagesAssets(site.root) });
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(await res.text()).toBe(renderNotFound());
  });
});

describe("the worker's fallback and search", () => {
  /** The emulated assets, recording each request they get as "METHOD path". */
  function recordedAssets(): { assets: Assets; requests: string[] } {
    const inner = pagesAssets(site.root);
    const requests: string[] = [];
    return {
      requests,
      assets: {
        fetch(input, init) {
          const request = new Request(input, init);
          requests.push(`${request.method} ${new URL(request.url).pathname}`);
          return inner.fetch(request);
        },
      },
    };
  }
  const built = (file: string) => readFileSync(join(site.root, file), "latin1");

  it("answers a coder no package has with the host's empty list, after the list's own 404", async () => {
    const worker = await loadWorker(site.root);
    const { assets, requests } = recordedAssets();
    const res = await worker.fetch(new Request("http://h/v1/primary/coder/Nobody%20At%20All/packages"), {
      ASSETS: assets,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(await res.text()).toBe(built(fallbackFor("coder", { host: "primary" })));
    expect(requests).toEqual([
      `GET /${fileFor("coder", { host: "primary", coder: "Nobody At All" })}`,
      `GET /${fallbackFor("coder", { host: "primary" })}`,
    ]);
  });

  it("answers a filter of an unknown host with the JSON 404: it has no empty list either", async () => {
    const worker = await loadWorker(site.root);
    const res = await worker.fetch(new Request("http://h/v2/nohost/packages?coder=x"), {
      ASSETS: pagesAssets(site.root),
    });
    expect(res.status).toBe(404);
    expect(await res.text()).toBe(renderNotFound());
  });

  it("answers a search with the list it names, filtered, with the API's headers", async () => {
    const worker = await loadWorker(site.root);
    const res = await worker.fetch(new Request("http://h/v2/primary/packages?query=nake&category=games"), {
      ASSETS: pagesAssets(site.root),
    });
    expect(res.status).toBe(200);
    expect(Object.fromEntries(res.headers)).toMatchObject(
      Object.fromEntries(Object.entries(RESPONSE_HEADERS).map(([name, value]) => [name.toLowerCase(), value])),
    );
    const body = await res.text();
    expect(body).toBe(filterList(built(fileFor("category", { host: "primary", category: "games" })), "nake"));
    expect(JSON.parse(body)).not.toEqual([]);
  });

  it("answers a search for a coder no package has with []", async () => {
    const worker = await loadWorker(site.root);
    const res = await worker.fetch(new Request("http://h/v2/primary/packages?query=a&coder=nobody"), {
      ASSETS: pagesAssets(site.root),
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("[]");
  });

  it("reads the list with GET for a HEAD search, since the assets give a HEAD no body", async () => {
    const worker = await loadWorker(site.root);
    const { assets, requests } = recordedAssets();
    const res = await worker.fetch(new Request("http://h/v2/primary/packages?query=nake", { method: "HEAD" }), {
      ASSETS: assets,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(await res.text()).toBe("");
    expect(requests).toEqual([`GET /${fileFor("packages", { host: "primary" })}`]);
  });
});
