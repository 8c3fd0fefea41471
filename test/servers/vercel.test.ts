// vercel.json, checked with Vercel's own published code: validated against @vercel/routing-utils'
// schemas for rewrites and headers, and compiled by its getTransformedRoutes into the routes Vercel
// deploys (regular expressions, has/missing conditions, the filesystem phase). Vercel's proxy, which
// matches those routes, is not published: the last block applies the compiled routes the way
// Vercel's docs describe (files first, then rewrites in order, has/missing on the query, a rewrite's
// destination must be a file), and docs/hosting.md says that this matching is emulated, not Vercel's.
// Sources match the path as sent, as `vercel dev` matches them (url.parse keeps the encoding); `has`
// and `missing` follow Next.js's matchHas: the query value decoded, the last of a repeated key, an
// empty value as absent, and a value regex anchored as `^value$`. The filesystem serves a folder's
// index.html at the folder's URL, and types what no header types by the served file's extension
// (VERCEL_TYPES; a miss is 404.html). The browse site the build writes is among the files.
import {
  getTransformedRoutes,
  headersSchema,
  rewritesSchema,
  type GetRoutesProps,
  type HasField,
  type Route,
} from "@vercel/routing-utils";
import { Ajv } from "ajv";
import { beforeAll, describe, expect, it } from "vitest";
import { loadCatalogueNames } from "../../src/load/loadCatalogue.js";
import { conformanceCases, type ExpectedApi } from "../../src/check/conformance.js";
import { judge } from "../../src/check/runConformance.js";
import { renderNotFound } from "../../src/render/renderApi.js";
import { coderKey, utf8Bytes } from "../../src/routes/filterValue.js";
import { RESPONSE_HEADERS, SHORT_CACHE_HEADERS, SITE, SITE_TYPES } from "../../src/routes/routeTable.js";
import { renderVercelConfig, vercel } from "../../src/targets/vercel.js";
import { copyFixture } from "../support/helpers.js";
import { fixtureApi, siteRequests } from "../support/site.js";

/** The types Vercel gives the site's extensions where no header sets one (its .js type is the name before RFC 9239). */
const VERCEL_TYPES: Record<string, string> = {
  html: "text/html; charset=utf-8",
  css: "text/css; charset=utf-8",
  js: "application/javascript; charset=utf-8",
  json: "application/json; charset=utf-8",
  svg: "image/svg+xml",
};

type Config = Required<Pick<GetRoutesProps, "rewrites" | "headers">>;
const names = (await loadCatalogueNames(copyFixture("conformance"))).names!;
const config = JSON.parse(renderVercelConfig(names)) as Config;

describe("vercel.json, by @vercel/routing-utils", () => {
  it("is valid against Vercel's schemas for rewrites and headers", () => {
    const ajv = new Ajv({ allErrors: true, strict: false });
    for (const [schema, value] of [
      [rewritesSchema, config.rewrites],
      [headersSchema, config.headers],
    ] as const) {
      const validate = ajv.compile(schema);
      expect(validate(value), JSON.stringify(validate.errors)).toBe(true);
    }
  });

  it("compiles into routes whose parameters and query value only match valid names", () => {
    const { routes, error } = getTransformedRoutes(config);
    expect(error).toBeNull();
    const v2 = routes!.find(
      (r): r is Route & { src: string; has: { value: string }[] } =>
        "has" in r && r.has?.[0]?.type === "query" && r.has[0].key === "package",
    )!;
    const src = new RegExp(v2.src);
    expect(["/v2/primary/packages", "/v2/primary/packages/", "/v2/mirror.eu/packages"].every((p) => src.test(p))).toBe(
      true,
    );
    expect(
      [
        "/v2/../packages",
        "/v2/a%2Fb/packages",
        "/v2//packages",
        "/v2/.x/packages",
        `/v2/${"x".repeat(65)}/packages`,
      ].some((p) => src.test(p)),
    ).toBe(false);
    const value = new RegExp(v2.has[0]!.value);
    expect(["snake", "chart.js", "240pTest", "_under"].every((v) => value.test(v))).toBe(true);
    expect(["", "..", "../x", "..%2Fx", "a/b", "x.", `${"x".repeat(65)}`].some((v) => value.test(v))).toBe(false);
  });
});

describe("the compiled routes, applied as Vercel's docs describe", () => {
  let api: ExpectedApi;
  let routes: Route[];
  beforeAll(async () => {
    api = await fixtureApi();
    routes = getTransformedRoutes(config).routes!;
  });

  function respond(target: string) {
    const url = new URL(target, "http://site.example");
    const path = target.split("?")[0]!;
    const query = [...url.searchParams];
    const headers: Record<string, string> = {};
    // The filesystem finds a file by its decoded path, a folder's index page for a path ending in
    // `/`; a rewrite's query string does not name a file.
    let file: string | undefined;
    const files = (p: string) => {
      try {
        file = decodeURIComponent(p.split("?")[0]!).slice(1);
      } catch {
        return undefined;
      }
      if (file === "" || file.endsWith("/")) file += SITE.index;
      return api.files.get(file);
    };
    let body: string | undefined;
    let filesystem = false;
    for (const route of routes) {
      if ("handle" in route) {
        filesystem = route.handle === "filesystem";
        body = files(path);
        if (body !== undefined) break;
        continue;
      }
      const match = new RegExp(route.src).exec(path);
      if (!match) continue;
      const groups: Record<string, string> = { ...match.groups };
      // As Next.js's matchHas, which Vercel's routing follows: the last of a repeated key counts, an
      // empty value is no value, and a value regex must match the whole value.
      const matchHas = (c: HasField[number], keep: boolean) => {
        const value = query.filter(([k]) => c.type === "query" && k === c.key).pop()?.[1];
        const hit = !value
          ? null
          : "value" in c && c.value !== undefined
            ? new RegExp(`^${c.value as string}$`).exec(value)
            : [value];
        if (keep) Object.assign(groups, hit && "groups" in hit ? hit.groups : {});
        return hit !== null;
      };
      const conditionsHold =
        (route.has ?? []).every((c) => matchHas(c, true)) && !(route.missing ?? []).some((c) => matchHas(c, false));
      if (!conditionsHold) continue;
      Object.assign(headers, route.headers);
      if (route.dest && filesystem) {
        const dest = route.dest.replace(/\$(\d+|[A-Za-z_]\w*)/g, (_, ref: string) =>
          /^\d+$/.test(ref) ? (match[Number(ref)] ?? "") : (groups[ref] ?? ""),
        );
        body = files(dest);
        break;
      }
    }
    const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
    const served = body === undefined ? "404.html" : file!;
    const type = lower["content-type"] ?? VERCEL_TYPES[served.slice(served.lastIndexOf(".") + 1)];
    if (type !== undefined) lower["content-type"] = type;
    return body === undefined
      ? { status: 404, headers: lower, body: Buffer.from(renderNotFound()) }
      : { status: 200, headers: lower, body: Buffer.from(body, "latin1") };
  }

  it("answers every GET of the conformance suite right, and fails only where the target declares it cannot", () => {
    const anyFile = new Set(api.files.values());
    const failures = conformanceCases(api)
      .filter((c) => c.method === "GET")
      .flatMap((c) => judge(c, respond(c.target), api, anyFile));
    expect(failures.filter((f) => !(f.row in vercel.cannot))).toEqual([]);
    for (const f of failures.filter((f) => f.row === "v2-query")) expect(f.reason).toMatch(/^status 404,/);
    const v2 = (host: string) => `/v2/${host}/packages`;
    const janis = "J%C4%81nis%20R%C5%ABcis";
    // A missing package file's 404 carries the type of the file it would be, and nothing else fails there.
    const packageFiles = failures.filter((f) => f.row === "package-files");
    expect(packageFiles.length).toBeGreaterThan(0);
    for (const f of packageFiles)
      expect(f.reason, f.target).toMatch(
        /^Content-Type is "(application\/zip|image\/png|application\/octet-stream|application\/xml)", expected application\/json$/,
      );
    // So does a missing file of the Homebrew Browser's surface.
    for (const f of failures.filter((f) => f.row === "hbb"))
      expect(f.reason, f.target).toMatch(
        /^Content-Type is "(text\/plain|application\/zip)", expected application\/json$/,
      );
    expect(
      failures
        .filter((f) => f.row !== "v2-query" && f.row !== "package-files" && f.row !== "hbb")
        .map((f) => `${f.row} ${f.target}`),
    ).toEqual([
      // A repeated parameter answers its last value, an empty one is absent.
      ...[
        ["primary", "240pTest"],
        ["themes", "dark-blue"],
        ["mirror.eu", "404.json"],
      ].flatMap(([host, name]) => [
        `not-found ${v2(host!)}?package=${name}&package=${name}`,
        `not-found ${v2(host!)}?package=`,
        `not-found ${v2(host!)}?package`,
      ]),
      // The host with no packages has no name to repeat.
      `not-found ${v2("empty")}?package=`,
      `not-found ${v2("empty")}?package`,
      // The one coder beyond ASCII, in each query form.
      `v2-coder ${v2("primary")}?coder=${janis}`,
      `v2-coder ${v2("primary")}?coder=${janis.replace("%20", "+")}`,
      `trailing-slash ${v2("primary")}/?coder=${janis}`,
      `v2-coder ${v2("primary")}?coder=${janis.replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase())}`,
      `v2-coder ${v2("primary")}?coder=${janis}`,
      `v2-category-coder ${v2("primary")}?category=emulators&coder=${janis}`,
      `v2-category-coder ${v2("primary")}?coder=${janis}&category=emulators`,
      ...["primary", "themes", "mirror.eu", "empty"].flatMap((host) => [
        `not-found ${v2(host)}?coder=nobody&coder=nobody`,
        `not-found ${v2(host)}?category=games&category=games`,
      ]),
      "not-found /404.json",
      // A site URL that names no file: 404.html, typed by its extension.
      ...SITE.folders.flatMap((folder) => [
        `site /${folder}/no-such-page-shopfront/`,
        ...Object.keys(SITE_TYPES)
          .filter((extension) => extension !== "json")
          .map((extension) => `site /${folder}/no-such-file-shopfront.${extension}`),
      ]),
    ]);
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
      expect(res.headers["access-control-allow-origin"], target).toBe("*");
    }
  });

  it("sets the API's headers and the short cache lifetime on every path", () => {
    expect(respond("/v1/hosts").headers).toEqual(
      Object.fromEntries(
        Object.entries({ ...RESPONSE_HEADERS, ...SHORT_CACHE_HEADERS }).map(([k, v]) => [k.toLowerCase(), v]),
      ),
    );
  });
});

describe("hostile coders", () => {
  const HOSTILE = [
    'Aaron "AerialX"',
    "back\\slash",
    "#1 hash",
    "two  spaces",
    ":value",
    "$1 and :coder",
    "*",
    "a*b",
    "!bang'(x)",
    "100% Wii; {x} #1 = ?a=b",
    "A.D.Price/D.Ashley",
    "(?<x>.)",
    "Jānis",
  ];
  const hostile = {
    hosts: ["h"],
    packages: new Map([["h", ["p"]]]),
    coders: new Map([["h", [...HOSTILE].sort()]]),
    categories: new Map([["h", new Map([["games", [...HOSTILE].sort()]])]]),
  };
  const text = renderVercelConfig(hostile);
  const parsed = JSON.parse(text) as Config;

  it("keep vercel.json valid JSON, valid against Vercel's schemas, with every pattern a regex", () => {
    const ajv = new Ajv({ allErrors: true, strict: false });
    const validate = ajv.compile(rewritesSchema);
    expect(validate(parsed.rewrites), JSON.stringify(validate.errors)).toBe(true);
    const { routes, error } = getTransformedRoutes(parsed);
    expect(error).toBeNull();
    for (const route of routes!) {
      if ("src" in route) expect(() => new RegExp(route.src as string)).not.toThrow();
      for (const c of ("has" in route ? route.has : undefined) ?? [])
        if ("value" in c && typeof c.value === "string")
          expect(() => new RegExp(`^${c.value as string}$`)).not.toThrow();
    }
  });

  it("never hold a coder raw where its encoding differs", () => {
    for (const coder of HOSTILE.filter((c) => encodeURIComponent(c) !== c)) {
      expect(text).not.toContain(coder);
      expect(text).not.toContain(JSON.stringify(coder).slice(1, -1));
    }
  });

  it("each do what they should: the coder's own lists in a path and, for ASCII coders, in a query; else []", () => {
    const routes = getTransformedRoutes(parsed).routes!.filter(
      (r): r is Route & { src: string; dest: string; has?: HasField } => "src" in r && "dest" in r,
    );
    const dest = (target: string) => {
      const url = new URL(target, "http://h");
      const path = target.split("?")[0]!;
      for (const route of routes) {
        const match = new RegExp(route.src).exec(path);
        const holds = (route.has ?? []).every((c) => {
          const value = c.type === "query" ? url.searchParams.getAll(c.key).pop() : undefined;
          return !!value && (!("value" in c) || new RegExp(`^${c.value as string}$`).test(value));
        });
        if (match && holds) return route.dest.replace(/\$(\d+)/g, (_, n: string) => match[Number(n)] ?? "");
      }
      return undefined;
    };
    for (const coder of HOSTILE) {
      const key = coderKey(utf8Bytes(coder));
      const full = encodeURIComponent(coder);
      expect(dest(`/v1/h/coder/${full}/packages`), coder).toBe(`/v1/h/coder/${key}/packages`);
      expect(dest(`/v1/h/category/games/coder/${full}/packages/`), coder).toBe(
        `/v1/h/category/games/coder/${key}/packages`,
      );
      const byQuery = /^[\x20-\x7e]+$/.test(coder) ? `/v1/h/coder/${key}/packages` : "/v1/h/empty";
      expect(dest(`/v2/h/packages?coder=${full}`), coder).toBe(byQuery);
    }
  });
});
