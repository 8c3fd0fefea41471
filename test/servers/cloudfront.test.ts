// The CloudFront Function: executed in Node inside an emulation of S3 + CloudFront (test/support/edge/cloudfront.ts)
// against the whole conformance suite, the browse site the build writes in the bucket, and
// held to what CloudFront's runtime 2.0 accepts. The code
// under test is what the compiled CLI writes: vitest's own TypeScript transform would embed a
// differently written (if equivalent) router.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { conformanceCases, type ExpectedApi } from "../../src/check/conformance.js";
import { CONFORMANCE_ROWS, type ConformanceRow } from "../../src/routes/conformanceRows.js";
import { runConformance, sendRaw, type RunResult } from "../../src/check/runConformance.js";
import { coderKey, decodeValue, utf8Bytes } from "../../src/routes/filterValue.js";
import { matchRequest } from "../../src/routes/matchRequest.js";
import { fallbackFor, fileFor, PORTABLE_ROUTES } from "../../src/routes/routeTable.js";
import { TODAY_ROUTES } from "../../src/routes/todayRoutes.js";
import {
  cloudfront,
  CUSTOM_ERROR_RESPONSES,
  FUNCTION_SIZE_LIMIT,
  renderCloudFrontFunction,
} from "../../src/targets/cloudfront.js";
import { compactSource } from "../../src/targets/shared/edgeRouter.js";
import { loadFunction, startCloudFront, viewerRequest } from "../support/edge/cloudfront.js";
import { runCompiledCli } from "../support/edge/compiledCli.js";
import { unsupportedSyntax } from "../support/edge/runtime20Syntax.js";
import { copyFixture, tempDir, undeclaredFailures } from "../support/helpers.js";
import { buildSite, type RunningServer } from "../support/servers/common.js";
import { fixtureApi, siteRequests } from "../support/site.js";

/** `shopfront config cloudfront --out DIR`, run with the compiled CLI. */
function shippedFiles(): { code: string; errorResponses: unknown } {
  const out = tempDir();
  runCompiledCli(["config", "cloudfront", "--catalogue", copyFixture("basic"), "--out", out]);
  return {
    code: readFileSync(join(out, "shopfront-viewer-request.js"), "utf8"),
    errorResponses: JSON.parse(readFileSync(join(out, "custom-error-responses.json"), "utf8")),
  };
}

/**
 * A script's syntax tree as TypeScript parses it: each node's kind and flags, an operator's kind,
 * and the text of each node without children (names, literals, keywords). Equal for two spellings
 * of the same code, whatever their layout; a line break that a semicolon-less statement needed
 * would change it.
 */
function syntaxTree(code: string): string[] {
  const source = ts.createSourceFile("f.js", code, ts.ScriptTarget.Latest, false, ts.ScriptKind.JS);
  const nodes: string[] = [];
  const visit = (node: ts.Node): void => {
    const operator = ts.isPrefixUnaryExpression(node) || ts.isPostfixUnaryExpression(node) ? node.operator : "";
    const children = node.getChildCount(source);
    nodes.push(`${ts.SyntaxKind[node.kind]} ${node.flags} ${operator} ${children === 0 ? node.getText(source) : ""}`);
    node.getChildren(source).forEach(visit);
  };
  visit(source);
  return nodes;
}

const shipped = shippedFiles();

describe("CloudFront Function in an emulation of S3 + CloudFront", () => {
  let server: RunningServer;
  let result: RunResult;
  let api: ExpectedApi;
  beforeAll(async () => {
    // S3 cannot rewrite: built for CloudFront, the output holds the package files at the aliases' paths too.
    const site = await buildSite(["cloudfront"]);
    api = await fixtureApi({ copies: true });
    server = await startCloudFront(site, shipped.code);
    result = await runConformance({ baseUrl: server.url, api, cases: conformanceCases(api), concurrency: 8 });
  });
  afterAll(() => server?.stop());

  it.each(Object.keys(CONFORMANCE_ROWS) as ConformanceRow[])("%s", (row) => {
    expect(result.checked[row]).toBeGreaterThan(0);
    expect(undeclaredFailures(result, row, cloudfront.cannot)).toEqual([]);
  });

  it("serves `/` and every file of the site at its URL, with its type", async () => {
    for (const { target, file, type } of siteRequests(api)) {
      const res = await sendRaw(server.url, "GET", target);
      expect({ target, status: res.status, type: res.headers["content-type"] }).toEqual({ target, status: 200, type });
      expect(res.body.toString("latin1")).toBe(api.files.get(file));
    }
  });

  it("fails a declared row only with a 404 where the empty list or a search was due", () => {
    const declared = result.failures.filter((f) => f.row in cloudfront.cannot);
    expect(declared.length).toBeGreaterThan(0);
    for (const f of declared) {
      expect(f.reason).toMatch(
        f.row === "v2-query" ? /^status 404, / : /^status 404, expected 200 with v1\/[^/]+\/empty$/,
      );
    }
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

  it("rewrites a coder, sent either way, to the hex key of its bytes", () => {
    const list = `/${fileFor("coder", { host: "primary", coder: "Jānis Rūcis" })}`;
    expect(list).toBe(`/v1/primary/coder/${coderKey(utf8Bytes("Jānis Rūcis"))}/packages`);
    expect(run("GET", "/v1/primary/coder/J%C4%81nis%20R%C5%ABcis/packages/")).toMatchObject({ uri: list });
    expect(run("GET", "/v2/primary/packages?coder=J%c4%81nis+R%c5%abcis")).toMatchObject({
      uri: list,
      querystring: {},
    });
    expect(run("GET", "/v2/primary/packages?coder=Cboomf%20%2B%20Felix123&category=games")).toMatchObject({
      uri: `/${fileFor("category-coder", { host: "primary", category: "games", coder: "Cboomf + Felix123" })}`,
    });
  });

  it("sends a value that is never a category to the host's empty list", () => {
    expect(run("GET", "/v2/primary/packages?category=..%2F..%2Fsecret.txt")).toMatchObject({
      uri: `/${fallbackFor("v2-category", { host: "primary" })}`,
    });
  });

  it("answers a search, which it cannot run, with the JSON 404, never the list it would filter", () => {
    for (const target of [
      "/v2/primary/packages?query=sn",
      "/v2/primary/packages/?query=sn&category=games&coder=x",
      "/v2/primary/packages?package=snake&query=sn",
    ]) {
      expect(run("GET", target)).toMatchObject({
        statusCode: 404,
        headers: { "content-type": { value: "application/json" } },
      });
    }
  });

  it("embeds the route table, the reference router and the functions it calls, never a copy of any", () => {
    const code = renderCloudFrontFunction();
    // Without the package files' routes (S3 serves those by key, and the function sends them on as
    // they are), nor today's, whose URLs the function sends on the same way before routing.
    const today = new Set<string>(TODAY_ROUTES.map((route) => route.id));
    expect(today.size).toBeGreaterThan(0);
    expect(JSON.parse(/^const TABLE=(.*);$/m.exec(code)![1]!)).toEqual({
      ...PORTABLE_ROUTES,
      files: [],
      routes: PORTABLE_ROUTES.routes.filter((route) => !today.has(route.id)),
    });
    expect(code).not.toContain("function matchFileRequest");
    for (const embedded of [matchRequest, decodeValue, utf8Bytes, coderKey]) {
      const compact = compactSource([String(embedded)]).join("\n");
      expect(code).toContain(compact);
      // Compacting drops only whitespace and comments.
      expect(syntaxTree(compact)).toEqual(syntaxTree(String(embedded)));
    }
  });

  it("sends a site URL on to S3 as its file: `/` and a folder's URL as the index page", () => {
    expect(run("GET", "/")).toMatchObject({ uri: "/index.html", querystring: {} });
    expect(run("GET", "/?utm=x")).toMatchObject({ uri: "/index.html", querystring: {} });
    expect(run("GET", "/openapi.json")).toMatchObject({ uri: "/openapi.json" });
    expect(run("HEAD", "/browse/primary/package/chart.js/")).toMatchObject({
      uri: "/browse/primary/package/chart.js/index.html",
    });
    for (const target of ["/browse/../v1/hosts", "/assets/%2e%2e/secret.txt", "/assets/x.txt", "/browse/a%2Fb/"])
      expect(run("GET", target), target).toMatchObject({ statusCode: 404 });
  });

  it("sends a package file's URL on to S3 as it is, without its query; any other method goes to the router", () => {
    for (const target of ["/hbb/snake/snake.zip", "/api/v4/contents/snake/icon.png", "/hosts/themes/hbb/a.png"])
      expect(run("GET", `${target}?x=1`), target).toMatchObject({ uri: target, querystring: {} });
    expect(run("GET", "/hbbx/snake/snake.zip")).toMatchObject({ statusCode: 404 });
  });

  it("sends each of today's URLs on to S3 as its file, without its query", () => {
    for (const route of TODAY_ROUTES) {
      const path = route.path.replace("{host}", "themes");
      expect(path).toBe(`/${route.file.replace("{host}", "themes")}`);
      expect(run("GET", `${path}?x=1`), path).toMatchObject({ uri: path, querystring: {} });
    }
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

  it("is compacted without changing what it means", () => {
    const pieces = [
      'function f(a, b) {\n  // a comment\n  const s = " x  y ";\n  let c = a - -b + ++b;\n  return typeof c; // done\n}',
      "const T = { 'k': `a ${1} b` };",
    ];
    const compact = compactSource(pieces);
    expect(compact).toEqual([
      'function f(a,b){const s=" x  y ";let c=a- -b+ ++b;return typeof c;//done\n}',
      "const T={'k':`a ${1} b`};",
    ]);
    pieces.forEach((piece, i) => expect(syntaxTree(compact[i]!)).toEqual(syntaxTree(piece)));
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
