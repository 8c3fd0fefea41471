// Property-based tests (fast-check): generated catalogues, valid and invalid. Every valid one builds
// and round-trips (the output parses back to exactly the manifest values plus the computed fields);
// every invalid one yields problems, leaves the previous output untouched and throws nothing.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { buildCatalogue } from "../../src/engine/buildCatalogue.js";
import { RACY_MS } from "../../src/engine/buildState.js";
import { MANIFEST_FIELDS, NO_STATS } from "../../src/catalogue/fields.js";
import { isValidName, NAME_PATTERN } from "../../src/catalogue/names.js";
import { readTree, ROOT, tempDir } from "../support/helpers.js";

/** Strings as maintainers write them: any Unicode, but for one-line fields no control characters. */
const text = (multiline: boolean, maxLength: number) =>
  fc
    .string({ unit: "grapheme", maxLength })
    .map((s) => s.replace(multiline ? /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g : /[\u0000-\u001f\u007f]/g, ""))
    .filter((s) => s.length <= maxLength);
const nonEmpty = (maxLength: number) => text(false, maxLength).filter((s) => s.length > 0);
const name = fc.stringMatching(new RegExp(NAME_PATTERN)).filter(isValidName);
const int = fc.integer({ min: 0, max: 2147483647 });

const manifestOf = (internal_name: string) =>
  fc.record({
    category: fc.constantFrom("demos", "emulators", "games", "media", "utilities", "themes"),
    // Often one of a few shared coders, so edits move packages between filtered lists and empty them.
    coder: fc.oneof(fc.constantFrom("Ann", "Bo", "Jānis Rūcis", "A.D.Price/D.Ashley", "../.."), nonEmpty(40)),
    contributors: text(false, 60),
    controllers: fc.stringMatching(/^[wncgkzs]{0,16}$/),
    display_name: nonEmpty(40),
    extracted: int,
    internal_name: fc.constant(internal_name),
    long_description: text(true, 300),
    package_type: fc.constantFrom("dol", "elf", "thm"),
    release_date: int,
    short_description: nonEmpty(80),
    updated: int,
    version: nonEmpty(20),
    zip_size: int,
  });

type StatsEntry = { downloads?: number; rating?: string };

interface Catalogue {
  hosts: { id: string; name: string; host: string; description: string }[];
  packages: Record<string, Record<string, unknown>[]>;
  /** Per host, its stats file's entries, or none for a host without one. */
  stats: Record<string, Record<string, StatsEntry> | null>;
}

const statsEntry: fc.Arbitrary<StatsEntry> = fc.record(
  {
    downloads: fc.oneof(fc.integer({ min: 0, max: 3 }), int),
    rating: fc.oneof(fc.constantFrom("", "4.5"), text(true, 16)),
  },
  { requiredKeys: [] },
);

/** A host's stats: none, or entries for some of its packages and for names it does not have. */
const statsOf = (packages: readonly Record<string, unknown>[]) =>
  fc.option(
    fc
      .tuple(fc.subarray(packages.map((m) => String(m.internal_name))), fc.uniqueArray(name, { maxLength: 2 }))
      .chain(([some, others]) => {
        const names = [...new Set([...some, ...others])];
        return fc.tuple(...names.map((n) => statsEntry.map((e) => [n, e] as const)));
      })
      .map((entries) => Object.fromEntries(entries)),
  );

const withStats = (catalogue: Omit<Catalogue, "stats">): fc.Arbitrary<Catalogue> =>
  fc
    .tuple(...catalogue.hosts.map((h) => statsOf(catalogue.packages[h.id] ?? []).map((s) => [h.id, s] as const)))
    .map((stats) => ({ ...catalogue, stats: Object.fromEntries(stats) }));

const catalogueArb: fc.Arbitrary<Catalogue> = fc
  .uniqueArray(
    name.filter((n) => n.toLowerCase() !== "hosts" && n.toLowerCase() !== "stats"),
    { minLength: 1, maxLength: 3, selector: (n) => n.toLowerCase() },
  )
  .chain(
    (ids) =>
      fc.record({
        hosts: fc.tuple(
          ...ids.map((id, i) =>
            fc.record({
              id: fc.constant(id),
              name: nonEmpty(30),
              host: fc.constant(`host${i}.example.org`),
              description: text(false, 80),
            }),
          ),
        ),
        packages: fc.record(
          Object.fromEntries(
            ids.map((id) => [
              id,
              fc
                .uniqueArray(name, { maxLength: 6, selector: (n) => n.toLowerCase() })
                .chain((names) => fc.tuple(...names.map(manifestOf))),
            ]),
          ),
        ),
      }) as fc.Arbitrary<Omit<Catalogue, "stats">>,
  )
  .chain(withStats);

function writeCatalogue(dir: string, catalogue: Catalogue): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "hosts.json"),
    JSON.stringify({ default: catalogue.hosts[0]!.id, hosts: catalogue.hosts }, null, 2),
  );
  for (const { id } of catalogue.hosts) {
    mkdirSync(join(dir, id));
    for (const m of catalogue.packages[id] ?? [])
      writeFileSync(join(dir, id, `${String(m.internal_name)}.json`), JSON.stringify(m, null, 2));
  }
  writeStats(dir, catalogue.stats);
}

/** Writes each host's stats file, and removes those of hosts that have none. */
function writeStats(dir: string, stats: Catalogue["stats"]): void {
  for (const [host, packages] of Object.entries(stats)) {
    const file = join(dir, "stats", `${host}.json`);
    if (packages === null) rmSync(file, { force: true });
    else {
      mkdirSync(join(dir, "stats"), { recursive: true });
      writeFileSync(file, JSON.stringify({ packages }));
    }
  }
}

/** The downloads and rating a package reports. */
function numbersOf(catalogue: Catalogue, host: string, name: string) {
  const entry = catalogue.stats[host]?.[name];
  return { downloads: entry?.downloads ?? NO_STATS.downloads, rating: entry?.rating ?? NO_STATS.rating };
}

function digest(dir: string): string {
  const hash = createHash("sha256");
  for (const [path, bytes] of readTree(dir)) hash.update(`${path}\0`).update(bytes);
  return hash.digest("hex");
}

const byCodePoint = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

describe("valid catalogues", () => {
  it("build, and the output parses back to exactly the manifests plus the computed fields", async () => {
    await fc.assert(
      fc.asyncProperty(catalogueArb, async (catalogue) => {
        const dir = tempDir();
        writeCatalogue(join(dir, "catalogue"), catalogue);
        const result = await buildCatalogue({ catalogueDir: join(dir, "catalogue"), outDir: join(dir, "dist") });
        expect(result.problems.filter((p) => p.severity === "error")).toEqual([]);
        const out = join(dir, "dist");
        const hosts = JSON.parse(readFileSync(join(out, "v1", "hosts"), "latin1"));
        expect(hosts.repos).toEqual(catalogue.hosts.map((h) => h.id));
        for (const h of catalogue.hosts)
          expect(hosts.repositories[h.id]).toEqual({ description: h.description, host: h.host, name: h.name });
        for (const { id } of catalogue.hosts) {
          const manifests = [...(catalogue.packages[id] ?? [])].sort((a, b) =>
            byCodePoint(String(a.internal_name), String(b.internal_name)),
          );
          const listText = readFileSync(join(out, "v1", id, "packages"), "latin1");
          expect(/^[\x20-\x7e]*$/.test(listText)).toBe(true);
          const expected = (m: Record<string, unknown>) => ({
            ...m,
            ...numbersOf(catalogue, id, String(m.internal_name)),
          });
          expect(JSON.parse(listText)).toEqual(manifests.map(expected));
          for (const m of manifests) {
            const one = JSON.parse(readFileSync(join(out, "v1", id, "package", String(m.internal_name)), "latin1"));
            expect(one).toEqual(expected(m));
            expect(Object.keys(one)).toEqual(Object.keys(one).sort());
          }
        }
      }),
      { numRuns: 60 },
    );
  });

  it("build the same bytes incrementally as fully, after random edits", async () => {
    await fc.assert(
      fc.asyncProperty(catalogueArb, catalogueArb, async (first, second) => {
        const dir = tempDir();
        const catalogue = join(dir, "catalogue");
        writeCatalogue(catalogue, first);
        await buildCatalogue({ catalogueDir: catalogue, outDir: join(dir, "dist") });
        // Replace the manifests of the hosts both share with the second catalogue's.
        const { rmSync } = await import("node:fs");
        for (const h of first.hosts) {
          rmSync(join(catalogue, h.id), { recursive: true });
          mkdirSync(join(catalogue, h.id));
          for (const m of second.packages[second.hosts.find((s) => s.id === h.id) ? h.id : second.hosts[0]!.id] ?? []) {
            writeFileSync(join(catalogue, h.id, `${String(m.internal_name)}.json`), JSON.stringify(m));
          }
        }
        // And their stats with the second's, where it has the host (stats of other names are orphans).
        writeStats(catalogue, Object.fromEntries(first.hosts.map((h) => [h.id, second.stats[h.id] ?? null])));
        const again = await buildCatalogue({ catalogueDir: catalogue, outDir: join(dir, "dist") });
        expect(again.problems.filter((p) => p.severity === "error")).toEqual([]);
        expect(again.built?.mode.kind).not.toBe("full");
        const full = await buildCatalogue({ catalogueDir: catalogue, outDir: join(dir, "full") });
        expect(digest(join(dir, "dist"))).toBe(digest(join(dir, "full")));
        expect(again.problems).toEqual(full.problems);
      }),
      { numRuns: 30 },
    );
  });

  it("rebuild after a stats-only change the packages whose numbers changed and nothing else, as a full build would", async () => {
    await fc.assert(
      fc.asyncProperty(
        catalogueArb.chain((c) => withStats(c).map((next) => [c, next.stats] as const)),
        async ([first, stats]) => {
          const dir = tempDir();
          const catalogue = join(dir, "catalogue");
          writeCatalogue(catalogue, first);
          await buildCatalogue({ catalogueDir: catalogue, outDir: join(dir, "dist") });
          writeStats(catalogue, stats);
          const again = await buildCatalogue({ catalogueDir: catalogue, outDir: join(dir, "dist") });
          const second = { ...first, stats };
          const moved = first.hosts.flatMap(({ id }) =>
            (first.packages[id] ?? []).filter((m) => {
              const [before, after] = [first, second].map((c) => numbersOf(c, id, String(m.internal_name)));
              return before!.downloads !== after!.downloads || before!.rating !== after!.rating;
            }),
          );
          expect(again.built?.mode.kind).toBe(moved.length > 0 ? "incremental" : "unchanged");
          expect(again.built?.changedPackages).toBe(moved.length);
          const full = await buildCatalogue({ catalogueDir: catalogue, outDir: join(dir, "full") });
          expect(digest(join(dir, "dist"))).toBe(digest(join(dir, "full")));
          expect(again.problems).toEqual(full.problems);
        },
      ),
      { numRuns: 30 },
    );
  });
});

describe("a catalogue with package files", () => {
  // The Homebrew Browser's list of a host holds at most 300 demos: 320 demos with files (of 340
  // packages) make the cut matter. Folders shaped like the fixture's snake; each edit moves some packages' downloads or
  // category, takes a package's files away or gives them back, removes packages and adds others.
  const SNAKE = join(ROOT, "test", "fixtures", "package-files", "catalogue", "primary");
  const snake = JSON.parse(readFileSync(join(SNAKE, "snake.json"), "utf8")) as Record<string, unknown>;
  const names = Array.from({ length: 340 }, (_, i) => `app${String(i).padStart(3, "0")}`);
  const categories = ["demos", "games", "utilities", "themes"] as const;
  const edit = fc.record({
    downloads: fc.dictionary(fc.constantFrom(...names), fc.integer({ min: 0, max: 400 }), { maxKeys: 40 }),
    category: fc.dictionary(fc.constantFrom(...names), fc.constantFrom(...categories), { maxKeys: 8 }),
    withoutFiles: fc.uniqueArray(fc.constantFrom(...names), { maxLength: 4 }),
    removed: fc.uniqueArray(fc.constantFrom(...names), { maxLength: 4 }),
    added: fc.integer({ min: 0, max: 3 }),
  });
  type Edit = {
    downloads: Record<string, number>;
    category: Record<string, string>;
    withoutFiles: string[];
    removed: string[];
    added: number;
  };

  const categoryOf = (i: number) => (i % 17 === 16 ? "games" : "demos");
  const downloadsOf = (i: number) => (i * 7) % 401;
  const writePackage = (dir: string, n: string, category: string, files: boolean) => {
    writeFileSync(join(dir, "primary", `${n}.json`), JSON.stringify({ ...snake, internal_name: n, category }));
    if (!files) return;
    cpSync(join(SNAKE, "snake"), join(dir, "primary", n), { recursive: true });
    renameSync(join(dir, "primary", n, "apps", "snake"), join(dir, "primary", n, "apps", n));
    renameSync(join(dir, "primary", n, "private", "snake"), join(dir, "primary", n, "private", n));
  };

  /** The first catalogue: the 340 packages, every seventeenth a game, with files and downloads. */
  function writeWithFiles(dir: string): void {
    mkdirSync(join(dir, "primary"), { recursive: true });
    writeFileSync(
      join(dir, "hosts.json"),
      JSON.stringify({
        default: "primary",
        hosts: [{ id: "primary", name: "P", host: "p.example.org", description: "" }],
      }),
    );
    names.forEach((n, i) => writePackage(dir, n, categoryOf(i), true));
    writeStats(dir, {
      primary: Object.fromEntries(names.map((n, i) => [n, { downloads: downloadsOf(i), rating: "" }])),
    });
  }

  /** The edit, made in place: only the files it changes are written or removed, as an editor does. */
  function applyEdit(dir: string, e: Edit): void {
    const stats: Record<string, StatsEntry> = {};
    names.forEach((n, i) => {
      if (e.removed.includes(n)) {
        rmSync(join(dir, "primary", `${n}.json`));
        rmSync(join(dir, "primary", n), { recursive: true, force: true });
        return;
      }
      stats[n] = { downloads: e.downloads[n] ?? downloadsOf(i), rating: "" };
      if (e.category[n] !== undefined)
        writeFileSync(
          join(dir, "primary", `${n}.json`),
          JSON.stringify({ ...snake, internal_name: n, category: e.category[n] }),
        );
      // Without files, a manifest gives what they derived (FILES_FIELDS) itself.
      if (e.withoutFiles.includes(n)) {
        rmSync(join(dir, "primary", n), { recursive: true, force: true });
        const category = e.category[n] ?? categoryOf(i);
        const derived = { extracted: 2048, package_type: "dol", zip_size: 1024 };
        writeFileSync(
          join(dir, "primary", `${n}.json`),
          JSON.stringify({ ...snake, internal_name: n, category, ...derived }),
        );
      }
    });
    for (let i = 0; i < e.added; i++) {
      writePackage(dir, `new${i}`, "demos", true);
      stats[`new${i}`] = { downloads: 100 * i, rating: "" };
    }
    writeStats(dir, { primary: stats });
  }

  /** A clock past the racy window of the files just written, so that those the edit left keep their signatures. */
  const settled = () => Date.now() + 2 * RACY_MS;

  it("build the same bytes and warnings incrementally as fully after random edits, the Homebrew Browser's lists included", async () => {
    await fc.assert(
      fc.asyncProperty(edit, async (e) => {
        const dir = tempDir();
        const catalogue = join(dir, "catalogue");
        const build = (outDir: string) =>
          buildCatalogue({ catalogueDir: catalogue, outDir, site: false, now: settled });
        writeWithFiles(catalogue);
        const first = await build(join(dir, "dist"));
        expect(first.problems.filter((p) => p.severity === "error")).toEqual([]);
        applyEdit(catalogue, e);
        const again = await build(join(dir, "dist"));
        expect(again.problems.filter((p) => p.severity === "error")).toEqual([]);
        expect(again.built?.mode.kind).not.toBe("full");
        const full = await build(join(dir, "full"));
        expect(digest(join(dir, "dist"))).toBe(digest(join(dir, "full")));
        expect(again.problems).toEqual(full.problems);
        expect(full.problems.some((p) => p.code === "HBB_LEFT_OUT" && p.file === "primary")).toBe(true);
      }),
      { numRuns: 6 },
    );
  }, 300_000);
});

type Corruption = (text: string, field: string) => string | Uint8Array;

const corruptions: Record<string, fc.Arbitrary<Corruption>> = {
  "a value of the wrong type": fc.constantFrom<unknown>(null, true, [], {}, "text", 1.5).map((v) => (t, f) => {
    const m = JSON.parse(t);
    m[f] = typeof m[f] === "string" && typeof v === "string" ? 12 : v;
    return JSON.stringify(m);
  }),
  "a missing field": fc.constant((t, f) => {
    const m = JSON.parse(t);
    delete m[f];
    return JSON.stringify(m);
  }),
  "an unknown field": fc
    .string({ minLength: 1, maxLength: 12 })
    .filter((k) => !(k in MANIFEST_FIELDS))
    .map((k) => (t) => JSON.stringify({ ...JSON.parse(t), [k]: 1 })),
  "a truncated file": fc
    .double({ min: 0.05, max: 0.95, noNaN: true })
    .map((at) => (t) => t.slice(0, Math.floor(t.trimEnd().length * at))),
  "invalid UTF-8": fc
    .integer({ min: 0x80, max: 0xff })
    .filter((b) => b < 0xc2 || b > 0xf4)
    .map((byte) => (t) => Buffer.concat([Buffer.from(t.slice(0, 1)), Buffer.from([byte]), Buffer.from(t.slice(1))])),
  "a duplicate key": fc.constant((t, f) => t.replace("{", `{${JSON.stringify(f)}: 0, `)),
  "an invalid name": fc
    .string({ maxLength: 70 })
    .filter((s) => !isValidName(s))
    .map((n) => (t) => JSON.stringify({ ...JSON.parse(t), internal_name: n })),
  "a number out of range": fc
    .constantFrom(-1, 2 ** 31, 2 ** 53 + 2)
    .map((n) => (t) => JSON.stringify({ ...JSON.parse(t), zip_size: n })),
};

describe("invalid catalogues", () => {
  it("yield errors, write nothing and throw nothing", async () => {
    await fc.assert(
      fc.asyncProperty(
        catalogueArb.filter((c) => Object.values(c.packages).some((p) => p.length > 0)),
        fc
          .constantFrom(...Object.keys(corruptions))
          .chain((kind) => corruptions[kind]!.map((corrupt) => ({ kind, corrupt }))),
        fc.constantFrom(...Object.keys(MANIFEST_FIELDS)),
        fc.nat(),
        async (catalogue, { corrupt }, field, pick) => {
          const dir = tempDir();
          const catalogueDir = join(dir, "catalogue");
          writeCatalogue(catalogueDir, catalogue);
          const out = join(dir, "dist");
          await buildCatalogue({ catalogueDir, outDir: out });
          const before = digest(out);
          const all = catalogue.hosts.flatMap(({ id }) =>
            (catalogue.packages[id] ?? []).map((m) => join(catalogueDir, id, `${String(m.internal_name)}.json`)),
          );
          const file = all[pick % all.length]!;
          writeFileSync(file, corrupt(readFileSync(file, "utf8"), field));
          const result = await buildCatalogue({ catalogueDir, outDir: out });
          expect(result.built).toBeUndefined();
          expect(result.problems.some((p) => p.severity === "error")).toBe(true);
          expect(digest(out)).toBe(before);
        },
      ),
      { numRuns: 120 },
    );
  });

  it("through the binary: exit 1 and no stack trace", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...Object.keys(corruptions)).chain((kind) => corruptions[kind]!),
        fc.constantFrom(...Object.keys(MANIFEST_FIELDS)),
        (corrupt, field) => {
          const dir = tempDir();
          writeCatalogue(join(dir, "catalogue"), {
            hosts: [{ id: "primary", name: "P", host: "p.example.org", description: "" }],
            packages: { primary: [{ ...fixedManifest }] },
            stats: {},
          });
          const file = join(dir, "catalogue", "primary", "one.json");
          writeFileSync(file, corrupt(readFileSync(file, "utf8"), field));
          const run = spawnSync(process.execPath, [join(ROOT, "lib", "cli.js"), "build"], {
            cwd: dir,
            encoding: "utf8",
          });
          expect(run.status).toBe(1);
          expect(run.stderr).not.toMatch(/\n\s+at |internal error/);
        },
      ),
      { numRuns: 25 },
    );
  });

  it("a package file name is accepted exactly when it passes the name rule", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc
          .string({ minLength: 1, maxLength: 80, unit: "grapheme" })
          .filter((s) => !s.includes("/") && !s.includes("\0") && !s.startsWith(".") && Buffer.byteLength(s) < 200),
        async (fileName) => {
          const dir = tempDir();
          writeCatalogue(join(dir, "catalogue"), {
            hosts: [{ id: "primary", name: "P", host: "p.example.org", description: "" }],
            packages: { primary: [] },
            stats: {},
          });
          writeFileSync(
            join(dir, "catalogue", "primary", `${fileName}.json`),
            JSON.stringify({ ...fixedManifest, internal_name: fileName }),
          );
          const result = await buildCatalogue({ catalogueDir: join(dir, "catalogue"), outDir: join(dir, "dist") });
          if (isValidName(fileName)) expect(result.built?.packages).toBe(1);
          else {
            expect(result.built).toBeUndefined();
            expect(result.problems.some((p) => p.code === "INVALID_NAME" || p.code === "RESERVED_NAME")).toBe(true);
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});

const fixedManifest = {
  category: "games",
  coder: "c",
  contributors: "",
  controllers: "w",
  display_name: "One",
  extracted: 1,
  internal_name: "one",
  long_description: "",
  package_type: "dol",
  release_date: 1,
  short_description: "s",
  updated: 2,
  version: "1",
  zip_size: 1,
};
