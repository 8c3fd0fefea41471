// One conformance suite, run against every server we can run here: the preview server and real
// nginx, Apache httpd (a virtual host, and a .htaccess the way shared hosting reads it), Caddy and
// lighttpd, each started on 127.0.0.1 with the generated config and stopped after.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { conformanceCases } from "../../src/check/conformance.js";
import { CONFORMANCE_ROWS, type ConformanceRow } from "../../src/routes/conformanceRows.js";
import { runConformance, type RunResult } from "../../src/check/runConformance.js";
import { servePreview } from "../../src/serve/servePreview.js";
import type { TargetId } from "../../src/targets/target.js";
import { targetById } from "../../src/targets/index.js";
import { copyFixture, loadPackages, undeclaredFailures } from "../support/helpers.js";
import { startApacheHtaccess, startApacheVirtualHost } from "../support/servers/apache.js";
import { startCaddy } from "../support/servers/caddy.js";
import { buildSite, type RunningServer, type Site } from "../support/servers/common.js";
import { fixtureApi } from "../support/site.js";
import { startLighttpd } from "../support/servers/lighttpd.js";
import { startNginx } from "../support/servers/nginx.js";

interface ServerUnderTest {
  name: string;
  /** The target whose declared limits apply (the preview server has none). */
  target?: TargetId;
  /** Targets whose deploy files the site is built with. */
  targets?: TargetId[];
  start(site: Site): Promise<RunningServer>;
}

const SERVERS: ServerUnderTest[] = [
  {
    name: "preview server (shopfront serve)",
    start: (site) =>
      servePreview({ dir: site.root, host: "127.0.0.1", port: 0 }).then((s) => ({ url: s.url, stop: s.close })),
  },
  { name: "nginx", target: "nginx", start: startNginx },
  { name: "Apache httpd, <VirtualHost>", target: "apache", start: startApacheVirtualHost },
  {
    name: "Apache httpd, .htaccess",
    target: "apache",
    targets: ["apache"],
    start: startApacheHtaccess,
  },
  {
    name: "Caddy",
    target: "caddy",
    start: startCaddy,
  },
  {
    name: "lighttpd",
    target: "lighttpd",
    targets: ["lighttpd"],
    start: startLighttpd,
  },
];

describe.each(SERVERS)("$name", ({ target, targets, start }) => {
  let server: RunningServer;
  let result: RunResult;
  beforeAll(async () => {
    const site = await buildSite(targets);
    const api = await fixtureApi();
    server = await start(site);
    result = await runConformance({ baseUrl: server.url, api, cases: conformanceCases(api), concurrency: 8 });
  });
  afterAll(() => server?.stop());

  it.each(Object.keys(CONFORMANCE_ROWS) as ConformanceRow[])("%s", (row) => {
    expect(result.checked[row]).toBeGreaterThan(0);
    const declared = target && {
      ...targetById(target).cannot,
      ...(targets?.includes(target) ? targetById(target).cannotFromDeployFiles : {}),
    };
    expect(undeclaredFailures(result, row, declared)).toEqual([]);
  });
});

describe("the conformance fixture", () => {
  it("carries stats, so every server above serves package objects with real downloads and ratings", async () => {
    const { packages } = await loadPackages(copyFixture("conformance"));
    const numbers = Object.fromEntries(
      packages!.get("primary")!.map((p) => {
        const { downloads, rating } = JSON.parse(p.json) as { downloads: number; rating: string };
        return [p.name, [downloads, rating]];
      }),
    );
    expect(numbers).toMatchObject({
      snake: [1234, "4.5"],
      ZapShot: [2147483647, ""],
      "chart.js": [0, "★★★☆☆"],
      json: [0, ""],
    });
  });
});
