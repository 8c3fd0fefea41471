// Over 300 lines: one document written from the route table, each section beside the part it describes.
// The OpenAPI 3.1 document of the API, pure: every path of the route table and its trailing-slash
// form, each parameter by its kind, the headers, and the response schemas of schemas/ embedded as
// component schemas (3.1 reads JSON Schema 2020-12, so they carry over; only their $refs between
// files become references inside the document). A route added to the table appears here without
// a change to this module.
import { readSchema, SCHEMA_FILES, type SchemaName, type SchemaObject } from "../catalogue/schemas.js";
import { escapeNonAscii } from "../util/asciiJson.js";
import { paramOf, segmentsOf } from "../routes/routeSyntax.js";
import {
  ALLOWED_METHODS,
  describeRoute,
  FILE_ROUTES,
  NOT_FOUND_FILE,
  PACKAGE_FILE_HEADERS,
  PACKAGE_FILE_MAX_AGE,
  PACKAGE_FILE_TYPES,
  PREFLIGHT_HEADERS,
  RESPONSE_HEADERS,
  ROUTES,
  type FileRoute,
  type Route,
} from "../routes/routeTable.js";
import { PARAM_KINDS, type Param } from "../routes/routeParams.js";
import { HBB_ROUTES } from "../routes/hbbRoutes.js";
import { VERSION } from "../util/version.js";
import { compareCodePoints } from "../util/codePoints.js";

type JsonObject = Record<string, unknown>;

export const OPENAPI_VERSION = "3.1.0";

/** The tag of the trailing-slash forms, so that a client generator can keep them apart. */
export const TRAILING_SLASH_TAG = "trailing slash";

/** Where the name rule lives (see catalogue/names.ts), as a reference between schema files. */
const NAME_RULE_REF = `${SCHEMA_FILES.manifest}#/$defs/name`;

const CONTENT_TYPE = RESPONSE_HEADERS["Content-Type"];

const SCHEMA_OF_FILE = new Map<string, SchemaName>(
  Object.entries(SCHEMA_FILES).map(([name, file]) => [file, name as SchemaName]),
);

/** A schema's name in the document's components: `hostsFile` is `HostsFile`. */
export function componentName(schema: SchemaName): string {
  return schema.charAt(0).toUpperCase() + schema.slice(1);
}

function schemaRef(schema: SchemaName): { $ref: string } {
  return { $ref: `#/components/schemas/${componentName(schema)}` };
}

/**
 * `value` with each `$ref` between schema files (`manifest.schema.json#/$defs/name`, or `#/...`
 * inside `self`) turned into one inside the document; each schema referred to is added to `found`.
 */
function rebaseRefs(value: unknown, self: SchemaName | undefined, found: Set<SchemaName>): unknown {
  if (Array.isArray(value)) return value.map((item) => rebaseRefs(item, self, found));
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => {
      if (key !== "$ref" || typeof item !== "string") return [key, rebaseRefs(item, self, found)];
      const [file = "", pointer = ""] = item.split("#");
      const target = file === "" ? self : SCHEMA_OF_FILE.get(file);
      if (target === undefined) throw new Error(`internal: $ref ${item} names no schema of schemas/`);
      found.add(target);
      return [key, `${schemaRef(target).$ref}${pointer}`];
    }),
  );
}

/** The schemas in `found`, and those they refer to in turn, each rebased into the document. */
function embedSchemas(found: Set<SchemaName>): JsonObject {
  const embedded = new Map<SchemaName, unknown>();
  for (let pending = [...found]; pending.length > 0; pending = [...found].filter((s) => !embedded.has(s))) {
    for (const name of pending) {
      // The dialect is the document's (2020-12); a `$schema` inside would only repeat it.
      const { $schema: _, ...schema }: SchemaObject = readSchema(name);
      embedded.set(name, rebaseRefs(schema, name, found));
    }
  }
  return Object.fromEntries(
    [...embedded].sort(([a], [b]) => compareCodePoints(a, b)).map(([name, schema]) => [componentName(name), schema]),
  );
}

/** How a value of each kind of parameter is read (see ParamKind in routeTable.ts). */
function parameterOf(param: Param, where: "path" | "query", key: string, found: Set<SchemaName>): JsonObject {
  const kind = PARAM_KINDS[param];
  const descriptions = {
    name: "A name: it must pass the name rule (the pattern, and no Windows device name), or the answer is 404.",
    label: `Compared exactly with each package's \`${param}\`. A value no package of the host has (a value that breaks the name rule among them) answers \`[]\`.`,
    text: `Free text, compared exactly (case-sensitive) with each package's \`${param}\`; a value no package of the host has answers \`[]\`. Percent-encode it fully, as encodeURIComponent does (\`/\` as \`%2F\`)${where === "query" ? "; a `+` reads as a space" : ""}.`,
    search: "A case-sensitive substring of `internal_name`.",
  };
  return {
    name: key,
    in: where,
    required: where === "path",
    description: descriptions[kind],
    schema: kind === "name" ? rebaseRefs({ $ref: NAME_RULE_REF }, undefined, found) : { type: "string" },
  };
}

function headerRefs(headers: Record<string, string>): JsonObject {
  return Object.fromEntries(
    Object.keys(headers)
      // OpenAPI ignores a Content-Type header: the media type of `content` says it.
      .filter((name) => name !== "Content-Type")
      .map((name) => [name, { $ref: `#/components/headers/${name}` }]),
  );
}

function headerComponents(): JsonObject {
  // Not `required`: a host that cannot set headers (see docs/hosting.md) still serves the API.
  const component = (value: string, description: string) => ({ description, schema: { const: value } });
  return Object.fromEntries([
    ...Object.entries(PACKAGE_FILE_MAX_AGE).map(([kind, seconds]) => [
      `Cache-Control-${kind}`,
      {
        description: `How long a ${kind === "icon" ? "package's icon" : "package file"} may be kept, where the host sets it.`,
        schema: { type: "string", pattern: `max-age=${seconds}(,|$)` },
      },
    ]),
    ...Object.entries(RESPONSE_HEADERS)
      .filter(([name]) => name !== "Content-Type")
      .map(([name, value]) => [name, component(value, "On every answer, where the host allows it.")]),
    ...Object.entries(PREFLIGHT_HEADERS).map(([name, value]) => [
      name,
      component(value, "On the answer to a CORS preflight (OPTIONS) and to a method the API does not answer (405)."),
    ]),
  ]);
}

const camelCase = (words: string): string =>
  words
    .split(/[^A-Za-z0-9]+/)
    .filter((w) => w !== "")
    .map((w, i) => (i === 0 ? w.toLowerCase() : w.charAt(0).toUpperCase() + w.slice(1)))
    .join("");

const capitalize = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

/** A path of the table with its routes: the query routes (the v2 form) in the order they are tried, then the plain one. */
interface PathRoutes {
  path: string;
  queried: readonly Route[];
  plain?: Route;
  routes: readonly Route[];
}

/** The routes grouped by path, as routePaths does, but of any table (a test adds a route). */
function pathsOf(routes: readonly Route[]): PathRoutes[] {
  return [...new Set(routes.map((r) => r.path))].map((path) => {
    const ofPath = routes.filter((r) => r.path === path);
    const plain = ofPath.find((r) => !r.query);
    const queried = ofPath.filter((r) => r.query);
    return { path, queried, ...(plain ? { plain } : {}), routes: plain ? [...queried, plain] : queried };
  });
}

/** How a request to the path is answered: the query forms in the order they are tried, and search. */
function describePath({ path, queried, plain }: PathRoutes, slash: boolean): string {
  const paragraphs: string[] = [];
  if (slash)
    paragraphs.push(`The same as \`${path}\`, with one trailing slash; answered as it is, without a redirect.`);
  if (queried.length === 0) return [...paragraphs, capitalize(`${plain!.returns}.`)].join("\n\n");
  const names = [
    ...new Set(
      queried.flatMap((r) => r.query!).flatMap((q) => (PARAM_KINDS[q.param] === "name" ? [`\`${q.key}\``] : [])),
    ),
  ];
  return [
    ...paragraphs,
    "One path takes several query forms. The first of these whose parameters the request has answers:",
    queried
      .map(
        (r, i) =>
          `${i + 1}. \`${describeRoute(r).slice(path.length)}\`: ${r.returns}` +
          (r.search
            ? ". Only hosts that run code at request time answer it (which ones: shopfront's docs/hosting.md); every other host answers 404, never a wrong list."
            : "."),
      )
      .join("\n"),
    plain ? `Without any of them: ${plain.returns}.` : "Without any of them: 404.",
    `Each parameter counts once: sent twice, the answer is 404. An empty value counts as absent${names.length > 0 ? `, but for a name (${names.join(", ")}): that is 404` : ""}. Other parameters are ignored.`,
  ].join("\n\n");
}

function operationsOf(entry: PathRoutes, slash: boolean, found: Set<SchemaName>): JsonObject {
  const main = entry.plain ?? entry.routes[0]!;
  const segments = segmentsOf(entry.path);
  const tags = [slash ? TRAILING_SLASH_TAG : segments[0]!];
  const operationId = (method: string) => camelCase(`${method} ${main.id}${slash ? " slash" : ""}`);
  const queryKeys = [...new Map(entry.routes.flatMap((r) => r.query ?? []).map((q) => [q.key, q.param]))];
  const query = queryKeys.map(([key, param]) => parameterOf(param, "query", key, found));
  const schemas = [...new Set(entry.routes.map((r) => r.schema))];
  const summary = capitalize(main.returns) + (entry.queried.length > 0 ? ", or what the query parameters select" : "");
  const description = describePath(entry, slash);
  const read = (method: "get" | "head") => ({
    operationId: operationId(method),
    tags,
    summary: method === "get" ? summary : `${summary} (headers only)`,
    description,
    ...(query.length > 0 ? { parameters: query } : {}),
    responses: {
      "200": {
        description: capitalize(
          schemas.length > 1
            ? `${[...new Set(entry.routes.map((r) => r.returns))].join(", or ")}.`
            : `${main.returns}.`,
        ),
        headers: headerRefs(RESPONSE_HEADERS),
        ...(method === "get"
          ? {
              content: {
                [CONTENT_TYPE]: {
                  schema: schemas.length > 1 ? { oneOf: schemas.map(schemaRef) } : schemaRef(schemas[0]!),
                },
              },
            }
          : {}),
      },
      "404": { $ref: `#/components/responses/${method === "get" ? "NotFound" : "NotFoundHead"}` },
    },
  });
  for (const schema of schemas) found.add(schema);
  return {
    parameters: segments.flatMap((segment) => {
      const param = paramOf(segment);
      return param === undefined ? [] : [parameterOf(param, "path", param, found)];
    }),
    get: read("get"),
    head: read("head"),
    options: {
      operationId: operationId("options"),
      tags,
      summary: "CORS preflight",
      responses: { "204": { $ref: "#/components/responses/Preflight" } },
    },
  };
}

/** The tag of the package files' paths. */
export const PACKAGE_FILES_TAG = "package files";

/**
 * A package file's URL as an OpenAPI path: a parameter named twice is `{name}`, then `{name2}`
 * (a path names each template once), and each its own path parameter.
 */
export function fileRoutePath(route: FileRoute): { path: string; params: { template: string; param: Param }[] } {
  const seen = new Map<Param, number>();
  const params: { template: string; param: Param }[] = [];
  const path = route.path.replace(/\{(\w+)\}/g, (_, param: Param) => {
    const count = (seen.get(param) ?? 0) + 1;
    seen.set(param, count);
    const template = count === 1 ? param : `${param}${count}`;
    params.push({ template, param });
    return `{${template}}`;
  });
  return { path, params };
}

/** A package file's URL: GET and HEAD with its type and lifetime, the JSON 404, a preflight. */
function fileOperations(route: FileRoute, found: Set<SchemaName>): JsonObject {
  const { params } = fileRoutePath(route);
  const what =
    HBB_ROUTES.find((hbb) => hbb.path === route.path)?.what ??
    {
      archive: "The package's archive",
      icon: "The package's icon (a placeholder when it has none)",
      binary: "The package's binary, as unpacked",
      meta: "The package's meta.xml, as unpacked",
      "hbb-text": "A text file of the Homebrew Browser's surface",
      "hbb-icons": "The Homebrew Browser's icon archive",
    }[route.kind];
  const headers = {
    ...headerRefs(PACKAGE_FILE_HEADERS),
    "Cache-Control": { $ref: `#/components/headers/Cache-Control-${route.kind}` },
  };
  const operationId = (method: string) => camelCase(`${method} ${route.path.replace(/[{}./_]+/g, " ")}`);
  const description = route.alias
    ? `Another URL of \`${route.file}\`, the same bytes: each name of the path stands for the name at the same place in the file, so two names that differ name no file (404).`
    : "The file as the build stores it, byte for byte.";
  const read = (method: "get" | "head") => ({
    operationId: operationId(method),
    tags: [PACKAGE_FILES_TAG],
    summary: method === "get" ? what : `${what} (headers only)`,
    description,
    responses: {
      "200": {
        description: `${what}, typed ${PACKAGE_FILE_TYPES[route.kind]}.`,
        headers,
        ...(method === "get" ? { content: { [PACKAGE_FILE_TYPES[route.kind]]: {} } } : {}),
      },
      "404": { $ref: `#/components/responses/${method === "get" ? "NotFound" : "NotFoundHead"}` },
    },
  });
  return {
    parameters: params.map(({ template, param }) => ({
      ...parameterOf(param, "path", template, found),
      ...(template === param
        ? {}
        : { description: `The ${param} again: the same value as \`{${param}}\`, or no file answers (404).` }),
    })),
    get: read("get"),
    head: read("head"),
    options: {
      operationId: operationId("options"),
      tags: [PACKAGE_FILES_TAG],
      summary: "CORS preflight",
      responses: { "204": { $ref: "#/components/responses/Preflight" } },
    },
  };
}

function describeApi(): string {
  const reads = ALLOWED_METHODS.filter((m) => m !== "OPTIONS");
  return [
    "The Open Shop Channel's package catalogue API, as shopfront serves it from static files.",
    "",
    `Every route also answers with one trailing slash, without a redirect: each such form is a path of its own here, under the tag \`${TRAILING_SLASH_TAG}\`.`,
    "",
    `Methods: ${reads.join(" and ")} answer; OPTIONS is a CORS preflight (204). Any other method is answered 405 with the preflight's headers (\`Allow: ${PREFLIGHT_HEADERS.Allow}\`) and the error body, \`{"error": "method_not_allowed", ...}\`, where the host allows it.`,
    "",
    "Bodies are JSON in ASCII (everything else escaped as \\uXXXX). Lists hold every package that matches, sorted by `internal_name`; there is no paging.",
  ].join("\n");
}

/** The OpenAPI 3.1 document of the API (of the route table, unless told another), as an object. */
export function openApiDocument(
  routes: readonly Route[] = ROUTES,
  files: readonly FileRoute[] = FILE_ROUTES,
): JsonObject {
  const found = new Set<SchemaName>(["error"]);
  const paths: JsonObject = {};
  for (const entry of pathsOf(routes)) {
    paths[entry.path] = operationsOf(entry, false, found);
    paths[`${entry.path}/`] = operationsOf(entry, true, found);
  }
  for (const route of files) paths[fileRoutePath(route).path] = fileOperations(route, found);
  const versions = [...new Set(routes.map((r) => segmentsOf(r.path)[0]!))];
  const headers = headerRefs(RESPONSE_HEADERS);
  return {
    openapi: OPENAPI_VERSION,
    info: { title: "Open Shop Channel package API", version: VERSION, description: describeApi() },
    // The API can be deployed under any prefix, and this document sits in its root: a relative
    // URL resolves against where the document was fetched from (OpenAPI 3.1, Server Object).
    // Without `servers` a client would assume `/`.
    servers: [{ url: ".", description: "The folder this document is served from: the API's root." }],
    tags: [
      ...versions.map((v) => ({ name: v, description: `The ${v} routes.` })),
      {
        name: TRAILING_SLASH_TAG,
        description: "Every route with one trailing slash (as some clients send it): the same answers.",
      },
      ...(files.length > 0
        ? [
            {
              name: PACKAGE_FILES_TAG,
              description:
                "The package files at every URL clients and guides use (a non-default host's under /hosts/{host}/): binary bodies, never a trailing slash.",
            },
          ]
        : []),
    ],
    paths,
    components: {
      schemas: embedSchemas(found),
      responses: {
        NotFound: {
          description: `No such host, package or endpoint: the body of \`${NOT_FOUND_FILE}\`, where the host can serve one.`,
          headers,
          content: { [CONTENT_TYPE]: { schema: schemaRef("error") } },
        },
        NotFoundHead: { description: "No such host, package or endpoint (no body).", headers },
        Preflight: {
          description: "A CORS preflight: no body.",
          headers: { ...headers, ...headerRefs(PREFLIGHT_HEADERS) },
        },
      },
      headers: headerComponents(),
    },
  };
}

/** The document's bytes, as written to OPENAPI_FILE: compact ASCII JSON, like every file of the API. */
export function renderOpenApi(): string {
  return escapeNonAscii(JSON.stringify(openApiDocument()));
}
