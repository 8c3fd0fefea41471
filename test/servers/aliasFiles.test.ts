// The hosts that cannot rewrite serve the package files at their aliases' URLs from the links the
// build writes for them (Target.packageFiles "copies"): a real build of a catalogue with package
// files, for Netlify (its redirect engine and _headers parser over the build's own files), GitHub
// Pages (a file at the path, typed by its extension), S3 (s3rver, after a deploy that sends each
// file's bytes once) and CloudFront in front of that bucket (the compiled function in its emulation).
// At each alias URL: the stored URL's bytes and type.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { GetObjectCommand, type S3Client } from "@aws-sdk/client-s3";
import { parseAllHeaders } from "@netlify/headers-parser";
import { parsePlain } from "netlify-redirector";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildCatalogue } from "../../src/engine/buildCatalogue.js";
import { sendRaw } from "../../src/check/runConformance.js";
import { formatSummary } from "../../src/cli/formatDeploy.js";
import { md5Hex } from "../../src/deploy/readBuild.js";
import { deployToS3 } from "../../src/deploy/deployToS3.js";
import { aliasFilesOf, cacheControlOf, contentTypeOf, packageFileKind } from "../../src/routes/routeTable.js";
import { formatBytes } from "../../src/util/formatBytes.js";
import { startCloudFront } from "../support/edge/cloudfront.js";
import { runCompiledCli } from "../support/edge/compiledCli.js";
import { copyFixture, readTree, tempDir } from "../support/helpers.js";
import { S3_ENV, startS3Store, storeClient, TEST_BUCKET, type S3Store } from "../support/servers/s3.js";

let dist: string;
let tree: Map<string, Buffer>;
/** Each alias path of the build with the stored file it is. */
let aliases: [alias: string, stored: string][];

beforeAll(async () => {
  const catalogue = copyFixture("package-files");
  dist = join(catalogue, "..", "dist");
  const result = await buildCatalogue({
    catalogueDir: catalogue,
    outDir: dist,
    targets: ["netlify", "github-pages", "cloudfront"],
  });
  if (!result.built) throw new Error(`the fixture did not build: ${JSON.stringify(result.problems)}`);
  tree = readTree(dist);
  aliases = [...tree.keys()].flatMap((stored) =>
    aliasFilesOf(stored).map((alias): [string, string] => [alias, stored]),
  );
  // pong, snake and tetris: /hbb/<name>.png, and the zip and icon under /api (none can stand under
  // /api/v3/contents/ or /api/v4/contents/, where today's contents lists are files).
  expect(aliases).toHaveLength(3 * 3);
});

describe("Netlify", () => {
  it("serves each alias URL from its link, with the stored URL's bytes and type", async () => {
    const matcher = await parsePlain(readFileSync(join(dist, "_redirects"), "utf8"), {});
    const headers = (
      await parseAllHeaders({ headersFiles: [join(dist, "_headers")], configHeaders: [], minimal: false })
    ).headers as { forRegExp: RegExp; values: Record<string, string> }[];
    // A forced rule wins over a file; else the file at the path, as Netlify's CDN serves a site.
    const respond = (path: string) => {
      const match = matcher.match({
        scheme: "http",
        host: "site.example",
        path,
        query: "",
        getHeader: () => "",
        getCookie: () => "",
      });
      const file = match && (match.force || !tree.has(path.slice(1))) ? match.to.slice(1) : path.slice(1);
      const type = headers.filter((h) => h.forRegExp.test(path)).findLast((h) => "Content-Type" in h.values);
      return { body: tree.get(file), type: type?.values["Content-Type"] };
    };
    for (const [alias, stored] of aliases) {
      const want = respond(`/${stored}`);
      expect(want.body, stored).toEqual(tree.get(stored));
      expect(want.type, stored).toBe(contentTypeOf(stored));
      expect(respond(`/${alias}`), alias).toEqual(want);
    }
  });
});

describe("GitHub Pages", () => {
  // Pages serves a file at its path and types it by its extension; these are the package files' ones.
  const PAGES_TYPES: Record<string, string> = { zip: "application/zip", png: "image/png" };
  it("serves each alias URL as a file at its path, with the stored file's bytes and extension", () => {
    for (const [alias, stored] of aliases) {
      expect(tree.get(alias), alias).toEqual(tree.get(stored));
      const extension = (path: string) => PAGES_TYPES[path.slice(path.lastIndexOf(".") + 1)];
      expect(extension(alias), alias).toBe(contentTypeOf(stored));
      expect(extension(stored), stored).toBe(contentTypeOf(stored));
    }
  });
});

describe("S3, and CloudFront in front of it", () => {
  let store: S3Store;
  let client: S3Client;
  beforeAll(async () => {
    Object.assign(process.env, S3_ENV);
    store = await startS3Store();
    client = storeClient(store.url);
  });
  afterAll(async () => {
    client?.destroy();
    await store?.stop();
  });

  it("are deployed with each package file's bytes sent once, and each alias key answers as its stored key", async () => {
    const url = `s3://${TEST_BUCKET}/aliases`;
    const first = await deployToS3({ url, dir: dist, endpoint: store.url });
    const objects = first.plan.phases.flat();
    // Every package file by its bytes: each distinct content sent once, the rest copied from it.
    const packageFiles = objects.filter((u) => packageFileKind(u.path) !== undefined);
    const distinct = new Set(packageFiles.map((u) => md5Hex(tree.get(u.path)!)));
    expect(packageFiles.filter((u) => u.copyFrom === undefined)).toHaveLength(distinct.size);
    expect(first.copied).toBe(packageFiles.length - distinct.size);
    expect(first.copied).toBeGreaterThanOrEqual(aliases.length);
    const sentBytes = objects.filter((u) => u.copyFrom === undefined).reduce((n, u) => n + tree.get(u.path)!.length, 0);
    expect(first.bytes).toBe(sentBytes);
    expect(formatSummary(first, "dist", "1.0 s")[0]).toContain(
      `: ${first.uploaded} uploaded (${formatBytes(sentBytes)}, ${first.copied} of them copied by the store), 0 unchanged`,
    );

    for (const [alias, stored] of aliases) {
      const [a, s] = await Promise.all(
        [alias, stored].map((path) =>
          client.send(new GetObjectCommand({ Bucket: TEST_BUCKET, Key: `aliases/${path}` })),
        ),
      );
      const body = Buffer.from(await a!.Body!.transformToByteArray());
      expect(body.equals(tree.get(stored)!), alias).toBe(true);
      expect({ type: a!.ContentType, cache: a!.CacheControl }, alias).toEqual({
        type: s!.ContentType,
        cache: s!.CacheControl,
      });
      expect(a!.ContentType).toBe(contentTypeOf(stored));
      expect(a!.CacheControl).toBe(cacheControlOf(stored));
      await s!.Body!.transformToByteArray();
    }
    // Nothing again.
    expect(await deployToS3({ url, dir: dist, endpoint: store.url })).toMatchObject({ uploaded: 0, copied: 0 });
  });

  it("answer each alias URL through the CloudFront function with the stored URL's bytes and type", async () => {
    const out = tempDir();
    runCompiledCli(["config", "cloudfront", "--catalogue", copyFixture("package-files"), "--out", out]);
    const code = readFileSync(join(out, "shopfront-viewer-request.js"), "utf8");
    const server = await startCloudFront({ root: dist, dir: join(dist, "..") }, code);
    try {
      for (const [alias, stored] of aliases) {
        const [a, s] = await Promise.all([
          sendRaw(server.url, "GET", `/${alias}`),
          sendRaw(server.url, "GET", `/${stored}`),
        ]);
        expect({ status: s!.status, type: s!.headers["content-type"] }, stored).toEqual({
          status: 200,
          type: contentTypeOf(stored),
        });
        expect({ status: a!.status, type: a!.headers["content-type"] }, alias).toEqual({
          status: 200,
          type: contentTypeOf(stored),
        });
        expect(a!.body.equals(s!.body), alias).toBe(true);
        expect(a!.body.equals(tree.get(stored)!), alias).toBe(true);
      }
    } finally {
      await server.stop();
    }
  });
});
