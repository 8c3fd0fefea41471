// A catalogue whose packages carry their files (test/fixtures/package-files/: folders shaped like
// real homebrew, and a zip), built end to end through the binary: the stored files at their paths,
// the derived sizes, the rebuild that rewrites only what changed, and hostile archives refused with
// the previous output untouched.
import {
  copyFileSync,
  cpSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { unzipSync, zipSync } from "fflate";
import { describe, expect, it } from "vitest";
import yauzl from "yauzl";
import { PLACEHOLDER_ICON } from "../../src/packageFiles/placeholderIcon.js";
import { RACY_MS } from "../../src/engine/buildState.js";
import { servedPathOf } from "../../src/routes/servedPath.js";
import {
  copyFixture,
  FIXTURES,
  loadPackages,
  manifest,
  readJson,
  readTree,
  shopfront,
  writeFiles,
} from "../support/helpers.js";

const HOSTILE = join(FIXTURES, "package-files", "hostile");

/** Hostile fixtures the Homebrew Channel accepts too: they build, with warnings. */
const ACCEPTED = ["extra-app.zip", "icon-wrong-size.zip", "lenient-case.zip", "no-icon.zip"];

function build(catalogue: string, out: string) {
  return shopfront(join(catalogue, ".."), "build", "--catalogue", catalogue, "--out", out);
}

/** The bytes of the files under apps/<name>/ of an archive, as its central directory declares them. */
async function extractedOf(zip: string, name: string): Promise<number> {
  const zipfile = await yauzl.openPromise(zip, { lazyEntries: true });
  let total = 0;
  try {
    for await (const entry of zipfile.eachEntry()) {
      const path = entry.fileName.toLowerCase();
      if (path.startsWith(`apps/${name}/`) && !path.endsWith("/")) total += entry.uncompressedSize;
    }
  } finally {
    zipfile.close();
  }
  return total;
}

function inodes(out: string, names: readonly string[]): Map<string, number> {
  const result = new Map<string, number>();
  for (const name of names) {
    for (const path of [
      `hbb/${name}/${name}.zip`,
      `hbb/${name}/icon.png`,
      `unzipped_apps/${name}/apps/${name}/meta.xml`,
    ])
      result.set(path, statSync(join(out, path)).ino);
  }
  return result;
}

/** Every file the output's file index lists has the size and SHA-256 the index gives it. */
function expectIndexHolds(out: string): void {
  const served = new Map<string, Buffer>();
  for (const [file, bytes] of readTree(out, { index: true })) {
    const path = servedPathOf(file);
    if (path !== undefined) served.set(path, bytes);
  }
  const entry = readJson(join(out, "entry.json")) as { shards: { path: string }[] };
  let files = 0;
  for (const shard of entry.shards) {
    const listed = (readJson(join(out, shard.path)) as { files: { path: string; size: number; sha256: string }[] })
      .files;
    for (const f of listed) {
      const bytes = served.get(f.path)!;
      expect({ path: f.path, size: bytes.length, sha256: createHash("sha256").update(bytes).digest("hex") }).toEqual(f);
      files++;
    }
  }
  expect(files).toBeGreaterThan(0);
}

describe("a catalogue with package files", () => {
  it("stores each package's files at their paths, with zip_size and extracted from the stored zip", async () => {
    const catalogue = copyFixture("package-files");
    writeFiles(catalogue, { "primary/plain.json": manifest("plain") });
    const out = join(catalogue, "..", "dist");
    const result = build(catalogue, out);
    expect(result.stderr).not.toMatch(/error/);
    expect(result.code).toBe(0);

    const binaries = { pong: "boot.dol", snake: "boot.dol", tetris: "boot.elf" } as const;
    for (const [name, binary] of Object.entries(binaries)) {
      const zip = join(out, "hbb", name, `${name}.zip`);
      const api = readJson(join(out, "v1", "primary", "package", name)) as Record<string, unknown>;
      expect(api.zip_size, name).toBe(statSync(zip).size);
      expect(api.extracted, name).toBe(await extractedOf(zip, name));
      expect(api.package_type, name).toBe(binary.slice(5));
      for (const file of [`hbb/${name}/icon.png`, `unzipped_apps/${name}/apps/${name}/${binary}`])
        expect(statSync(join(out, file)).isFile(), file).toBe(true);
      expect(statSync(join(out, `unzipped_apps/${name}/apps/${name}/meta.xml`)).size).toBeGreaterThan(0);
    }
    // The catalogue's zip is published byte for byte, as a copy (an editor changing it must not change the output).
    const source = join(catalogue, "primary", "pong.zip");
    expect(readFileSync(join(out, "hbb/pong/pong.zip")).equals(readFileSync(source))).toBe(true);
    expect(statSync(join(out, "hbb/pong/pong.zip")).ino).not.toBe(statSync(source).ino);
    // pong has no icon: the placeholder; snake's is its own; a folder's binary is unpacked as it is.
    expect(readFileSync(join(out, "hbb/pong/icon.png")).equals(readFileSync(PLACEHOLDER_ICON))).toBe(true);
    expect(
      readFileSync(join(out, "hbb/snake/icon.png")).equals(
        readFileSync(join(catalogue, "primary/snake/apps/snake/icon.png")),
      ),
    ).toBe(true);
    expect(
      readFileSync(join(out, "unzipped_apps/snake/apps/snake/boot.dol")).equals(
        readFileSync(join(catalogue, "primary/snake/apps/snake/boot.dol")),
      ),
    ).toBe(true);
    // A manifest without files has none of them, and its object is as written.
    expect(() => statSync(join(out, "hbb", "plain"))).toThrow();
    expect((readJson(join(out, "v1/primary/package/plain")) as { zip_size: number }).zip_size).toBe(1024);
    // Nothing is left of the build's working folder.
    expect(readdirSync(join(catalogue, "..", ".dist.shopfront")).filter((f) => f.startsWith("work-"))).toEqual([]);
  });

  it("writes zips of file entries only (read back entry by entry), and warns of an uploaded zip's folder entries", async () => {
    const catalogue = copyFixture("package-files");
    const pong = unzipSync(readFileSync(join(catalogue, "primary", "pong.zip")));
    writeFileSync(
      join(catalogue, "primary", "pong.zip"),
      zipSync({ "apps/": new Uint8Array(0), "apps/pong/": new Uint8Array(0), ...pong }),
    );
    const out = join(catalogue, "..", "dist");
    const result = build(catalogue, out);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(
      /primary\/pong\.zip: the archive holds folder entries \(apps\/, apps\/pong\/\): libreshop-client and the Wii's libfat-based extractors/,
    );
    for (const name of ["snake", "tetris"]) {
      const names: string[] = [];
      const zipfile = await yauzl.openPromise(join(out, "hbb", name, `${name}.zip`), { lazyEntries: true });
      try {
        for await (const entry of zipfile.eachEntry()) names.push(entry.fileName);
      } finally {
        zipfile.close();
      }
      expect(names.length, name).toBeGreaterThan(1);
      expect(
        names.filter((entry) => entry.endsWith("/")),
        name,
      ).toEqual([]);
    }
  });

  it("reads and rewrites only the changed package's files on a rebuild, linking the others' from the live slot", async () => {
    const catalogue = copyFixture("package-files");
    const out = join(catalogue, "..", "dist");
    // Files changed within RACY_MS of a build's snapshot are read again by the next: let the copy age.
    await new Promise((resolve) => setTimeout(resolve, RACY_MS + 100));
    expect(build(catalogue, out).code).toBe(0);
    const before = inodes(out, ["pong", "snake", "tetris"]);

    writeFileSync(join(catalogue, "primary/snake/apps/snake/data/readme.txt"), "a longer readme than before\n");
    const result = shopfront(
      join(catalogue, ".."),
      "build",
      "--catalogue",
      catalogue,
      "--out",
      out,
      "--format",
      "json",
    );
    expect(result.code).toBe(0);
    const summary = (JSON.parse(result.stdout) as { summary: Record<string, unknown> }).summary;
    // Only snake's files were read (zipped, checked, hashed); pong's and tetris' kept their signatures.
    expect(summary).toMatchObject({ changedPackages: 1, packageFilesRead: 1 });
    const after = inodes(out, ["pong", "snake", "tetris"]);
    for (const [path, ino] of before) {
      if (path.includes("snake/snake.zip")) expect(after.get(path), path).not.toBe(ino);
      else expect(after.get(path), path).toBe(ino);
    }
    const api = readJson(join(out, "v1/primary/package/snake")) as { zip_size: number };
    expect(api.zip_size).toBe(statSync(join(out, "hbb/snake/snake.zip")).size);

    // Byte for byte what a full build of the same catalogue writes.
    const fresh = join(catalogue, "..", "fresh");
    expect(build(catalogue, fresh).code).toBe(0);
    expect(readTree(out)).toEqual(readTree(fresh));
    // The digests taken as the files were read or written (archives, binaries, icon archives) are the files' own.
    for (const dir of [out, fresh]) expectIndexHolds(dir);
  });

  it("rebuilds a fresh clone (new dates and inodes) with the last output restored by content: no package's files zipped or checked again", async () => {
    const catalogue = copyFixture("package-files");
    const out = join(catalogue, "..", "dist");
    expect(build(catalogue, out).code).toBe(0);
    /** The catalogue copied afresh at its path, as a CI job's clone has it; the output and state stay. */
    const clone = () => {
      cpSync(catalogue, `${catalogue}.clone`, { recursive: true });
      rmSync(catalogue, { recursive: true });
      renameSync(`${catalogue}.clone`, catalogue);
    };
    const buildJson = () => {
      const result = shopfront(
        join(catalogue, ".."),
        "build",
        "--catalogue",
        catalogue,
        "--out",
        out,
        "--format",
        "json",
      );
      expect(result.code, result.stderr).toBe(0);
      return (JSON.parse(result.stdout) as { summary: Record<string, unknown> }).summary;
    };
    const fullBuild = (): Map<string, Buffer> => {
      const fresh = join(catalogue, "..", `fresh-${Math.random().toString(36).slice(2)}`);
      expect(build(catalogue, fresh).code).toBe(0);
      return readTree(fresh);
    };

    clone();
    // Every package's files have new signatures and the same bytes: none is zipped, checked or hashed.
    expect(buildJson()).toMatchObject({ packageFilesRead: 0, filesWritten: 0 });
    expect(readTree(out)).toEqual(fullBuild());

    // A commit that changed one folder's file: that package alone is read (its zip made again).
    clone();
    writeFileSync(join(catalogue, "primary/snake/apps/snake/data/readme.txt"), "a longer readme than before\n");
    expect(buildJson()).toMatchObject({ packageFilesRead: 1 });
    expect(readTree(out)).toEqual(fullBuild());

    // And one that replaced the zip of another: that one alone.
    clone();
    const zip = join(catalogue, "primary/pong.zip");
    const bytes = readFileSync(zip);
    // The end of central directory's comment length is 0: a one-byte comment is another archive.
    writeFileSync(zip, Buffer.concat([bytes.subarray(0, -2), Buffer.from([1, 0, 0x21])]));
    expect(buildJson()).toMatchObject({ packageFilesRead: 1 });
    expect(readTree(out)).toEqual(fullBuild());
  });

  it("writes a host's config from the manifests' names without zipping, checking or hashing package files", () => {
    const catalogue = copyFixture("package-files");
    // Files only a read of them finds wrong: config does not see them; validate does.
    writeFileSync(join(catalogue, "primary/pong.zip"), "not a zip");
    symlinkSync("/etc", join(catalogue, "primary/snake/apps/snake/etc"));
    const config = shopfront(join(catalogue, ".."), "config", "nginx", "--catalogue", catalogue);
    expect(config.code, config.stderr).toBe(0);
    const validate = shopfront(join(catalogue, ".."), "validate", "--catalogue", catalogue);
    expect(validate.code).toBe(1);
    expect(validate.stderr).toMatch(/primary\/pong\.zip: .*not a zip/);
  });

  it("refuses every hostile archive with its file, and leaves the previous output as it was", () => {
    const catalogue = copyFixture("package-files");
    const out = join(catalogue, "..", "dist");
    expect(build(catalogue, out).code).toBe(0);
    let link = readlinkSync(out);
    let tree = readTree(out);
    writeFiles(catalogue, { "primary/snake.json": manifest("snake", { zip_size: undefined, extracted: undefined }) });
    rmSync(join(catalogue, "primary", "snake"), { recursive: true });
    const zips = readdirSync(HOSTILE).filter((f) => f.endsWith(".zip"));
    expect(zips.length).toBeGreaterThan(20);
    for (const zip of zips) {
      copyFileSync(join(HOSTILE, zip), join(catalogue, "primary", "snake.zip"));
      const result = build(catalogue, out);
      if (ACCEPTED.includes(zip)) {
        expect(result.code, `${zip}: ${result.stderr}`).toBe(0);
        link = readlinkSync(out);
        tree = readTree(out);
        continue;
      }
      expect(result.code, zip).toBe(1);
      expect(result.stderr, zip).toMatch(/primary\/snake\.zip: /);
      expect(readlinkSync(out), zip).toBe(link);
      expect(readTree(out), zip).toEqual(tree);
    }
    // About 25 builds through the binary: a busy machine takes more than the default minute.
  }, 300_000);

  it("gives the site and the Homebrew Browser's list the files' sizes for each package with files, and no files for one without", async () => {
    const catalogue = copyFixture("package-files");
    writeFiles(catalogue, { "primary/plain.json": manifest("plain") });
    const { packages } = await loadPackages(catalogue);
    const byName = new Map((packages!.get("primary") ?? []).map((p) => [p.name, p]));
    const size = (path: string) => statSync(join(catalogue, "primary", path)).size;
    const own = {
      pong: { iconSize: statSync(PLACEHOLDER_ICON).size, binarySize: 20256, subdirectories: [] },
      snake: {
        iconSize: size("snake/apps/snake/icon.png"),
        binarySize: size("snake/apps/snake/boot.dol"),
        subdirectories: ["/apps/snake/data", "/apps/snake/data/levels"],
      },
      tetris: {
        iconSize: size("tetris/apps/tetris/Icon.PNG"),
        binarySize: size("tetris/apps/tetris/boot.elf"),
        subdirectories: [],
      },
    };
    for (const name of ["pong", "snake", "tetris"] as const) {
      const p = byName.get(name)!;
      expect(p.files, name).toEqual({
        zipSize: (JSON.parse(p.json) as { zip_size: number }).zip_size,
        icon: name !== "pong",
        ...own[name],
      });
    }
    expect(byName.get("pong")!.files!.zipSize).toBe(statSync(join(catalogue, "primary", "pong.zip")).size);
    expect(byName.get("plain")).not.toHaveProperty("files");
  });

  it("fails with every problem of the catalogue in one run", () => {
    const catalogue = copyFixture("package-files");
    copyFileSync(join(HOSTILE, "no-binary.zip"), join(catalogue, "primary", "pong.zip"));
    writeFiles(catalogue, {
      "primary/tetris.json": { ...(readJson(join(catalogue, "primary/tetris.json")) as object), zip_size: 5 },
      "primary/orphan.zip": "PK",
    });
    const result = build(catalogue, join(catalogue, "..", "dist"));
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/primary\/pong\.zip: the archive has no apps\/pong\/ folder/);
    expect(result.stderr).toMatch(/primary\/tetris\.json: \/zip_size/);
    expect(result.stderr).toMatch(/primary\/orphan\.zip/);
  });
});
