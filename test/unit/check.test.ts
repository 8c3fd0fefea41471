// shopfront check against deployments that are not what the catalogue builds to: one that cannot
// be reached, one of an older build of the catalogue, and one whose routes are broken.
import { spawnSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer as createHttpServer, request as httpRequest, type Server } from "node:http";
import { createServer, type AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildCatalogue } from "../../src/engine/buildCatalogue.js";
import { checkDeployment } from "../../src/check/checkDeployment.js";
import { CHECK_USER_AGENT } from "../../src/check/runConformance.js";
import { formatCheckReport } from "../../src/cli/formatCheck.js";
import { countLogs } from "../../src/stats/countLogs.js";
import { servePreview, type PreviewServer } from "../../src/serve/servePreview.js";
import { BIN, copyFixture, manifest, shopfrontAsync, tempDir, writeFiles } from "../support/helpers.js";

/**
 * An address where nothing listens, held so for the test: a server listens on 127.0.0.1 at a port the
 * system picks, and the address is 127.0.0.2 at that port, which no other process of the tests binds
 * (they listen on 127.0.0.1; a port freed and handed back could be taken by another in between).
 */
async function closedAddress(): Promise<{ host: string; port: number; release: () => Promise<unknown> }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { host: "127.0.0.2", port, release: () => new Promise((resolve) => server.close(resolve)) };
}

/** A project: the basic fixture as catalogue/, built into dist/. */
async function project(): Promise<{ cwd: string; catalogue: string; dist: string }> {
  const catalogue = copyFixture("basic");
  const cwd = join(catalogue, "..");
  const dist = join(cwd, "dist");
  const result = await buildCatalogue({ catalogueDir: catalogue, outDir: dist });
  if (!result.built) throw new Error(`the fixture did not build: ${JSON.stringify(result.problems)}`);
  return { cwd, catalogue, dist };
}

describe("check against a server that cannot be reached", () => {
  it("stops after one request with one line naming the URL and why, exit 1", async () => {
    const { cwd } = await project();
    const { host, port, release } = await closedAddress();
    const url = `http://${host}:${port}/`;
    try {
      expect(spawnSync(process.execPath, [BIN, "check", url], { cwd, encoding: "utf8" })).toMatchObject({
        status: 1,
        stdout: "",
        stderr: `error: cannot reach ${url}: connection refused: nothing listens on ${host}:${port}\n`,
      });
    } finally {
      await release();
    }
  });

  it("says when the host name does not resolve", async () => {
    const catalogue = copyFixture("basic");
    await expect(
      checkDeployment({ baseUrl: "http://shopfront-test.invalid/api", catalogueDir: catalogue }),
    ).rejects.toThrow(
      /^cannot reach http:\/\/shopfront-test\.invalid\/api: the host name shopfront-test\.invalid (was not found|could not be looked up) \(DNS\)/,
    );
  });
});

describe("check against a deployment of an older build", () => {
  let p: Awaited<ReturnType<typeof project>>;
  let server: PreviewServer;
  beforeAll(async () => {
    p = await project();
    server = await servePreview({ dir: p.dist, host: "127.0.0.1", port: 0 });
  });
  afterAll(() => server?.close());

  it("passes, with no hint, against the build of the same catalogue", async () => {
    const { report } = await checkDeployment({ baseUrl: server.url, catalogueDir: p.catalogue });
    expect(report).toMatchObject({ ok: true });
    expect(report!.older).toBeUndefined();
  });

  it("says the deployment is likely older than the catalogue once the catalogue moved on", async () => {
    // The catalogue moves on: a package changes and one is added; the server keeps the old build.
    const catalogue = copyFixture("basic");
    writeFiles(catalogue, {
      "primary/snake.json": {
        ...JSON.parse(readFileSync(join(p.catalogue, "primary/snake.json"), "utf8")),
        version: "9",
      },
      "primary/added.json": manifest("added", { category: "games", coder: "Fixture Coder" }),
    });
    const { problems, report } = await checkDeployment({ baseUrl: server.url, catalogueDir: catalogue });
    expect(problems).toEqual([]);
    expect(report!.ok).toBe(false);
    // The changed package and the lists it is in differ; the added package's file and page are
    // missing, and so is its host's new search shard (a shard is named by its content's hash).
    expect(report!.older).toMatchObject({ missing: 3 });
    expect(report!.older!.different).toBeGreaterThanOrEqual(2);
    const lines = formatCheckReport(report!);
    expect(lines.at(-1)).toMatch(
      /^hint: the deployment is likely older than the catalogue \(\d+ files of the build served with another body, 3 files missing where others of their route are served\): build and deploy again, or check against the catalogue it was built from$/,
    );

    const run = await shopfrontAsync(join(catalogue, ".."), ["check", server.url]);
    expect(run.code).toBe(1);
    expect(run.stdout.trimEnd().split("\n").at(-1)).toBe(lines.at(-1));
  });
});

describe("check against a server whose routes are broken", () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    const p = await project();
    const hosts = readFileSync(join(p.dist, "v1/hosts"));
    // Answers the host list, and 404 to everything else: a server without the API's rewrite rules.
    server = createHttpServer((req, res) => {
      res.setHeader("Content-Type", "application/json");
      res.setHeader("Access-Control-Allow-Origin", "*");
      if (req.url === "/v1/hosts") res.end(hosts);
      else {
        res.statusCode = 404;
        res.end('{"error":"not_found","message":"no such file"}');
      }
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server?.close(resolve)));

  it("fails without the hint about an older deployment", async () => {
    const { report } = await checkDeployment({ baseUrl: url, catalogueDir: copyFixture("basic") });
    expect(report!.ok).toBe(false);
    expect(report!.older).toBeUndefined();
  });
});

describe("check against a deployment of a catalogue with package files", () => {
  let p: { catalogue: string; dist: string };
  let server: PreviewServer;
  beforeAll(async () => {
    // Folders (snake, tetris) zipped by the build and a zip kept as it is (pong).
    const catalogue = copyFixture("package-files");
    p = { catalogue, dist: join(catalogue, "..", "dist") };
    const result = await buildCatalogue({ catalogueDir: p.catalogue, outDir: p.dist });
    if (!result.built) throw new Error(`the fixture did not build: ${JSON.stringify(result.problems)}`);
    server = await servePreview({ dir: p.dist, host: "127.0.0.1", port: 0 });
  });
  afterAll(() => server?.close());

  it("compares every file URL with the bytes the build makes of the package files, and passes against that build", async () => {
    const { report } = await checkDeployment({ baseUrl: server.url, catalogueDir: p.catalogue });
    expect(report).toMatchObject({ ok: true });
    // 3 packages x 4 stored files, GET and HEAD, and the aliases of each archive (3) and icon (4).
    expect(report!.rows.find((r) => r.row === "package-files")!.checked).toBeGreaterThanOrEqual(3 * (4 * 2 + 3 + 4));
  });

  it("reports a zip served with other bytes at its URL", async () => {
    const zip = join(p.dist, "hbb/pong/pong.zip");
    const bytes = readFileSync(zip);
    const wrong = Buffer.from(bytes);
    const at = wrong.length - 30;
    wrong.writeUInt8(wrong.readUInt8(at) ^ 0xff, at);
    writeFileSync(zip, wrong);
    try {
      const { report } = await checkDeployment({ baseUrl: server.url, catalogueDir: p.catalogue, concurrency: 1 });
      expect(report!.ok).toBe(false);
      const failed = report!.rows.filter((r) => r.outcome === "fail");
      expect(failed.map((r) => r.row)).toEqual(["package-files"]);
      // The stored URL and its three aliases (api, api/v3, api/v4), the first one reported.
      expect(failed[0]).toMatchObject({ failures: 4, first: { method: "GET", target: "/hbb/pong/pong.zip" } });
      expect(formatCheckReport(report!).join("\n")).toMatch(
        /FAIL 4 of \d+, first: GET \/hbb\/pong\/pong\.zip: body .* is not hbb\/pong\/pong\.zip/,
      );
    } finally {
      writeFileSync(zip, bytes);
    }
  });
});

/**
 * A server in front of `upstream` that writes each request it passes on to `lines` as nginx's
 * combined log format would (address, time, request line, status, bytes, referer, user agent).
 */
async function loggingProxy(upstream: string, lines: string[]): Promise<{ url: string; close: () => Promise<void> }> {
  const target = new URL(upstream);
  const proxy = createHttpServer((req, res) => {
    const forward = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: req.headers,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        let bytes = 0;
        answer.on("data", (chunk: Buffer) => (bytes += chunk.length));
        answer.pipe(res);
        answer.on("end", () => {
          const agent = JSON.stringify(String(req.headers["user-agent"] ?? "-"));
          lines.push(
            `127.0.0.1 - - [23/Nov/2026:21:00:00 +0000] "${req.method} ${req.url} HTTP/1.1" ${answer.statusCode} ${bytes} "-" ${agent}`,
          );
        });
      },
    );
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        proxy.close(() => resolve());
        proxy.closeAllConnections();
      }),
  };
}

describe("check against a build made with a base URL", () => {
  const BASE = "http://store.example.net:8080";
  let p: { cwd: string; catalogue: string; dist: string };
  let server: PreviewServer;
  beforeAll(async () => {
    const catalogue = copyFixture("package-files");
    p = { cwd: join(catalogue, ".."), catalogue, dist: join(catalogue, "..", "dist") };
    const result = await buildCatalogue({ catalogueDir: p.catalogue, outDir: p.dist, baseUrl: BASE });
    if (!result.built) throw new Error(`the fixture did not build: ${JSON.stringify(result.problems)}`);
    server = await servePreview({ dir: p.dist, host: "127.0.0.1", port: 0 });
  });
  afterAll(() => server?.close());

  it("passes when given the base URL the build was made with", async () => {
    const { report } = await checkDeployment({ baseUrl: server.url, catalogueDir: p.catalogue, builtBaseUrl: BASE });
    expect(report!.rows.filter((r) => r.outcome !== "pass")).toEqual([]);
    expect(report).toMatchObject({ ok: true });
  });

  it("without it, names the base URL as the cause and what to pass, not an older deployment", async () => {
    const { report } = await checkDeployment({ baseUrl: server.url, catalogueDir: p.catalogue });
    expect(report!.ok).toBe(false);
    expect(report!.older).toBeUndefined();
    expect(report!.baseUrl).toMatchObject({ expected: "http://hbb.example.org", served: BASE });
    // The v3 and v4 files name the package files at the base URL, and the site's feeds every URL.
    expect(report!.rows.filter((r) => r.outcome === "fail").map((r) => r.row)).toEqual([
      "today-v4",
      "today-v3",
      "site",
    ]);
    const lines = formatCheckReport(report!);
    expect(lines.join("\n")).toMatch(
      /body is (hosts\/primary\/)?api\/v[34]\/\S+ with its URLs at http:\/\/store\.example\.net:8080, not at http:\/\/hbb\.example\.org/,
    );
    expect(lines.at(-1)).toMatch(
      /^hint: the base URL differs: \d+ v3\/v4 or feed files of the deployment name http:\/\/store\.example\.net:8080 where this check expects http:\/\/hbb\.example\.org; if it was built so, check with --base-url http:\/\/store\.example\.net:8080 /,
    );
  });

  it("names only the base URL for a build of another base URL and another day, whose featured app differs too", async () => {
    // A day whose featured app is not today's: the check expects today's.
    const today = Math.floor(Date.now() / 86_400_000);
    const featured = (dist: string) => readFileSync(join(dist, "api", "v4", "featured-app"), "utf8");
    const todays = join(tempDir(), "today");
    await buildCatalogue({ catalogueDir: p.catalogue, outDir: todays, baseUrl: BASE, featuredDay: today });
    let day = today + 1;
    const dist = join(tempDir(), "dist");
    for (; day < today + 60; day++) {
      await buildCatalogue({ catalogueDir: p.catalogue, outDir: dist, baseUrl: BASE, featuredDay: day, force: true });
      if (featured(dist) !== featured(todays)) break;
    }
    expect(featured(dist)).not.toBe(featured(todays));
    const other = await servePreview({ dir: dist, host: "127.0.0.1", port: 0 });
    try {
      const { report } = await checkDeployment({ baseUrl: other.url, catalogueDir: p.catalogue });
      expect(report!.ok).toBe(false);
      expect(report!.older).toBeUndefined();
      expect(report!.baseUrl).toMatchObject({ expected: "http://hbb.example.org", served: BASE });
      expect(formatCheckReport(report!).join("\n")).not.toMatch(/older than the catalogue/);
    } finally {
      await other.close();
    }
  });

  it("the binary reads baseUrl from shopfront.json, and judges a server on this machine by --target only", async () => {
    // The project deploys to GitHub Pages; a preview on 127.0.0.1 is not GitHub Pages.
    writeFileSync(
      join(p.cwd, "shopfront.json"),
      JSON.stringify({ catalogue: "catalogue", baseUrl: BASE, targets: ["github-pages"] }),
    );
    try {
      const run = await shopfrontAsync(p.cwd, ["check", server.url]);
      expect(run.code).toBe(0);
      expect(run.stdout).not.toMatch(/cannot on/);
      const pages = await shopfrontAsync(p.cwd, ["check", server.url, "--target", "github-pages"]);
      expect(pages.stdout).toMatch(/cannot on GitHub Pages/);
      const other = await shopfrontAsync(p.cwd, ["check", server.url, "--base-url", "http://hbb.example.org"]);
      expect(other.code).toBe(1);
      expect(other.stdout).toMatch(/hint: the base URL differs/);
      expect(other.stdout).not.toMatch(/older than the catalogue/);
    } finally {
      rmSync(join(p.cwd, "shopfront.json"));
    }
  });

  it("three runs add no download to stats count: check names itself, and its User-Agent is left out", async () => {
    const lines: string[] = [];
    const proxy = await loggingProxy(server.url, lines);
    try {
      for (let run = 0; run < 3; run++) {
        const { report } = await checkDeployment({ baseUrl: proxy.url, catalogueDir: p.catalogue, builtBaseUrl: BASE });
        expect(report!.ok).toBe(true);
      }
    } finally {
      await proxy.close();
    }
    const archiveGets = lines.filter((line) => /"GET \/(?:api\/(?:v[34]\/)?contents|hbb)\/(\w+)\/\1\.zip /.test(line));
    // Each of 3 archives at its 4 URLs, three times, every one named shopfront-check/<version>.
    expect(archiveGets.length).toBeGreaterThanOrEqual(3 * 4 * 3);
    expect(archiveGets.every((line) => line.endsWith(`"${CHECK_USER_AGENT}"`))).toBe(true);
    const count = async (name: string, text: string) => {
      const log = join(p.cwd, name);
      writeFileSync(log, text);
      const { problems, summary } = await countLogs({
        catalogueDir: p.catalogue,
        host: "primary",
        urlPatterns: [],
        logs: [log],
        format: "auto",
        replace: false,
      });
      expect(problems).toEqual([]);
      return summary!;
    };
    const served = archiveGets.filter((line) => / 200 \d+ "-" /.test(line)).length;
    expect(served).toBe(3 * 4 * 3);
    expect(await count("access.log", `${lines.join("\n")}\n`)).toMatchObject({
      downloads: 0,
      bad: 0,
      skipped: { checker: served },
    });
    // The same requests from a client that does not name itself as a checker are downloads.
    const asCurl = lines.map((line) => line.replace(`"${CHECK_USER_AGENT}"`, '"curl/8.5.0"'));
    expect(await count("curl.log", `${asCurl.join("\n")}\n`)).toMatchObject({ downloads: served });
  });
});
