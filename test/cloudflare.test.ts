// The Cloudflare Pages worker: the built `_worker.js` executed in Node with real Request objects and
// an emulation of env.ASSETS (test/edge/cloudflare.ts), against the whole conformance suite.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadCatalogue } from "../src/build/loadCatalogue.js";
import { conformanceCases, CONFORMANCE_ROWS, expectedApi, type ConformanceRow } from "../src/check/conformance.js";
import { runConformance, type RunResult } from "../src/check/runConformance.js";
import { renderApi, renderNotFound } from "../src/render/renderApi.js";
import { RESPONSE_HEADERS } from "../src/routes/routeTable.js";
import { loadWorker, pagesAssets, startCloudflare } from "./edge/cloudflare.js";
import { copyFixture } from "./helpers.js";
import { buildSite, type RunningServer, type Site } from "./servers/common.js";

let site: Site;
beforeAll(async () => {
  site = await buildSite(["cloudflare"]);
});

describe("Cloudflare Pages worker with emulated assets", () => {
  let server: RunningServer;
  let result: RunResult;
  beforeAll(async () => {
    const { catalogue } = await loadCatalogue(copyFixture("conformance"));
    const api = expectedApi(renderApi(catalogue!), catalogue!.packages);
    server = await startCloudflare(site);
    result = await runConformance({ baseUrl: server.url, api, cases: conformanceCases(api), concurrency: 8 });
  });
  afterAll(() => server?.stop());

  it.each(Object.keys(CONFORMANCE_ROWS) as ConformanceRow[])("%s", (row) => {
    expect(result.checked[row]).toBeGreaterThan(0);
    expect(result.failures.filter((f) => f.row === row)).toEqual([]);
  });
});

describe("the Pages deploy root", () => {
  it("holds _headers with the API's headers on every path, and a 404.html with the JSON error body", () => {
    expect(readFileSync(join(site.root, "_headers"), "utf8")).toBe(
      `/*\n${Object.entries(RESPONSE_HEADERS)
        .map(([name, value]) => `  ${name}: ${value}\n`)
        .join("")}`,
    );
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
