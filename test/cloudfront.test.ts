// The CloudFront Function: executed in Node inside an emulation of S3 + CloudFront (test/edge/cloudfront.ts)
// against the whole conformance suite, and held to what CloudFront's runtime 2.0 accepts. The code
// under test is what the compiled CLI writes: vitest's own TypeScript transform would embed a
// differently written (if equivalent) router.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadCatalogue } from "../src/build/loadCatalogue.js";
import { conformanceCases, CONFORMANCE_ROWS, expectedApi, type ConformanceRow } from "../src/check/conformance.js";
import { runConformance, type RunResult } from "../src/check/runConformance.js";
import { matchRequest } from "../src/routes/matchRequest.js";
import { renderApi } from "../src/render/renderApi.js";
import { PORTABLE_ROUTES } from "../src/routes/routeTable.js";
import { CUSTOM_ERROR_RESPONSES, FUNCTION_SIZE_LIMIT, renderCloudFrontFunction } from "../src/targets/cloudfront.js";
import { loadFunction, startCloudFront, viewerRequest } from "./edge/cloudfront.js";
import { unsupportedSyntax } from "./edge/runtime20Syntax.js";
import { copyFixture, ROOT, tempDir } from "./helpers.js";
import { buildSite, type RunningServer } from "./servers/common.js";

/** `shopfront config cloudfront --out DIR`, run with the compiled CLI. */
function shippedFiles(): { code: string; errorResponses: unknown } {
  const out = tempDir();
  const cli = spawnSync(
    process.execPath,
    [join(ROOT, "lib", "cli.js"), "config", "cloudfront", "--catalogue", copyFixture("basic"), "--out", out],
    { encoding: "utf8" },
  );
  if (cli.status !== 0)
    throw new Error(`shopfront config cloudfront failed (npm test compiles lib/ first):\n${cli.stderr}`);
  return {
    code: readFileSync(join(out, "shopfront-viewer-request.js"), "utf8"),
    errorResponses: JSON.parse(readFileSync(join(out, "custom-error-responses.json"), "utf8")),
  };
}

const shipped = shippedFiles();

describe("CloudFront Function in an emulation of S3 + CloudFront", () => {
  let server: RunningServer;
  let result: RunResult;
  beforeAll(async () => {
    const site = await buildSite();
    const { catalogue } = await loadCatalogue(copyFixture("conformance"));
    const api = expectedApi(renderApi(catalogue!), catalogue!.packages);
    server = await startCloudFront(site, shipped.code);
    result = await runConformance({ baseUrl: server.url, api, cases: conformanceCases(api), concurrency: 8 });
  });
  afterAll(() => server?.stop());

  it.each(Object.keys(CONFORMANCE_ROWS) as ConformanceRow[])("%s", (row) => {
    expect(result.checked[row]).toBeGreaterThan(0);
    expect(result.failures.filter((f) => f.row === row)).toEqual([]);
  });
});

describe("the viewer-request function", () => {
  const handler = loadFunction(shipped.code);
  const run = (method: string, target: string) =>
    handler({
      version: "1.0",
      context: { eventType: "viewer-request" },
      viewer: { ip: "192.0.2.1" },
      request: viewerRequest(method, target),
    });

  it("rewrites a v2 query to the package's file and drops the query, so the file is cached once", () => {
    expect(run("GET", "/v2/primary/packages?lang=en&package=snake")).toMatchObject({
      uri: "/v1/primary/package/snake",
      querystring: {},
    });
    expect(run("HEAD", "/v2/primary/packages/")).toMatchObject({ uri: "/v1/primary/packages", querystring: {} });
  });

  it("answers a repeated package parameter (folded into multiValue by CloudFront) with the JSON 404", () => {
    const request = viewerRequest("GET", "/v2/primary/packages?package=snake&package=snake");
    expect(request.querystring.package!.multiValue).toHaveLength(2);
    expect(run("GET", "/v2/primary/packages?package=snake&package=snake")).toMatchObject({
      statusCode: 404,
      headers: { "content-type": { value: "application/json" } },
    });
  });

  it("never sends a bad name on to S3", () => {
    for (const target of [
      "/v2/primary/packages?package=..%2F..%2Fhosts",
      "/v2/primary/packages?package=../x",
      "/v1/primary/package/%2e%2e",
      "/v1/..%2Fsecret/packages",
    ]) {
      expect(run("GET", target)).toMatchObject({ statusCode: 404 });
    }
  });

  it("embeds the route table and the reference router, never a copy of either", () => {
    const code = renderCloudFrontFunction();
    expect(JSON.parse(/^const TABLE = (.*);$/m.exec(code)![1]!)).toEqual(PORTABLE_ROUTES);
    expect(code).toContain(String(matchRequest));
  });

  it("answers OPTIONS with 204 and the preflight headers, and POST with 405", () => {
    expect(run("OPTIONS", "/v1/hosts")).toMatchObject({
      statusCode: 204,
      headers: {
        "access-control-allow-origin": { value: "*" },
        "access-control-allow-methods": { value: "GET, HEAD, OPTIONS" },
      },
    });
    expect(run("POST", "/v1/hosts")).toMatchObject({
      statusCode: 405,
      headers: { allow: { value: "GET, HEAD, OPTIONS" } },
    });
  });
});

describe("the function's code as CloudFront takes it", () => {
  it("uses only the syntax that runtime 2.0 documents, within the 10 KB quota", () => {
    expect(unsupportedSyntax(shipped.code)).toEqual([]);
    expect(Buffer.byteLength(shipped.code)).toBeLessThan(FUNCTION_SIZE_LIMIT);
  });

  it("flags what runtime 2.0 does not document", () => {
    const code =
      "const { a } = b; for (const x of y) {} const o = { a, ...c }; f(d ?? e?.g); class K {} try {} catch {}";
    expect(unsupportedSyntax(code).map((s) => s.replace(/^line \d+: /, ""))).toEqual(
      expect.arrayContaining([
        "destructuring",
        "for-of",
        "shorthand property",
        "spread",
        "??",
        "optional chaining",
        "class",
        "catch without binding",
      ]),
    );
  });

  it("comes with the custom error responses the emulation applies", () => {
    expect(shipped.errorResponses).toEqual(CUSTOM_ERROR_RESPONSES);
  });
});
