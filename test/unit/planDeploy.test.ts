// The deploy planner and the S3 location, pure: no store, no disk.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  copiesLast,
  DEFAULT_CACHE_CONTROL,
  parseDeployState,
  planDeploy,
  renderDeployState,
  STATE_FILE,
  type DeployState,
  type LocalFile,
  type ObjectRecord,
  type PlanInput,
  type RemoteObject,
} from "../../src/deploy/planDeploy.js";
import { phaseOf, phasesOf, PHASES } from "../../src/routes/publishOrder.js";
import { formatS3Url, parseS3Url } from "../../src/deploy/s3Location.js";
import { cacheControlOf, contentTypeOf } from "../../src/routes/routeTable.js";
import { UsageError } from "../../src/util/errors.js";

const JSON_TYPE = "application/json";

function file(path: string, md5 = createHash("md5").update(path).digest("hex")): LocalFile {
  return { path, size: 10, md5 };
}

/** A build of two hosts and the browse site, with config files that only other hosts read. */
const BUILD: LocalFile[] = [
  ".nojekyll",
  "404.html",
  "404.json",
  "_headers",
  "assets/search.js",
  "assets/site.css",
  "browse/primary/package/snake/index.html",
  "index.html",
  "openapi.json",
  "v1/hosts",
  "v1/primary/package/snake",
  "v1/primary/package/ZapShot",
  "v1/primary/packages",
  "v1/themes/package/dark-blue",
  "v1/themes/packages",
].map((p) => file(p));

const LOCATION = parseS3Url("s3://bucket/api");
const EARLIER = new Date("2026-01-01T10:00:00Z");
const RECORDED = new Date("2026-01-01T10:00:05Z");
const LATER = new Date("2026-01-01T10:00:09Z");

function record(f: LocalFile, changes: Partial<ObjectRecord> = {}): ObjectRecord {
  return {
    md5: f.md5,
    etag: f.md5,
    contentType: contentTypeOf(f.path),
    cacheControl: DEFAULT_CACHE_CONTROL,
    ...changes,
  };
}

/** The bucket after a deploy of `files`: every object listed, with the record of that deploy. */
function deployed(files: readonly LocalFile[]): { remote: RemoteObject[]; state: DeployState } {
  const api = files.filter((f) => phaseOf(f.path) !== undefined);
  return {
    remote: api.map((f) => ({ key: `api/${f.path}`, etag: `"${f.md5}"`, lastModified: EARLIER })),
    state: { objects: new Map(api.map((f) => [f.path, record(f)])), writtenAt: RECORDED },
  };
}

function plan(input: Partial<PlanInput>) {
  return planDeploy({
    location: LOCATION,
    files: BUILD,
    remote: [],
    cacheControl: DEFAULT_CACHE_CONTROL,
    delete: false,
    ...input,
  });
}

const uploadKeys = (p: ReturnType<typeof plan>) => p.phases.map((phase) => phase.map((u) => u.key));

describe("planDeploy", () => {
  it("uploads per-package files, the 404 body and the OpenAPI document first, then the package objects, then the lists, then the host list, then the site and its home page, then the signed index (none here), each phase sorted", () => {
    const p = plan({});
    expect(uploadKeys(p)).toEqual([
      ["api/404.json", "api/openapi.json"],
      ["api/v1/primary/package/ZapShot", "api/v1/primary/package/snake", "api/v1/themes/package/dark-blue"],
      ["api/v1/primary/packages", "api/v1/themes/packages"],
      ["api/v1/hosts"],
      ["api/assets/search.js", "api/assets/site.css", "api/browse/primary/package/snake/index.html"],
      ["api/index.html"],
      [],
      [],
      [],
    ]);
    expect(p.phases.flat().every((u) => u.reason === "new" && u.cacheControl === DEFAULT_CACHE_CONTROL)).toBe(true);
  });

  it("gives each object the type it is served with: the API's JSON, a site file its extension's", () => {
    expect(
      Object.fromEntries(
        plan({})
          .phases.flat()
          .map((u) => [u.path, u.contentType]),
      ),
    ).toEqual({
      "404.json": JSON_TYPE,
      "v1/primary/package/ZapShot": JSON_TYPE,
      "v1/primary/package/snake": JSON_TYPE,
      "v1/themes/package/dark-blue": JSON_TYPE,
      "v1/primary/packages": JSON_TYPE,
      "v1/themes/packages": JSON_TYPE,
      "v1/hosts": JSON_TYPE,
      "assets/search.js": "text/javascript",
      "assets/site.css": "text/css",
      "browse/primary/package/snake/index.html": "text/html",
      "index.html": "text/html",
      "openapi.json": JSON_TYPE,
    });
  });

  it("uploads a site file recorded with the API's type", () => {
    const bucket = deployed(BUILD);
    const css = BUILD.find((f) => f.path === "assets/site.css")!;
    const objects = new Map(bucket.state.objects).set("assets/site.css", record(css, { contentType: JSON_TYPE }));
    const p = plan({ ...bucket, state: { ...bucket.state, objects } });
    expect(p.phases.flat().map((u) => [u.key, u.reason, u.contentType])).toEqual([
      ["api/assets/site.css", "metadata", "text/css"],
    ]);
  });

  it("skips the files that only other hosts read", () => {
    expect(plan({}).skipped).toEqual([".nojekyll", "404.html", "_headers"]);
  });

  it("uploads nothing when the bucket holds the build as the last deploy recorded it", () => {
    const p = plan(deployed(BUILD));
    expect(p.phases.flat()).toEqual([]);
    expect(p.unchanged.map((u) => u.file.path)).toHaveLength(12);
    expect(p.deletions).toEqual([]);
  });

  it("uploads a file whose content changed, whatever its size or date", () => {
    const changed = BUILD.map((f) =>
      f.path === "v1/primary/packages" ? file(f.path, "0123456789abcdef0123456789abcdef") : f,
    );
    const p = plan({ ...deployed(BUILD), files: changed });
    expect(p.phases.flat().map((u) => [u.key, u.reason])).toEqual([["api/v1/primary/packages", "content"]]);
  });

  it("uploads every file again when the Cache-Control changes", () => {
    const p = plan({ ...deployed(BUILD), cacheControl: "public, max-age=60" });
    expect(p.phases.flat()).toHaveLength(12);
    expect(p.phases.flat().every((u) => u.reason === "metadata" && u.cacheControl === "public, max-age=60")).toBe(true);
  });

  it("uploads a file recorded with another Content-Type", () => {
    const bucket = deployed(BUILD);
    const hosts = BUILD.find((f) => f.path === "v1/hosts")!;
    const objects = new Map(bucket.state.objects).set(
      "v1/hosts",
      record(hosts, { contentType: "binary/octet-stream" }),
    );
    const p = plan({ ...bucket, state: { ...bucket.state, objects } });
    expect(p.phases.flat().map((u) => [u.key, u.reason])).toEqual([["api/v1/hosts", "metadata"]]);
  });

  it("uploads everything that is there when there is no record: its metadata cannot be known", () => {
    const { remote } = deployed(BUILD);
    const p = plan({ remote });
    expect(p.phases.flat()).toHaveLength(12);
    expect(p.phases.flat().every((u) => u.reason === "unrecorded")).toBe(true);
  });

  it("uploads an object written after the record (same bytes, metadata unknown) or replaced since (another ETag)", () => {
    const bucket = deployed(BUILD);
    const remote = bucket.remote.map((o) =>
      o.key === "api/v1/hosts"
        ? { ...o, lastModified: LATER }
        : o.key === "api/404.json"
          ? { ...o, etag: '"ffff"' }
          : o,
    );
    const p = plan({ ...bucket, remote });
    expect(p.phases.flat().map((u) => [u.key, u.reason])).toEqual([
      ["api/404.json", "content"],
      ["api/v1/hosts", "unrecorded"],
    ]);
  });

  it("accepts a recorded ETag that is not an MD5 (SSE-KMS)", () => {
    const bucket = deployed(BUILD);
    const objects = new Map([...bucket.state.objects].map(([path, r]) => [path, { ...r, etag: `kms-${r.md5}` }]));
    const remote = bucket.remote.map((o) => ({ ...o, etag: `"KMS-${o.etag.slice(1, -1)}"` }));
    expect(plan({ remote, state: { ...bucket.state, objects } }).phases.flat()).toEqual([]);
  });

  it("keeps objects the build does not have unless asked to delete, and deletes them last", () => {
    const bucket = deployed(BUILD);
    const stray: RemoteObject = { key: "api/v1/primary/package/removed", etag: '"x"', lastModified: EARLIER };
    const remote = [...bucket.remote, stray];
    expect(plan({ ...bucket, remote })).toMatchObject({ deletions: [], kept: [stray.key] });
    expect(plan({ ...bucket, remote, delete: true })).toMatchObject({ deletions: [stray.key], kept: [] });
  });

  it("never deletes outside the prefix, nor the deploy record", () => {
    const outside = ["api", "api-old/v1/hosts", "apiv1/hosts", "other/api/v1/hosts", "v1/hosts", STATE_FILE];
    const remote = [...outside, `api/${STATE_FILE}`].map((key) => ({ key, etag: '"x"', lastModified: EARLIER }));
    const p = plan({ remote, delete: true });
    expect(p.deletions).toEqual([]);
    expect(p.kept).toEqual([]);
  });

  it("with no prefix, the whole bucket is the deploy's", () => {
    const location = parseS3Url("s3://bucket");
    const remote = ["old/file", "v1/hosts", STATE_FILE].map((key) => ({ key, etag: '"x"', lastModified: EARLIER }));
    const p = planDeploy({ location, files: BUILD, remote, cacheControl: DEFAULT_CACHE_CONTROL, delete: true });
    expect(p.phases[3]!.map((u) => u.key)).toEqual(["v1/hosts"]);
    expect(p.deletions).toEqual(["old/file"]);
  });
});

describe("package files with the same bytes", () => {
  // A package's zip and icon stored, and the copies at their aliases' paths (hard links in the build).
  const ZIP = "0123456789abcdef0123456789abcdef";
  const ICON = "fedcba9876543210fedcba9876543210";
  const stored = [file("hbb/snake/snake.zip", ZIP), file("hbb/snake/icon.png", ICON)];
  const aliases = [
    ...["api", "api/v3", "api/v4"].map((api) => file(`${api}/contents/snake/snake.zip`, ZIP)),
    ...["api", "api/v3", "api/v4"].map((api) => file(`${api}/contents/snake/icon.png`, ICON)),
    file("hbb/snake.png", ICON),
  ];
  const files = [...BUILD, ...stored, ...aliases];
  const copies = (p: ReturnType<typeof plan>) =>
    p.phases.flat().flatMap((u) => (u.copyFrom === undefined ? [] : [[u.key, u.copyFrom]]));

  it("sends the stored file once and copies it on the store's side to each alias, after it", () => {
    const p = plan({ files });
    expect(p.phases[0]!.filter((u) => u.copyFrom === undefined && u.path.includes("snake/")).map((u) => u.key)).toEqual(
      ["api/hbb/snake/icon.png", "api/hbb/snake/snake.zip"],
    );
    expect(copies(p)).toEqual(
      aliases
        .map((f) => [`api/${f.path}`, `api/${f.md5 === ZIP ? "hbb/snake/snake.zip" : "hbb/snake/icon.png"}`])
        .sort(([a], [b]) => (a! < b! ? -1 : 1)),
    );
    for (const u of p.phases.flat()) if (u.copyFrom !== undefined) expect(u.contentType).toBe(contentTypeOf(u.path));
    // The copies wait for the upload they copy; the rest go at once.
    const written = new Set(p.phases.flat().map((u) => u.key));
    const [first, then] = copiesLast(p.phases[0]!, written);
    expect(then.map((u) => u.key).sort()).toEqual(aliases.map((f) => `api/${f.path}`).sort());
    expect(first.some((u) => u.copyFrom !== undefined)).toBe(false);
  });

  it("copies from an object that already holds the bytes, by its record or its ETag, and never from one this deploy rewrites", () => {
    // The stored files deployed before; the aliases are new (a target that copies was added).
    const bucket = deployed([...BUILD, ...stored]);
    const lifetimes = new Map(
      [...bucket.state.objects].map(([path, r]) => [
        path,
        { ...r, cacheControl: cacheControlOf(path) ?? r.cacheControl },
      ]),
    );
    const fromRecord = plan({ remote: bucket.remote, state: { ...bucket.state, objects: lifetimes }, files });
    expect(fromRecord.phases.flat().every((u) => u.reason === "new")).toBe(true);
    expect(copies(fromRecord)).toHaveLength(aliases.length);
    expect(copyWaves(fromRecord)[1]).toEqual([]);
    // Without a record, an object whose ETag is the MD5 holds the bytes: its key is copied onto itself
    // (new metadata), and the aliases are copied from it after.
    const unrecorded = plan({ remote: bucket.remote, files });
    expect(copies(unrecorded)).toHaveLength(aliases.length);
    expect(
      copyWaves(unrecorded)[1]!
        .map((u) => u.path)
        .sort(),
    ).toEqual(aliases.map((f) => f.path).sort());
    // An old object at another key with the bytes (a renamed package), even one --delete removes later.
    const renamed = { key: "api/hbb/old/old.zip", etag: `"${ZIP}"`, lastModified: EARLIER };
    const fromOld = plan({ files: [...BUILD, file("hbb/snake/snake.zip", ZIP)], remote: [renamed], delete: true });
    expect(copies(fromOld)).toEqual([["api/hbb/snake/snake.zip", "api/hbb/old/old.zip"]]);
    expect(fromOld.deletions).toEqual(["api/hbb/old/old.zip"]);
    // An object whose key this deploy rewrites with other bytes is no source.
    const rewritten = { key: "api/hbb/snake/snake.zip", etag: `"${ZIP}"`, lastModified: EARLIER };
    const moved = plan({
      files: [...BUILD, file("hbb/snake/snake.zip", ICON), file("hbb/pong/pong.zip", ZIP)],
      remote: [rewritten],
    });
    expect(copies(moved)).toEqual([]);
  });

  it("copies no file that is not a package file, and sends a changed package file whose bytes nothing holds", () => {
    const same = "00000000000000000000000000000000";
    const p = plan({ files: [file("v1/hosts", same), file("404.json", same), file("hbb/a/a.zip", ZIP)] });
    expect(copies(p)).toEqual([]);
  });
});

/** A plan's first phase in the waves the deploy runs it in. */
function copyWaves(p: ReturnType<typeof plan>) {
  return copiesLast(p.phases[0]!, new Set(p.phases.flat().map((u) => u.key)));
}

describe("phaseOf", () => {
  it("knows the API's files by the route table", () => {
    expect(phaseOf("404.json")).toBe(0);
    expect(phaseOf("openapi.json")).toBe(0);
    expect(phaseOf("hbb/snake/snake.zip")).toBe(0);
    expect(phaseOf("v1/primary/package/snake")).toBe(1);
    expect(phaseOf("v1/primary/packages")).toBe(2);
    expect(phaseOf("api/v4/contents")).toBe(2);
    expect(phaseOf("hbb/homebrew_browser/listv036.txt")).toBe(2);
    expect(phaseOf("hosts/themes/hbb/listv036.txt")).toBe(2);
    expect(phaseOf("v1/hosts")).toBe(3);
    expect(phaseOf("hbb/repo_list.txt")).toBe(3);
  });

  it("puts the site after the API, its home page last", () => {
    expect(phaseOf("assets/site.css")).toBe(4);
    expect(phaseOf("browse/primary/package/chart.js/index.html")).toBe(4);
    expect(phaseOf("index.html")).toBe(5);
  });

  it("puts the signed index after everything it names: its shards and the signature by the entry's digest, then entry.json, then the signature beside it and the key", () => {
    const last = PHASES.length - 1;
    for (const path of ["index/primary/0", "index/ab/cd.json", "index/ab.minisig"])
      expect(phaseOf(path)).toBe(last - 2);
    expect(phaseOf("entry.json")).toBe(last - 1);
    for (const path of ["entry.json.minisig", "minisign.pub"]) expect(phaseOf(path)).toBe(last);
    const { phases, skipped } = phasesOf(
      ["entry.json.minisig", "entry.json", "v1/hosts", "hbb/snake/snake.zip", "index/0", "index.html", ".nojekyll"].map(
        (path) => ({ path }),
      ),
    );
    expect(phases.map((files) => files.map((f) => f.path))).toEqual([
      ["hbb/snake/snake.zip"],
      [],
      [],
      ["v1/hosts"],
      [],
      ["index.html"],
      ["index/0"],
      ["entry.json"],
      ["entry.json.minisig"],
    ]);
    expect(skipped).toEqual([{ path: ".nojekyll" }]);
  });

  it.each([
    "v1/primary/package/..",
    "v1/primary/package/con",
    "v2/primary/packages",
    "v1/hosts/x",
    "404.html",
    "_worker.js",
    "assets/notes.txt",
    "browse/con/index.html",
    "other.html",
    "entry.json.bak",
    "indexes/0",
    STATE_FILE,
  ])("%s is neither an API file nor a site file", (path) => {
    expect(phaseOf(path)).toBeUndefined();
  });
});

describe("the deploy record", () => {
  it("reads back what it wrote", () => {
    const objects = new Map([["v1/hosts", { md5: "a", etag: "b", contentType: JSON_TYPE, cacheControl: "no-cache" }]]);
    expect(parseDeployState(renderDeployState(objects), RECORDED)).toEqual({ objects, writtenAt: RECORDED });
  });

  it.each([
    "",
    "not json",
    "[]",
    "null",
    '{"shopfront":"deploy-state","version":2,"objects":{}}',
    '{"shopfront":"deploy-state","version":1,"objects":{"v1/hosts":{"md5":1}}}',
  ])("is ignored when it is %j, so every file is uploaded", (text) => {
    expect(parseDeployState(text, RECORDED)).toBeUndefined();
  });
});

describe("parseS3Url", () => {
  it.each([
    ["s3://my-bucket", "my-bucket", ""],
    ["s3://my.bucket.example/api", "my.bucket.example", "api"],
    ["s3://abc/a/b_c/v-1.0/", "abc", "a/b_c/v-1.0"],
    ["s3://abc/", "abc", ""],
  ])("%s", (url, bucket, prefix) => {
    expect(parseS3Url(url)).toEqual({ bucket, prefix });
    expect(formatS3Url({ bucket, prefix })).toBe(url.replace(/\/$/, ""));
  });

  it.each([
    ["https://bucket/api", "is not an S3 URL"],
    ["s3://", "is missing"],
    ["s3://My_Bucket", "is not valid"],
    ["s3://ab", "is not valid"],
    ["s3://a..b", "no '.' next to"],
    ["s3://192.168.0.1", "IP address"],
    ["s3://xn--bucket", "reserves"],
    ["s3://bucket-s3alias", "reserves"],
    ["s3://bucket//api", "empty segment"],
    ["s3://bucket/api//v1", "empty segment"],
    ["s3://bucket//", "empty segment"],
    ["s3://bucket/../other", '".." segment'],
    ["s3://bucket/api/./v1", '"." segment'],
    ["s3://bucket/a b", "may only hold"],
    ["s3://bucket/a\\b", "may only hold"],
    ["s3://bucket/a%2F..", "may only hold"],
    [`s3://bucket/${"a".repeat(513)}`, "longer than 512"],
  ])("refuses %s", (url, message) => {
    expect(() => parseS3Url(url)).toThrow(UsageError);
    expect(() => parseS3Url(url)).toThrow(message);
  });
});
