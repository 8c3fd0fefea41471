// The cache lifetimes of the route table, as every host config sends them and `check` judges them:
// a package file's own, the short one on everything else.
import { describe, expect, it } from "vitest";
import type { ConformanceCase, ExpectedApi } from "../../src/check/conformance.js";
import { judge } from "../../src/check/runConformance.js";
import {
  RESPONSE_HEADERS,
  servedCacheControlOf,
  SHORT_CACHE_CONTROL,
  SITE_TYPES,
} from "../../src/routes/routeTable.js";
import { headerRules } from "../../src/targets/shared/headersFile.js";

const FILES: Record<string, string> = {
  "v1/hosts": '["primary"]',
  "hbb/snake/icon.png": "png",
  "hbb/snake/snake.zip": "zip",
  "index.html": "<html>",
};
const API: ExpectedApi = { files: new Map(Object.entries(FILES)), packages: new Map() };

function cacheFailures(file: string, cacheControl: string | undefined, type: string): string[] {
  const c: ConformanceCase = { row: "v1-hosts", method: "GET", target: `/${file}`, expect: { kind: "file", file } };
  const headers = {
    "content-type": type,
    "access-control-allow-origin": "*",
    ...(cacheControl === undefined ? {} : { "cache-control": cacheControl }),
  };
  return judge(c, { status: 200, headers, body: Buffer.from(FILES[file]!) }, API, new Set(Object.values(FILES)))
    .filter((f) => f.row === "cache")
    .map((f) => f.reason);
}

describe("cache lifetimes", () => {
  it("are an icon's day, a package's four hours (both revalidated), and ten minutes for the rest", () => {
    expect(servedCacheControlOf("hbb/snake/icon.png")).toBe("public, max-age=86400, must-revalidate");
    expect(servedCacheControlOf("unzipped_apps/snake/apps/snake/meta.xml")).toBe(
      "public, max-age=14400, must-revalidate",
    );
    for (const file of ["v1/hosts", "v1/primary/packages", "index.html", "entry.json", "index/primary/0.json"])
      expect(servedCacheControlOf(file), file).toBe(SHORT_CACHE_CONTROL);
    expect(SHORT_CACHE_CONTROL).toBe("public, max-age=600");
  });

  it("are judged by check on the API's and the site's answers as on a package file's", () => {
    const json = RESPONSE_HEADERS["Content-Type"];
    expect(cacheFailures("v1/hosts", SHORT_CACHE_CONTROL, json)).toEqual([]);
    expect(cacheFailures("v1/hosts", undefined, json)).toEqual([
      `Cache-Control is missing, expected ${SHORT_CACHE_CONTROL}`,
    ]);
    expect(cacheFailures("index.html", "max-age=3600", SITE_TYPES.html!)).toHaveLength(1);
    expect(cacheFailures("hbb/snake/icon.png", SHORT_CACHE_CONTROL, "image/png")).toHaveLength(1);
    expect(cacheFailures("hbb/snake/icon.png", "public, max-age=86400, must-revalidate", "image/png")).toEqual([]);
  });

  it("are set once per path in _headers (Cloudflare Pages joins two values of one header with a comma)", () => {
    const rules = headerRules().filter((rule) => "Cache-Control" in rule.headers);
    const paths = rules.map((rule) => rule.path);
    expect(new Set(paths).size).toBe(paths.length);
    for (const path of ["/", "/index.html", "/openapi.json", "/assets/*", "/browse/*", "/v1/*", "/v2/*", "/404.json"])
      expect(rules.find((rule) => rule.path === path)?.headers["Cache-Control"], path).toBe(SHORT_CACHE_CONTROL);
  });
});
