// The publish order (src/routes/publishOrder.ts) against what each file of a real build names: a
// build of the conformance fixture with package files is read, every file's references are found
// from its content (a URL or path it gives, a package it describes by name, a list or shard it
// points at), and each file it names must be in an earlier phase than itself, so that no deploy or
// rebuild that follows the phases lets a client read a description of a file before the file.
import { appendFileSync, readFileSync, realpathSync, statSync, writeFileSync } from "node:fs";
import { join, posix } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { buildCatalogue } from "../../src/engine/buildCatalogue.js";
import { hbbListEntries } from "../../src/diff/readSnapshot.js";
import { BINARY_NAMES, packageFilePaths } from "../../src/routes/packageFileLayout.js";
import { PHASES, phaseOf } from "../../src/routes/publishOrder.js";
import { FILE_INDEX, isSiteFile, routeOfFile } from "../../src/routes/routeTable.js";
import { parseEntry, parseShard } from "../../src/trust/fileIndex.js";
import { generateSecretKey } from "../../src/trust/minisign.js";
import { copyConformanceWithFiles, readTree, tempDir } from "../support/helpers.js";

/** Why a file names another: what the check found in it. */
type Why = "url" | "describes package" | "lists host" | "index" | "link";

interface Reference {
  from: string;
  to: string;
  why: Why;
}

/** The host a file of the build belongs to: `v1/<host>/...`, `hosts/<host>/...`, else the default. */
function hostOf(path: string, defaultHost: string): string {
  const match = /^(?:v1|hosts)\/([^/]+)\//.exec(path);
  return match ? match[1]! : defaultHost;
}

/** Every file of a package of a host that the build holds (its archive, icon, binary, meta.xml). */
function packageFiles(files: ReadonlyMap<string, Buffer>, host: string, defaultHost: string, name: string): string[] {
  return BINARY_NAMES.flatMap((binary) => Object.values(packageFilePaths(host, defaultHost, name, binary))).filter(
    (path, i, all) => files.has(path) && all.indexOf(path) === i,
  );
}

function walk(value: unknown, visit: (value: unknown) => void): void {
  visit(value);
  if (Array.isArray(value)) value.forEach((v) => walk(v, visit));
  else if (typeof value === "object" && value !== null) Object.values(value).forEach((v) => walk(v, visit));
}

/** What `path` names among the build's files, found from its bytes. */
function referencesOf(path: string, files: ReadonlyMap<string, Buffer>, defaultHost: string): Reference[] {
  const bytes = files.get(path)!;
  const text = bytes.toString("utf8");
  const refs: Reference[] = [];
  const add = (to: string, why: Why) => {
    if (files.has(to) && to !== path) refs.push({ from: path, to, why });
  };
  const describes = (host: string, name: string) => {
    for (const file of packageFiles(files, host, defaultHost, name)) add(file, "describes package");
    add(`v1/${host}/package/${name}`, "describes package");
  };
  if (path === FILE_INDEX.entry) {
    const entry = parseEntry(text);
    if (typeof entry === "string") throw new Error(entry);
    for (const shard of entry.shards) add(shard.path, "index");
  } else if (path.startsWith(`${FILE_INDEX.folder}/`) && path.endsWith(".json")) {
    const listed = parseShard(text);
    if (typeof listed === "string") throw new Error(listed);
    for (const file of listed) add(file.path.slice(1), "index");
  } else if (path === "hbb/repo_list.txt") {
    for (const line of text.split(/\r?\n/))
      if (line.startsWith("/") && line.endsWith(".txt")) add(line.slice(1), "url");
  } else if (path.endsWith("/listv036.txt")) {
    for (const name of hbbListEntries(text).keys()) describes(hostOf(path, defaultHost), name);
  } else if (routeOfFile(path) !== undefined) {
    const host = hostOf(path, defaultHost);
    walk(JSON.parse(text) as unknown, (value) => {
      if (typeof value === "string" && /^https?:\/\//.test(value)) add(new URL(value).pathname.slice(1), "url");
      if (typeof value !== "object" || value === null || Array.isArray(value)) return;
      const record = value as Record<string, unknown>;
      const name = record.internal_name ?? record.slug;
      if (typeof name === "string") describes(host, name);
      if (Array.isArray(record.repos))
        for (const id of record.repos) if (typeof id === "string") add(`v1/${id}/packages`, "lists host");
    });
  } else if (isSiteFile(path) && path.endsWith(".html")) {
    for (const match of text.matchAll(/\b(?:href|src)="([^"#?]+)/g)) {
      const target = match[1]!;
      if (/^[a-z]+:/i.test(target)) continue;
      const resolved = posix.normalize(
        target.startsWith("/") ? target.slice(1) : posix.join(posix.dirname(path), target),
      );
      add(
        resolved.endsWith("/") || files.has(`${resolved}/index.html`)
          ? `${resolved.replace(/\/$/, "")}/index.html`
          : resolved,
        "link",
      );
    }
  }
  return refs;
}

describe("the publish order against what each file names", () => {
  let files: Map<string, Buffer>;
  let references: Reference[];

  beforeAll(async () => {
    const out = join(tempDir(), "dist");
    const built = await buildCatalogue({
      catalogueDir: copyConformanceWithFiles(),
      outDir: out,
      index: { mirrors: [], secretKey: undefined },
    });
    expect(built.built).toBeDefined();
    files = readTree(out, { index: true });
    const hosts = JSON.parse(readFileSync(join(out, "v1", "hosts"), "utf8")) as { repos: string[] };
    const defaultHost = hosts.repos.find((id) => ![...files.keys()].some((p) => p.startsWith(`hosts/${id}/`)))!;
    references = [...files.keys()].flatMap((path) => referencesOf(path, files, defaultHost));
  }, 120_000);

  it("finds each kind of reference in the build (the check below is not empty)", () => {
    const pairs = (from: RegExp, to: RegExp) => references.filter((r) => from.test(r.from) && to.test(r.to));
    // A package object gives its zip's size; the lists, today's API and the Homebrew Browser's lists name the files.
    expect(pairs(/^v1\/[^/]+\/package\//, /\.zip$/).length).toBeGreaterThan(0);
    expect(pairs(/^v1\/[^/]+\/packages$/, /^v1\/[^/]+\/package\//).length).toBeGreaterThan(0);
    expect(pairs(/api\/v4\/contents$/, /\.zip$/).length).toBeGreaterThan(0);
    expect(pairs(/api\/v3\/contents$/, /icon\.png$/).length).toBeGreaterThan(0);
    expect(pairs(/listv036\.txt$/, /\.zip$/).length).toBeGreaterThan(0);
    expect(pairs(/^hbb\/repo_list\.txt$/, /listv036\.txt$/).length).toBeGreaterThan(0);
    expect(pairs(/^v1\/hosts$/, /^v1\/[^/]+\/packages$/).length).toBeGreaterThan(0);
    expect(pairs(/^browse\//, /\.zip$/).length).toBeGreaterThan(0);
    expect(pairs(/^entry\.json$/, /^index\//).length).toBeGreaterThan(0);
    expect(pairs(/^index\//, /^v1\/hosts$/).length).toBe(1);
  });

  it("puts every file a file names in an earlier phase (the site's pages may link each other within theirs)", () => {
    const late = references
      .filter(({ from, to }) => {
        const [a, b] = [phaseOf(from), phaseOf(to)];
        if (a === undefined || b === undefined) return true;
        return b > a || (b === a && !(isSiteFile(from) && isSiteFile(to)));
      })
      .map(({ from, to, why }) => `${from} (${PHASES[phaseOf(from)!]}) names ${to} (${why}, ${PHASES[phaseOf(to)!]})`);
    expect(late).toEqual([]);
  });

  it("publishes entry.json after every file but its signature and the key", () => {
    const entry = phaseOf(FILE_INDEX.entry)!;
    const later = [...files.keys()].filter((path) => (phaseOf(path) ?? -1) >= entry && path !== FILE_INDEX.entry);
    expect(later.every((path) => path === FILE_INDEX.signature || path === FILE_INDEX.publicKey)).toBe(true);
  });
});

describe("an in-place rebuild, by the files' change times", () => {
  it("writes a package's new files before its object, the lists and today's API naming them, and entry.json last", async () => {
    const catalogue = copyConformanceWithFiles();
    const out = join(tempDir(), "dist");
    const build = () =>
      buildCatalogue({ catalogueDir: catalogue, outDir: out, index: { mirrors: [], secretKey: generateSecretKey() } });
    expect((await build()).built).toBeDefined();
    // snake-deluxe's binary grows (its zip and sizes change) and its version moves.
    const app = join(catalogue, "primary", "snake-deluxe");
    appendFileSync(join(app, "apps", "snake-deluxe", "boot.elf"), Buffer.alloc(4096, 7));
    const manifestFile = `${app}.json`;
    writeFileSync(manifestFile, readFileSync(manifestFile, "utf8").replace('"0.9b"', '"1.0"'));
    const before = readTree(out, { index: true });
    const rebuilt = await build();
    expect(rebuilt.built?.mode.kind).toBe("incremental");
    const after = readTree(out, { index: true });
    const live = realpathSync(out);
    const changed = [...after.keys()].filter((path) => !before.get(path)?.equals(after.get(path)!));
    const at = new Map(changed.map((path) => [path, statSync(join(live, path), { bigint: true }).ctimeNs]));
    const zip = "hbb/snake-deluxe/snake-deluxe.zip";
    const describing = [
      "v1/primary/package/snake-deluxe",
      "v1/primary/packages",
      "api/v4/contents",
      "hbb/homebrew_browser/listv036.txt",
      "entry.json",
    ];
    for (const path of [zip, ...describing]) expect(changed, path).toContain(path);
    for (const path of describing) expect(at.get(zip)!, `${zip} before ${path}`).toBeLessThanOrEqual(at.get(path)!);
    // Every phase after every earlier one, entry.json after all but its signature and the key.
    const phase = (path: string) => phaseOf(path) ?? 0;
    for (const [path, time] of at)
      for (const [other, otherTime] of at)
        if (phase(other) < phase(path)) expect(otherTime, `${other} before ${path}`).toBeLessThanOrEqual(time);
  }, 120_000);
});
