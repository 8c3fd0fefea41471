// The browse site: untrusted text stays text, the files are exactly the layout's paths, every link
// is relative and lands on a file of the build, and a rebuild writes exactly the pages whose bytes
// change, ending byte for byte where a full build does.
import { execFileSync } from "node:child_process";
import { existsSync, rmSync, writeFileSync } from "node:fs";
import { join, posix } from "node:path";
import { describe, expect, it } from "vitest";
import { buildCatalogue, type BuildOptions } from "../../src/build/buildCatalogue.js";
import type { Package } from "../../src/catalogue/fields.js";
import { NAME_PATTERN_BODY } from "../../src/catalogue/names.js";
import { escapeHtml } from "../../src/site/html.js";
import { renderListingPage, renderPackagePage } from "../../src/site/renderPages.js";
import { renderSearchIndex } from "../../src/site/renderSite.js";
import { linkTo } from "../../src/site/sitePaths.js";
import {
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
  "html head meta title link script body a header nav ol li span main h1 h2 p dl div dt dd section table thead tr th tbody td code ul footer br form label input select option".split(
    " ",
  ),
);

describe("the site's pages", () => {
  it("show untrusted text as text: no markup, no script, no javascript: link", () => {
    const host = { id: "primary", name: "<i>Host</i>", host: "h", description: "<script>x</script>" };
    const pages = [
      renderPackagePage("primary", hostilePackage),
      renderListingPage(host, { kind: "host", host: "primary" }, [hostilePackage], 1, 100, {
        categories: [{ category: "utilities", count: 1 }],
        topCoders: [{ coder: HOSTILE_TEXT.coder, count: 1 }],
        coders: 1,
      }),
      renderListingPage(host, { kind: "coder", host: "primary", coder: HOSTILE_TEXT.coder }, [hostilePackage], 1, 100),
    ];
    for (const page of pages) {
      expect(page).not.toMatch(/<img|<svg|<i>|<b>|javascript:alert\(1\)">/i);
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
    expect(renderSearchIndex([hostilePackage])).toMatch(/^[\x20-\x7e]*$/);
  });

  it("link relatively, directory-style", () => {
    expect(linkTo("browse/h/index.html", "browse/h/package/x/index.html")).toBe("package/x/");
    expect(linkTo("browse/h/page/2/index.html", "browse/h/index.html")).toBe("../../");
    expect(linkTo("browse/h/package/x/index.html", "v1/h/package/x")).toBe("../../../../v1/h/package/x");
    expect(linkTo("index.html", "index.html")).toBe("./");
    expect(linkTo("index.html", "assets/site.css")).toBe("assets/site.css");
  });
});

const N = NAME_PATTERN_BODY;
const PAGE = "(?:page/[1-9][0-9]*/)?index\\.html";
const SITE_LAYOUT = new RegExp(
  `^(?:index\\.html|assets/[a-z]+\\.(?:css|js)|browse/${N}/(?:${PAGE}|search\\.json|package/${N}/index\\.html|category/${N}/${PAGE}|coder/[0-9a-f]+(?:/[0-9a-f]+)*/${PAGE}))$`,
);
const API_FILE = /^(?:v1\/|404\.json$|openapi\.json$)/;

/** Every link and script source of every page, resolved against the tree: what does not land on a file. */
function brokenLinks(tree: ReadonlyMap<string, Buffer>): string[] {
  const broken: string[] = [];
  for (const [path, bytes] of tree) {
    if (!path.endsWith(".html")) continue;
    for (const [, url] of bytes.toString("latin1").matchAll(/(?:href|src)="([^"]*)"/g)) {
      if (url === "data:," || url!.startsWith("#")) continue;
      if (/^[a-z]+:|^\//i.test(url!)) {
        broken.push(`${path}: ${url} is not relative`);
        continue;
      }
      const [target] = posix.join(posix.dirname(path), url!.replace(/&amp;/g, "&")).split("?");
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
      expect(built.mode.kind, what).toBe("incremental");
      expect(differing(after, readTree(full)), what).toEqual([]);
      expect(built.files, what).toBe(after.size);
      expect(built.filesWritten, what).toBe(differing(before, after).length);
    }
  });
});
