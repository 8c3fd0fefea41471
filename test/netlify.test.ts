// Netlify's `_redirects` and `_headers`, checked three ways with Netlify's own published code:
// parsed with @netlify/redirect-parser and @netlify/headers-parser (what Netlify's build uses), and
// matched with netlify-redirector, Netlify's redirect engine built to WebAssembly (what `netlify dev`
// runs). What no package here can run is Netlify's CDN itself: serving the matched file and applying
// the headers are emulated below (the README says so), and methods other than GET are not judged.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseAllHeaders } from "@netlify/headers-parser";
import { parseAllRedirects } from "@netlify/redirect-parser";
import { parsePlain, type Matcher } from "netlify-redirector";
import { beforeAll, describe, expect, it } from "vitest";
import { catalogueNames, loadCatalogue } from "../src/build/loadCatalogue.js";
import { conformanceCases, CONFORMANCE_ROWS, expectedApi, type ExpectedApi } from "../src/check/conformance.js";
import { judge, type Failure } from "../src/check/runConformance.js";
import { isValidName } from "../src/catalogue/names.js";
import { renderApi } from "../src/render/renderApi.js";
import { NOT_FOUND_FILE, RESPONSE_HEADERS } from "../src/routes/routeTable.js";
import { UsageError } from "../src/util/errors.js";
import { MAX_NETLIFY_RULES, netlify, renderNetlifyRedirects } from "../src/targets/netlify.js";
import type { CatalogueNames } from "../src/targets/target.js";
import { copyFixture, tempDir } from "./helpers.js";

interface ParsedRedirect {
  from: string;
  query: Record<string, string>;
  to: string;
  status: number;
  force: boolean;
}

let names: CatalogueNames;
let api: ExpectedApi;
let dir: string;
beforeAll(async () => {
  const { catalogue } = await loadCatalogue(copyFixture("conformance"));
  names = catalogueNames(catalogue!);
  api = expectedApi(renderApi(catalogue!), catalogue!.packages);
  dir = tempDir();
  for (const file of netlify.deployFiles!(names)) writeFileSync(join(dir, file.path), file.content as string);
});

describe("_redirects, parsed by @netlify/redirect-parser", () => {
  let redirects: ParsedRedirect[];
  beforeAll(async () => {
    const parsed = await parseAllRedirects({
      redirectsFiles: [join(dir, "_redirects")],
      configRedirects: [],
      minimal: false,
    });
    expect(parsed.errors).toEqual([]);
    redirects = parsed.redirects as ParsedRedirect[];
  });

  it("has one explicit rule per host and package: 2 per package, 3 per host and 3 more", () => {
    let packages = 0;
    for (const list of names.packages.values()) packages += list.length;
    expect(redirects).toHaveLength(2 * packages + 3 * names.hosts.length + 3);
  });

  it("rewrites only to files of the build or to the 404, never to a path built from a placeholder", () => {
    for (const r of redirects) {
      expect(r.to).not.toMatch(/[:*]/);
      const file = r.to.slice(1);
      expect(api.files.has(file) || file === NOT_FOUND_FILE, r.to).toBe(true);
      expect([200, 404]).toContain(r.status);
      if (r.status === 200) expect(r.force, `${r.from} must win over a file`).toBe(true);
    }
  });

  it("conditions on the package parameter only with a valid name, or with any value for the 404", () => {
    for (const r of redirects.filter((r) => Object.keys(r.query).length > 0)) {
      expect(Object.keys(r.query)).toEqual(["package"]);
      if (r.query.package === ":value") expect(r).toMatchObject({ to: `/${NOT_FOUND_FILE}`, status: 404, force: true });
      else expect(isValidName(r.query.package)).toBe(true);
    }
  });
});

describe("the number of rules", () => {
  const oneHost = (count: number): CatalogueNames => ({
    hosts: ["h"],
    packages: new Map([["h", Array.from({ length: count }, (_, i) => `p${i}`)]]),
  });

  it("stays within the 10,000 from which Netlify asks for placeholders, or the target refuses with a usage error", () => {
    expect(
      renderNetlifyRedirects(oneHost(4997))
        .split("\n")
        .filter((l) => l !== "" && !l.startsWith("#")),
    ).toHaveLength(MAX_NETLIFY_RULES);
    expect(() => renderNetlifyRedirects(oneHost(4998))).toThrow(UsageError);
    expect(() => renderNetlifyRedirects(oneHost(4998))).toThrow(/10002 Netlify rules .* cloudflare or cloudfront/);
  });
});

describe("_headers, parsed by @netlify/headers-parser", () => {
  it("sets the API's headers on every path", async () => {
    const { headers, errors } = await parseAllHeaders({
      headersFiles: [join(dir, "_headers")],
      configHeaders: [],
      minimal: false,
    });
    expect(errors).toEqual([]);
    expect(headers).toEqual([{ for: "/*", forRegExp: expect.any(RegExp), values: RESPONSE_HEADERS }]);
  });
});

describe("the rules, matched by Netlify's redirect engine (netlify-redirector)", () => {
  let matcher: Matcher;
  let headerRules: { forRegExp: RegExp; values: Record<string, string> }[];
  beforeAll(async () => {
    matcher = await parsePlain(renderNetlifyRedirects(names), {});
    headerRules = (await parseAllHeaders({ headersFiles: [join(dir, "_headers")], configHeaders: [], minimal: false }))
      .headers as typeof headerRules;
  });

  /** What Netlify answers, with the engine's match served from the build and the parsed _headers applied. */
  function respond(target: string) {
    const url = new URL(target, "http://site.example");
    // As `netlify dev` fed the engine: the parsed URL's path, decoded (left as it is when it does not decode).
    let path = url.pathname;
    try {
      path = decodeURIComponent(path);
    } catch {
      // %zz and the like: matched as sent.
    }
    const match = matcher.match({
      scheme: "http",
      host: url.hostname,
      path,
      query: url.search.slice(1),
      getHeader: () => "",
      getCookie: () => "",
    });
    const file = match ? match.to.slice(1) : path.slice(1);
    const body = api.files.get(file);
    const status = body === undefined ? 404 : (match?.status ?? 200);
    const headers: Record<string, string> = {};
    for (const rule of headerRules)
      if (rule.forRegExp.test(url.pathname))
        for (const [k, v] of Object.entries(rule.values)) headers[k.toLowerCase()] = v;
    return { status, headers, body: Buffer.from(body ?? "", "latin1") };
  }

  function failures(): Failure[] {
    const anyFile = new Set(api.files.values());
    return conformanceCases(api)
      .filter((c) => c.method === "GET")
      .flatMap((c) => judge(c, respond(c.target), api, anyFile));
  }

  it("answers every GET of the conformance suite right, except what the target declares it cannot", () => {
    const declared = Object.keys(netlify.cannot);
    expect(failures().filter((f) => !declared.includes(f.row))).toEqual([]);
    expect(Object.keys(CONFORMANCE_ROWS)).toEqual(expect.arrayContaining(declared));
  });

  it("fails exactly where the target says it cannot: a repeated package and ?package with no value", () => {
    expect(failures().map((f) => `${f.row} ${f.target}`)).toEqual([
      "not-found /v2/primary/packages?package=240pTest&package=240pTest",
      "not-found /v2/primary/packages?package",
      "not-found /v2/themes/packages?package=dark-blue&package=dark-blue",
      "not-found /v2/themes/packages?package",
      "not-found /v2/mirror.eu/packages?package=404.json&package=404.json",
      "not-found /v2/mirror.eu/packages?package",
    ]);
  });

  it("rewrites a hostile package value to the 404, never into a path", () => {
    for (const query of [
      "package=../../hosts",
      "package=..%2F..%2Fhosts",
      "package=%2e%2e",
      "package=",
      "package=snake%2F..%2F..%2Fhosts",
    ]) {
      expect(
        matcher.match({
          scheme: "http",
          host: "h",
          path: "/v2/primary/packages",
          query,
          getHeader: () => "",
          getCookie: () => "",
        }),
      ).toMatchObject({ to: `/${NOT_FOUND_FILE}`, status: 404 });
    }
  });
});
