// Netlify's `_redirects` and `_headers`, checked three ways with Netlify's own published code:
// parsed with @netlify/redirect-parser and @netlify/headers-parser (what Netlify's build uses), and
// matched with netlify-redirector, Netlify's redirect engine built to WebAssembly (what `netlify dev`
// runs). What no package here can run is Netlify's CDN itself: serving the matched file (or the file
// at the path, before a rule that is not forced) and applying the headers are emulated below
// (docs/hosting.md says so), and methods other than GET are not judged. The CDN types what `_headers`
// does not by the served file's extension (NETLIFY_TYPES), as it serves a site.
// How the CDN hands a request's path to the engine is not published either: the docs ask for special
// characters in a rule's path to be URL-encoded, and a path written another way (a raw `(`, lowercase
// hex) is served the same when deployed (netlify/cli#2990). The model gives the engine each segment
// decoded and re-encoded in the one form the rules use; a raw `/` stays a separator. Query values
// go to the engine as sent: it decodes them itself.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseAllHeaders } from "@netlify/headers-parser";
import { parseAllRedirects } from "@netlify/redirect-parser";
import { parsePlain, type Matcher } from "netlify-redirector";
import { beforeAll, describe, expect, it } from "vitest";
import { loadCatalogueNames } from "../../src/load/loadCatalogue.js";
import { conformanceCases, type ExpectedApi } from "../../src/check/conformance.js";
import { CONFORMANCE_ROWS } from "../../src/routes/conformanceRows.js";
import { judge, type Failure } from "../../src/check/runConformance.js";
import { isValidName } from "../../src/catalogue/names.js";
import { coderKey, utf8Bytes } from "../../src/routes/filterValue.js";
import { NOT_FOUND_FILE, SITE } from "../../src/routes/routeTable.js";
import { UsageError } from "../../src/util/errors.js";
import { MAX_NETLIFY_RULES, netlify, renderNetlifyRedirects } from "../../src/targets/netlify.js";
import { headerRules } from "../../src/targets/shared/headersFile.js";
import type { CatalogueNames } from "../../src/render/catalogueNames.js";
import { copyFixture, tempDir } from "../support/helpers.js";
import { fixtureApi, siteRequests } from "../support/site.js";

/** The types Netlify gives the site's extensions where `_headers` sets none (its .js type is the name before RFC 9239). */
const NETLIFY_TYPES: Record<string, string> = {
  html: "text/html; charset=UTF-8",
  css: "text/css; charset=UTF-8",
  js: "application/javascript; charset=UTF-8",
  json: "application/json",
  svg: "image/svg+xml",
};

/**
 * A path segment as the model hands it to the engine: decoded, then every character but letters,
 * digits and `-._~` encoded (left as it is when it does not decode, as %zz).
 */
function canonicalSegment(segment: string): string {
  let decoded: string;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    return segment;
  }
  return encodeURIComponent(decoded).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

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
  names = (await loadCatalogueNames(copyFixture("conformance"))).names!;
  api = await fixtureApi({ copies: true });
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

  it("has one explicit rule per host, package, category, coder and pair in each form, and a catch-all per filter", () => {
    const count = (map: ReadonlyMap<string, readonly unknown[]>) => [...map.values()].reduce((n, l) => n + l.length, 0);
    const itself = (coder: string) => encodeURIComponent(coder) === coder;
    const coders = [...names.coders.values()].flat();
    const pairs = [...names.categories.values()].flatMap((m) => [...m.values()].flat());
    const categories = [...names.categories.values()].reduce((n, m) => n + m.size, 0);
    expect(redirects).toHaveLength(
      2 * count(names.packages) +
        2 * categories +
        coders.length +
        coders.filter(itself).length +
        pairs.length +
        pairs.filter(itself).length +
        10 * names.hosts.length +
        4,
    );
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

  it("conditions on a query parameter only with a valid name, a coder that is its own encoding, or any value for a catch-all", () => {
    for (const r of redirects.filter((r) => Object.keys(r.query).length > 0)) {
      for (const [key, value] of Object.entries(r.query)) {
        expect(["query", "category", "coder", "package"]).toContain(key);
        if (value.startsWith(":")) expect(value).toBe(`:${key === "package" ? "name" : key}`);
        else if (key === "coder") expect(encodeURIComponent(value)).toBe(value);
        else expect(isValidName(value)).toBe(true);
      }
      if (Object.values(r.query).every((v) => v.startsWith(":")))
        expect(r.to).toMatch(r.query.query || r.query.package ? `/${NOT_FOUND_FILE}` : /^\/v1\/[^/]+\/empty$/);
    }
  });

  it("writes every path segment fully encoded, so one form names each coder and no `*` is a splat", () => {
    for (const r of redirects.filter((r) => r.from !== "/*"))
      for (const segment of r.from.split("/").slice(1))
        if (!segment.startsWith(":")) expect(segment).toBe(canonicalSegment(segment));
  });
});

describe("the number of rules", () => {
  /** One host whose packages have `count` names and coders and one category, each coder's own. */
  const oneHost = (count: number, coder = (i: number) => `Coder ${i}`): CatalogueNames => {
    const coders = Array.from({ length: count }, (_, i) => coder(i)).sort();
    return {
      hosts: ["h"],
      packages: new Map([["h", Array.from({ length: count }, (_, i) => `p${i}`)]]),
      coders: new Map([["h", coders]]),
      categories: new Map([["h", new Map([["games", coders]])]]),
    };
  };
  const ruleCount = (names: CatalogueNames) =>
    renderNetlifyRedirects(names)
      .split("\n")
      .filter((l) => l !== "" && !l.startsWith("#")).length;

  it("stays within the 10,000 from which Netlify asks for placeholders, or the target refuses with a usage error", () => {
    // 2 per package, 1 per coder and 1 per pair (coders with a space), 2 for the category, 10 for the host, 4 more.
    expect(ruleCount(oneHost(2496))).toBe(MAX_NETLIFY_RULES);
    expect(() => renderNetlifyRedirects(oneHost(2497))).toThrow(UsageError);
    expect(() => renderNetlifyRedirects(oneHost(2497))).toThrow(/10004 Netlify rules .* cloudflare or cloudfront/);
  });

  it("costs 2 rules more per coder and pair where a coder is its own encoding (a query condition can name it)", () => {
    expect(ruleCount(oneHost(1000, (i) => `coder${i}`)) - ruleCount(oneHost(1000))).toBe(2000);
    expect(ruleCount(oneHost(1000))).toBe(4016);
  });
});

describe("_headers, parsed by @netlify/headers-parser", () => {
  it("sets CORS and nosniff on every path, the API's type on the API's paths, and the scripts' type", async () => {
    const { headers, errors } = await parseAllHeaders({
      headersFiles: [join(dir, "_headers")],
      configHeaders: [],
      minimal: false,
    });
    expect(errors).toEqual([]);
    expect(headers).toEqual(
      headerRules().map((rule) => ({ for: rule.path, forRegExp: expect.any(RegExp), values: rule.headers })),
    );
    // No two rules set one header for one path (Pages, which reads the same file, would join them).
    const rules = headers as { forRegExp: RegExp; values: Record<string, string> }[];
    for (const path of [
      "/",
      "/v1/hosts",
      "/v2/primary/packages/",
      "/404.json",
      "/assets/search.js",
      "/browse/p/",
      // Today's API and the package files share their first segments (api, hosts).
      "/api/v4/information",
      "/hosts/themes/api/v3/contents/",
      "/api/contents/snake/icon.png",
      "/api/v4/contents/snake/snake.zip",
      "/hbb/snake/snake.zip",
      "/hosts/themes/hbb/snake.png",
      "/hosts/themes/unzipped_apps/snake/apps/snake/meta.xml",
    ]) {
      const names = rules.filter((r) => r.forRegExp.test(path)).flatMap((r) => Object.keys(r.values));
      expect(names, path).toEqual([...new Set(names)]);
    }
  });
});

describe("the rules, matched by Netlify's redirect engine (netlify-redirector)", () => {
  let matcher: Matcher;
  let parsedHeaders: { forRegExp: RegExp; values: Record<string, string> }[];
  beforeAll(async () => {
    matcher = await parsePlain(renderNetlifyRedirects(names), {});
    parsedHeaders = (
      await parseAllHeaders({ headersFiles: [join(dir, "_headers")], configHeaders: [], minimal: false })
    ).headers as typeof parsedHeaders;
  });

  /** The file at a path as Netlify finds it: a folder's index page for a path ending in `/`. */
  function fileAt(path: string): string | undefined {
    try {
      const file = decodeURIComponent(path.slice(1));
      return file === "" || file.endsWith("/") ? `${file}${SITE.index}` : file;
    } catch {
      return undefined;
    }
  }

  /**
   * What Netlify answers: the engine's match served from the build, unless the match is not forced
   * and a file is at the path; the parsed _headers applied, and the served file's type where they set none.
   */
  function respond(target: string) {
    const url = new URL(target, "http://site.example");
    const path = url.pathname.split("/").map(canonicalSegment).join("/");
    const match = matcher.match({
      scheme: "http",
      host: url.hostname,
      path,
      query: url.search.slice(1),
      getHeader: () => "",
      getCookie: () => "",
    });
    const own = fileAt(path);
    const rule = match && (match.force || own === undefined || !api.files.has(own)) ? match : null;
    const file = rule ? rule.to.slice(1) : own;
    const body = file === undefined ? undefined : api.files.get(file);
    const status = body === undefined ? 404 : (rule?.status ?? 200);
    const headers: Record<string, string> = {};
    for (const parsed of parsedHeaders)
      if (parsed.forRegExp.test(url.pathname))
        for (const [k, v] of Object.entries(parsed.values)) headers[k.toLowerCase()] = v;
    const type = body === undefined ? undefined : NETLIFY_TYPES[file!.slice(file!.lastIndexOf(".") + 1)];
    if (headers["content-type"] === undefined && type !== undefined) headers["content-type"] = type;
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

  it("serves `/` and every file of the site at its URL, with its type", () => {
    for (const { target, file, type } of siteRequests(api)) {
      const res = respond(target);
      expect({ target, status: res.status, body: res.body.toString("latin1") }).toEqual({
        target,
        status: 200,
        body: api.files.get(file),
      });
      expect(res.headers["content-type"]!.split(";")[0], target).toBe(type);
    }
  });

  it("fails exactly where the target says it cannot, and only so", () => {
    const all = failures();
    expect([...new Set(all.map((f) => f.row))].sort()).toEqual(Object.keys(netlify.cannot).sort());
    const value = (f: Failure, key: string) => new URL(f.target, "http://h").searchParams.get(key) ?? "";
    for (const f of all) {
      const line = `${f.row} ${f.target}: ${f.reason}`;
      if (f.row === "v2-query") expect(f.reason, line).toMatch(/^status 404,/);
      // A coder that a query condition cannot name, or an empty value that counts as sent.
      if (f.row === "v2-coder" || f.row === "trailing-slash")
        expect(encodeURIComponent(value(f, "coder")), line).not.toBe(value(f, "coder"));
      if (f.row === "v2-category-coder" || f.row === "v2-packages") {
        const coder = value(f, "coder");
        expect(coder === "" || encodeURIComponent(coder) !== coder, line).toBe(true);
      }
    }
    expect(all.filter((f) => f.row === "not-found").map((f) => f.target)).toEqual([
      // A repeated parameter answers its last value; a parameter with no = is absent.
      "/v2/primary/packages?package=240pTest&package=240pTest",
      "/v2/primary/packages?package",
      "/v2/themes/packages?package=dark-blue&package=dark-blue",
      "/v2/themes/packages?package",
      "/v2/mirror.eu/packages?package=404.json&package=404.json",
      "/v2/mirror.eu/packages?package",
      // The host with no packages has no name to repeat.
      "/v2/empty/packages?package",
      "/v2/primary/packages?coder=nobody&coder=nobody",
      "/v2/primary/packages?category=games&category=games",
      "/v2/themes/packages?coder=nobody&coder=nobody",
      "/v2/themes/packages?category=games&category=games",
      "/v2/mirror.eu/packages?coder=nobody&coder=nobody",
      "/v2/mirror.eu/packages?category=games&category=games",
      "/v2/empty/packages?coder=nobody&coder=nobody",
      "/v2/empty/packages?category=games&category=games",
    ]);
  });

  it("serves today's API at its files' paths with no rule, and the default host's URLs under /hosts/ as the 404", () => {
    const today = [...api.files.keys()].filter((file) => /^(?:hosts\/[^/]+\/)?api\/v[34]\/[^/]+$/.test(file));
    expect(today).toContain("api/v4/information");
    for (const file of today) {
      expect(renderNetlifyRedirects(names), file).not.toContain(`/${file}  `);
      expect(respond(`/${file}`), file).toMatchObject({
        status: 200,
        body: Buffer.from(api.files.get(file)!, "latin1"),
      });
      expect(respond(`/${file}`).headers["content-type"], file).toBe("application/json");
      // With a trailing slash it names no file, and no rule serves it (netlify.ts says so).
      expect(respond(`/${file}/`).status, file).toBe(404);
    }
    // The default host's files stand at the root (the fixture's default is primary): its folder under /hosts/ has none.
    const notFound = { status: 404, body: Buffer.from(api.files.get(NOT_FOUND_FILE)!, "latin1") };
    for (const file of today.filter((f) => f.startsWith("api/")))
      expect(respond(`/hosts/primary/${file}`), file).toMatchObject(notFound);
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

describe("hostile coders", () => {
  const HOSTILE = [
    'Aaron "AerialX"',
    "back\\slash",
    "#1 hash",
    "two  spaces",
    ":value",
    "x=:coder",
    "*",
    "a*b",
    "!bang'(x)",
    "100% Wii; {x} #1 = ?a=b",
    "A.D.Price/D.Ashley",
    "Jānis",
    "..",
    "plain-(ok)",
  ];
  const hostile: CatalogueNames = {
    hosts: ["h"],
    packages: new Map([["h", ["p"]]]),
    coders: new Map([["h", [...HOSTILE].sort()]]),
    categories: new Map([["h", new Map([["games", [...HOSTILE].sort()]])]]),
  };
  const text = renderNetlifyRedirects(hostile);

  it("keep every rule line's fields: from, the query conditions, to, status", async () => {
    const lines = text.split("\n").filter((l) => l !== "" && !l.startsWith("#"));
    for (const line of lines) {
      const fields = line.split(/\s+/);
      expect(fields[0], line).toMatch(/^\//);
      expect(fields.at(-1), line).toMatch(/^(200!|404!?)$/);
      expect(fields.at(-2), line).toMatch(/^\/[^:*]*$/);
      for (const condition of fields.slice(1, -2))
        expect(condition, line).toMatch(/^(category|coder|package|query)=[^=#]+$/);
    }
    const parsedDir = tempDir();
    writeFileSync(join(parsedDir, "_redirects"), text);
    const parsed = await parseAllRedirects({
      redirectsFiles: [join(parsedDir, "_redirects")],
      configRedirects: [],
      minimal: false,
    });
    expect(parsed.errors).toEqual([]);
    expect(parsed.redirects).toHaveLength(lines.length);
  });

  it("never hold a coder raw where its encoding differs", () => {
    for (const coder of HOSTILE.filter((c) => encodeURIComponent(c) !== c)) expect(text).not.toContain(coder);
  });

  it("each do what they should: the coder's own lists in a path, in a query where a condition can name it, else []", async () => {
    const matcher = await parsePlain(text, {});
    const match = (target: string) => {
      const url = new URL(target, "http://h");
      return matcher.match({
        scheme: "http",
        host: "h",
        // As sent: a URL parser would resolve a coder `..` away.
        path: target.split("?")[0]!.split("/").map(canonicalSegment).join("/"),
        query: url.search.slice(1),
        getHeader: () => "",
        getCookie: () => "",
      })?.to;
    };
    for (const coder of HOSTILE) {
      const key = coderKey(utf8Bytes(coder));
      const full = encodeURIComponent(coder);
      expect(match(`/v1/h/coder/${full}/packages`), coder).toBe(`/v1/h/coder/${key}/packages`);
      expect(match(`/v1/h/category/games/coder/${full}/packages/`), coder).toBe(
        `/v1/h/category/games/coder/${key}/packages`,
      );
      const byQuery = encodeURIComponent(coder) === coder ? `/v1/h/coder/${key}/packages` : "/v1/h/empty";
      expect(match(`/v2/h/packages?coder=${full}`), coder).toBe(byQuery);
    }
  });
});
