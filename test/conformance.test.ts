// One conformance suite, run against every server we can run here: the preview server and real
// nginx, Apache httpd (a virtual host, and a .htaccess the way shared hosting reads it), Caddy and
// lighttpd, each started on 127.0.0.1 with the generated config and stopped after.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkCatalogue } from "../src/buildCatalogue.js";
import {
  conformanceCases,
  CONFORMANCE_ROWS,
  expectedApi,
  runConformance,
  sendRaw,
  type ConformanceCase,
  type ConformanceRow,
  type RunResult,
} from "../src/conformance.js";
import { renderApi } from "../src/renderApi.js";
import { RESPONSE_HEADERS } from "../src/routes.js";
import { startPreviewServer } from "../src/servePreview.js";
import type { TargetId } from "../src/targets/target.js";
import { copyFixture } from "./helpers.js";
import { startApacheHtaccess, startApacheVirtualHost } from "./servers/apache.js";
import { startCaddy } from "./servers/caddy.js";
import { buildSite, type RunningServer, type Site } from "./servers/common.js";
import { startLighttpd } from "./servers/lighttpd.js";
import { startNginx } from "./servers/nginx.js";

/**
 * Requests a server answers by itself, before any config we generate is consulted, so no header or
 * body of ours can be on the answer. Only the rows about headers and bodies may fail for them; the
 * test below proves each such answer carries none of our headers, so a bug in a config cannot hide
 * here.
 */
interface AnsweredBeforeConfig {
  why: string;
  /** Whether the server refuses this request-target itself. */
  refuses(target: string): boolean;
}

interface ServerUnderTest {
  name: string;
  /** Targets whose deploy files the site is built with. */
  targets?: TargetId[];
  start(site: Site): Promise<RunningServer>;
  beforeConfig?: AnsweredBeforeConfig;
}

const HEADER_ROWS: readonly ConformanceRow[] = ["content-type", "cors", "error-body"];

const pathOf = (target: string) => target.split("?")[0]!;
/** A `%` that does not start an escape. */
const BAD_ESCAPE = /%(?![0-9a-f]{2})/i;
/** Apache (LimitRequestLine 8190) and lighttpd (server.max-request-field-size 8192) refuse a longer request line. */
const OVERLONG = (target: string) => target.length > 8000;

function refusedBy(server: ServerUnderTest, target: string): boolean {
  return server.beforeConfig?.refuses(target) === true;
}

const SERVERS: ServerUnderTest[] = [
  { name: "preview server (shopfront serve)", start: (site) => startPreviewServer({ dir: site.root, host: "127.0.0.1", port: 0 }).then((s) => ({ url: s.url, stop: s.close })) },
  { name: "nginx", start: startNginx },
  { name: "Apache httpd, <VirtualHost>", start: startApacheVirtualHost },
  {
    name: "Apache httpd, .htaccess",
    targets: ["apache"],
    start: startApacheHtaccess,
    beforeConfig: {
      why: "Apache refuses an encoded slash or NUL, a bad escape, a path above the root or an overlong request before it reads any .htaccess",
      refuses: (target) => /%2f|%00|(^|\/)(\.\.|%2e%2e)(\/|$)/i.test(pathOf(target)) || BAD_ESCAPE.test(pathOf(target)) || OVERLONG(target),
    },
  },
  {
    name: "Caddy",
    start: startCaddy,
    beforeConfig: {
      // https://github.com/golang/go/blob/go1.19/src/net/http/server.go: a request line that does
      // not parse gets a fixed "400 Bad Request" written to the connection, never a handler.
      why: "Go's HTTP server answers a path with a bad escape before Caddy sees the request",
      refuses: (target) => BAD_ESCAPE.test(pathOf(target)),
    },
  },
  {
    name: "lighttpd",
    targets: ["lighttpd"],
    start: startLighttpd,
    beforeConfig: {
      // server.http-parseopts "url-ctrls-reject", on by default, can only be set for the whole server.
      why: "lighttpd refuses a control character (%00) in the path or an overlong request while it reads the request",
      refuses: (target) => /%[01][0-9a-f]|%7f/i.test(pathOf(target)) || OVERLONG(target),
    },
  },
];

describe.each(SERVERS)("$name", (underTest) => {
  const { targets, start, beforeConfig } = underTest;
  let server: RunningServer;
  let cases: ConformanceCase[];
  let result: RunResult;
  beforeAll(async () => {
    const site = await buildSite(targets);
    const { catalogue } = await checkCatalogue(copyFixture("conformance"));
    const api = expectedApi(renderApi(catalogue!), catalogue!.packages);
    server = await start(site);
    cases = conformanceCases(api);
    result = await runConformance({ baseUrl: server.url, api, cases, concurrency: 8 });
  });
  afterAll(() => server?.stop());

  it.each(Object.keys(CONFORMANCE_ROWS) as ConformanceRow[])("%s", (row) => {
    const excused = (target: string) => HEADER_ROWS.includes(row) && refusedBy(underTest, target);
    expect(result.checked[row]).toBeGreaterThan(0);
    expect(result.failures.filter((f) => f.row === row && !excused(f.target)).map((f) => `${f.method} ${f.target}: ${f.reason}`)).toEqual([]);
  });

  if (beforeConfig) {
    it(`refuses some requests itself, without our headers: ${beforeConfig.why}`, async () => {
      const refused = cases.filter((c) => refusedBy(underTest, c.target));
      expect(refused.length).toBeGreaterThan(0);
      for (const c of refused) {
        const res = await sendRaw(server.url, c.method, c.target);
        const ours = Object.keys(RESPONSE_HEADERS).filter((name) => name !== "Content-Type" && res.headers[name.toLowerCase()] !== undefined);
        expect({ target: c.target, status: res.status, ours }).toEqual({ target: c.target, status: expect.toSatisfy((s: number) => s >= 400 && s < 500), ours: [] });
      }
    });
  }
});
