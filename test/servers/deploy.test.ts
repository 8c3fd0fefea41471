// shopfront deploy against a real S3-compatible server (s3rver) on 127.0.0.1, started here and
// stopped after: what is uploaded, with which headers, in which order, what is left alone, what
// is deleted, and what a failure leaves behind. Each test deploys under its own prefix.
import { readFileSync, rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  paginateListObjectsV2,
  PutObjectCommand,
  type S3Client,
} from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildCatalogue } from "../../src/engine/buildCatalogue.js";
import { deployToS3, type DeployOptions, type DeployResult } from "../../src/deploy/deployToS3.js";
import { showCloudFrontSetup } from "../../src/cli/formatDeploy.js";
import { DEFAULT_CACHE_CONTROL, STATE_FILE } from "../../src/deploy/planDeploy.js";
import {
  cacheControlOf,
  contentTypeOf,
  isSiteFile,
  OPENAPI_FILE,
  isPackageFile,
  packageFileKind,
} from "../../src/routes/routeTable.js";
import { PHASES, phaseOf } from "../../src/routes/publishOrder.js";
import { UsageError } from "../../src/util/errors.js";
import { copyFixture, manifest, readTree, shopfrontAsync, tempDir, writeFiles } from "../support/helpers.js";
import {
  S3_ENV,
  startFaultProxy,
  startS3Store,
  storeClient,
  TEST_BUCKET,
  type S3Store,
} from "../support/servers/s3.js";

/** A project: a copy of the basic fixture, built into dist. */
async function project(): Promise<{ catalogue: string; dist: string }> {
  const catalogue = copyFixture("basic");
  const dist = join(catalogue, "..", "dist");
  await rebuild({ catalogue, dist });
  return { catalogue, dist };
}

async function rebuild(p: { catalogue: string; dist: string }): Promise<void> {
  // The API alone: the deploy uploads every file as JSON, which the site's pages are not.
  const result = await buildCatalogue({ catalogueDir: p.catalogue, outDir: p.dist, site: false });
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

/** Not today's featured app: the day's pick among the packages, which a removal may move or not, by the date. */
const notFeatured = (path: string) => !path.endsWith("/featured-app");

/** Files a build can hold that are no API response (what `build --target github-pages` adds). */
const NOT_API = [".nojekyll", "404.html"];

/** Every API file of the build in `dist`, sorted: each is one object of a deploy. */
const apiFiles = (dist: string) => [...readTree(dist).keys()].filter((path) => !NOT_API.includes(path));

/**
 * The upload phase of an object, told by its path alone: package files, the 404 body and the
 * OpenAPI document; then the package objects; then the lists (each host's list, its filtered lists
 * by category, coder or both, and its empty list, and today's API); then the host list; the deploy's
 * record last.
 */
function phaseOfKey(path: string): number {
  if (path === "404.json" || path === "openapi.json") return 0;
  // A package's object gives its archive's size: after the package files.
  if (/^v1\/[^/]+\/package\/[^/]+$/.test(path)) return 1;
  if (/^v1\/[^/]+\/((category\/[^/]+\/)?(coder\/[0-9a-f]+\/)?packages|empty)$/.test(path)) return 2;
  // Today's API (v3, v4) lists every package of a host, as a list does.
  if (/^(hosts\/[^/]+\/)?api\/v[34]\/(information|contents|featured-app)$/.test(path)) return 2;
  if (path === "v1/hosts") return 3;
  if (path === STATE_FILE) return 4;
  throw new Error(`${path} is no file of a deploy`);
}

/** The hex of a coder's UTF-8, as it names the coder's lists. */
const FIXTURE_CODER = "4669787475726520436f646572"; // Fixture Coder
const TEST_CODER = "5465737420436f646572"; // Test Coder, manifest()'s coder

/** The compiled CLI with the test store's environment, run without blocking this process, which serves the proxy. */
function shopfront(cwd: string, args: string[], env: Record<string, string | undefined> = {}) {
  return shopfrontAsync(cwd, args, { ...S3_ENV, ...env });
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
    // Each test has a project and a prefix of its own, and makes the deploys before its own itself:
    // the tests run in any order (`npx vitest run --sequence.shuffle`).
    let projects = 0;
    async function ownProject(): Promise<{ p: { catalogue: string; dist: string }; prefix: string; url: string }> {
      const p = await project();
      // What `build --target github-pages` adds: files only other hosts read.
      writeFiles(p.dist, { ".nojekyll": "", "404.html": "<h1>Not found</h1>\n" });
      const prefix = `site${++projects}`;
      return { p, prefix, url: `s3://${TEST_BUCKET}/${prefix}` };
    }
    /** A project of its own, deployed once. */
    async function deployedProject() {
      const own = await ownProject();
      expect(await deploy({ url: own.url, dir: own.p.dist })).toMatchObject({ first: true, deleted: 0 });
      return own;
    }
    /** snake moves from games by Fixture Coder to manifest()'s utilities by Test Coder. */
    async function editSnake(p: { catalogue: string; dist: string }): Promise<void> {
      writeFiles(p.catalogue, { "primary/snake.json": manifest("snake", { version: "1.1" }) });
      await rebuild(p);
    }

    it("first uploads every API file with Content-Type and Cache-Control: packages first, then lists, then the host list", async () => {
      const { p, prefix, url } = await ownProject();
      const proxy = await startFaultProxy(store.url);
      const result = await deploy({ url, dir: p.dist, endpoint: proxy.url });
      await proxy.close();

      const api = apiFiles(p.dist);
      // The filtered lists and the empty lists are API files too.
      expect(api).toEqual(
        expect.arrayContaining([
          "v1/primary/empty",
          "v1/primary/category/games/packages",
          `v1/primary/coder/${FIXTURE_CODER}/packages`,
          `v1/primary/category/games/coder/${FIXTURE_CODER}/packages`,
        ]),
      );
      expect(result).toMatchObject({ uploaded: api.length, deleted: 0, retries: 0, first: true });
      expect(result.plan.skipped).toEqual(NOT_API);
      const puts = proxy.requests.filter((r) => r.method === "PUT").map((r) => r.key.slice(prefix.length + 1));
      // Each file once, then the record.
      expect([...puts].sort()).toEqual([...api, STATE_FILE].sort());
      expect(puts.map(phaseOfKey)).toEqual([...puts.map(phaseOfKey)].sort());
      expect(puts.at(-2)).toBe("v1/hosts");
      expect(puts.at(-1)).toBe(STATE_FILE);

      const built = readTree(p.dist);
      const keys = await listKeys(client, `${prefix}/`);
      expect(keys).toEqual([...api, STATE_FILE].map((k) => `${prefix}/${k}`).sort());
      for (const [path, bytes] of built) {
        if (NOT_API.includes(path)) continue;
        const head = await client.send(new HeadObjectCommand({ Bucket: TEST_BUCKET, Key: `${prefix}/${path}` }));
        expect({ path, type: head.ContentType, cache: head.CacheControl }).toEqual({
          path,
          type: "application/json",
          cache: DEFAULT_CACHE_CONTROL,
        });
        const got = await client.send(new GetObjectCommand({ Bucket: TEST_BUCKET, Key: `${prefix}/${path}` }));
        expect(Buffer.from(await got.Body!.transformToByteArray())).toEqual(bytes);
      }
    });

    it("uploads nothing, and writes nothing, for the same build again", async () => {
      const { p, url } = await deployedProject();
      const proxy = await startFaultProxy(store.url);
      const result = await deploy({ url, dir: p.dist, endpoint: proxy.url });
      await proxy.close();
      expect(result).toMatchObject({ uploaded: 0, bytes: 0, deleted: 0, first: false });
      expect(result.plan.unchanged.map((u) => u.file.path).sort()).toEqual(apiFiles(p.dist));
      expect(proxy.requests.filter((r) => r.method !== "GET" && r.method !== "HEAD")).toEqual([]);
    });

    it("uploads only the package file, its host's list and the filtered lists it leaves and joins after one manifest changes", async () => {
      const { p, prefix, url } = await deployedProject();
      await editSnake(p);
      const result = await deploy({ url, dir: p.dist });
      expect(result.plan.phases.map((phase) => phase.map((u) => [u.path, u.reason]))).toEqual([
        [],
        [["v1/primary/package/snake", "content"]],
        [
          // Today's contents list every package of the host (information and the featured app stay).
          ["api/v3/contents", "content"],
          ["api/v4/contents", "content"],
          [`v1/primary/category/games/coder/${FIXTURE_CODER}/packages`, "content"],
          ["v1/primary/category/games/packages", "content"],
          [`v1/primary/category/utilities/coder/${TEST_CODER}/packages`, "new"],
          ["v1/primary/category/utilities/packages", "content"],
          [`v1/primary/coder/${FIXTURE_CODER}/packages`, "content"],
          [`v1/primary/coder/${TEST_CODER}/packages`, "new"],
          ["v1/primary/packages", "content"],
        ],
        [],
        [],
        [],
        [],
        [],
        [],
      ]);
      expect(result.plan.phases).toHaveLength(PHASES.length);
      expect(result).toMatchObject({ uploaded: 10, deleted: 0, plan: { deletions: [], kept: [] } });
      const got = await client.send(
        new GetObjectCommand({ Bucket: TEST_BUCKET, Key: `${prefix}/v1/primary/package/snake` }),
      );
      expect(JSON.parse(await got.Body!.transformToString())).toMatchObject({ version: "1.1" });
    });

    it("uploads an object that another tool rewrote with the same bytes and another Content-Type", async () => {
      const { p, prefix, url } = await deployedProject();
      const key = `${prefix}/v1/hosts`;
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
      const { p, prefix, url } = await deployedProject();
      await editSnake(p);
      await deploy({ url, dir: p.dist });
      const outside = [
        `${prefix}-old/v1/hosts`,
        `${prefix}v1/hosts`,
        `other/${prefix}/v1/hosts`,
        "v1/hosts",
        "keep.txt",
      ];
      for (const key of outside)
        await client.send(new PutObjectCommand({ Bucket: TEST_BUCKET, Key: key, Body: "not the deploy's" }));
      // ZapShot was the last game by Fixture Coder once snake left: that filtered list goes too.
      rmSync(join(p.catalogue, "primary", "ZapShot.json"));
      await rebuild(p);
      const removed = [
        `${prefix}/v1/primary/category/games/coder/${FIXTURE_CODER}/packages`,
        `${prefix}/v1/primary/package/ZapShot`,
      ];
      const stillThere = async () => (await Promise.all(removed.map((key) => listKeys(client, key)))).flat();

      const kept = await deploy({ url, dir: p.dist });
      expect(kept.plan).toMatchObject({ deletions: [], kept: removed });
      expect(uploadedPaths(kept).filter(notFeatured)).toEqual([
        // Today's API counts the host's packages.
        "api/v3/contents",
        "api/v3/information",
        "api/v4/contents",
        "api/v4/information",
        "v1/primary/category/games/packages",
        `v1/primary/coder/${FIXTURE_CODER}/packages`,
        "v1/primary/packages",
      ]);
      expect(await stillThere()).toEqual(removed);

      const dryRun = await deploy({ url, dir: p.dist, delete: true, dryRun: true });
      expect(dryRun).toMatchObject({ dryRun: true, deleted: 0, plan: { deletions: removed } });
      expect(await stillThere()).toEqual(removed);

      const deleted = await deploy({ url, dir: p.dist, delete: true });
      expect(deleted).toMatchObject({ uploaded: 0, deleted: removed.length });
      const all = await listKeys(client);
      expect(await stillThere()).toEqual([]);
      expect(all).toEqual(
        expect.arrayContaining([
          ...outside,
          `${prefix}/${STATE_FILE}`,
          `${prefix}/v1/primary/package/snake`,
          `${prefix}/v1/primary/category/games/packages`,
        ]),
      );
      expect(all.filter((key) => key.startsWith(`${prefix}/`)).sort()).toEqual(
        [...apiFiles(p.dist), STATE_FILE].map((k) => `${prefix}/${k}`).sort(),
      );
    });

    it("uploads everything again when --cache-control changes, and then nothing", async () => {
      const { p, prefix, url } = await deployedProject();
      const cacheControl = "public, max-age=60";
      const result = await deploy({ url, dir: p.dist, cacheControl });
      // Every API file of the build.
      expect(uploadedPaths(result).sort()).toEqual(apiFiles(p.dist));
      expect(result).toMatchObject({ uploaded: apiFiles(p.dist).length, plan: { unchanged: [] } });
      expect(new Set(result.plan.phases.flat().map((u) => u.reason))).toEqual(new Set(["metadata"]));
      const head = await client.send(new HeadObjectCommand({ Bucket: TEST_BUCKET, Key: `${prefix}/v1/hosts` }));
      expect(head.CacheControl).toBe(cacheControl);
      expect((await deploy({ url, dir: p.dist, cacheControl })).uploaded).toBe(0);
    });
  });

  it("--dry-run changes nothing", async () => {
    const p = await project();
    const result = await deploy({ url: `s3://${TEST_BUCKET}/dry`, dir: p.dist, dryRun: true });
    expect(result).toMatchObject({ dryRun: true, uploaded: 0 });
    expect(uploadedPaths(result).sort()).toEqual(apiFiles(p.dist));
    expect(await listKeys(client, "dry/")).toEqual([]);
  });

  it("uploads the browse site after the API, the home page last, each file with its type", async () => {
    const p = await project();
    // The default build: the API and the browse site.
    await buildCatalogue({ catalogueDir: p.catalogue, outDir: p.dist });
    const site = new Map(
      [...readTree(p.dist)].filter(([path]) => isSiteFile(path)).map(([path, bytes]) => [path, bytes.toString()]),
    );
    const proxy = await startFaultProxy(store.url);
    const result = await deploy({ url: `s3://${TEST_BUCKET}/browse`, dir: p.dist, endpoint: proxy.url });
    await proxy.close();
    expect(result.plan.skipped).toEqual([]);
    const puts = proxy.requests.filter((r) => r.method === "PUT").map((r) => r.key.replace(/^browse\//, ""));
    // The OpenAPI document goes with the API's first phase: it names no package, list or host.
    const isPage = (key: string) => site.has(key) && key !== OPENAPI_FILE;
    const firstSite = puts.findIndex(isPage);
    expect(puts.slice(0, firstSite).sort()).toEqual(apiFiles(p.dist).filter((path) => !isPage(path)));
    expect(puts.indexOf(OPENAPI_FILE)).toBeLessThan(firstSite);
    expect(puts.slice(-2)).toEqual(["index.html", STATE_FILE]);
    for (const [path, text] of site) {
      const got = await client.send(new GetObjectCommand({ Bucket: TEST_BUCKET, Key: `browse/${path}` }));
      expect({ path, type: got.ContentType, cache: got.CacheControl }).toEqual({
        path,
        type: contentTypeOf(path),
        cache: DEFAULT_CACHE_CONTROL,
      });
      expect(await got.Body!.transformToString()).toBe(text);
    }
    expect(new Set([...site.keys()].map(contentTypeOf))).toEqual(
      new Set([
        "text/html",
        "text/css",
        "text/javascript",
        "application/json",
        "image/svg+xml",
        "application/atom+xml",
        "application/feed+json",
      ]),
    );
  });

  it("uploads the package files first, each with its type and lifetime; an unchanged one is never sent again, and new metadata alone is a copy in place", async () => {
    // A catalogue whose packages have files (folders and a zip): their stored files as the build writes them.
    const catalogue = copyFixture("package-files");
    const p = { catalogue, dist: join(catalogue, "..", "dist") };
    await rebuild(p);
    // The package files, and the Homebrew Browser's files made from them (deployed the same way).
    const files = new Map([...readTree(p.dist)].filter(([path]) => packageFileKind(path) !== undefined));
    expect([...files.keys()].filter(isPackageFile)).toHaveLength(12);
    expect(files.size).toBe(12 + 9);
    const url = `s3://${TEST_BUCKET}/files`;
    const first = await deploy({ url, dir: p.dist });
    // Each in its phase: the package files first, the Homebrew Browser's lists with the API's lists.
    expect(first.plan.phases.map((phase) => phase.map((u) => u.path).filter((path) => files.has(path)))).toEqual(
      PHASES.map((_, i) => [...files.keys()].filter((path) => phaseOf(path) === i).sort()),
    );
    for (const [path, bytes] of files) {
      const got = await client.send(new GetObjectCommand({ Bucket: TEST_BUCKET, Key: `files/${path}` }));
      expect({ path, type: got.ContentType, cache: got.CacheControl }).toEqual({
        path,
        type: contentTypeOf(path),
        cache: cacheControlOf(path),
      });
      expect(Buffer.from(await got.Body!.transformToByteArray()).equals(bytes)).toBe(true);
    }
    expect(new Set([...files.keys()].map(contentTypeOf))).toEqual(
      new Set(["application/zip", "image/png", "application/octet-stream", "application/xml", "text/plain"]),
    );

    // Unchanged: nothing is sent.
    const again = await deploy({ url, dir: p.dist });
    expect(again).toMatchObject({ uploaded: 0, bytes: 0, copied: 0 });

    // Without the record, the metadata of what is there is unknown: the API's files are sent again,
    // the package files (whose ETag is their MD5) are copied onto themselves, no bytes sent.
    await client.send(new DeleteObjectCommand({ Bucket: TEST_BUCKET, Key: `files/${STATE_FILE}` }));
    const proxy = await startFaultProxy(store.url);
    const unrecorded = await deploy({ url, dir: p.dist, endpoint: proxy.url });
    await proxy.close();
    expect(unrecorded.copied).toBe(files.size);
    const sent = unrecorded.plan.phases.flat().filter((u) => !u.inPlace);
    expect(sent.map((u) => u.path).filter((path) => files.has(path))).toEqual([]);
    expect(unrecorded.bytes).toBe(sent.reduce((n, u) => n + u.size, 0));
    const puts = proxy.requests.filter((r) => r.method === "PUT" && files.has(r.key.replace(/^files\//, "")));
    expect(puts.length).toBe(files.size);
    for (const [path, bytes] of files) {
      const got = await client.send(new GetObjectCommand({ Bucket: TEST_BUCKET, Key: `files/${path}` }));
      expect({ path, type: got.ContentType, cache: got.CacheControl }).toEqual({
        path,
        type: contentTypeOf(path),
        cache: cacheControlOf(path),
      });
      expect(Buffer.from(await got.Body!.transformToByteArray()).equals(bytes)).toBe(true);
    }
    // And after that deploy's record, nothing again.
    expect(await deploy({ url, dir: p.dist })).toMatchObject({ uploaded: 0, copied: 0 });
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

    // Every package file and the lists, filtered lists included, well over a page of keys.
    const files = readTree(p.dist).size;
    expect(files).toBeGreaterThan(1050);
    expect((await deploy({ url, dir: p.dist })).uploaded).toBe(files);
    const again = await deploy({ url, dir: p.dist });
    expect(again.uploaded).toBe(0);
    expect(again.plan.unchanged).toHaveLength(files);

    rmSync(join(catalogue, "primary", "pkg1049.json"));
    await rebuild(p);
    const deleted = await deploy({ url, dir: p.dist, delete: true });
    expect(deleted.plan.deletions).toEqual(["many/v1/primary/package/pkg1049"]);
    // Every package is utilities by Test Coder: each list that held pkg1049 is rewritten, and today's API.
    expect(uploadedPaths(deleted).filter(notFeatured)).toEqual([
      "api/v3/contents",
      "api/v3/information",
      "api/v4/contents",
      "api/v4/information",
      `v1/primary/category/utilities/coder/${TEST_CODER}/packages`,
      "v1/primary/category/utilities/packages",
      `v1/primary/coder/${TEST_CODER}/packages`,
      "v1/primary/packages",
    ]);
    expect(deleted).toMatchObject({ uploaded: uploadedPaths(deleted).length, deleted: 1 });
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
    const api = apiFiles(p.dist);
    expect(result).toMatchObject({ uploaded: api.length, retries: 3 });
    expect(await listKeys(client, "retried/")).toEqual([...api, STATE_FILE].map((k) => `retried/${k}`).sort());
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

describe("the CloudFront steps after a deploy", () => {
  // Only what the decision reads: a deploy's other fields do not change it.
  const result = (dryRun: boolean, first: boolean) => ({ dryRun, first }) as DeployResult;
  const endpoint = "http://127.0.0.1:9000";

  it("follow a first deploy to AWS", () => {
    expect(showCloudFrontSetup(result(false, true), {})).toBe(true);
  });

  it("do not follow a deploy to a bucket that had objects, a dry run, or a deploy to another store", () => {
    expect(showCloudFrontSetup(result(false, false), {})).toBe(false);
    expect(showCloudFrontSetup(result(true, true), {})).toBe(false);
    expect(showCloudFrontSetup(result(false, true), { endpoint })).toBe(false);
  });

  it("follow any deploy with --cloudfront-help", () => {
    for (const [dryRun, first] of [
      [false, false],
      [true, true],
    ] as const)
      expect(showCloudFrontSetup(result(dryRun, first), { endpoint, cloudfrontHelp: true })).toBe(true);
  });
});

describe("shopfront deploy (the binary)", () => {
  let store: S3Store;
  beforeAll(async () => {
    store = await startS3Store();
  });
  afterAll(() => store?.stop());

  it("deploys with a summary; --dry-run prints the plan; the CloudFront steps only with --cloudfront-help to another store", async () => {
    const p = await project();
    const cwd = join(p.dist, "..");
    const url = `s3://${TEST_BUCKET}/cli`;

    const dry = await shopfront(cwd, ["deploy", url, "--endpoint", store.url, "--dry-run"]);
    expect(dry).toMatchObject({ code: 0, stderr: "" });
    const phases = [
      ["404.json", "openapi.json"],
      [
        "v1/primary/package/240pTest",
        "v1/primary/package/ZapShot",
        "v1/primary/package/snake",
        "v1/primary/package/snake-deluxe",
        "v1/themes/package/dark-blue",
      ],
      [
        // Today's API of each host (themes has no featured app: none qualifies), then each host's
        // list, its lists by category, by coder and by both, and its empty list.
        "api/v3/contents",
        "api/v3/featured-app",
        "api/v3/information",
        "api/v4/contents",
        "api/v4/featured-app",
        "api/v4/information",
        "hosts/themes/api/v3/contents",
        "hosts/themes/api/v3/information",
        "hosts/themes/api/v4/contents",
        "hosts/themes/api/v4/information",
        `v1/primary/category/games/coder/${FIXTURE_CODER}/packages`,
        "v1/primary/category/games/coder/5a6fc3ab20c38672c3b8/packages", // Zoë Ærø
        "v1/primary/category/games/packages",
        `v1/primary/category/utilities/coder/${FIXTURE_CODER}/packages`,
        "v1/primary/category/utilities/packages",
        `v1/primary/coder/${FIXTURE_CODER}/packages`,
        "v1/primary/coder/5a6fc3ab20c38672c3b8/packages",
        "v1/primary/empty",
        "v1/primary/packages",
        "v1/themes/category/themes/coder/5468656d6572/packages", // Themer
        "v1/themes/category/themes/packages",
        "v1/themes/coder/5468656d6572/packages",
        "v1/themes/empty",
        "v1/themes/packages",
      ],
      ["v1/hosts"],
    ];
    const total = phases.flat().length;
    // The plan is the whole build.
    expect([...phases.flat()].sort()).toEqual(apiFiles(p.dist));
    expect(dry.stdout.split("\n")).toEqual([
      ...[
        "package files, the 404 body and the OpenAPI document",
        "package objects",
        "package lists",
        "host list",
      ].flatMap((title, i) => [`${title}:`, ...phases[i]!.map((path) => `  upload cli/${path} (not in the bucket)`)]),
      expect.stringMatching(
        new RegExp(
          `^dry run of dist to s3://shopfront-test/cli: would upload ${total} \\(\\d+\\.\\d kB\\), leave 0 unchanged, delete 0; nothing was changed$`,
        ),
      ),
      "",
    ]);

    // A first deploy, but not to AWS: no CloudFront steps.
    const run = await shopfront(cwd, ["deploy", url, "--endpoint", store.url]);
    expect(run).toMatchObject({ code: 0, stderr: "" });
    expect(run.stdout).toMatch(
      new RegExp(
        `^deployed dist to s3://shopfront-test/cli: ${total} uploaded \\(\\d+\\.\\d kB\\), 0 unchanged, 0 deleted in \\d+\\.\\d s\n$`,
      ),
    );

    const asked = await shopfront(cwd, ["deploy", url, "--endpoint", store.url, "--cloudfront-help"]);
    expect(asked).toMatchObject({ code: 0, stderr: "" });
    expect(asked.stdout).toMatch(
      /: 0 uploaded \(0 B\), \d+ unchanged, 0 deleted in \d+\.\d s\n\nTo serve it through CloudFront/,
    );
    expect(asked.stdout).toContain("`shopfront config cloudfront --out cloudfront/`");
    expect(asked.stdout).toContain("event type viewer-request");
    expect(asked.stdout).toContain(
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
    const api = apiFiles(p.dist);
    const first = api.filter((path) => phaseOfKey(path) === 0).length;
    // The proxy is the store's network face: at the first package object's upload (after the
    // package files and the 404 body) it cuts every connection and refuses new ones, as a server that dies does.
    // s3rver itself is stopped only after the failed run, because it does not survive being killed
    // mid-write (half-written objects break its listing, which S3's atomic uploads never leave), and
    // is started again on the same objects.
    const proxy = await startFaultProxy(store.url, (req, n) =>
      req.method === "PUT" && n > first ? "stop" : undefined,
    );
    const failed = await shopfront(cwd, ["deploy", url, "--endpoint", proxy.url]);
    await store.stop();
    expect(failed.code).toBe(1);
    expect(failed.stdout).toBe("");
    // The package objects go up at once, so which fails first varies; and they share the client's retry
    // quota, so it may have been tried fewer than the six times one failing upload gets.
    expect(failed.stderr).toMatch(
      /^error: uploading stopped\/(\S+) failed \(tried [2-6] times\): the store could not be reached: connect ECONNREFUSED /,
    );
    expect(phaseOfKey(/^error: uploading stopped\/(\S+) /.exec(failed.stderr)![1]!)).toBe(1);
    expect(failed.stderr).toMatch(
      new RegExp(
        `\\n${first} of ${api.length} uploads had finished; nothing was deleted\\. Run the same command again to finish the deploy\\.\\n$`,
      ),
    );

    store = await startS3Store(store.dir);
    const rerun = await shopfront(cwd, ["deploy", url, "--endpoint", store.url]);
    expect(rerun).toMatchObject({ code: 0, stderr: "" });
    const client = storeClient(store.url);
    try {
      expect(await listKeys(client, "stopped/")).toEqual([...api, STATE_FILE].map((k) => `stopped/${k}`).sort());
    } finally {
      client.destroy();
    }
    expect((await shopfront(cwd, ["deploy", url, "--endpoint", store.url])).stdout).toMatch(
      new RegExp(`: 0 uploaded \\(0 B\\), ${api.length} unchanged, 0 deleted`),
    );
  });
});
