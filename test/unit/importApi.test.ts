// `shopfront import api`: a built catalogue served by the preview server (or read from its dist/)
// imports back to the same catalogue; crafted servers give extra fields, a v2 without the route, and
// every way an API can fail, each a FailureError naming the URL, with nothing written.
import { existsSync, readFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import fse from "fs-extra";
import { afterEach, describe, expect, it } from "vitest";
import { buildCatalogue } from "../../src/engine/buildCatalogue.js";
import { validateCatalogue } from "../../src/load/validateCatalogue.js";
import { MANIFEST_FIELDS } from "../../src/catalogue/fields.js";
import { schemaValidators } from "../../src/catalogue/schemas.js";
import { formatImportSummary } from "../../src/cli/formatImport.js";
import { apiBaseUrl, fetchApi, readApiFiles } from "../../src/import/fetchApi.js";
import { parseApiJson, parseHostList, parsePackageList } from "../../src/import/parseApi.js";
import { writeImport, type ImportSource } from "../../src/import/writeImport.js";
import { manifestText } from "../../src/catalogue/manifestFile.js";
import { servePreview } from "../../src/serve/servePreview.js";
import { serializeStats, type StatsFile } from "../../src/catalogue/statsFile.js";
import { FailureError, UsageError } from "../../src/util/errors.js";
import { VERSION } from "../../src/util/version.js";
import { manifest, readTree, ROOT, shopfrontAsync, tempDir, writeFiles } from "../support/helpers.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

/** The bundled catalogue copied, built into dist/ next to it, and served by the preview server. */
async function servedCatalogue(): Promise<{ catalogue: string; dist: string; url: string }> {
  const root = tempDir();
  const catalogue = join(root, "catalogue");
  const dist = join(root, "dist");
  fse.copySync(join(ROOT, "catalogue"), catalogue);
  const { problems, built } = await buildCatalogue({ catalogueDir: catalogue, outDir: dist });
  expect(problems).toEqual([]);
  expect(built).toBeDefined();
  const server = await servePreview({ dir: dist, host: "127.0.0.1", port: 0 });
  closers.push(() => server.close());
  return { catalogue, dist, url: server.url };
}

/**
 * A catalogue's files in the form shopfront writes them (manifests through manifestText, stats files
 * through serializeStats, hosts.json as two-space JSON), so a hand-formatted original compares by content.
 */
function canonicalTree(dir: string): Map<string, string> {
  const tree = new Map<string, string>();
  for (const [path, bytes] of readTree(dir)) {
    const json = JSON.parse(bytes.toString("utf8")) as Record<string, unknown>;
    if (path === "hosts.json") tree.set(path, `${JSON.stringify(json, null, 2)}\n`);
    else if (path.startsWith("stats/")) tree.set(path, serializeStats(json as unknown as StatsFile));
    else tree.set(path, manifestText(json));
  }
  return tree;
}

/** What the CLI does after reading: write, then validate. */
async function importInto(source: ImportSource, catalogueDir: string, force = false) {
  const result = await writeImport(source, { catalogueDir, force });
  expect(result.problems).toEqual([]);
  const validated = await validateCatalogue(catalogueDir);
  return { summary: result.summary!, validated };
}

type Route =
  | { status?: number; body: unknown; type?: string; location?: string }
  /** Headers and this much of a body, then nothing more. */
  | { hangAfter: string }
  | "hang";

interface CraftedServer {
  url: string;
  requests: { path: string; headers: IncomingHttpHeaders }[];
}

const FLASK_404 =
  "<!doctype html>\n<html lang=en>\n<title>404 Not Found</title>\n<h1>Not Found</h1>\n<p>The requested URL was not found on the server.</p>\n";

/** A tiny server answering `routes` by path (JSON values serialised, strings as they are); anything else a Flask-like HTML 404. */
async function serveRoutes(routes: Record<string, Route>): Promise<CraftedServer> {
  const requests: CraftedServer["requests"] = [];
  const server: Server = createServer((req, res) => {
    const path = req.url ?? "";
    requests.push({ path, headers: req.headers });
    const route = routes[path];
    if (route === "hang") return;
    if (route === undefined) {
      res.writeHead(404, { "Content-Type": "text/html; charset=utf-8" }).end(FLASK_404);
      return;
    }
    if ("hangAfter" in route) {
      res.writeHead(200, { "Content-Type": "application/json" });
      res.write(route.hangAfter);
      return;
    }
    const body = typeof route.body === "string" ? route.body : JSON.stringify(route.body);
    res
      .writeHead(route.status ?? 200, {
        "Content-Type": route.type ?? "application/json",
        ...(route.location !== undefined ? { Location: route.location } : {}),
      })
      .end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
}

const HOSTS = {
  repos: ["primary", "themes"],
  repositories: {
    primary: { name: "Open Shop Channel", host: "hbb1.oscwii.org", description: "The main repository." },
    themes: { name: "Themes", host: "hbb3.oscwii.org", description: "Themes for the Homebrew Channel." },
  },
};

/** A package object as the original server sent it: the 16 fields and its extras. */
function original(name: string, changes: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    ...manifest(name),
    downloads: 0,
    rating: "",
    zip_url: `https://hbb1.oscwii.org/hbb/${name}/${name}.zip`,
    icon_url: `https://hbb1.oscwii.org/hbb/${name}.png`,
    extra_directories: [],
    ...changes,
  };
}

/** fetchApi with the CLI's defaults, but a short timeout. */
function fetchFrom(baseUrl: string, timeoutSeconds = 5) {
  return fetchApi({ baseUrl, concurrency: 4, timeoutSeconds });
}

describe("import api: a round trip", () => {
  it("imports a served build back into the catalogue it was built from, byte for byte", async () => {
    const { catalogue, url } = await servedCatalogue();
    const imported = join(tempDir(), "catalogue");
    // A trailing slash is tolerated.
    const { summary, validated } = await importInto(await fetchFrom(`${url}/`), imported);
    expect(summary).toMatchObject({ skipped: [], notCarriedOver: [], hostsFile: "written" });
    expect(summary.written).toHaveLength(39);
    expect(summary.statsFiles).toEqual(["stats/primary.json", "stats/themes.json"]);
    // Every manifest, hosts.json (the API has no `default`: its first host becomes the default, which
    // the bundled catalogue's is) and both stats files (entries only for non-default numbers, as the
    // original's are) are the same.
    expect(canonicalTree(imported)).toEqual(canonicalTree(catalogue));
    expect(validated.problems).toEqual([]);
    expect(validated.valid).toMatchObject({ hosts: 2, packages: 39 });
  });

  it("imports the built dist/ folder as it is with --from-files", async () => {
    const { catalogue, dist } = await servedCatalogue();
    const imported = join(tempDir(), "catalogue");
    const { summary, validated } = await importInto(await readApiFiles(dist), imported);
    expect(summary).toMatchObject({ skipped: [], notCarriedOver: [] });
    expect(summary.written).toHaveLength(39);
    expect(canonicalTree(imported)).toEqual(canonicalTree(catalogue));
    expect(validated.problems).toEqual([]);
  });
});

describe("import api: what a source gives", () => {
  it("asks v4 and v3, then v2, then v1 where v2 has no such route, under a path prefix, with its User-Agent", async () => {
    const server = await serveRoutes({
      "/api/v1/hosts": { body: HOSTS },
      "/api/v2/primary/packages": { body: [original("Alpha", { downloads: 12 })] },
      // themes: v2 is the HTML 404 every unknown path gets; v1 has the list.
      "/api/v1/themes/packages": { body: [original("Blue", { rating: "5" })] },
    });
    const source = await fetchFrom(`${server.url}/api/`);
    expect(server.requests.map((r) => r.path).sort()).toEqual([
      "/api/api/v3/information",
      "/api/api/v4/information",
      "/api/v1/hosts",
      "/api/v1/themes/packages",
      "/api/v2/primary/packages",
      "/api/v2/themes/packages",
    ]);
    for (const { headers } of server.requests) {
      expect(headers["user-agent"]).toBe(`shopfront/${VERSION}`);
      expect(headers.accept).toBe("application/json");
    }
    expect(source.hosts).toEqual({
      default: "primary",
      hosts: [
        { id: "primary", ...HOSTS.repositories.primary },
        { id: "themes", ...HOSTS.repositories.themes },
      ],
    });
    expect(source.packages.map((p) => [p.host, p.name, p.source, p.stats])).toEqual([
      ["primary", "Alpha", `${server.url}/api/v2/primary/packages [0]`, { downloads: 12, rating: "" }],
      ["themes", "Blue", `${server.url}/api/v1/themes/packages [0]`, { downloads: 0, rating: "5" }],
    ]);
  });

  it("names the fields beyond the API's once in the summary and writes none of them", async () => {
    const server = await serveRoutes({
      "/v1/hosts": { body: HOSTS },
      "/v2/primary/packages": {
        body: [original("Alpha"), original("Beta", { shop_title_id: "0001" }), original("Gamma")],
      },
      "/v2/themes/packages": { body: [original("Blue")] },
    });
    const catalogue = join(tempDir(), "catalogue");
    const { summary, validated } = await importInto(await fetchFrom(server.url), catalogue);
    expect(summary.notCarriedOver).toEqual([
      ["extra_directories", 4],
      ["icon_url", 4],
      ["shop_title_id", 1],
      ["zip_url", 4],
    ]);
    const lines = formatImportSummary(summary, "catalogue");
    expect(lines.filter((line) => line.includes("zip_url"))).toEqual([
      "not carried over (the API has no such field): extra_directories (4 packages), icon_url (4 packages), shop_title_id (1 package), zip_url (4 packages)",
    ]);
    for (const file of summary.written) {
      const written = JSON.parse(readFileSync(join(catalogue, file), "utf8")) as object;
      expect(Object.keys(written)).toEqual(Object.keys(MANIFEST_FIELDS));
    }
    // Downloads 0 and rating "" are what a package without a stats entry reports: no entry, no file.
    expect(summary.statsFiles).toEqual([]);
    expect(existsSync(join(catalogue, "stats"))).toBe(false);
    expect(validated.problems).toEqual([]);
  });

  it("passes values on as given: the writer skips what the catalogue cannot hold, with the source's place", async () => {
    const server = await serveRoutes({
      "/v1/hosts": { body: { ...HOSTS, repos: ["primary"] } },
      "/v2/primary/packages": {
        body: [
          original("Alpha"),
          "Beta",
          { display_name: "no name" },
          original("Gamma", { zip_size: "1024" }),
          original("Delta", { downloads: -1 }),
          original("Epsilon", { coder: undefined }),
        ],
      },
    });
    const list = `${server.url}/v2/primary/packages`;
    const catalogue = join(tempDir(), "catalogue");
    const { summary, validated } = await importInto(await fetchFrom(server.url), catalogue);
    expect(summary.written).toEqual(["primary/Alpha.json"]);
    expect(summary.skipped.map((s) => [s.source, s.name, s.reasons.length > 0])).toEqual([
      [`${list} [1]`, undefined, true],
      [`${list} [2]`, undefined, true],
      [`${list} [3]`, "Gamma", true],
      [`${list} [4]`, "Delta", true],
      [`${list} [5]`, "Epsilon", true],
    ]);
    expect(summary.skipped[0]!.reasons).toEqual(["a string, not a package object"]);
    expect(summary.skipped[1]!.reasons).toEqual(["its internal_name is missing, not a string"]);
    expect(summary.skipped[2]!.reasons.join()).toMatch(/zip_size/);
    expect(summary.skipped[3]!.reasons.join()).toMatch(/downloads/);
    expect(summary.skipped[4]!.reasons.join()).toMatch(/coder/);
    expect(validated.problems).toEqual([]);
  });

  it("keeps an existing manifest unless --force, and then overwrites it", async () => {
    const { url } = await servedCatalogue();
    const catalogue = join(tempDir(), "catalogue");
    const mine = `${JSON.stringify({ ...manifest("airwaves"), version: "mine" }, null, 2)}\n`;
    writeFiles(catalogue, { "primary/airwaves.json": mine });

    const kept = await importInto(await fetchFrom(url), catalogue);
    expect(kept.summary.written).toHaveLength(38);
    expect(kept.summary.skipped).toEqual([
      {
        source: `${url}/v2/primary/packages [27]`,
        host: "primary",
        name: "airwaves",
        reasons: ["primary/airwaves.json exists (--force overwrites it)"],
      },
    ]);
    expect(readFileSync(join(catalogue, "primary/airwaves.json"), "utf8")).toBe(mine);

    const forced = await importInto(await fetchFrom(url), catalogue, true);
    expect(forced.summary.skipped).toEqual([]);
    expect(forced.summary.written).toHaveLength(39);
    expect(readFileSync(join(catalogue, "primary/airwaves.json"))).toEqual(
      readFileSync(join(ROOT, "catalogue/primary/airwaves.json")),
    );
  });
});

describe("import api: failures", () => {
  // primary always answers; themes fails, so a host that was read must not be written either.
  const cases: [string, Route, RegExp][] = [
    ["a null body", { body: null }, /: expected a list of packages, got null \(the original server answered null/],
    [
      "an HTML 500 page",
      { status: 500, body: "<html><h1>Oops</h1></html>", type: "text/html" },
      /: answered 500 Internal Server Error, an HTML page, not 200$/,
    ],
    [
      "an HTML page with 200",
      { body: "<!doctype html><p>maintenance</p>", type: "text/html" },
      /: the answer is an HTML page, not JSON$/,
    ],
    ["invalid JSON", { body: '[{"internal_name": "x",' }, /: the answer is not valid JSON \(.+\)$/],
    ["an object, not a list", { body: { packages: [] } }, /: expected a list of packages, got an object$/],
    ["a 503 with JSON", { status: 503, body: { error: "busy" } }, /: answered 503 Service Unavailable, not 200$/],
    ["no answer", "hang", /: no complete answer within 0\.3 s \(--timeout\)$/],
    [
      "a body that stops coming",
      { hangAfter: '[{"internal_name": ' },
      /: no complete answer within 0\.3 s \(--timeout\)$/,
    ],
  ];

  it.each(cases)("%s fails the whole import, naming the URL", async (_, route, message) => {
    const server = await serveRoutes({
      "/v1/hosts": { body: HOSTS },
      "/v2/primary/packages": { body: [original("Alpha")] },
      "/v2/themes/packages": route,
    });
    const failure = fetchFrom(server.url, 0.3);
    await expect(failure).rejects.toThrow(FailureError);
    await expect(failure).rejects.toThrow(new RegExp(`^${server.url}/v2/themes/packages${message.source}`));
  });

  it("follows a redirect within the API's origin, and names one to another origin without asking it", async () => {
    const elsewhere = await serveRoutes({});
    const server = await serveRoutes({
      "/v1/hosts": { status: 301, body: "", location: "/moved/v1/hosts" },
      "/moved/v1/hosts": { body: HOSTS },
      "/v2/primary/packages": { body: [original("Alpha")] },
      "/v2/themes/packages": { status: 302, body: "", location: `${elsewhere.url}/v2/themes/packages` },
    });
    await expect(fetchFrom(server.url)).rejects.toThrow(
      `${server.url}/v2/themes/packages: redirects to ${elsewhere.url}/v2/themes/packages, outside ${server.url}: not followed`,
    );
    expect(server.requests.map((r) => r.path)).toContain("/moved/v1/hosts");
    expect(elsewhere.requests).toEqual([]);
  });

  it("an HTML 404 from both v2 and v1 names the v1 URL; a 404 for the host list names it", async () => {
    const server = await serveRoutes({
      "/v1/hosts": { body: HOSTS },
      "/v2/primary/packages": { body: [original("Alpha")] },
    });
    await expect(fetchFrom(server.url)).rejects.toThrow(
      `${server.url}/v1/themes/packages: answered 404 Not Found, an HTML page, not 200`,
    );
    await expect(fetchFrom(`${server.url}/api`)).rejects.toThrow(
      `${server.url}/api/v1/hosts: answered 404 Not Found, an HTML page, not 200`,
    );
  });

  it("a refused connection names the URL", async () => {
    const server = await serveRoutes({});
    // The port is free once the server is closed.
    await closers.pop()!();
    await expect(fetchFrom(server.url)).rejects.toThrow(
      // The first request asks whether the server has the newest API.
      new RegExp(`^${server.url}/api/v4/information: cannot be fetched \\(.*ECONNREFUSED`),
    );
  });

  it("a host list that is no host list, or whose hosts a catalogue cannot declare", async () => {
    const validators = await schemaValidators();
    const read = (json: unknown) => () => parseHostList(json, "H", validators);
    expect(read(null)).toThrow('H: expected the host list, {"repos": [...], "repositories": {...}}, got null');
    expect(read({ repos: [], repositories: {} })).toThrow('H: "repos" lists no hosts');
    expect(read({ repos: ["primary"], repositories: {} })).toThrow('H: "repositories" has no entry for host "primary"');
    expect(read({ ...HOSTS, repos: ["primary", "../etc"] })).toThrow(FailureError);
    expect(
      read({
        ...HOSTS,
        repos: ["primary", "hosts"],
        repositories: { ...HOSTS.repositories, hosts: HOSTS.repositories.themes },
      }),
    ).toThrow(/H: these hosts cannot be a catalogue's hosts.json: \/hosts\/1\/id/);
    expect(() => parsePackageList(null, "primary", "L")).toThrow(FailureError);
  });

  it("reads JSON with a byte order mark; an empty answer is none", () => {
    expect(parseApiJson("\uFEFF[]", "F")).toEqual([]);
    expect(() => parseApiJson(" \n", "F")).toThrow("F: the answer is empty, not JSON");
  });

  it("refuses a base URL that is no http(s) base, and a folder without v1/hosts", async () => {
    expect(apiBaseUrl("https://example.org/api//")).toBe("https://example.org/api");
    expect(apiBaseUrl("http://example.org")).toBe("http://example.org");
    expect(() => apiBaseUrl("example.org")).toThrow(UsageError);
    expect(() => apiBaseUrl("ftp://example.org")).toThrow(UsageError);
    expect(() => apiBaseUrl("https://example.org/?x=1")).toThrow(UsageError);
    await expect(readApiFiles(tempDir())).rejects.toThrow(UsageError);
  });
});

describe("shopfront import api (the binary)", () => {
  it("imports, fails with one line and exit 1 writing nothing, and refuses a URL with --from-files", async () => {
    const { url, dist } = await servedCatalogue();
    const cwd = tempDir();
    const run = await shopfrontAsync(cwd, ["import", "api", url]);
    expect(run).toMatchObject({ code: 0, stderr: "" });
    expect(run.stdout).toMatch(
      /^imported 39 packages into catalogue; numbers in stats\/primary.json, stats\/themes.json\nhosts.json written\nvalid: 2 hosts, 39 packages in \d+\.\d s\n$/,
    );

    const server = await serveRoutes({ "/v1/hosts": { body: HOSTS }, "/v2/primary/packages": { body: null } });
    const failed = await shopfrontAsync(cwd, ["import", "api", server.url, "--catalogue", "other"]);
    expect(failed).toEqual({
      code: 1,
      stdout: "",
      stderr: `error: ${server.url}/v2/primary/packages: expected a list of packages, got null (the original server answered null for what it did not have)\n`,
    });
    expect(existsSync(join(cwd, "other"))).toBe(false);

    expect(await shopfrontAsync(cwd, ["import", "api", url, "--from-files", dist])).toMatchObject({
      code: 2,
      stderr: "error: import api: give either the API's URL or --from-files DIR\n",
    });
    expect(await shopfrontAsync(cwd, ["import", "api"])).toMatchObject({
      code: 2,
      stderr: "error: import api: give either the API's URL or --from-files DIR\n",
    });
  });
});
