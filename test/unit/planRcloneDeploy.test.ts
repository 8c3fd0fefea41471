// The rclone deploy's target syntax and plan, pure: no rclone, no disk.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { fingerprintOf, planRcloneDeploy, type ListedFile } from "../../src/deploy/planRcloneDeploy.js";
import { DEFAULT_CACHE_CONTROL, STATE_FILE, type DeployState, type LocalFile } from "../../src/deploy/planDeploy.js";
import { formatRcloneUrl, parseRcloneUrl, rclonePath } from "../../src/deploy/rcloneLocation.js";
import { cacheControlOf, contentTypeOf } from "../../src/routes/routeTable.js";
import { UsageError } from "../../src/util/errors.js";

function file(path: string, content = path): LocalFile {
  return { path, size: content.length, md5: createHash("md5").update(content).digest("hex") };
}

const BUILD = [
  file("hbb/snake/snake.zip"),
  file("hbb/snake/icon.png"),
  file("v1/primary/package/snake"),
  file("v1/primary/packages"),
  file("v1/hosts"),
  file("index.html"),
  file("entry.json"),
  file("entry.json.minisig"),
  file(".htaccess"),
];

const RECORDED_AT = new Date("2026-01-02T00:00:00Z");

/** The remote as the last deploy of `files` left it, listed with MD5s or (`hashes` false) without. */
function deployed(files: readonly LocalFile[], hashes: boolean): { remote: ListedFile[]; state: DeployState } {
  const remote = files.map((f) => ({
    path: f.path,
    size: f.size,
    modTime: new Date("2026-01-01T00:00:00Z"),
    ...(hashes ? { md5: f.md5 } : {}),
  }));
  const objects = new Map(
    files.map((f, i) => {
      const known = !f.path.startsWith(".");
      return [
        f.path,
        {
          md5: f.md5,
          etag: fingerprintOf(remote[i]!),
          contentType: known ? contentTypeOf(f.path) : "",
          cacheControl: known ? (cacheControlOf(f.path) ?? DEFAULT_CACHE_CONTROL) : "",
        },
      ];
    }),
  );
  return { remote, state: { objects, writtenAt: RECORDED_AT } };
}

function plan(files: readonly LocalFile[], remote: ListedFile[], state?: DeployState, del = false) {
  return planRcloneDeploy({
    files,
    remote,
    ...(state ? { state } : {}),
    cacheControl: DEFAULT_CACHE_CONTROL,
    delete: del,
  });
}

describe("rclone targets", () => {
  it.each([
    ["rclone:/srv/www", { path: "/srv/www" }, "/srv/www"],
    ["rclone:/srv/www/", { path: "/srv/www" }, "/srv/www"],
    ["rclone:/", { path: "/" }, "/"],
    ["rclone:dav:site", { remote: "dav", path: "site" }, "dav:site"],
    ["rclone:my remote:a/b/", { remote: "my remote", path: "a/b" }, "my remote:a/b"],
    ["rclone:box:", { remote: "box", path: "" }, "box:"],
    ["rclone:sftp:/var/www", { remote: "sftp", path: "/var/www" }, "sftp:/var/www"],
    ["rclone:sftp:/var/www/", { remote: "sftp", path: "/var/www" }, "sftp:/var/www"],
    ["rclone:local:/", { remote: "local", path: "/" }, "local:/"],
  ])("%s", (url, location, onCommandLine) => {
    expect(parseRcloneUrl(url)).toEqual(location);
    expect(rclonePath(parseRcloneUrl(url))).toBe(onCommandLine);
    expect(parseRcloneUrl(formatRcloneUrl(parseRcloneUrl(url)))).toEqual(location);
  });

  it("names a file under the location", () => {
    expect(rclonePath({ remote: "box", path: "" }, STATE_FILE)).toBe(`box:${STATE_FILE}`);
    expect(rclonePath({ path: "/" }, STATE_FILE)).toBe(`/${STATE_FILE}`);
    expect(rclonePath({ remote: "dav", path: "a" }, STATE_FILE)).toBe(`dav:a/${STATE_FILE}`);
    expect(rclonePath({ remote: "sftp", path: "/var/www" }, STATE_FILE)).toBe(`sftp:/var/www/${STATE_FILE}`);
    expect(rclonePath({ remote: "local", path: "/" }, STATE_FILE)).toBe(`local:/${STATE_FILE}`);
  });

  it.each([
    ["rclone:site", /absolute path/],
    ["rclone:./site", /absolute path/],
    ["rclone::local:/tmp", /on-the-fly/],
    ["rclone:-x:site", /not an rclone remote name/],
    ["rclone:/srv/../etc", /"\.\." segment/],
    ["rclone:dav:a/../../b", /"\.\." segment/],
    ["rclone:dav:a//b", /empty segment/],
    ["rclone:sftp://var/www", /empty segment/],
    ["rclone:sftp:/var/../etc", /"\.\." segment/],
    ["rclone:/srv/a\nb", /control character/],
    ["s3://bucket", /not an rclone target/],
  ])("refuses %j", (url, message) => {
    expect(() => parseRcloneUrl(url)).toThrow(UsageError);
    expect(() => parseRcloneUrl(url)).toThrow(message);
  });
});

describe("the rclone deploy plan", () => {
  it("sends every file of a first deploy in phases, one batch per type and lifetime, other hosts' files first, a package's files before its object", () => {
    const p = plan(BUILD, []);
    expect(p.batches.map((b) => [b.phase, b.contentType, b.cacheControl, b.files.map((f) => f.path)])).toEqual([
      [0, undefined, undefined, [".htaccess"]],
      [0, "application/zip", cacheControlOf("hbb/snake/snake.zip"), ["hbb/snake/snake.zip"]],
      [0, "image/png", cacheControlOf("hbb/snake/icon.png"), ["hbb/snake/icon.png"]],
      [1, "application/json", DEFAULT_CACHE_CONTROL, ["v1/primary/package/snake"]],
      [2, "application/json", DEFAULT_CACHE_CONTROL, ["v1/primary/packages"]],
      [3, "application/json", DEFAULT_CACHE_CONTROL, ["v1/hosts"]],
      [5, "text/html", DEFAULT_CACHE_CONTROL, ["index.html"]],
      [7, "application/json", DEFAULT_CACHE_CONTROL, ["entry.json"]],
      [8, "text/plain", DEFAULT_CACHE_CONTROL, ["entry.json.minisig"]],
    ]);
    expect(p.batches.flatMap((b) => b.files).every((f) => f.reason === "new")).toBe(true);
  });

  it.each([true, false])("sends nothing when the remote holds the build as recorded (hashes: %s)", (hashes) => {
    const { remote, state } = deployed(BUILD, hashes);
    const p = plan(BUILD, remote, state);
    expect(p.batches).toEqual([]);
    expect(p.unchanged).toHaveLength(BUILD.length);
  });

  it.each([true, false])("sends an edit of the same length (hashes: %s)", (hashes) => {
    const { remote, state } = deployed(BUILD, hashes);
    const edited = BUILD.map((f) => (f.path === "v1/hosts" ? file("v1/hosts", "v1/HOSTS") : f));
    const p = plan(edited, remote, state);
    expect(p.batches.flatMap((b) => b.files.map((f) => [f.path, f.reason]))).toEqual([["v1/hosts", "content"]]);
  });

  it("sends a file written after the record on a remote without hashes, and one whose size changed", () => {
    const { remote, state } = deployed(BUILD, false);
    remote[0] = { ...remote[0]!, modTime: new Date("2026-01-03T00:00:00Z") };
    remote[1] = { ...remote[1]!, size: remote[1]!.size + 1 };
    const p = plan(BUILD, remote, state);
    expect(p.batches.flatMap((b) => b.files.map((f) => f.path)).sort()).toEqual([BUILD[1]!.path, BUILD[0]!.path]);
  });

  it("sends a file again when its lifetime changes, and without a record everything", () => {
    const { remote, state } = deployed(BUILD, true);
    const longer = planRcloneDeploy({ files: BUILD, remote, state, cacheControl: "public, max-age=60", delete: false });
    // The package files keep their own lifetimes; other hosts' files carry none.
    expect(longer.batches.flatMap((b) => b.files.map((f) => f.path)).sort()).toEqual([
      "entry.json",
      "entry.json.minisig",
      "index.html",
      "v1/hosts",
      "v1/primary/package/snake",
      "v1/primary/packages",
    ]);
    expect(
      plan(BUILD, remote)
        .batches.flatMap((b) => b.files)
        .every((f) => f.reason === "unrecorded"),
    ).toBe(true);
  });

  it("deletes or keeps what the build does not have, never the record", () => {
    const { remote, state } = deployed([...BUILD, file("v1/old/packages")], true);
    const listed = [...remote, { path: STATE_FILE, size: 1, modTime: RECORDED_AT }];
    expect(plan(BUILD, listed, state, true).deletions).toEqual(["v1/old/packages"]);
    const kept = plan(BUILD, listed, state, false);
    expect([kept.deletions, kept.kept]).toEqual([[], ["v1/old/packages"]]);
  });
});
