// The conformance suite: the HTTP requests that show an API is served right, each with the answer
// it must get. One list for every target: the tests run it against the preview server, real nginx,
// Apache, Caddy and lighttpd and the edge functions; `shopfront check` runs it against a deployment.
// Sending the cases and judging the answers is runConformance.ts.
import { contentText, type OutputFile } from "../render/renderApi.js";
import { fileFor, urlFor } from "../routes/routeTable.js";

/** The rows of a conformance report: route forms, then properties of every response. */
export const CONFORMANCE_ROWS = {
  "v1-hosts": "GET /v1/hosts",
  "v1-packages": "GET /v1/<host>/packages",
  "v1-package": "GET /v1/<host>/package/<name>",
  "v2-package": "GET /v2/<host>/packages?package=<name>",
  "v2-packages": "GET /v2/<host>/packages",
  "trailing-slash": "every route with a trailing slash, no redirect",
  "not-found": "404 for unknown hosts, packages, bad or repeated names",
  traversal: "traversal attempts: 404 or an API file, never anything else",
  methods: "HEAD like GET; OPTIONS 204 with CORS; POST, PUT, DELETE 405",
  "content-type": "Content-Type: application/json on every answer to a well-formed request",
  cors: "Access-Control-Allow-Origin: * on every answer to a well-formed request",
  "error-body": "JSON error body on every 404 to a well-formed request",
} as const;

export type ConformanceRow = keyof typeof CONFORMANCE_ROWS;
type FormRow = Exclude<ConformanceRow, "content-type" | "cors" | "error-body">;

export type Expectation =
  /** 200 with exactly this file's bytes. */
  | { kind: "file"; file: string }
  /** 404. */
  | { kind: "not-found" }
  /** 404, or 200 with the bytes of some API file (a server may normalize `..` into another API URL). */
  | { kind: "safe" }
  /** Refused with a 4xx of the server's choice (400, 404, 414, 431): overlong or malformed requests. */
  | { kind: "refused" }
  /** 204 (or 200) with CORS headers and no body. */
  | { kind: "preflight" }
  | { kind: "method-not-allowed" };

export interface ConformanceCase {
  row: FormRow;
  method: "GET" | "HEAD" | "OPTIONS" | "POST" | "PUT" | "DELETE";
  /** The request-target exactly as sent. */
  target: string;
  expect: Expectation;
}

/** What a deployment must serve: every file of the build, by path. */
export interface ExpectedApi {
  files: ReadonlyMap<string, string>;
  packages: ReadonlyMap<string, readonly string[]>;
}

export function expectedApi(
  files: readonly OutputFile[],
  packages: ReadonlyMap<string, readonly { name: string }[]>,
): ExpectedApi {
  return {
    files: new Map(files.map((f) => [f.path, contentText(f.content)])),
    packages: new Map([...packages].map(([host, list]) => [host, list.map((p) => p.name)])),
  };
}

const NO_SUCH_NAME = "no-such-package-shopfront";
const TOO_LONG = "x".repeat(65);

/** Every case: each host and each package in every route form, then the edge cases. */
export function conformanceCases(api: ExpectedApi): ConformanceCase[] {
  const cases: ConformanceCase[] = [];
  const add = (row: FormRow, target: string, expect: Expectation, method: ConformanceCase["method"] = "GET") =>
    cases.push({ row, method, target, expect });
  const file = (f: string): Expectation => ({ kind: "file", file: f });
  const notFound: Expectation = { kind: "not-found" };
  const safe: Expectation = { kind: "safe" };

  add("v1-hosts", urlFor("hosts"), file(fileFor("hosts")));
  add("trailing-slash", `${urlFor("hosts")}/`, file(fileFor("hosts")));
  for (const [host, names] of api.packages) {
    const list = file(fileFor("packages", { host }));
    add("v1-packages", urlFor("packages", { host }), list);
    add("v2-packages", urlFor("v2-packages", { host }), list);
    add("v2-packages", `${urlFor("v2-packages", { host })}?unrelated=1`, list);
    add("trailing-slash", `${urlFor("packages", { host })}/`, list);
    add("trailing-slash", `${urlFor("v2-packages", { host })}/`, list);
    for (const name of names) {
      const one = file(fileFor("package", { host, name }));
      add("v1-package", urlFor("package", { host, name }), one);
      add("v2-package", urlFor("v2-package", { host, name }), one);
    }
    const first = names[0];
    if (first !== undefined) {
      const one = file(fileFor("package", { host, name: first }));
      const v2 = urlFor("v2-packages", { host });
      add("v2-package", `${v2}?lang=en&package=${first}`, one);
      add("v2-package", `${v2}?package=${first}&sort=&x`, one);
      add("trailing-slash", `${urlFor("package", { host, name: first })}/`, one);
      add("trailing-slash", `${v2}/?package=${first}`, one);
      add("not-found", `${v2}?package=${first}&package=${first}`, notFound);
      add("methods", urlFor("package", { host, name: first }), one, "HEAD");
    }
    add("not-found", urlFor("package", { host, name: NO_SUCH_NAME }), notFound);
    add("not-found", urlFor("v2-package", { host, name: NO_SUCH_NAME }), notFound);
    add("not-found", urlFor("package", { host, name: TOO_LONG }), notFound);
    add("not-found", urlFor("v2-package", { host, name: TOO_LONG }), notFound);
    add("not-found", `${urlFor("v2-packages", { host })}?package=`, notFound);
    add("not-found", `${urlFor("v2-packages", { host })}?package`, notFound);
    add("not-found", `/v1/${host}/package`, notFound);
    add("not-found", `/v1/${host}`, notFound);
    add("traversal", `${urlFor("v2-packages", { host })}?package=../../../secret.txt`, notFound);
    add("traversal", `${urlFor("v2-packages", { host })}?package=..%2F..%2F..%2Fsecret.txt`, notFound);
    add("traversal", `${urlFor("v2-packages", { host })}?package=%2e%2e`, notFound);
    add("traversal", `${urlFor("v2-packages", { host })}?package=..`, notFound);
    add("traversal", `${urlFor("v2-packages", { host })}?package=.%2Fpackages`, notFound);
    add("traversal", `/v1/${host}/package/..%2F..%2F..%2Fsecret.txt`, safe);
    add("traversal", `/v1/${host}/package/%2e%2e%2f%2e%2e%2fhosts`, safe);
    add("traversal", `/v1/${host}/package/..%5C..%5Csecret.txt`, notFound);
    add("traversal", `/v1/${host}/package/%00`, safe);
    add("traversal", `/v1/${host}/package/%252e%252e`, notFound);
  }
  for (const host of ["no-such-host", TOO_LONG]) {
    add("not-found", urlFor("packages", { host }), notFound);
    add("not-found", urlFor("v2-packages", { host }), notFound);
  }
  for (const target of [
    "/",
    "/v1",
    "/v1/",
    "/v3/hosts",
    "/v1/hosts.json",
    "/v1/hosts/packages",
    "/404.json",
    "/index.html",
  ])
    add("not-found", target, notFound);
  for (const target of [
    "/../secret.txt",
    "/v1/../../secret.txt",
    "/%2e%2e/secret.txt",
    "/v1/%2e%2e/%2e%2e/secret.txt",
    "/..%2F..%2Fsecret.txt",
  ])
    add("traversal", target, safe);
  const refused: Expectation = { kind: "refused" };
  add("traversal", "/v1/%zz/packages", safe);
  add("traversal", "/v1/%/packages", safe);
  add("traversal", "/v1/..\\..\\secret.txt", safe);
  add("traversal", `/v1/${"a".repeat(10_000)}/packages`, refused);
  add("traversal", `/${"../".repeat(2_000)}secret.txt`, refused);
  const [firstHost] = api.packages.keys();
  if (firstHost !== undefined)
    add("traversal", `${urlFor("v2-packages", { host: firstHost })}?package=${"b".repeat(10_000)}`, refused);
  add("methods", urlFor("hosts"), file(fileFor("hosts")), "HEAD");
  add("methods", urlFor("hosts"), { kind: "preflight" }, "OPTIONS");
  for (const method of ["POST", "PUT", "DELETE"] as const)
    add("methods", urlFor("hosts"), { kind: "method-not-allowed" }, method);
  return cases;
}
