// The browse site: untrusted text stays text, the files are exactly the layout's paths, every link
// is relative and lands on a file of the build, and a rebuild writes exactly the pages whose bytes
// change, ending byte for byte where a full build does.
import { execFileSync } from "node:child_process";
import { existsSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, posix } from "node:path";
import { describe, expect, it } from "vitest";
import { buildCatalogue, type BuildOptions } from "../../src/engine/buildCatalogue.js";
import type { Package } from "../../src/catalogue/fields.js";
import { NAME_PATTERN_BODY } from "../../src/catalogue/names.js";
import { escapeHtml } from "../../src/site/html.js";
import { renderCard, renderListingPage, renderPackagePage } from "../../src/site/renderPages.js";
import { searchRecord } from "../../src/site/assembleSite.js";
import { categoryInWords, compareForReading, controllersInWords, dateInWords, isoDate } from "../../src/site/words.js";
import { formatBytes } from "../../src/util/formatBytes.js";
import { linkTo } from "../../src/site/sitePaths.js";
import {
  copyConformanceWithFiles,
  copyFixture,
  GEN_CATALOGUE,
  HOSTILE_TEXT,
  hostileManifest,
  manifest,
  memoryTempDir,
  readJson,
  readTree,
  shopfront,
  tempDir,
  writeFiles,
} from "../support/helpers.js";

async function build(catalogueDir: string, outDir: string, extra: Partial<BuildOptions> = {}) {
  const result = await buildCatalogue({ catalogueDir, outDir, ...extra });
  if (!result.built) throw new Error(`build failed: ${JSON.stringify(result.problems)}`);
  return result.built;
}

const hostilePackage = { ...hostileManifest(), downloads: 3, rating: "<b>5</b>" } as unknown as Package;

/** The tags and attributes the HTML names, outside of text: what a browser would make elements of. */
function tagsOf(page: string): string[] {
  return [...page.matchAll(/<([a-zA-Z][a-zA-Z0-9]*)/g)].map((m) => m[1]!.toLowerCase());
}

const SAFE_TAGS = new Set(
  "html head meta base title link script body a header nav ol li span main h1 h2 p dl div dt dd section code ul footer form label input select option img time".split(
    " ",
  ),
);

describe("the site's pages", () => {
  it("show untrusted text as text: no markup, no script, no javascript: link", () => {
    const host = { id: "primary", name: "<i>Host</i>", host: "h", description: "<script>x</script>" };
    const pages = [
      renderPackagePage(host, hostilePackage),
      renderListingPage(
        host,
        { kind: "host", host: "primary" },
        {
          first: undefined,
          from: hostilePackage.display_name,
          to: hostilePackage.display_name,
          cards: renderCard("primary", hostilePackage),
          count: 1,
          summary: {
            categories: [{ category: "utilities", count: 1 }],
            topCoders: [{ coder: HOSTILE_TEXT.coder, count: 1 }],
            coders: 1,
          },
        },
      ),
      renderListingPage(
        host,
        { kind: "coder", host: "primary", coder: HOSTILE_TEXT.coder },
        {
          first: hostilePackage.internal_name,
          from: hostilePackage.display_name,
          to: hostilePackage.display_name,
          cards: renderCard("primary", hostilePackage),
          previous: null,
        },
      ),
    ];
    for (const page of pages) {
      expect(page).not.toMatch(/<svg|<i>|<b>|javascript:alert\(1\)">/i);
      // The one image is the site's own placeholder icon, decorative.
      expect([...page.matchAll(/<img[^>]*>/g)].map((m) => m[0].replace(/src="[./]*/, 'src="'))).toEqual([
        '<img class="icon" src="assets/placeholder.svg" width="128" height="48" alt=""' +
          (page === pages[0] ? ">" : ' loading="lazy">'),
      ]);
      // Only the page's own elements, and the one script: the site's own, by src.
      expect(new Set(tagsOf(page))).toSatisfy((tags: Set<string>) => [...tags].every((t) => SAFE_TAGS.has(t)));
      expect([...page.matchAll(/<script[^>]*>/g)].every((m) => / src="[^"]*assets\/search\.js"/.test(m[0]))).toBe(true);
      expect(
        [...page.matchAll(/href="([^"]*)"/g)].map((m) => m[1]).filter((h) => h !== "data:," && /^[a-z]+:/i.test(h!)),
      ).toEqual([]);
    }
    const [packagePage] = pages;
    expect(packagePage).toContain(escapeHtml(HOSTILE_TEXT.long_description));
    expect(packagePage).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(packagePage).toContain("&quot;&gt;&lt;img src=x onerror=alert(1)&gt;");
    expect(packagePage).toContain('<p class="long">&lt;script&gt;');
  });

  it("escape & < > \" ' and write everything beyond ASCII as references", () => {
    expect(escapeHtml(`&<>"'`)).toBe("&amp;&lt;&gt;&quot;&#39;");
    expect(escapeHtml("Ærø 日本 🎮\nx")).toBe("&#xC6;r&#xF8; &#x65E5;&#x672C; &#x1F3AE;\nx");
    expect(searchRecord("primary", hostilePackage)).toMatch(/^[\x20-\x7e]*$/);
  });

  it("link relatively, directory-style", () => {
    expect(linkTo("browse/h/index.html", "browse/h/package/x/index.html")).toBe("package/x/");
    expect(linkTo("browse/h/page/2/index.html", "browse/h/index.html")).toBe("../../");
    expect(linkTo("browse/h/package/x/index.html", "v1/h/package/x")).toBe("../../../../v1/h/package/x");
    expect(linkTo("index.html", "index.html")).toBe("./");
    expect(linkTo("index.html", "assets/site.css")).toBe("assets/site.css");
  });
});

describe("the site's words", () => {
  it("write dates in words, in UTC, with their ISO form", () => {
    expect(dateInWords(1299888000)).toBe("12 March 2011");
    expect(isoDate(1299888000)).toBe("2011-03-12");
    // 23:59:59 UTC on the last day of a year stays in that year whatever the machine's zone.
    expect(dateInWords(1325375999)).toBe("31 December 2011");
    expect(dateInWords(1e20)).toBeUndefined();
  });

  it("name the controllers, counting the Wii Remotes", () => {
    expect(controllersInWords("w")).toEqual(["Wii Remote"]);
    expect(controllersInWords("wwww")).toEqual(["1\u20134 Wii Remotes"]);
    expect(controllersInWords("wwnc")).toEqual(["1\u20132 Wii Remotes", "Nunchuk", "Classic Controller"]);
    expect(controllersInWords("gkzs")).toEqual(["GameCube Controller", "USB keyboard", "Wii Zapper", "SDHC card"]);
    expect(controllersInWords("")).toEqual([]);
    expect(controllersInWords("wq")).toEqual(["Wii Remote", "q"]);
    expect(categoryInWords("emulators")).toBe("Emulators");
    expect(categoryInWords("themes")).toBe("Themes");
  });

  it("sort as people read names: case and accents aside, numbers as numbers, then by internal name", () => {
    const names = [
      ["z", "zebra"],
      ["game10", "Game 10"],
      ["game9", "Game 9"],
      ["b2", "\u00c9clair"],
      ["b1", "eclair"],
      ["a", "Apple"],
      ["Z0", "zebra"],
    ].map(([internal_name, display_name]) => ({ internal_name: internal_name!, display_name: display_name! }));
    expect(names.sort(compareForReading).map((p) => p.internal_name)).toEqual([
      "a",
      "b1",
      "b2",
      "game9",
      "game10",
      "Z0",
      "z",
    ]);
  });
});

/**
 * The site a full build writes of the conformance fixture with package files (copyConformanceWithFiles):
 * snake-deluxe (its own icon) on the default host, _under (the placeholder) on mirror.eu, and
 * packages without files; each file as latin1 text, and where the build wrote them.
 */
async function siteWithFiles(): Promise<{ site: Map<string, string>; out: string }> {
  const out = join(tempDir(), "dist");
  await build(copyConformanceWithFiles(), out);
  return { site: new Map([...readTree(out)].map(([path, bytes]) => [path, bytes.toString("latin1")])), out };
}

describe("the site with package files", () => {
  it("shows each package's stored icon and a download button, the placeholder and no button without files", async () => {
    const { site, out } = await siteWithFiles();
    const sizeOf = (path: string) => formatBytes(statSync(join(out, path)).size);
    const snake = site.get("browse/primary/package/snake-deluxe/index.html")!;
    expect(snake).toContain(
      '<img class="icon" src="../../../../hbb/snake-deluxe/icon.png" width="128" height="48" alt="">',
    );
    expect(snake).toContain(
      `<a class="button" href="../../../../hbb/snake-deluxe/snake-deluxe.zip" download>Download &#183; ${sizeOf("hbb/snake-deluxe/snake-deluxe.zip")}</a>`,
    );
    expect(snake).toContain('<time datetime="2009-01-01">1 January 2009</time>');
    expect(snake).not.toMatch(/release_date|controllers:/);
    // Another host's files are under hosts/<host>/.
    const under = site.get("browse/mirror.eu/package/_under/index.html")!;
    expect(under).toContain('src="../../../../hosts/mirror.eu/hbb/_under/icon.png"');
    expect(under).toContain(
      `href="../../../../hosts/mirror.eu/hbb/_under/_under.zip" download>Download &#183; ${sizeOf("hosts/mirror.eu/hbb/_under/_under.zip")}<`,
    );
    // The search index gives the stored icon of a package with files (relative to it), nothing for the others.
    const entries = (host: string) => new Map(searchEntries(site, host).map((e) => [e[0], e.slice(5)]));
    expect(entries("primary").get("snake-deluxe")).toEqual(["../../hbb/snake-deluxe/icon.png"]);
    expect(entries("primary").get("ZapShot")).toEqual([]);
    expect(entries("mirror.eu").get("_under")).toEqual(["../../hosts/mirror.eu/hbb/_under/icon.png"]);
    // Without files: the placeholder, and no download link at all.
    const zap = site.get("browse/primary/package/ZapShot/index.html")!;
    expect(zap).toContain('src="../../../../assets/placeholder.svg"');
    expect(zap).not.toMatch(/Download &#183;|\.zip"/);
    // The list rows show the same icons.
    const list = site.get("browse/primary/index.html")!;
    expect(list).toContain('src="../../hbb/snake-deluxe/icon.png" width="128" height="48" alt=""');
    expect(list).toContain('src="../../assets/placeholder.svg" width="128" height="48" alt=""');
    // Breadcrumbs name the host by its name on every page.
    for (const page of [snake, list, site.get("browse/primary/category/games/index.html")!])
      expect(page).toMatch(
        /<nav aria-label="Breadcrumb"><ol><li><a href="[^"]*">Home<\/a><\/li><li>(?:<a href="[^"]*">|<span aria-current="page">)Fixture Applications</,
      );
  });

  it("lists packages by display name, the search index in the same order, and the home page shows apps then the API", async () => {
    const { site } = await siteWithFiles();
    const list = site.get("browse/primary/index.html")!;
    const shown = [...list.matchAll(/class="name">([^<]*)</g)].map((m) => m[1]);
    expect(shown).toEqual([
      "240p Test",
      "Snake",
      "Snake &#x2013; Deluxe",
      "Tricky a.b.c",
      "Tricky chart.js",
      "Tricky index.html",
      "Tricky json",
      "Tricky setup.php",
      "Zap Shot",
    ]);
    expect(searchEntries(site, "primary").map((p) => p[0])).toEqual([
      "240pTest",
      "snake",
      "snake-deluxe",
      "a.b.c",
      "chart.js",
      "index.html",
      "json",
      "setup.php",
      "ZapShot",
    ]);
    const home = site.get("index.html")!;
    // Apps first, with icons, each host's full list one link away; the API last, no route list.
    expect(home.indexOf('class="apps"')).toBeGreaterThan(-1);
    expect(home.indexOf('class="apps"')).toBeLessThan(home.indexOf('id="api"'));
    expect(home).toContain('src="hbb/snake-deluxe/icon.png"');
    expect(home).toContain('<a href="browse/primary/">All 9 packages of Fixture Applications</a>');
    expect(home).toContain('<a href="openapi.json">');
    expect(home).not.toContain("GET /");
  });

  it("give the same pages in a rebuild as in a full build", async () => {
    const catalogue = copyConformanceWithFiles();
    const manifestFile = "primary/snake-deluxe.json";
    const now = readJson(join(catalogue, manifestFile)) as Record<string, unknown>;
    // The previous build: snake-deluxe's display name changed, which moves it in its lists.
    writeFiles(catalogue, { [manifestFile]: { ...now, display_name: "Zzz Snake" } });
    const out = join(tempDir(), "dist");
    await build(catalogue, out);
    const before = readTree(out);
    writeFiles(catalogue, { [manifestFile]: now });
    const rebuilt = await build(catalogue, out);
    expect(rebuilt.mode.kind).toBe("incremental");
    const after = readTree(out);
    const full = join(tempDir(), "full");
    await build(catalogue, full);
    expect(differing(after, readTree(full))).toEqual([]);
    // The rebuild wrote the list snake-deluxe moved in, its page, and the host's feeds with its entry.
    const changed = differing(before, after);
    expect(changed).toEqual(
      expect.arrayContaining([
        "browse/primary/index.html",
        "browse/primary/package/snake-deluxe/index.html",
        "browse/primary/feed.atom",
        "browse/primary/feed.jsonfeed",
      ]),
    );
  });
});

/** A host's search records, in the order of its manifest's shards. */
function searchEntries(site: ReadonlyMap<string, string>, host: string): string[][] {
  const manifest = JSON.parse(site.get(`browse/${host}/search.json`)!) as { shards: string[] };
  return manifest.shards.flatMap((shard) => JSON.parse(site.get(`browse/${host}/${shard}`)!) as string[][]);
}

const N = NAME_PATTERN_BODY;
const PAGE = `(?:page/${N}/)?index\\.html`;
const SITE_LAYOUT = new RegExp(
  `^(?:index\\.html|assets/[a-z]+\\.(?:css|js|svg)|browse/${N}/(?:${PAGE}|feed\\.atom|feed\\.jsonfeed|search\\.json|search/[0-9a-f]+\\.json|package/${N}/index\\.html|category/${N}/${PAGE}|coder/[0-9a-f]+(?:/[0-9a-f]+)*/${PAGE}))$`,
);
// v1, and today's API (api/v3, api/v4; another host's under hosts/<host>/api/).
const API_FILE = /^(?:v1\/|api\/v[34]\/|hosts\/[^/]+\/api\/v[34]\/|404\.json$|openapi\.json$)/;

/** Every link and script source of every page, resolved against the tree: what does not land on a file. */
function brokenLinks(tree: ReadonlyMap<string, Buffer>): string[] {
  const broken: string[] = [];
  for (const [path, bytes] of tree) {
    if (!path.endsWith(".html")) continue;
    const text = bytes.toString("latin1");
    // A page with a <base> has its links read from there (the lists: see renderListingPage).
    const base = /<base href="([^"]*)">/.exec(text)?.[1];
    const from = base === undefined ? path : posix.join(posix.dirname(path), base, "index.html");
    for (let [, url] of text.matchAll(/(?:href|src)="([^"]*)"/g)) {
      if (url === "data:," || url!.startsWith("#") || url === base) continue;
      url = url!.split("#")[0]!;
      if (/^[a-z]+:|^\//i.test(url!)) {
        broken.push(`${path}: ${url} is not relative`);
        continue;
      }
      const [target] = posix.join(posix.dirname(from), url!.replace(/&amp;/g, "&")).split("?");
      const file = url!.endsWith("/") || url === "./" ? posix.join(target!, "index.html") : target!;
      // Served by the API's routes (v2's query form) or written by the OpenAPI step, not by the site.
      if (file === "openapi.json" || /^v2\/[^/]+\/packages$/.test(file)) continue;
      if (!tree.has(file)) broken.push(`${path}: ${url} -> ${file}`);
    }
  }
  return broken;
}

describe("the site in the output", () => {
  it("is the layout's paths only, each link relative and landing on a file", async () => {
    const catalogue = copyFixture("conformance");
    writeFiles(catalogue, { "primary/evil.json": hostileManifest() });
    const out = join(tempDir(), "dist");
    await build(catalogue, out);
    const tree = readTree(out);
    const site = [...tree.keys()].filter((p) => !API_FILE.test(p));
    expect(site.filter((p) => !SITE_LAYOUT.test(p))).toEqual([]);
    expect(site).toContain("index.html");
    expect(site).toContain("browse/primary/package/evil/index.html");
    expect(brokenLinks(tree)).toEqual([]);
    // Every file is ASCII, as the API's are.
    expect([...tree].filter(([, b]) => !/^[\x00-\x7f]*$/.test(b.toString("latin1"))).map(([p]) => p)).toEqual([]);
    // Every package of every host has its page.
    for (const host of ["primary", "themes", "empty"]) {
      const names = (readJson(join(out, "v1", host, "packages")) as Package[]).map((p) => p.internal_name);
      for (const name of names) expect(tree.has(`browse/${host}/package/${name}/index.html`)).toBe(true);
    }
  });

  it('is left out with --no-site or "site": false, and toggling it is a full build', async () => {
    const catalogue = copyFixture("basic");
    const cwd = join(catalogue, "..");
    writeFileSync(join(cwd, "shopfront.json"), JSON.stringify({ site: false }));
    expect(shopfront(cwd, "build", "--quiet").code).toBe(0);
    expect(existsSync(join(cwd, "dist", "browse"))).toBe(false);
    expect(existsSync(join(cwd, "dist", "index.html"))).toBe(false);
    writeFileSync(join(cwd, "shopfront.json"), JSON.stringify({ site: true }));
    const on = shopfront(cwd, "build");
    expect(on.stdout).toContain("full build");
    expect(existsSync(join(cwd, "dist", "browse", "primary", "index.html"))).toBe(true);
    const off = shopfront(cwd, "build", "--no-site");
    expect(off.stdout).toContain("full build");
    expect(existsSync(join(cwd, "dist", "browse"))).toBe(false);
  });
});

/** The paths whose bytes differ between two trees (added, removed or changed). */
function differing(before: ReadonlyMap<string, Buffer>, after: ReadonlyMap<string, Buffer>): string[] {
  const paths = new Set([...before.keys(), ...after.keys()]);
  return [...paths].filter((p) => !before.get(p)?.equals(after.get(p) ?? Buffer.alloc(0)) || !after.has(p)).sort();
}

describe("the site in a rebuild", () => {
  it("writes exactly the pages that change and ends where a full build does", { timeout: 240_000 }, async () => {
    // 260 packages on one host: three pages of its list, and categories of more than one page.
    const catalogue = join(memoryTempDir(), "catalogue");
    execFileSync(process.execPath, [GEN_CATALOGUE, catalogue, "260", "1", "5", "--coders=real", "--stats"]);
    const host = (readJson(join(catalogue, "hosts.json")) as { hosts: { id: string }[] }).hosts[0]!.id;
    const names = () => (readJson(join(out, "v1", host, "packages")) as Package[]).map((p) => p.internal_name).sort();
    const out = join(memoryTempDir(), "dist");
    expect((await build(catalogue, out)).mode.kind).toBe("full");
    const file = (name: string) => join(catalogue, host, `${name}.json`);
    const statsFile = join(catalogue, "stats", `${host}.json`);
    const edits: [string, () => void][] = [
      [
        "a display name",
        () =>
          writeFiles(catalogue, {
            [`${host}/${names()[150]}.json`]: {
              ...(readJson(file(names()[150]!)) as object),
              display_name: "Now <b>bold</b>",
            },
          }),
      ],
      [
        "a display name that moves the package to the top of the list",
        () =>
          writeFiles(catalogue, {
            [`${host}/${names()[240]}.json`]: {
              ...(readJson(file(names()[240]!)) as object),
              display_name: "000 Moved to the top",
            },
          }),
      ],
      [
        "a new coder and category",
        () =>
          writeFiles(catalogue, {
            [`${host}/${names()[230]}.json`]: {
              ...(readJson(file(names()[230]!)) as object),
              coder: "Brand New / Coder",
              category: "media",
            },
          }),
      ],
      [
        "a package added first in the list",
        () => writeFiles(catalogue, { [`${host}/000-first.json`]: manifest("000-first") }),
      ],
      ["a hostile package", () => writeFiles(catalogue, { [`${host}/evil.json`]: hostileManifest() })],
      ["a package removed", () => rmSync(file(names()[10]!))],
      [
        "a package's downloads",
        () => {
          const stats = readJson(statsFile) as { packages: Record<string, { downloads: number }> };
          const name = Object.keys(stats.packages)[0]!;
          stats.packages[name]!.downloads += 1000;
          writeFiles(catalogue, { [`stats/${host}.json`]: stats });
        },
      ],
      ["the stats file removed", () => rmSync(statsFile)],
      [
        "enough packages removed to drop a page",
        () =>
          names()
            .slice(0, 70)
            .forEach((n) => rmSync(file(n))),
      ],
      [
        // Every page names its host: a full build, compared with the live output.
        "a host's name",
        () => {
          const hosts = readJson(join(catalogue, "hosts.json")) as { hosts: { name: string }[] };
          hosts.hosts[0]!.name = "Renamed <Host>";
          writeFiles(catalogue, { "hosts.json": hosts });
        },
      ],
    ];
    for (const [what, edit] of edits) {
      const before = readTree(out);
      edit();
      const built = await build(catalogue, out);
      const after = readTree(out);
      const full = join(memoryTempDir(), "dist");
      await build(catalogue, full);
      // A host's name is on every page: the rebuild hands over to a full build, which writes every file.
      const fully = what === "a host's name";
      expect(built.mode.kind, what).toBe(fully ? "full" : "incremental");
      expect(differing(after, readTree(full)), what).toEqual([]);
      expect(built.files, what).toBe(after.size);
      expect(built.filesWritten, what).toBe(fully ? after.size : differing(before, after).length);
    }
  });
});
