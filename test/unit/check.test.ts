// shopfront check against deployments that are not what the catalogue builds to: one that cannot
// be reached, one of an older build of the catalogue, and one whose routes are broken.
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { createServer as createHttpServer, type Server } from "node:http";
import { createServer, type AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildCatalogue } from "../../src/build/buildCatalogue.js";
import { checkDeployment } from "../../src/check/checkDeployment.js";
import { formatCheckReport } from "../../src/cli/formatCheck.js";
import { servePreview, type PreviewServer } from "../../src/serve/servePreview.js";
import { BIN, copyFixture, manifest, shopfrontAsync, writeFiles } from "../support/helpers.js";

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
    // The changed package and the lists it is in differ; the added package's file and page are missing.
    expect(report!.older).toMatchObject({ missing: 2 });
    expect(report!.older!.different).toBeGreaterThanOrEqual(2);
    const lines = formatCheckReport(report!);
    expect(lines.at(-1)).toMatch(
      /^hint: the deployment is likely older than the catalogue \(\d+ files of the build served with another body, 2 files missing where others of their route are served\): build and deploy again, or check against the catalogue it was built from$/,
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
