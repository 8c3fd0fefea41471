// One conformance suite, run against every server we can run here: the preview server and real
// nginx, each started on 127.0.0.1 with the generated config and stopped after.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkCatalogue } from "../src/buildCatalogue.js";
import { conformanceCases, CONFORMANCE_ROWS, expectedApi, runConformance, type ConformanceRow, type RunResult } from "../src/conformance.js";
import { renderApi } from "../src/renderApi.js";
import { startPreviewServer } from "../src/servePreview.js";
import { copyFixture } from "./helpers.js";
import { buildSite, type RunningServer, type Site } from "./servers/common.js";
import { startNginx } from "./servers/nginx.js";

interface ServerUnderTest {
  name: string;
  start(site: Site): Promise<RunningServer>;
}

const SERVERS: ServerUnderTest[] = [
  { name: "preview server (shopfront serve)", start: (site) => startPreviewServer({ dir: site.root, host: "127.0.0.1", port: 0 }).then((s) => ({ url: s.url, stop: s.close })) },
  { name: "nginx", start: startNginx },
];

describe.each(SERVERS)("$name", ({ start }) => {
  let server: RunningServer;
  let result: RunResult;
  beforeAll(async () => {
    const site = await buildSite();
    const { catalogue } = await checkCatalogue(copyFixture("conformance"));
    const api = expectedApi(renderApi(catalogue!), catalogue!.packages);
    server = await start(site);
    result = await runConformance({ baseUrl: server.url, api, cases: conformanceCases(api), concurrency: 8 });
  });
  afterAll(() => server?.stop());

  it.each(Object.keys(CONFORMANCE_ROWS) as ConformanceRow[])("%s", (row) => {
    expect(result.checked[row]).toBeGreaterThan(0);
    expect(result.failures.filter((f) => f.row === row)).toEqual([]);
  });
});
