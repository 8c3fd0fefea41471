// shopfront deploy rclone:... with Debian's rclone, to a local folder and to `rclone serve webdav`
// started here on 127.0.0.1 and stopped after: the remote ends up holding the build byte for byte,
// a second deploy sends nothing, an edit of the same length is still sent, and rclone's own log
// shows the order: package files, then the API's lists and hosts, then the site, then the signed
// index, deletions last.
import { readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { HeadObjectCommand } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildCatalogue } from "../../src/engine/buildCatalogue.js";
import { deployToRclone, type RcloneDeployResult } from "../../src/deploy/deployToRclone.js";
import { phaseOf, PHASES } from "../../src/routes/publishOrder.js";
import { DEFAULT_CACHE_CONTROL, STATE_FILE } from "../../src/deploy/planDeploy.js";
import { isFileIndexPath } from "../../src/routes/routeTable.js";
import { cacheControlOf, contentTypeOf, isPackageFile } from "../../src/routes/routeTable.js";
import { copyConformanceWithFiles, readTree, shopfrontAsync, tempDir, writeFiles } from "../support/helpers.js";
import { requireProgram, startOnPort, type RunningServer } from "../support/servers/common.js";
import { S3_ENV, startS3Store, storeClient, TEST_BUCKET, type S3Store } from "../support/servers/s3.js";

const RCLONE = requireProgram("rclone", "rclone");

/** The signed index another part of the build writes: here stand-ins at its paths, for the order. */
const INDEX = {
  "entry.json": '{"index":"index/primary/0.json"}\n',
  "entry.json.minisig": "untrusted comment: stand-in\n",
  "minisign.pub": "untrusted comment: stand-in key\n",
  "index/primary/0.json": "[]\n",
};

interface Project {
  catalogue: string;
  dist: string;
}

async function project(): Promise<Project> {
  const catalogue = copyConformanceWithFiles();
  const p = { catalogue, dist: join(catalogue, "..", "dist") };
  await rebuild(p);
  return p;
}

async function rebuild(p: Project): Promise<void> {
  const result = await buildCatalogue({ catalogueDir: p.catalogue, outDir: p.dist });
  if (!result.built) throw new Error(`the fixture did not build: ${JSON.stringify(result.problems)}`);
  writeFiles(p.dist, INDEX);
}

/** The remote's files without the deploy's record, as a sorted list of [path, bytes]. */
function remoteTree(root: string): [string, Buffer][] {
  return [...readTree(root, { index: true })].filter(([path]) => path !== STATE_FILE);
}

function copied(result: RcloneDeployResult): string[] {
  return result.log.filter((e) => e.action === "copied").map((e) => e.path);
}

/** The order rclone's log shows: every copy's phase never goes back, and every deletion comes after every copy. */
function expectPhasedOrder(result: RcloneDeployResult): void {
  const phases = result.log.map((e) => (e.action === "deleted" ? PHASES.length : (phaseOf(e.path) ?? 0)));
  expect(phases).toEqual([...phases].sort((a, b) => a - b));
}

/** The files whose bytes differ between two trees of the build, or that only the second has. */
function changedFiles(before: Map<string, Buffer>, after: Map<string, Buffer>): string[] {
  return [...after].filter(([path, bytes]) => !before.get(path)?.equals(bytes)).map(([path]) => path);
}

describe("deploy rclone: to a local folder", () => {
  it("writes the build byte for byte, in phases, then sends nothing the second time", async () => {
    const p = await project();
    const target = join(tempDir(), "site");
    const first = await deployToRclone({ url: `rclone:${target}`, dir: p.dist });
    expect(remoteTree(target)).toEqual([...readTree(p.dist, { index: true })]);
    expect(first.first).toBe(true);
    expect(copied(first).sort()).toEqual([...readTree(p.dist, { index: true }).keys()]);
    expectPhasedOrder(first);
    // Package files first, the index after the lists, entry.json after the hosts.
    const order = copied(first);
    const lastPackageFile = Math.max(...order.map((path, i) => (isPackageFile(path) ? i : -1)));
    expect(lastPackageFile).toBeLessThan(order.indexOf("v1/hosts"));
    expect(order.indexOf("v1/hosts")).toBeLessThan(order.indexOf("entry.json"));
    expect(order.slice(-Object.keys(INDEX).length).every(isFileIndexPath)).toBe(true);

    // A new build writes every file again (new times); the content is the same, so nothing is sent.
    await rebuild(p);
    const second = await deployToRclone({ url: `rclone:${target}`, dir: p.dist });
    expect(second.log).toEqual([]);
    expect(second.uploaded).toBe(0);
    expect(second.plan.unchanged).toHaveLength(readTree(p.dist, { index: true }).size);
  });

  it("writes every package file before any file that gives its size or URL, and entry.json last but its signature, by the files' change times", async () => {
    const p = await project();
    const target = join(tempDir(), "site");
    await deployToRclone({ url: `rclone:${target}`, dir: p.dist });
    // rclone sets each file's modification time to the source's, so the change time (set by the
    // write, the rename into place and that setting of the time) is when the file arrived.
    const changed = new Map(
      [...readTree(target, { index: true }).keys()]
        .filter((path) => path !== STATE_FILE)
        .map((path) => [path, statSync(join(target, path), { bigint: true }).ctimeNs]),
    );
    const at = (path: string) => {
      const time = changed.get(path);
      if (time === undefined) throw new Error(`${path} was not deployed`);
      return time;
    };
    // Each package's object, and each list, today's API and Homebrew Browser list naming it, after its files.
    const snake = ["hbb/snake-deluxe/snake-deluxe.zip", "hbb/snake-deluxe/icon.png"];
    const describing = [
      "v1/primary/package/snake-deluxe",
      "v1/primary/packages",
      "api/v4/contents",
      "api/v3/contents",
      "hbb/homebrew_browser/listv036.txt",
      "hbb/listv036.txt",
    ];
    for (const file of snake)
      for (const by of describing) expect(at(file), `${file} before ${by}`).toBeLessThanOrEqual(at(by));
    // Every phase's files after every file of an earlier phase (publishOrder.test.ts holds the
    // phases to what each file names).
    const phase = (path: string) => phaseOf(path) ?? 0;
    for (const [path, time] of changed)
      for (const [other, otherTime] of changed)
        if (phase(other) < phase(path)) expect(otherTime, `${other} before ${path}`).toBeLessThanOrEqual(time);
    const entry = at("entry.json");
    for (const [path, time] of changed)
      if (path !== "entry.json.minisig" && path !== "minisign.pub") expect(time, path).toBeLessThanOrEqual(entry);
    expect(Math.max(...snake.map((f) => Number(at(f))))).toBeLessThan(Number(entry));
  });

  it("writes to a named remote at an absolute path (a local remote of the rclone config, as sftp:/var/www is written)", async () => {
    const p = await project();
    const target = join(tempDir(), "named", "site");
    const config = join(tempDir(), "rclone.conf");
    writeFileSync(config, "[disk]\ntype = local\n");
    const result = await shopfrontAsync(p.catalogue, ["deploy", `rclone:disk:${target}`, "--dir", p.dist], {
      RCLONE_CONFIG: config,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(remoteTree(target)).toEqual([...readTree(p.dist, { index: true })]);
  });

  it("deletes what the build no longer has, last, only with --delete", async () => {
    const p = await project();
    const target = join(tempDir(), "site");
    await deployToRclone({ url: `rclone:${target}/`, dir: p.dist });
    const before = readTree(p.dist, { index: true });
    rmSync(join(p.catalogue, "primary", "snake.json"));
    await rebuild(p);
    const after = readTree(p.dist, { index: true });
    const gone = [...before.keys()].filter((path) => !after.has(path));
    expect(gone.length).toBeGreaterThan(0);

    const kept = await deployToRclone({ url: `rclone:${target}`, dir: p.dist });
    expect(kept.plan.kept).toEqual(gone);
    expect(kept.deleted).toBe(0);

    writeFileSync(join(p.dist, "entry.json"), '{"index":"changed"}\n');
    const result = await deployToRclone({ url: `rclone:${target}`, dir: p.dist, delete: true });
    expect(remoteTree(target)).toEqual([...readTree(p.dist, { index: true })]);
    expect(
      result.log
        .filter((e) => e.action === "deleted")
        .map((e) => e.path)
        .sort(),
    ).toEqual(gone);
    expect(copied(result)).toEqual(["entry.json"]);
    expectPhasedOrder(result);
  });
});

describe("deploy rclone: to a WebDAV server (rclone serve webdav)", () => {
  let served: string;
  let server: RunningServer;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    served = tempDir("shopfront-webdav-");
    server = await startOnPort((port) => ({
      command: RCLONE,
      args: ["serve", "webdav", served, "--addr", `127.0.0.1:${port}`],
    }));
    // The remote comes from an rclone config, as a user's does: RCLONE_CONFIG names the file.
    const config = join(tempDir(), "rclone.conf");
    writeFileSync(config, `[dav]\ntype = webdav\nurl = ${server.url}\nvendor = other\n`);
    env = { ...process.env, RCLONE_CONFIG: config };
  });

  afterAll(async () => {
    await server?.stop();
  });

  it("writes the build, sends nothing again, and sends an edit of the same length", async () => {
    const p = await project();
    const url = "rclone:dav:shop/api";
    const first = await deployToRclone({ url, dir: p.dist, env });
    expect(remoteTree(join(served, "shop", "api"))).toEqual([...readTree(p.dist, { index: true })]);
    expectPhasedOrder(first);

    await rebuild(p);
    const second = await deployToRclone({ url, dir: p.dist, env });
    expect(second.log).toEqual([]);

    // A new version of the same length: the remote has no hashes, so rclone alone (size, or
    // --checksum falling back to size) would send none of these.
    const before = readTree(p.dist, { index: true });
    const manifestFile = join(p.catalogue, "primary", "240pTest.json");
    writeFileSync(manifestFile, readFileSync(manifestFile, "utf8").replace('"version": "1.2"', '"version": "1.3"'));
    await rebuild(p);
    const changed = changedFiles(before, readTree(p.dist, { index: true }));
    expect(changed.length).toBeGreaterThan(0);
    expect(
      changed.every((path) => before.get(path)?.length === readTree(p.dist, { index: true }).get(path)!.length),
    ).toBe(true);
    const third = await deployToRclone({ url, dir: p.dist, env });
    expect(copied(third).sort()).toEqual(changed.sort());
    expect(remoteTree(join(served, "shop", "api"))).toEqual([...readTree(p.dist, { index: true })]);
    expectPhasedOrder(third);
  });

  it("runs from the CLI, and refuses a target it cannot name", async () => {
    const p = await project();
    const dry = await shopfrontAsync(p.catalogue, ["deploy", "rclone:dav:cli", "--dir", p.dist, "--dry-run"], {
      RCLONE_CONFIG: env.RCLONE_CONFIG,
    });
    expect(dry.stdout).toMatch(/^package files, the 404 body and the OpenAPI document:\n {2}upload /m);
    expect(dry.stdout).toMatch(/^dry run of .* to rclone:dav:cli: would upload \d+ .*nothing was changed$/m);
    expect([...readTree(served, { index: true }).keys()].filter((path) => path.startsWith("cli/"))).toEqual([]);
    const ok = await shopfrontAsync(p.catalogue, ["deploy", "rclone:dav:cli", "--dir", p.dist], {
      RCLONE_CONFIG: env.RCLONE_CONFIG,
    });
    expect(ok.stderr).toBe("");
    expect(ok.stdout).toMatch(/^deployed .* to rclone:dav:cli: \d+ uploaded/m);
    expect(remoteTree(join(served, "cli"))).toEqual([...readTree(p.dist, { index: true })]);
    const relative = await shopfrontAsync(p.catalogue, ["deploy", "rclone:site", "--dir", p.dist]);
    expect(relative.code).toBe(2);
    expect(relative.stderr).toMatch(/absolute path/);
  });
});

describe("deploy rclone: to an S3 remote (s3rver), which keeps each file's headers", () => {
  let store: S3Store;

  beforeAll(async () => {
    store = await startS3Store();
  });

  afterAll(async () => {
    await store?.stop();
  });

  it("gives every object the route table's type and lifetime", async () => {
    const p = await project();
    const config = join(tempDir(), "rclone.conf");
    writeFileSync(
      config,
      [
        "[store]",
        "type = s3",
        "provider = Other",
        `access_key_id = ${S3_ENV.AWS_ACCESS_KEY_ID}`,
        `secret_access_key = ${S3_ENV.AWS_SECRET_ACCESS_KEY}`,
        `endpoint = ${store.url}`,
        `region = ${S3_ENV.AWS_REGION}`,
        "",
      ].join("\n"),
    );
    // The store speaks plain HTTP; a machine's AWS_CA_BUNDLE makes rclone's AWS SDK (1.60) fail before
    // any request, as it swaps the HTTP transport rclone sets.
    const env = { ...process.env, RCLONE_CONFIG: config, AWS_CA_BUNDLE: undefined };
    const url = `rclone:store:${TEST_BUCKET}/rc`;
    const first = await deployToRclone({ url, dir: p.dist, env });
    expectPhasedOrder(first);
    const client = storeClient(store.url);
    try {
      for (const path of readTree(p.dist, { index: true }).keys()) {
        if (phaseOf(path) === undefined) continue;
        const head = await client.send(new HeadObjectCommand({ Bucket: TEST_BUCKET, Key: `rc/${path}` }));
        expect({ path, type: head.ContentType, cache: head.CacheControl }).toEqual({
          path,
          type: contentTypeOf(path),
          cache: cacheControlOf(path) ?? DEFAULT_CACHE_CONTROL,
        });
      }
    } finally {
      client.destroy();
    }
    // S3 lists MD5s: rclone's listing alone shows nothing changed.
    await rebuild(p);
    expect((await deployToRclone({ url, dir: p.dist, env })).log).toEqual([]);
  });
});
