// shopfront deploy against a real S3-compatible server (s3rver) on 127.0.0.1, started here and
// stopped after: what is uploaded, with which headers, in which order, what is left alone, what
// is deleted, and what a failure leaves behind. Each test deploys under its own prefix.
import { spawn } from "node:child_process";
import { readFileSync, rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import {
  GetObjectCommand,
  HeadObjectCommand,
  paginateListObjectsV2,
  PutObjectCommand,
  type S3Client,
} from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildCatalogue } from "../src/build/buildCatalogue.js";
import { deployToS3, type DeployOptions } from "../src/deploy/deployToS3.js";
import { DEFAULT_CACHE_CONTROL, STATE_FILE } from "../src/deploy/planDeploy.js";
import { UsageError } from "../src/util/errors.js";
import { copyFixture, manifest, readTree, ROOT, tempDir, writeFiles } from "./helpers.js";
import { S3_ENV, startFaultProxy, startS3Store, storeClient, TEST_BUCKET, type S3Store } from "./servers/s3.js";

const BIN = join(ROOT, "lib", "cli.js");

/** A project: a copy of the basic fixture, built into dist. */
async function project(): Promise<{ catalogue: string; dist: string }> {
  const catalogue = copyFixture("basic");
  const dist = join(catalogue, "..", "dist");
  await rebuild({ catalogue, dist });
  return { catalogue, dist };
}

async function rebuild(p: { catalogue: string; dist: string }): Promise<void> {
  const result = await buildCatalogue({ catalogueDir: p.catalogue, outDir: p.dist });
  if (!result.built) throw new Error(`the fixture did not build: ${JSON.stringify(result.problems)}`);
}

async function listKeys(client: S3Client, prefix?: string): Promise<string[]> {
  const keys: string[] = [];
  for await (const page of paginateListObjectsV2(
    { client },
    { Bucket: TEST_BUCKET, ...(prefix ? { Prefix: prefix } : {}) },
  )) {
    for (const o of page.Contents ?? []) keys.push(o.Key!);
  }
  return keys.sort();
}

const uploadedPaths = (result: Awaited<ReturnType<typeof deployToS3>>) => result.plan.phases.flat().map((u) => u.path);

/** Runs the compiled CLI without blocking this process, which serves the proxy. */
function shopfront(
  cwd: string,
  args: string[],
  env: Record<string, string | undefined> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    // A variable given as undefined is left out of the child's environment.
    const childEnv = Object.fromEntries(
      Object.entries({ ...process.env, ...S3_ENV, NO_COLOR: "1", ...env }).filter(([, value]) => value !== undefined),
    );
    const child = spawn(process.execPath, [BIN, ...args], { cwd, env: childEnv });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}

// The standard AWS chain reads the credentials and the region from the environment.
beforeAll(() => {
  Object.assign(process.env, S3_ENV);
});

describe("shopfront deploy to a local S3 server", () => {
  let store: S3Store;
  let client: S3Client;
  const deploy = (options: DeployOptions) => deployToS3({ endpoint: store.url, ...options });

  beforeAll(async () => {
    store = await startS3Store();
    client = storeClient(store.url);
  });
  afterAll(async () => {
    client?.destroy();
    await store?.stop();
  });

  describe("one project, deploy after deploy", () => {
    let p: { catalogue: string; dist: string };
    const url = `s3://${TEST_BUCKET}/site`;
    beforeAll(async () => {
      p = await project();
      // What `build --target github-pages` adds: files only other hosts read.
      writeFiles(p.dist, { ".nojekyll": "", "404.html": "<h1>Not found</h1>\n" });
    });

    it("first uploads every API file with Content-Type and Cache-Control: packages first, then lists, then the host list", async () => {
      const proxy = await startFaultProxy(store.url);
      const result = await deploy({ url, dir: p.dist, endpoint: proxy.url });
      await proxy.close();

      expect(result).toMatchObject({ uploaded: 9, deleted: 0, retries: 0 });
      expect(result.plan.skipped).toEqual([".nojekyll", "404.html"]);
      const puts = proxy.requests.filter((r) => r.method === "PUT").map((r) => r.key.replace(/^site\//, ""));
      const phase = (path: string) =>
        path === "v1/hosts" ? 2 : path.endsWith("/packages") ? 1 : path === STATE_FILE ? 3 : 0;
      expect(puts).toHaveLength(10);
      expect(puts.map(phase)).toEqual([...puts.map(phase)].sort());
      expect(puts.at(-2)).toBe("v1/hosts");
      expect(puts.at(-1)).toBe(STATE_FILE);

      const built = readTree(p.dist);
      const keys = await listKeys(client, "site/");
      expect(keys).toEqual(
        [...[...built.keys()].filter((k) => !["404.html", ".nojekyll"].includes(k)), STATE_FILE]
          .map((k) => `site/${k}`)
          .sort(),
      );
      for (const [path, bytes] of built) {
        if (path === ".nojekyll" || path === "404.html") continue;
        const head = await client.send(new HeadObjectCommand({ Bucket: TEST_BUCKET, Key: `site/${path}` }));
        expect({ path, type: head.ContentType, cache: head.CacheControl }).toEqual({
          path,
          type: "application/json",
          cache: DEFAULT_CACHE_CONTROL,
        });
        const got = await client.send(new GetObjectCommand({ Bucket: TEST_BUCKET, Key: `site/${path}` }));
        expect(Buffer.from(await got.Body!.transformToByteArray())).toEqual(bytes);
      }
    });

    it("uploads nothing, and writes nothing, for the same build again", async () => {
      const proxy = await startFaultProxy(store.url);
      const result = await deploy({ url, dir: p.dist, endpoint: proxy.url });
      await proxy.close();
      expect(result).toMatchObject({ uploaded: 0, bytes: 0, deleted: 0 });
      expect(result.plan.unchanged).toHaveLength(9);
      expect(proxy.requests.filter((r) => r.method !== "GET" && r.method !== "HEAD")).toEqual([]);
    });

    it("uploads only the package file and its list after one manifest changes", async () => {
      writeFiles(p.catalogue, { "primary/snake.json": manifest("snake", { version: "1.1" }) });
      await rebuild(p);
      const result = await deploy({ url, dir: p.dist });
      expect(result.plan.phases.flat().map((u) => [u.path, u.reason])).toEqual([
        ["v1/primary/package/snake", "content"],
        ["v1/primary/packages", "content"],
      ]);
      expect(result.uploaded).toBe(2);
      const got = await client.send(
        new GetObjectCommand({ Bucket: TEST_BUCKET, Key: "site/v1/primary/package/snake" }),
      );
      expect(JSON.parse(await got.Body!.transformToString())).toMatchObject({ version: "1.1" });
    });

    it("uploads an object that another tool rewrote with the same bytes and another Content-Type", async () => {
      const key = "site/v1/hosts";
      // The store dates objects to the second: the rewrite must be a second later than the record.
      await new Promise((resolve) => setTimeout(resolve, 1100 - (Date.now() % 1000)));
      const body = readFileSync(join(p.dist, "v1/hosts"));
      await client.send(
        new PutObjectCommand({ Bucket: TEST_BUCKET, Key: key, Body: body, ContentType: "binary/octet-stream" }),
      );
      const result = await deploy({ url, dir: p.dist });
      expect(result.plan.phases.flat().map((u) => [u.path, u.reason])).toEqual([["v1/hosts", "unrecorded"]]);
      expect((await client.send(new HeadObjectCommand({ Bucket: TEST_BUCKET, Key: key }))).ContentType).toBe(
        "application/json",
      );
    });

    it("--delete removes a removed package, and nothing outside the prefix", async () => {
      const outside = ["site-old/v1/hosts", "sitev1/hosts", "other/site/v1/hosts", "v1/hosts", "keep.txt"];
      for (const key of outside)
        await client.send(new PutObjectCommand({ Bucket: TEST_BUCKET, Key: key, Body: "not the deploy's" }));
      rmSync(join(p.catalogue, "primary", "ZapShot.json"));
      await rebuild(p);
      const removed = "site/v1/primary/package/ZapShot";

      const kept = await deploy({ url, dir: p.dist });
      expect(kept.plan).toMatchObject({ deletions: [], kept: [removed] });
      expect(uploadedPaths(kept)).toEqual(["v1/primary/packages"]);
      expect(await listKeys(client, removed)).toEqual([removed]);

      const dryRun = await deploy({ url, dir: p.dist, delete: true, dryRun: true });
      expect(dryRun).toMatchObject({ dryRun: true, deleted: 0, plan: { deletions: [removed] } });
      expect(await listKeys(client, removed)).toEqual([removed]);

      const deleted = await deploy({ url, dir: p.dist, delete: true });
      expect(deleted).toMatchObject({ uploaded: 0, deleted: 1 });
      const all = await listKeys(client);
      expect(all).not.toContain(removed);
      expect(all).toEqual(expect.arrayContaining([...outside, `site/${STATE_FILE}`, "site/v1/primary/package/snake"]));
    });

    it("uploads everything again when --cache-control changes, and then nothing", async () => {
      const cacheControl = "public, max-age=60";
      const result = await deploy({ url, dir: p.dist, cacheControl });
      // Every API file of the build: 9 less ZapShot, removed above.
      expect(result).toMatchObject({ uploaded: 8, plan: { unchanged: [] } });
      expect(new Set(result.plan.phases.flat().map((u) => u.reason))).toEqual(new Set(["metadata"]));
      const head = await client.send(new HeadObjectCommand({ Bucket: TEST_BUCKET, Key: "site/v1/hosts" }));
      expect(head.CacheControl).toBe(cacheControl);
      expect((await deploy({ url, dir: p.dist, cacheControl })).uploaded).toBe(0);
    });
  });

  it("--dry-run changes nothing", async () => {
    const p = await project();
    const result = await deploy({ url: `s3://${TEST_BUCKET}/dry`, dir: p.dist, dryRun: true });
    expect(result).toMatchObject({ dryRun: true, uploaded: 0 });
    expect(result.plan.phases.flat()).toHaveLength(9);
    expect(await listKeys(client, "dry/")).toEqual([]);
  });

  it("follows continuation tokens past 1,000 keys: a second deploy finds every object, --delete finds the last", async () => {
    const catalogue = join(tempDir(), "catalogue");
    const names = Array.from({ length: 1050 }, (_, i) => `pkg${String(i).padStart(4, "0")}`);
    writeFiles(catalogue, {
      "hosts.json": {
        default: "primary",
        hosts: [{ id: "primary", name: "Many", host: "many.example.org", description: "More than a page of keys." }],
      },
      ...Object.fromEntries(names.map((name) => [`primary/${name}.json`, manifest(name)])),
    });
    const p = { catalogue, dist: join(catalogue, "..", "dist") };
    await rebuild(p);
    const url = `s3://${TEST_BUCKET}/many`;

    expect((await deploy({ url, dir: p.dist })).uploaded).toBe(1053);
    const again = await deploy({ url, dir: p.dist });
    expect(again.uploaded).toBe(0);
    expect(again.plan.unchanged).toHaveLength(1053);

    rmSync(join(catalogue, "primary", "pkg1049.json"));
    await rebuild(p);
    const deleted = await deploy({ url, dir: p.dist, delete: true });
    expect(deleted.plan.deletions).toEqual(["many/v1/primary/package/pkg1049"]);
    expect(deleted).toMatchObject({ uploaded: 1, deleted: 1 });
  });

  it("retries throttling and 5xx answers with backoff, and completes", async () => {
    const p = await project();
    const proxy = await startFaultProxy(store.url, (req, n) => {
      if (req.method === "GET" && n === 1) return { status: 503, code: "SlowDown" };
      if (req.method === "PUT" && n === 1) return { status: 503, code: "SlowDown" };
      if (req.method === "PUT" && n === 2) return { status: 500, code: "InternalError" };
      return undefined;
    });
    const result = await deploy({ url: `s3://${TEST_BUCKET}/retried`, dir: p.dist, endpoint: proxy.url });
    await proxy.close();
    expect(result).toMatchObject({ uploaded: 9, retries: 3 });
    expect(await listKeys(client, "retried/")).toHaveLength(10);
  });
});

describe("shopfront deploy refuses bad input before it sends anything", () => {
  // Nothing listens on the discard port: a request would fail with a FailureError, not these.
  const nowhere = "http://127.0.0.1:9";
  let dist: string;
  beforeAll(async () => {
    dist = (await project()).dist;
  });

  it.each([
    [{ endpoint: "ftp://127.0.0.1" }, "--endpoint ftp://127.0.0.1: expected an http or https URL"],
    [{ endpoint: "127.0.0.1:9000" }, '--endpoint "127.0.0.1:9000" is not a URL'],
    [{ endpoint: "http://key:secret@127.0.0.1:9000" }, "without credentials, query or fragment"],
    [{ endpoint: "not a url" }, '--endpoint "not a url" is not a URL'],
    [{ cacheControl: "max-age=60\r\nX-Evil: 1" }, "--cache-control"],
    [{ cacheControl: " " }, "--cache-control"],
  ])("%o", async (options, message) => {
    const run = deployToS3({ url: `s3://${TEST_BUCKET}/x`, dir: dist, endpoint: nowhere, ...options });
    await expect(run).rejects.toThrow(UsageError);
    await expect(run).rejects.toThrow(message);
  });

  it("a folder that is no build, or holds a link", async () => {
    const dir = tempDir();
    const deploy = (folder: string) => deployToS3({ url: `s3://${TEST_BUCKET}/x`, dir: folder, endpoint: nowhere });
    await expect(deploy(join(dir, "missing"))).rejects.toThrow(
      `${join(dir, "missing")} does not exist; run shopfront build first`,
    );
    await expect(deploy(dir)).rejects.toThrow("is not a built API (it has no v1/hosts)");
    const linked = (await project()).dist;
    symlinkSync("/etc/passwd", join(linked, "v1", "passwd"));
    await expect(deploy(linked)).rejects.toThrow(`${linked}: v1/passwd is not a regular file`);
  });
});

describe("shopfront deploy (the binary)", () => {
  let store: S3Store;
  beforeAll(async () => {
    store = await startS3Store();
  });
  afterAll(() => store?.stop());

  it("deploys with a summary and the CloudFront steps; --dry-run prints the plan", async () => {
    const p = await project();
    const cwd = join(p.dist, "..");
    const url = `s3://${TEST_BUCKET}/cli`;

    const dry = await shopfront(cwd, ["deploy", url, "--endpoint", store.url, "--dry-run"]);
    expect(dry).toMatchObject({ code: 0, stderr: "" });
    expect(dry.stdout.split("\n")).toEqual([
      "package files and the 404 body:",
      ...[
        "404.json",
        "v1/primary/package/240pTest",
        "v1/primary/package/ZapShot",
        "v1/primary/package/snake",
        "v1/primary/package/snake-deluxe",
        "v1/themes/package/dark-blue",
      ].map((path) => `  upload cli/${path} (not in the bucket)`),
      "package lists:",
      "  upload cli/v1/primary/packages (not in the bucket)",
      "  upload cli/v1/themes/packages (not in the bucket)",
      "host list:",
      "  upload cli/v1/hosts (not in the bucket)",
      expect.stringMatching(
        /^dry run of dist to s3:\/\/shopfront-test\/cli: would upload 9 \(\d+\.\d kB\), leave 0 unchanged, delete 0; nothing was changed$/,
      ),
      "",
    ]);

    const run = await shopfront(cwd, ["deploy", url, "--endpoint", store.url]);
    expect(run).toMatchObject({ code: 0, stderr: "" });
    expect(run.stdout).toMatch(
      /^deployed dist to s3:\/\/shopfront-test\/cli: 9 uploaded \(\d+\.\d kB\), 0 unchanged, 0 deleted in \d+\.\d s\n\n/,
    );
    expect(run.stdout).toContain("`shopfront config cloudfront --out cloudfront/`");
    expect(run.stdout).toContain("event type viewer-request");
    expect(run.stdout).toContain(
      "custom error responses for 403 and 404, each with response page path /404.json and response code 404",
    );
  });

  it("exits 2 on a bad bucket, prefix or folder, before sending anything", async () => {
    const cwd = tempDir();
    expect(await shopfront(cwd, ["deploy", "s3://Bad_Bucket"])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('the bucket name "Bad_Bucket" is not valid'),
    });
    expect(await shopfront(cwd, ["deploy", `s3://${TEST_BUCKET}/a/../b`])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('has a ".." segment'),
    });
    expect(await shopfront(cwd, ["deploy", `s3://${TEST_BUCKET}`, "--endpoint", store.url])).toMatchObject({
      code: 2,
      stderr: "error: dist does not exist; run shopfront build first\n",
    });
  });

  it("exits 2 without a region and 1 without credentials, saying where they come from", async () => {
    const cwd = join((await project()).dist, "..");
    const args = ["deploy", `s3://${TEST_BUCKET}/nothing`, "--endpoint", store.url];
    expect(await shopfront(cwd, args, { AWS_REGION: undefined })).toEqual({
      code: 2,
      stdout: "",
      stderr: "error: no AWS region: pass --region, or set AWS_REGION or a region in ~/.aws/config\n",
    });
    const noCredentials = await shopfront(cwd, args, {
      AWS_ACCESS_KEY_ID: undefined,
      AWS_SECRET_ACCESS_KEY: undefined,
    });
    expect(noCredentials).toMatchObject({ code: 1, stdout: "" });
    expect(noCredentials.stderr).toMatch(
      /^error: no AWS credentials \(.+\); shopfront reads them like the AWS CLI: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE/,
    );
  });

  it("a store that stops mid-deploy: exit 1 with what failed; the same command again completes", async () => {
    const p = await project();
    const cwd = join(p.dist, "..");
    const url = `s3://${TEST_BUCKET}/stopped`;
    // The proxy is the store's network face: at the first list upload (the seventh, after the six
    // package files and the 404 body) it cuts every connection and refuses new ones, as a server
    // that dies does. s3rver itself is stopped only after the failed run, because it does not
    // survive being killed mid-write (half-written objects break its listing, which S3's atomic
    // uploads never leave), and is started again on the same objects.
    const proxy = await startFaultProxy(store.url, (req, n) => (req.method === "PUT" && n >= 7 ? "stop" : undefined));
    const failed = await shopfront(cwd, ["deploy", url, "--endpoint", proxy.url]);
    await store.stop();
    expect(failed.code).toBe(1);
    expect(failed.stdout).toBe("");
    expect(failed.stderr).toMatch(
      /^error: uploading stopped\/v1\/(primary|themes)\/packages failed \(tried 6 times\): the store could not be reached: connect ECONNREFUSED /,
    );
    expect(failed.stderr).toMatch(
      /\n6 of 9 uploads had finished; nothing was deleted\. Run the same command again to finish the deploy\.\n$/,
    );

    store = await startS3Store(store.dir);
    const rerun = await shopfront(cwd, ["deploy", url, "--endpoint", store.url]);
    expect(rerun).toMatchObject({ code: 0, stderr: "" });
    const client = storeClient(store.url);
    try {
      expect(await listKeys(client, "stopped/")).toHaveLength(10);
    } finally {
      client.destroy();
    }
    expect((await shopfront(cwd, ["deploy", url, "--endpoint", store.url])).stdout).toMatch(
      /: 0 uploaded \(0 B\), 9 unchanged, 0 deleted/,
    );
  });
});
