// `shopfront import api` from the API the Open Shop Channel serves today (v4, v3): a store answering
// /api/v4/information and /api/v4/contents, with each app's archive at the URL it states, imports
// into an empty folder as manifests and package files that build to the same output as the catalogue
// the store was made from. Every way a remote can fail a download (404, a wrong hash, a cut body, a
// stall, a name that breaks the rule, a URL that is no http(s)) refuses that package with its reason,
// leaves no file behind, and lets the others import.
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import fse from "fs-extra";
import { afterEach, describe, expect, it } from "vitest";
import { buildCatalogue } from "../../src/engine/buildCatalogue.js";
import { formatImportSummary } from "../../src/cli/formatImport.js";
import { fetchApi } from "../../src/import/fetchApi.js";
import { parseContents } from "../../src/import/parseStoreApi.js";
import { servePreview } from "../../src/serve/servePreview.js";
import { previewOrigin, watchCatalogue } from "../../src/serve/watchCatalogue.js";
import { importApi } from "../../src/import/importCatalogue.js";
import { FailureError } from "../../src/util/errors.js";
import { FIXTURES, readJson, readTree, shopfrontAsync, tempDir } from "../support/helpers.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

type Route =
  | { status?: number; body: string | Buffer | object; type?: string }
  /** A Content-Length of `length`, these bytes, then the connection is cut. */
  | { cut: Buffer; length: number }
  /** Headers, then nothing more. */
  | "stall";

/** A store: `routes` by path, else the files of `dir`, else a 404 HTML page. */
async function serveStore(dir: string, routes: Record<string, Route> = {}): Promise<{ url: string; paths: string[] }> {
  const paths: string[] = [];
  const server: Server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname);
    paths.push(path);
    const route = routes[path];
    if (route === "stall") {
      res.writeHead(200, { "Content-Type": "application/zip" });
      res.write(Buffer.alloc(10));
      return;
    }
    if (route && "cut" in route) {
      res.writeHead(200, { "Content-Type": "application/zip", "Content-Length": route.length });
      res.write(route.cut, () => res.destroy());
      return;
    }
    if (route) {
      const body =
        typeof route.body === "string" || Buffer.isBuffer(route.body) ? route.body : JSON.stringify(route.body);
      res.writeHead(route.status ?? 200, { "Content-Type": route.type ?? "application/json" }).end(body);
      return;
    }
    const file = join(dir, path);
    if (!path.includes("..") && existsSync(file) && !path.endsWith("/")) {
      res.writeHead(200, { "Content-Type": "application/octet-stream" }).end(readFileSync(file));
      return;
    }
    res.writeHead(404, { "Content-Type": "text/html" }).end("<!doctype html><title>404</title>");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, paths };
}

const md5 = (bytes: Buffer) => createHash("md5").update(bytes).digest("hex");

const V4_PERIPHERALS: Record<string, string> = {
  w: "wii_remote",
  n: "nunchuk",
  c: "classic_controller",
  g: "gamecube_controller",
  k: "usb_keyboard",
  z: "wii_zapper",
  s: "sdhc",
};

/**
 * The package-files fixture (pong as a zip, snake and tetris as folders), its one host, built; with
 * `oneDate`, snake's `updated` equal to its `release_date`, since v4 alone has one date. Its v4 answers are made from the build's
 * v1 list and archives, as the Open Shop Channel's server writes them.
 */
async function builtStore(options: { oneDate?: boolean } = {}): Promise<{
  catalogue: string;
  dist: string;
  information: object;
  apps: Record<string, unknown>[];
}> {
  const root = tempDir();
  const catalogue = join(root, "catalogue");
  fse.copySync(join(FIXTURES, "package-files", "catalogue"), catalogue);
  const snake = join(catalogue, "primary", "snake.json");
  if (options.oneDate)
    writeFileSync(snake, JSON.stringify({ ...(readJson(snake) as object), updated: 1230768000 }, null, 2) + "\n");
  fse.outputJsonSync(
    join(catalogue, "stats", "primary.json"),
    { packages: { snake: { downloads: 12 } } },
    { spaces: 2 },
  );
  const dist = join(root, "dist");
  const built = await buildCatalogue({ catalogueDir: catalogue, outDir: dist });
  expect(built.problems.filter((p) => p.severity === "error")).toEqual([]);
  const list = readJson(join(dist, "v1", "primary", "packages")) as Record<string, unknown>[];
  const apps = list.map((p) => {
    const name = p.internal_name as string;
    const zip = readFileSync(join(dist, "hbb", name, `${name}.zip`));
    return {
      slug: name,
      name: p.display_name,
      author: p.coder,
      authors: [p.coder],
      category: p.category,
      contributors: [],
      description: { short: p.short_description, long: p.long_description },
      downloads: p.downloads,
      assets: {
        archive: { url: `/hbb/${name}/${name}.zip`, hash: md5(zip), size: zip.length },
        icon: { url: `/hbb/${name}/icon.png` },
      },
      flags: [],
      package_type: p.package_type,
      peripherals: [...(p.controllers as string)].map((c) => V4_PERIPHERALS[c]),
      release_date: p.release_date,
      shop: { contents_size: 0, title_id: "", inodes: 0, title_version: 0, tmd_size: 0 },
      subdirectories: [],
      supported_platforms: ["wii", "vwii"],
      uncompressed_size: p.extracted,
      version: p.version,
    };
  });
  return { catalogue, dist, information: { name: "Fixture", provider: "Fixture", description: "" }, apps };
}

/** The apps with their archive URLs made absolute on `base`. */
function absolute(apps: Record<string, unknown>[], base: string): Record<string, unknown>[] {
  return apps.map((app) => {
    const assets = app.assets as Record<string, { url: string }>;
    return {
      ...app,
      assets: Object.fromEntries(Object.entries(assets).map(([k, v]) => [k, { ...v, url: `${base}${v.url}` }])),
    };
  });
}

const NOT_FOUND: Route = { status: 404, body: "<!doctype html><title>404</title>", type: "text/html" };

/**
 * A store serving `dist` with v4 answers and without the first API (as the Open Shop Channel today),
 * unless `firstApi` (as a shopfront build); `change` edits the apps after their URLs are absolute.
 */
async function v4Store(
  store: Awaited<ReturnType<typeof builtStore>>,
  routes: Record<string, Route> = {},
  change: (apps: Record<string, unknown>[], base: string) => Record<string, unknown>[] = (apps) => apps,
  firstApi = false,
) {
  const contents: { body: object } = { body: [] };
  const server = await serveStore(store.dist, {
    "/api/v4/information": { body: store.information },
    "/api/v4/contents": contents,
    ...(firstApi ? {} : { "/v1/hosts": NOT_FOUND }),
    ...routes,
  });
  contents.body = change(absolute(store.apps, server.url), server.url);
  return server;
}

function importFrom(url: string, catalogueDir: string, over: { force?: boolean; timeoutSeconds?: number } = {}) {
  return importApi({
    url,
    catalogueDir,
    force: over.force ?? false,
    concurrency: 4,
    timeoutSeconds: over.timeoutSeconds ?? 5,
  });
}

/** Every file under a catalogue, hidden ones included (a temporary file left behind would show). */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
    .sort();
}

describe("import api: the true round trip", () => {
  it("build, serve with the preview server, import into an empty folder, build again: the same output, package files included", async () => {
    const root = tempDir();
    const catalogue = join(root, "catalogue");
    fse.copySync(join(FIXTURES, "package-files", "catalogue"), catalogue);
    fse.outputJsonSync(join(catalogue, "primary", "tetris.json"), {
      ...(readJson(join(catalogue, "primary", "tetris.json")) as object),
      authors: ["Zoë Müller", "Ann"],
      flags: ["writes_to_nand"],
      supported_platforms: ["wii"],
    });
    fse.outputJsonSync(join(catalogue, "stats", "primary.json"), {
      packages: { snake: { downloads: 12, rating: "4" } },
    });
    // The archive URLs of v4 are the build's base URL: the port the preview server will listen on.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const baseUrl = `http://127.0.0.1:${port}`;
    const dist = join(root, "dist");
    const built = await buildCatalogue({ catalogueDir: catalogue, outDir: dist, baseUrl });
    expect(built.problems.filter((p) => p.severity === "error")).toEqual([]);
    const server = await servePreview({ dir: dist, host: "127.0.0.1", port });
    closers.push(() => server.close());

    const imported = join(root, "imported");
    const report = await importFrom(server.url, imported);
    expect(report.summary).toMatchObject({
      archives: ["primary/pong.zip", "primary/snake.zip", "primary/tetris.zip"],
      skipped: [],
      notCarriedOver: [],
    });
    expect(readJson(join(imported, "primary", "tetris.json"))).toMatchObject({
      authors: ["Zoë Müller", "Ann"],
      flags: ["writes_to_nand"],
      supported_platforms: ["wii"],
    });
    const again = join(root, "again");
    const rebuilt = await buildCatalogue({ catalogueDir: imported, outDir: again, baseUrl });
    expect(rebuilt.problems.filter((p) => p.severity === "error")).toEqual([]);
    const before = readTree(dist);
    const after = readTree(again);
    expect([...after.keys()]).toEqual([...before.keys()]);
    for (const [path, bytes] of before) expect(after.get(path), path).toEqual(bytes);
  });
});

describe("import api: v4, a round trip", () => {
  for (const [what, firstApi] of [
    ["a v4 store alone (hosts.json as the information says, one date)", false],
    ["a shopfront build (its hosts and fields from the first API, archives from v4)", true],
  ] as const)
    it(`imports ${what} into an empty folder as manifests and archives that build to the same output`, async () => {
      const store = await builtStore({ oneDate: !firstApi });
      const server = await v4Store(store, {}, undefined, firstApi);
      const imported = join(tempDir(), "catalogue");
      const report = await importFrom(server.url, imported);
      expect(report.problems).toEqual([]);
      expect(report.summary).toMatchObject({
        written: ["primary/pong.json", "primary/snake.json", "primary/tetris.json"],
        archives: ["primary/pong.zip", "primary/snake.zip", "primary/tetris.zip"],
        alreadyThere: [],
        skipped: [],
        // The title's shop details are the Wii shop's, which a catalogue has no field for (a
        // shopfront build writes them of its own).
        notCarriedOver: firstApi ? [] : [["shop", 3]],
        hostsFile: "written",
        statsFiles: ["stats/primary.json"],
      });
      // The fixture's own warnings (pong has no icon; tetris's meta.xml words its description otherwise), no error.
      expect(report.validation?.problems.filter((p) => p.severity === "error")).toEqual([]);
      expect(report.validation?.valid).toMatchObject({ hosts: 1, packages: 3 });
      expect(filesUnder(imported)).toEqual([
        "hosts.json",
        "primary/pong.json",
        "primary/pong.zip",
        "primary/snake.json",
        "primary/snake.zip",
        "primary/tetris.json",
        "primary/tetris.zip",
        "stats/primary.json",
      ]);
      // What the files give is left to them.
      expect(readJson(join(imported, "primary", "tetris.json"))).not.toHaveProperty("zip_size");
      expect(readJson(join(imported, "primary", "tetris.json"))).not.toHaveProperty("package_type");
      expect(readFileSync(join(imported, "primary", "pong.zip"))).toEqual(
        readFileSync(join(store.catalogue, "primary", "pong.zip")),
      );
      if (firstApi) {
        // The host as /v1/hosts declares it.
        expect(readFileSync(join(imported, "hosts.json"), "utf8")).toBe(
          readFileSync(join(store.catalogue, "hosts.json"), "utf8"),
        );
      } else {
        // The host as the information names it, on the URL's host name; the original's is put
        // back so that both builds can be compared.
        expect(readJson(join(imported, "hosts.json"))).toEqual({
          default: "primary",
          hosts: [{ id: "primary", name: "Fixture", host: "127.0.0.1", description: "" }],
        });
        fse.copySync(join(store.catalogue, "hosts.json"), join(imported, "hosts.json"));
      }

      const again = join(tempDir(), "dist");
      const rebuilt = await buildCatalogue({ catalogueDir: imported, outDir: again });
      expect(rebuilt.problems.filter((p) => p.severity === "error")).toEqual([]);
      const before = readTree(store.dist);
      const after = readTree(again);
      expect([...after.keys()]).toEqual([...before.keys()]);
      for (const [path, bytes] of before) expect(after.get(path), path).toEqual(bytes);
    });

  it("skips on a re-run what is there and whole, and fetches again only what is missing or broken", async () => {
    const store = await builtStore();
    const server = await v4Store(store);
    const imported = join(tempDir(), "catalogue");
    await importFrom(server.url, imported);
    const fetched = () => server.paths.filter((p) => p.endsWith(".zip")).length;
    expect(fetched()).toBe(3);

    const rerun = await importFrom(server.url, imported);
    expect(rerun.summary).toMatchObject({
      written: [],
      archives: [],
      alreadyThere: ["primary/pong.json", "primary/snake.json", "primary/tetris.json"],
      skipped: [],
    });
    expect(fetched()).toBe(3);
    expect(formatImportSummary(rerun.summary!, "catalogue")[0]).toBe(
      "imported 0 packages into catalogue; 3 already there",
    );

    // A broken archive is not replaced without --force; a missing one is fetched again.
    writeFileSync(join(imported, "primary", "snake.zip"), "not the archive");
    fse.removeSync(join(imported, "primary", "tetris.zip"));
    const repaired = await importFrom(server.url, imported);
    expect(repaired.summary).toMatchObject({
      archives: ["primary/tetris.zip"],
      alreadyThere: ["primary/pong.json"],
      skipped: [
        {
          name: "snake",
          reasons: ["primary/snake.zip exists and is not the archive the API states (--force replaces it)"],
        },
      ],
    });
    expect(readFileSync(join(imported, "primary", "snake.zip"), "utf8")).toBe("not the archive");
    const forced = await importFrom(server.url, imported, { force: true });
    expect(forced.summary?.skipped).toEqual([]);
    expect(forced.summary?.archives).toEqual(["primary/snake.zip"]);
    expect(readFileSync(join(imported, "primary", "snake.zip"))).toEqual(
      readFileSync(join(store.dist, "hbb", "snake", "snake.zip")),
    );
    expect(fetched()).toBe(5);
  });
});

describe("import api: a catalogue that has the package's files as a folder", () => {
  it("keeps the folder and skips the package, since a package has a zip or a folder, not both", async () => {
    const store = await builtStore();
    const server = await v4Store(store);
    const imported = join(tempDir(), "catalogue");
    fse.copySync(join(store.catalogue, "primary", "snake"), join(imported, "primary", "snake"));
    const report = await importFrom(server.url, imported);
    expect(report.summary?.skipped).toEqual([
      {
        source: `${server.url}/api/v4/contents [1]`,
        host: "primary",
        name: "snake",
        reasons: ["primary/snake/ holds its files as a folder: remove it to import the archive"],
      },
    ]);
    expect(report.summary?.archives).toEqual(["primary/pong.zip", "primary/tetris.zip"]);
    expect(existsSync(join(imported, "primary", "snake.zip"))).toBe(false);
  });
});

describe("import api: what a remote can do wrong", () => {
  it("refuses each package whose archive fails, names why, leaves no file behind, and imports the rest", async () => {
    const store = await builtStore();
    const pong = readFileSync(join(store.dist, "hbb", "pong", "pong.zip"));
    const cases: [string, Route | undefined, (app: Record<string, unknown>, base: string) => void, RegExp][] = [
      [
        "a 404",
        { status: 404, body: "<!doctype html>", type: "text/html" },
        () => {},
        /answered 404 Not Found, not 200$/,
      ],
      [
        "a wrong hash",
        { body: Buffer.from(pong).fill(0, 100, 110) },
        () => {},
        /has MD5 [0-9a-f]{32}, not the [0-9a-f]{32} the API states$/,
      ],
      ["a body cut short", { cut: pong.subarray(0, 100), length: pong.length }, () => {}, /cannot be fetched \(.+\)$/],
      [
        "a body longer than stated",
        { body: Buffer.concat([pong, Buffer.alloc(10)]) },
        () => {},
        /is longer than the \d+ bytes the API states$/,
      ],
      ["a stall", "stall", () => {}, /did not come within 1 s \(--timeout\)$/],
      [
        "a URL that is no http(s)",
        undefined,
        (app) => ((app.assets as { archive: { url: string } }).archive.url = "file:///etc/passwd"),
        /its archive URL "file:\/\/\/etc\/passwd" is not http:\/\/ or https:\/\/$/,
      ],
      [
        "a URL with a password",
        undefined,
        (app, base) => ((app.assets as { archive: { url: string } }).archive.url = base.replace("//", "//me:secret@")),
        /holds a user name or password \(refused\)$/,
      ],
    ];
    for (const [what, route, change, reason] of cases) {
      const server = await v4Store(store, route ? { "/hbb/pong/pong.zip": route } : {}, (apps, base) => {
        change(
          apps.find((a) => a.slug === "pong")!,
          base,
        );
        return apps;
      });
      const imported = join(tempDir(), "catalogue");
      const report = await importFrom(server.url, imported, { timeoutSeconds: 1 });
      expect(report.summary?.skipped, what).toEqual([
        {
          source: `${server.url}/api/v4/contents [0]`,
          host: "primary",
          name: "pong",
          reasons: [expect.stringMatching(reason)],
        },
      ]);
      expect(report.summary?.archives, what).toEqual(["primary/snake.zip", "primary/tetris.zip"]);
      // Neither the manifest nor any part of the archive: not even a hidden temporary file.
      expect(filesUnder(join(imported, "primary")), what).toEqual([
        "snake.json",
        "snake.zip",
        "tetris.json",
        "tetris.zip",
      ]);
    }
  });

  it("reads an archive URL relative to the contents' URL", async () => {
    const store = await builtStore();
    const server = await v4Store(store, {}, () => store.apps);
    const report = await importFrom(server.url, join(tempDir(), "catalogue"));
    expect(report.summary?.archives).toHaveLength(3);
    expect(server.paths).toContain("/hbb/pong/pong.zip");
  });

  it("refuses a name that breaks the rule before anything is fetched for it", async () => {
    const store = await builtStore();
    const server = await v4Store(store, {}, (apps) => [
      ...apps,
      { ...apps[0], slug: "../evil" },
      { ...apps[0], slug: "with space" },
    ]);
    const imported = join(tempDir(), "catalogue");
    const report = await importFrom(server.url, imported);
    expect(report.summary?.skipped.map((s) => [s.name, s.reasons])).toEqual([
      ["../evil", [expect.stringMatching(/^its name "\.\.\/evil" cannot be a package name/)]],
      ["with space", [expect.stringMatching(/^its name "with space" cannot be a package name/)]],
    ]);
    expect(report.summary?.written).toHaveLength(3);
    expect(server.paths.filter((p) => p.endsWith(".zip"))).toHaveLength(3);
    expect(filesUnder(join(imported, ".."))).not.toContain("evil.zip");
    expect(filesUnder(imported).filter((f) => f.includes("evil") || f.includes("space"))).toEqual([]);
  });

  it("fails the whole import, writing nothing, when the contents are an HTML page or not a list", async () => {
    const store = await builtStore();
    for (const [contents, message] of [
      [
        { body: "<!doctype html><p>Maintenance", type: "text/html" },
        /api\/v4\/contents: the answer is an HTML page, not JSON$/,
      ],
      [{ body: { error: "nope" } }, /api\/v4\/contents: expected a list of apps, got an object$/],
      [{ status: 500, body: "{}" }, /api\/v4\/contents: answered 500 Internal Server Error, not 200$/],
    ] as const) {
      const server = await serveStore(store.dist, {
        "/api/v4/information": { body: store.information },
        "/api/v4/contents": contents,
      });
      const imported = join(tempDir(), "catalogue");
      await expect(importFrom(server.url, imported)).rejects.toThrow(FailureError);
      await expect(importFrom(server.url, imported)).rejects.toThrow(message);
      expect(existsSync(imported)).toBe(false);
    }
  });

  it("fails the whole import when the information does not answer in time", async () => {
    const store = await builtStore();
    const server = await serveStore(store.dist, { "/api/v4/information": "stall" });
    const imported = join(tempDir(), "catalogue");
    await expect(importFrom(server.url, imported, { timeoutSeconds: 1 })).rejects.toThrow(
      /api\/v4\/information: no complete answer within 1 s \(--timeout\)$/,
    );
    expect(existsSync(imported)).toBe(false);
  });
});

describe("import api: v4's own fields", () => {
  it("become the manifest's, each only where it is not what the manifest's default gives", () => {
    const app = (changes: Record<string, unknown>) => ({
      slug: "app",
      name: "App",
      author: "Ann",
      authors: ["Ann"],
      category: "games",
      contributors: [],
      description: { short: "S", long: "L" },
      downloads: 3,
      assets: { archive: { url: "https://files.example.org/app.zip", hash: "0".repeat(32), size: 10 } },
      flags: [],
      package_type: "dol",
      peripherals: ["wii_remote", "nunchuk"],
      release_date: 1300000000,
      supported_platforms: ["wii", "vwii"],
      uncompressed_size: 20,
      version: "1",
      ...changes,
    });
    const [plain, rich] = parseContents(
      [
        app({}),
        app({
          slug: "rich",
          authors: ["Ann", "Bo"],
          contributors: ["Cy", "Di"],
          // Not the table's order: kept, since the letters' default would reorder them.
          peripherals: ["nunchuk", "wii_remote", "wii_remote"],
          supported_platforms: ["wii"],
          flags: ["writes_to_nand"],
        }),
      ],
      "primary",
      "C",
      "v4",
    ).packages;
    expect(plain!.manifest).toEqual({
      category: "games",
      coder: "Ann",
      contributors: "",
      controllers: "wn",
      display_name: "App",
      internal_name: "app",
      long_description: "L",
      release_date: 1300000000,
      short_description: "S",
      updated: 1300000000,
      version: "1",
    });
    expect(plain!.archive).toEqual({ url: "https://files.example.org/app.zip", md5: "0".repeat(32), size: 10 });
    expect(plain!.stats).toEqual({ downloads: 3 });
    expect(rich!.manifest).toMatchObject({
      authors: ["Ann", "Bo"],
      contributors: "Cy, Di",
      controllers: "wwn",
      peripherals: ["nunchuk", "wii_remote", "wii_remote"],
      supported_platforms: ["wii"],
      flags: ["writes_to_nand"],
    });
  });

  it("an app without an archive URL, or with a size or hash that is none, is skipped with the reason", () => {
    const base = { slug: "a", name: "A", author: "B", category: "games", release_date: 1, version: "1" };
    const read = parseContents(
      [
        base,
        { ...base, assets: { archive: { url: "https://x.example/a.zip", size: -1 } } },
        { ...base, assets: { archive: { url: "https://x.example/a.zip", hash: "abc" } } },
        null,
        { name: "no slug" },
      ],
      "primary",
      "C",
      "v4",
    );
    expect(read.packages).toEqual([]);
    expect(read.skipped.map((s) => s.reasons[0])).toEqual([
      "it has no archive URL (assets.archive.url)",
      "its archive size (assets.archive.size) is -1, not a number of bytes",
      'its archive hash (assets.archive.hash) is "abc", not an MD5 in hex',
      "null, not an app object",
      "its slug is missing, not a string",
    ]);
  });
});

describe("import api: which API", () => {
  it("reads v3 when the server has no v4 (sizes, no hashes; peripherals by display name)", async () => {
    const store = await builtStore();
    const apps = store.apps.map((app) => {
      const {
        assets,
        authors: _authors,
        downloads: _downloads,
        uncompressed_size,
        peripherals,
        ...rest
      } = app as Record<string, unknown> & { assets: { archive: { url: string; size: number } } };
      return {
        ...rest,
        peripherals: (peripherals as string[]).map((p) => (p === "wii_remote" ? "Wii Remote" : "Nunchuk")),
        file_size: { binary: 1, icon: 1, zip_compressed: assets.archive.size, zip_uncompressed: uncompressed_size },
        url: { zip: assets.archive.url, icon: "" },
      };
    });
    const contents: { body: object } = { body: [] };
    // No /v1/hosts, as on the Open Shop Channel today, and no v4 (the build wrote one).
    const server = await serveStore(store.dist, {
      "/api/v4/information": NOT_FOUND,
      "/api/v3/information": { body: store.information },
      "/api/v3/contents": contents,
      "/v1/hosts": NOT_FOUND,
    });
    contents.body = apps.map((a) => ({ ...a, url: { zip: `${server.url}${a.url.zip}`, icon: "" } }));
    const source = await fetchApi({ baseUrl: server.url, concurrency: 2, timeoutSeconds: 5 });
    expect(server.paths.slice(0, 2)).toEqual(["/api/v4/information", "/api/v3/information"]);
    expect(
      source.packages.map((p) => [
        p.name,
        p.manifest.controllers,
        p.archive && "md5" in p.archive ? p.archive.md5 : undefined,
      ]),
    ).toEqual([
      ["pong", "w", undefined],
      ["snake", "wn", undefined],
      ["tetris", "w", undefined],
    ]);
    const imported = join(tempDir(), "catalogue");
    const report = await importApi({
      url: server.url,
      catalogueDir: imported,
      force: false,
      concurrency: 2,
      timeoutSeconds: 5,
    });
    expect(report.summary?.archives).toHaveLength(3);
    // The host as the information names it, on the URL's host name.
    expect(readJson(join(imported, "hosts.json"))).toEqual({
      default: "primary",
      hosts: [{ id: "primary", name: "Fixture", host: "127.0.0.1", description: "" }],
    });
    // The fixture's own warnings (pong has no icon; tetris's meta.xml words its description otherwise), no error.
    expect(report.validation?.problems.filter((p) => p.severity === "error")).toEqual([]);
    expect(report.validation?.valid).toMatchObject({ hosts: 1, packages: 3 });
  });

  it("the binary: imports a v4 store, with a summary, and --api v2 asks the first API only", async () => {
    const store = await builtStore();
    const server = await v4Store(store, {}, undefined, true);
    const cwd = tempDir();
    const run = await shopfrontAsync(cwd, ["import", "api", server.url]);
    expect(run.stderr).not.toMatch(/error/);
    expect(run.stdout).toContain("imported 3 packages into catalogue (3 archives fetched)");
    expect(run.code).toBe(0);
    const broken = await v4Store(store, { "/hbb/pong/pong.zip": NOT_FOUND });
    const refused = await shopfrontAsync(cwd, ["import", "api", broken.url, "--catalogue", "third"]);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain("imported 2 packages into third (2 archives fetched); skipped 1");
    expect(refused.stdout).toContain(
      `skipped primary/pong (${broken.url}/api/v4/contents [0]):\n  its archive ${broken.url}/hbb/pong/pong.zip answered 404 Not Found, not 200`,
    );
    const before = server.paths.length;
    const v2 = await shopfrontAsync(cwd, ["import", "api", server.url, "--api", "v2", "--catalogue", "other"]);
    expect(v2.stdout).toContain("imported 3 packages into other");
    expect(v2.stdout).not.toContain("archives fetched");
    // This plain file server has no v2 route: v1 answers, as for any such server.
    expect(server.paths.slice(before)).toEqual(["/v1/hosts", "/v2/primary/packages", "/v1/primary/packages"]);
  });
});

/** Every entry under `dir`, hidden ones and folders included, with each file's bytes: a tree to compare byte for byte. */
function snapshot(dir: string): Map<string, Buffer | "folder"> {
  return new Map(
    readdirSync(dir, { recursive: true, withFileTypes: true })
      .map((e) => [join(e.parentPath, e.name).slice(dir.length + 1), e] as const)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([path, e]) => [path, e.isDirectory() ? "folder" : readFileSync(join(dir, path))]),
  );
}

describe("import api: a failed import writes nothing", () => {
  it("leaves an existing catalogue byte for byte as it was when every archive fails, hosts.json and stats included", async () => {
    const store = await builtStore();
    // Every archive answers 404: nothing can be imported.
    const routes = Object.fromEntries(store.apps.map((a) => [`/hbb/${a.slug}/${a.slug}.zip`, NOT_FOUND]));
    const server = await v4Store(store, routes);
    // A catalogue with another host and its own stats, which the import would add a host to.
    const catalogue = join(tempDir(), "catalogue");
    fse.copySync(join(FIXTURES, "basic", "catalogue"), catalogue);
    fse.outputJsonSync(join(catalogue, "stats", "primary.json"), { packages: { snake: { downloads: 3 } } });
    const before = snapshot(catalogue);
    for (const force of [false, true]) {
      const report = await importApi({
        url: server.url,
        catalogueDir: catalogue,
        force,
        concurrency: 4,
        timeoutSeconds: 5,
        host: "imported",
      });
      expect(report.summary).toMatchObject({ written: [], archives: [], failed: true, hostsFile: "kept" });
      expect(report.summary!.skipped).toHaveLength(3);
      expect(report.validation).toBeUndefined();
      expect(snapshot(catalogue)).toEqual(before);
    }
  });

  it("does not make the catalogue folder, and says so with exit 1 (the binary)", async () => {
    const store = await builtStore();
    const routes = Object.fromEntries(store.apps.map((a) => [`/hbb/${a.slug}/${a.slug}.zip`, NOT_FOUND]));
    const server = await v4Store(store, routes);
    const root = tempDir();
    const run = await shopfrontAsync(root, ["import", "api", server.url, "--catalogue", "new/catalogue"]);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^imported 0 packages into new\/catalogue; skipped 3\n/);
    expect(run.stdout).toMatch(
      /\nnothing was written: no package could be imported, and new\/catalogue is as it was\n$/,
    );
    expect(readdirSync(root)).toEqual([]);
  });

  it("an import that succeeds leaves no staging folder behind", async () => {
    const store = await builtStore();
    const server = await v4Store(store);
    const catalogue = join(tempDir(), "catalogue");
    const report = await importFrom(server.url, catalogue);
    expect(report.summary).toMatchObject({ failed: false, skipped: [] });
    expect(readdirSync(catalogue).sort()).toEqual(["hosts.json", "primary", "stats"]);
  });
});

describe("import api from a serve --watch preview", () => {
  it("round-trips byte for byte: the preview's v4 URLs name the address it serves at", async () => {
    const root = tempDir();
    const catalogue = join(root, "catalogue");
    fse.copySync(join(FIXTURES, "package-files", "catalogue"), catalogue);
    const dist = join(root, "dist");
    // No base URL given: the fixture's hosts.json names hbb.example.org, which a client cannot reach.
    const handle = await watchCatalogue({
      catalogueDir: catalogue,
      outDir: dist,
      host: "127.0.0.1",
      port: 0,
      onEvent: () => {},
    });
    closers.push(() => handle.close());
    const contents = readJson(join(dist, "api", "v4", "contents")) as { assets: { archive: { url: string } } }[];
    for (const app of contents) expect(app.assets.archive.url.startsWith(`${handle.url}/`)).toBe(true);

    const imported = join(root, "imported");
    const report = await importFrom(handle.url, imported);
    expect(report.summary).toMatchObject({
      archives: ["primary/pong.zip", "primary/snake.zip", "primary/tetris.zip"],
      skipped: [],
      failed: false,
    });
    // Each archive is the preview's, byte for byte; built at the same base URL, the import gives the same output.
    for (const name of ["pong", "snake", "tetris"])
      expect(readFileSync(join(imported, "primary", `${name}.zip`)), name).toEqual(
        readFileSync(join(dist, "hbb", name, `${name}.zip`)),
      );
    const again = join(root, "again");
    const rebuilt = await buildCatalogue({ catalogueDir: imported, outDir: again, baseUrl: handle.url });
    expect(rebuilt.problems.filter((p) => p.severity === "error")).toEqual([]);
    const before = readTree(dist);
    const after = readTree(again);
    expect([...after.keys()]).toEqual([...before.keys()]);
    for (const [path, bytes] of before) expect(after.get(path), path).toEqual(bytes);
  });

  it("names a configured base URL instead, and the address an every-address listen is reached at", async () => {
    const root = tempDir();
    const catalogue = join(root, "catalogue");
    fse.copySync(join(FIXTURES, "package-files", "catalogue"), catalogue);
    const dist = join(root, "dist");
    const handle = await watchCatalogue({
      catalogueDir: catalogue,
      outDir: dist,
      host: "127.0.0.1",
      port: 0,
      baseUrl: "http://store.example.net",
      onEvent: () => {},
    });
    closers.push(() => handle.close());
    const contents = readJson(join(dist, "api", "v4", "contents")) as { assets: { archive: { url: string } } }[];
    expect(contents.map((app) => app.assets.archive.url.split("/hbb/")[0])).toEqual(
      contents.map(() => "http://store.example.net"),
    );
    expect(previewOrigin("http://0.0.0.0:8080")).toBe("http://127.0.0.1:8080");
    expect(previewOrigin("http://[::]:8080")).toBe("http://[::1]:8080");
    expect(previewOrigin("http://127.0.0.1:43210")).toBe("http://127.0.0.1:43210");
  });
});
