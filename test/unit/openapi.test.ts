// The OpenAPI document: valid OpenAPI 3.1 by a maintained validator, made from the route table (every
// route, parameter and trailing-slash form, and a route added to the table appears), and true: the
// responses of a real build, as files and as the preview server answers them, follow its schemas
// and headers.
import { cpSync } from "node:fs";
import { join } from "node:path";
import { Validator } from "@seriousme/openapi-schema-validator";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildCatalogue } from "../../src/engine/buildCatalogue.js";
import { fileRoutePath, openApiDocument, renderOpenApi } from "../../src/openapi/renderOpenApi.js";
import { paramOf, segmentsOf } from "../../src/routes/routeSyntax.js";
import {
  FILE_ROUTES,
  PACKAGE_FILE_TYPES,
  NOT_FOUND_FILE,
  OPENAPI_FILE,
  PREFLIGHT_HEADERS,
  RESPONSE_HEADERS,
  ROUTES,
  routeOfFile,
  routeById,
  urlFor,
  type Route,
  type RouteId,
} from "../../src/routes/routeTable.js";
import type { Param } from "../../src/routes/routeParams.js";
import { servePreview, type PreviewServer } from "../../src/serve/servePreview.js";
import { VERSION } from "../../src/util/version.js";
import { readTree, ROOT, tempDir } from "../support/helpers.js";

// The document is walked by keys that the test knows are there.
type Json = Record<string, any>;

const doc = openApiDocument() as Json;
const JSON_TYPE = RESPONSE_HEADERS["Content-Type"];
const METHODS = ["get", "head"] as const;

/** A JSON pointer into the document. */
const pointer = (...keys: string[]) => keys.map((k) => `/${k.replace(/~/g, "~0").replace(/\//g, "~1")}`).join("");

/** What a local `$ref` points at, followed until it is no reference. */
function deref(value: Json): Json {
  if (typeof value.$ref !== "string") return value;
  const keys = (value.$ref as string)
    .slice(2)
    .split("/")
    .map((k) => k.replace(/~1/g, "/").replace(/~0/g, "~"));
  return deref(keys.reduce<Json>((o, k) => o[k], doc));
}

/** The response the document declares for a path, method and status, its references followed. */
function declared(path: string, method: string, status: string): Json {
  const response = doc.paths[path]?.[method]?.responses?.[status] as Json | undefined;
  if (response === undefined) throw new Error(`no ${method} ${path} ${status} in the document`);
  return deref(response);
}

/** Where the document keeps the schema of a response (its pointer, for ajv to resolve in place). */
function schemaPointer(path: string, status: string): string {
  const response = doc.paths[path].get.responses[status] as Json;
  const base =
    typeof response.$ref === "string" ? response.$ref.slice(1) : pointer("paths", path, "get", "responses", status);
  return `${base}${pointer("content", JSON_TYPE, "schema")}`;
}

const ajv = new Ajv2020({ allErrors: true, strict: false });
ajv.addSchema(doc, OPENAPI_FILE);

/** A validator of the body the document declares for GET `path` with `status`. */
function bodyValidator(path: string, status: string) {
  const ref = `${OPENAPI_FILE}#${schemaPointer(path, status)
    .split("/")
    .map((k) => encodeURIComponent(k))
    .join("/")}`;
  return ajv.getSchema(ref) ?? ajv.compile({ $ref: ref });
}

function conforms(path: string, status: string, body: unknown): string {
  const validate = bodyValidator(path, status);
  return validate(body) ? "" : ajv.errorsText(validate.errors);
}

describe("the OpenAPI document", () => {
  it("is valid OpenAPI 3.1 by @seriousme/openapi-schema-validator, its references resolving inside it", async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc));
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    expect(doc.info.version).toBe(VERSION);
    // A relative server: the API can be deployed under any prefix.
    expect(doc.servers).toEqual([expect.objectContaining({ url: "." })]);
  });

  it("has every route of the table and its trailing-slash form, every package file's URL, and no other path", () => {
    const files = FILE_ROUTES.map((r) => fileRoutePath(r).path);
    const paths = [...new Set([...ROUTES.flatMap((r) => [r.path, `${r.path}/`]), ...files])].sort();
    expect(Object.keys(doc.paths).sort()).toEqual(paths);
    for (const path of paths)
      expect(Object.keys(doc.paths[path]).sort()).toEqual(["get", "head", "options", "parameters"]);
    expect(files).toContain("/api/v4/contents/{name}/{name2}.zip");
    expect(files).toContain("/hosts/{host}/hbb/{name}.png");
  });

  it.each(FILE_ROUTES.map((r) => [r.path, r] as const))(
    "describes the package file URL %s: binary body, its type",
    (_, route) => {
      const { path, params } = fileRoutePath(route);
      const item = doc.paths[path] as Json;
      expect(item.parameters.map((p: Json) => [p.name, p.in, p.required])).toEqual(
        params.map((p) => [p.template, "path", true]),
      );
      const ok = declared(path, "get", "200");
      expect(Object.keys(ok.content)).toEqual([PACKAGE_FILE_TYPES[route.kind]]);
      expect(Object.keys(ok.headers).sort()).toEqual([
        "Access-Control-Allow-Origin",
        "Cache-Control",
        "X-Content-Type-Options",
      ]);
      expect(declared(path, "head", "200").content).toBeUndefined();
      expect(deref(declared(path, "get", "404").content[JSON_TYPE].schema).title).toBe("Error body (response)");
    },
  );

  it.each(ROUTES.map((r) => [r.id, r] as const))(
    "describes route %s: parameters, 200 body, 404, headers",
    (_, route) => {
      for (const path of [route.path, `${route.path}/`]) {
        const item = doc.paths[path] as Json;
        const pathParams = segmentsOf(route.path).flatMap((s) => (paramOf(s) ? [paramOf(s)] : []));
        expect(item.parameters.map((p: Json) => [p.name, p.in, p.required])).toEqual(
          pathParams.map((p) => [p, "path", true]),
        );
        for (const method of METHODS) {
          const operation = item[method] as Json;
          const query = (operation.parameters ?? []) as Json[];
          for (const q of route.query ?? [])
            expect(query.find((p) => p.name === q.key)).toMatchObject({ in: "query", required: false });
          if (route.search) expect(operation.description).toMatch(/Only hosts that run code/);
          for (const status of ["200", "404"]) {
            const response = declared(path, method, status);
            expect(Object.keys(response.headers).sort()).toEqual(
              Object.keys(RESPONSE_HEADERS)
                .filter((h) => h !== "Content-Type")
                .sort(),
            );
            if (method === "get") expect(Object.keys(response.content)).toEqual([JSON_TYPE]);
            else expect(response.content).toBeUndefined();
          }
        }
        const schema = doc.paths[path].get.responses["200"].content[JSON_TYPE].schema as Json;
        expect([schema, ...(schema.oneOf ?? [])].map((s: Json) => s.$ref)).toContain(
          `#/components/schemas/${route.schema.charAt(0).toUpperCase()}${route.schema.slice(1)}`,
        );
        expect(deref(declared(path, "get", "404").content[JSON_TYPE].schema).title).toBe("Error body (response)");
        expect(Object.keys(declared(path, "options", "204").headers).sort()).toEqual(
          [
            ...Object.keys(RESPONSE_HEADERS).filter((h) => h !== "Content-Type"),
            ...Object.keys(PREFLIGHT_HEADERS),
          ].sort(),
        );
      }
    },
  );

  it("gives every operation its own operationId", () => {
    const ids = Object.values(doc.paths).flatMap((item) =>
      ["get", "head", "options"].map((m) => (item as Json)[m].operationId as string),
    );
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("lists the v2 query forms in the order a request is matched, search first", () => {
    const operation = doc.paths["/v2/{host}/packages"].get as Json;
    expect(operation.parameters.map((p: Json) => p.name)).toEqual(["query", "category", "coder", "package"]);
    const forms = [...(operation.description as string).matchAll(/^\d+\. `\?([^`]*)`/gm)].map((m) => m[1]);
    expect(forms).toEqual([
      "query=<query>",
      "category=<category>&coder=<coder>",
      "coder=<coder>",
      "category=<category>",
      "package=<name>",
    ]);
  });

  it("follows a route added to the table with no change to the generator", () => {
    const added: Route = {
      ...routeById("package"),
      id: "v3-app" as RouteId,
      path: "/v3/{host}/app/{name}",
      query: [{ key: "coder", param: "coder" }],
    };
    const extended = openApiDocument([...ROUTES, added]) as Json;
    for (const path of ["/v3/{host}/app/{name}", "/v3/{host}/app/{name}/"]) {
      expect(extended.paths[path].parameters.map((p: Json) => p.name)).toEqual(["host", "name"]);
      expect(extended.paths[path].get.parameters.map((p: Json) => p.name)).toEqual(["coder"]);
    }
    expect(extended.tags.map((t: Json) => t.name)).toContain("v3");
  });
});

describe("the bundled catalogue's build against the document", () => {
  let dist: string;
  let tree: Map<string, Buffer>;
  let server: PreviewServer;
  beforeAll(async () => {
    const catalogueDir = join(tempDir(), "catalogue");
    cpSync(join(ROOT, "catalogue"), catalogueDir, { recursive: true });
    dist = join(tempDir(), "dist");
    await buildCatalogue({ catalogueDir, outDir: dist });
    tree = readTree(dist);
    server = await servePreview({ dir: dist, host: "127.0.0.1", port: 0 });
  });
  afterAll(() => server?.close());

  it(`holds ${OPENAPI_FILE} with the generator's bytes`, () => {
    expect(tree.get(OPENAPI_FILE)?.toString("latin1")).toBe(renderOpenApi());
  });

  it("has every response file follow the schema the document declares for its route", () => {
    const checked = new Set<string>();
    for (const [file, bytes] of tree) {
      const id = routeOfFile(file);
      const [path, status] = file === NOT_FOUND_FILE ? ["/v1/hosts", "404"] : id ? [routeById(id).path, "200"] : [];
      if (path === undefined || status === undefined) continue;
      expect(conforms(path, status, JSON.parse(bytes.toString("latin1"))), file).toBe("");
      checked.add(id ?? file);
    }
    // Today's routes (v3, v4) too: the default host's and, under /hosts/<host>/, themes'.
    const today = ["v4", "v3"].flatMap((v) =>
      ["information", "contents", "featured-app"].flatMap((e) => [`${v}-${e}`, `hosts-${v}-${e}`]),
    );
    expect([...checked].sort()).toEqual(
      [NOT_FOUND_FILE, "category", "category-coder", "coder", "hosts", "package", "packages", ...today].sort(),
    );
  });

  it("declares schemas that reject a wrong body", () => {
    const pkg = JSON.parse(
      tree.get(`v1/${sampleParams().host}/package/${sampleParams().name}`)!.toString("latin1"),
    ) as Json;
    expect(conforms("/v1/{host}/package/{name}", "200", pkg)).toBe("");
    expect(conforms("/v1/{host}/package/{name}", "200", { ...pkg, zip_size: "1024" })).toMatch(/zip_size/);
    expect(conforms("/v1/{host}/package/{name}", "200", { ...pkg, extra: 1 })).toMatch(/additional/);
    expect(conforms("/v1/{host}/packages", "200", pkg)).toMatch(/array/);
    expect(conforms("/v2/{host}/packages", "200", [{ ...pkg, internal_name: "con" }])).not.toBe("");
    expect(conforms("/v1/hosts", "200", { repos: ["primary"] })).toMatch(/repositories/);
    expect(conforms("/v1/hosts", "404", { error: "gone", message: "" })).not.toBe("");
  });

  /** Real values for each parameter: a package of the first host whose coder needs encoding, if one does. */
  function sampleParams(): Record<Param, string> {
    const host = (JSON.parse(tree.get("v1/hosts")!.toString("latin1")) as { repos: string[] }).repos[0]!;
    const packages = JSON.parse(tree.get(`v1/${host}/packages`)!.toString("latin1")) as Json[];
    const pkg = packages.find((p) => encodeURIComponent(p.coder) !== p.coder) ?? packages[0]!;
    return {
      host,
      name: pkg.internal_name,
      category: pkg.category,
      coder: pkg.coder,
      query: pkg.internal_name.slice(1, 3),
    };
  }

  const withSlash = (url: string) => url.replace(/(\?|$)/, "/$1");

  it.each(ROUTES.map((r) => [r.id, r] as const))(
    "answers route %s, both forms, GET, HEAD and OPTIONS, as the document says",
    async (_, route) => {
      // A route under /hosts/<host>/ answers for a host other than the default: the first that has files there.
      const other = (JSON.parse(tree.get("v1/hosts")!.toString("latin1")) as { repos: string[] }).repos.find((h) =>
        tree.has(`hosts/${h}/api/v4/contents`),
      )!;
      const params = route.path.startsWith("/hosts/") ? { ...sampleParams(), host: other } : sampleParams();
      for (const [path, url] of [
        [route.path, urlFor(route.id, params)],
        [`${route.path}/`, withSlash(urlFor(route.id, params))],
      ] as const) {
        for (const method of ["GET", "HEAD"]) {
          const res = await fetch(`${server.url}${url}`, { method });
          expect(res.status, `${method} ${url}`).toBe(200);
          expect(res.headers.get("content-type")).toBe(JSON_TYPE);
          for (const [name, header] of Object.entries(declared(path, method.toLowerCase(), "200").headers))
            expect(res.headers.get(name), name).toBe(deref(header as Json).schema.const);
          const body = await res.text();
          if (method === "GET") expect(conforms(path, "200", JSON.parse(body)), url).toBe("");
          else expect(body).toBe("");
        }
        const preflight = await fetch(`${server.url}${url}`, { method: "OPTIONS" });
        expect(preflight.status).toBe(204);
        for (const [name, header] of Object.entries(declared(path, "options", "204").headers))
          expect(preflight.headers.get(name), name).toBe(deref(header as Json).schema.const);
      }
    },
  );

  it("answers an unknown host, and a filter value no package has, as the document says", async () => {
    const params = { ...sampleParams(), coder: "Nobody / at all", category: "no-such-category" };
    for (const route of ROUTES.filter((r) => r.fallback && !r.search)) {
      const res = await fetch(`${server.url}${urlFor(route.id, params)}`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual([]);
    }
    for (const route of ROUTES.filter((r) => segmentsOf(r.path).includes("{host}"))) {
      const url = urlFor(route.id, { ...sampleParams(), host: "no-such-host" });
      const res = await fetch(`${server.url}${url}`);
      expect(res.status, url).toBe(404);
      for (const [name, header] of Object.entries(declared(route.path, "get", "404").headers))
        expect(res.headers.get(name), name).toBe(deref(header as Json).schema.const);
      expect(conforms(route.path, "404", await res.json()), url).toBe("");
    }
  });
});
