// The browse site in a real browser: Debian's chromium (/usr/bin/chromium, never a downloaded one)
// driven by playwright-core. From the home page to a host, a search that narrows as one types, a
// package; no console or page error, no serious axe-core violation, keyboard reachable, untrusted
// text inert. Screenshots at desktop and phone widths go to test-output/screenshots/, and the
// weight of a 10,000-package host is printed (docs/site.md quotes it; `npm run bench` measures the
// search's speed).
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { createRequire } from "node:module";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildCatalogue } from "../../src/engine/buildCatalogue.js";
import { dol, png } from "../fixtures/package-files/fixture-bytes.mjs";
import { GEN_CATALOGUE, hostileManifest, memoryTempDir, ROOT, tempDir, writeFiles } from "../support/helpers.js";
import fse from "fs-extra";

// The code passed to page.evaluate runs in the browser; the test project has no DOM types, so these few are declared here.
declare const document: any;
declare const MutationObserver: any;
declare function requestAnimationFrame(callback: () => void): number;

const SCREENSHOTS = join(ROOT, "test-output", "screenshots");
const axeSource = (createRequire(import.meta.url)("axe-core") as { source: string }).source;

const STATIC_TYPES: Record<string, string> = {
  html: "text/html",
  css: "text/css",
  js: "text/javascript",
  json: "application/json",
  svg: "image/svg+xml",
  atom: "application/atom+xml",
  jsonfeed: "application/feed+json",
  png: "image/png",
  zip: "application/zip",
};

/**
 * The built folder served as a plain static host serves it (a file per URL, typed by its extension,
 * a folder's index.html at the folder's URL): the package files and the placeholder icon, which the
 * preview server's route table does not serve yet, answer as on such a host.
 */
async function serveStatic(dir: string): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname);
    const file = join(dir, path.endsWith("/") ? `${path}index.html` : path);
    if (!file.startsWith(dir) || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404).end();
      return;
    }
    const extension = /\.([a-z]+)$/.exec(file)?.[1];
    res.writeHead(200, { "Content-Type": STATIC_TYPES[extension ?? "json"] ?? "application/octet-stream" });
    res.end(readFileSync(file));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * Gives two packages of the bundled catalogue package files, as folders the build zips: 3DMinigolf
 * its own icon, 4k_Lighthouse none (the placeholder PNG is stored beside its zip). Their manifests
 * leave the sizes and the type to the files.
 */
function addPackageFiles(catalogueDir: string): void {
  for (const [name, icon] of [
    ["3DMinigolf", true],
    ["4k_Lighthouse", false],
  ] as const) {
    const manifestFile = join(catalogueDir, "primary", `${name}.json`);
    const manifest = fse.readJsonSync(manifestFile) as Record<string, unknown>;
    for (const field of ["zip_size", "extracted", "package_type"]) delete manifest[field];
    writeFiles(catalogueDir, {
      [`primary/${name}.json`]: manifest,
      [`primary/${name}/apps/${name}/boot.dol`]: dol(4000, 3),
      // Its name alone: the manifest gives the rest.
      [`primary/${name}/apps/${name}/meta.xml`]: `<?xml version="1.0" encoding="UTF-8"?>\n<app version="1">\n  <name>${String(manifest.display_name)}</name>\n</app>\n`,
      ...(icon ? { [`primary/${name}/apps/${name}/icon.png`]: png(128, 48, (x) => [x * 2, 90, 200]) } : {}),
    });
  }
}

async function built(catalogue: string): Promise<string> {
  // In memory: the 10,000-package site is some 30,000 files, which take long to remove from a busy disk.
  const out = join(memoryTempDir(), "dist");
  const result = await buildCatalogue({ catalogueDir: catalogue, outDir: out });
  if (!result.built) throw new Error(JSON.stringify(result.problems));
  return out;
}

let browser: Browser;
let site: { url: string; close: () => Promise<void> };
let large: { url: string; close: () => Promise<void> };
let largeHost: string;

beforeAll(async () => {
  const catalogue = join(tempDir(), "catalogue");
  fse.copySync(join(ROOT, "catalogue"), catalogue);
  writeFiles(catalogue, { "primary/evil.json": hostileManifest() });
  addPackageFiles(catalogue);
  const out = await built(catalogue);
  site = await serveStatic(out);
  const big = join(memoryTempDir(), "catalogue");
  execFileSync(process.execPath, [GEN_CATALOGUE, big, "10000", "1", "3", "--coders=real", "--stats"]);
  largeHost = (fse.readJsonSync(join(big, "hosts.json")) as { hosts: { id: string }[] }).hosts[0]!.id;
  large = await serveStatic(await built(big));
  browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
  mkdirSync(SCREENSHOTS, { recursive: true });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await site?.close();
  await large?.close();
});

/** A page that records every console error, page error and dialog. */
async function watchedPage(width = 1280, height = 800): Promise<{ page: Page; problems: string[] }> {
  const page = await browser.newPage({ viewport: { width, height } });
  const problems: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error" || m.type() === "warning") problems.push(`console ${m.type()}: ${m.text()}`);
  });
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  page.on("dialog", (d) => {
    problems.push(`dialog: ${d.message()}`);
    void d.dismiss();
  });
  page.on("requestfailed", (r) => problems.push(`request failed: ${r.url()}`));
  page.on("response", (r) => {
    if (r.status() >= 400) problems.push(`${r.status()}: ${r.url()}`);
  });
  return { page, problems };
}

/** axe-core's serious and critical violations on the page as it is now. */
async function seriousViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ content: axeSource });
  const result = (await page.evaluate("axe.run()")) as {
    violations: { id: string; impact: string; nodes: { target: string[] }[] }[];
  };
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

describe("the browse site in chromium", () => {
  it("goes from the home page to a host, narrows a search as one types, and opens a package", async () => {
    const { page, problems } = await watchedPage();
    await page.goto(site.url);
    expect(await page.locator("h1").textContent()).toBe("Homebrew apps");
    expect(await seriousViolations(page)).toEqual([]);
    // Apps first, with their icons; the API one link away at the end.
    expect(await page.locator("main .apps .app").count()).toBeGreaterThan(0);
    expect(await page.getByRole("link", { name: "the API's OpenAPI document" }).count()).toBe(2);
    await page.getByRole("link", { name: /^All \d+ packages of Shopfront Homebrew$/ }).click();
    await page.waitForURL(/\/browse\/primary\/$/);
    const rows = page.locator("#all .app");
    expect(await rows.count()).toBe(33);
    // In reading order: by display name, ignoring case.
    const names = await page.locator("#all .app a.name").allTextContents();
    expect(names).toEqual([...names].sort(new Intl.Collator("en", { sensitivity: "base", numeric: true }).compare));
    const box = page.getByLabel("Search packages");
    await box.pressSequentially("sn", { delay: 30 });
    const results = page.locator("#results-list li");
    await expect.poll(() => results.count()).toBeGreaterThan(0);
    const few = await results.count();
    await box.pressSequentially("ake", { delay: 30 });
    await expect.poll(() => results.count()).toBeLessThan(few);
    expect(await page.locator("#all").isHidden()).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByLabel("Search packages").fill("");
    await expect.poll(() => page.locator("#all").isVisible()).toBe(true);
    // The category filter narrows too.
    await page.getByLabel("Category").selectOption({ label: "demos" });
    await expect.poll(() => results.count()).toBe(5);
    await page.getByLabel("Category").selectOption({ label: "Any" });
    // Each result shows its package's icon as the list does: its stored icon (3DMinigolf's own,
    // 4k_Lighthouse's placeholder PNG beside its zip), else the site's placeholder.
    const iconsOf = (list: string) =>
      page
        .locator(`${list} li.app`)
        .evaluateAll((items: any[]) =>
          Object.fromEntries(items.map((li) => [li.querySelector("a.name").href, li.querySelector("img.icon").src])),
        );
    await box.fill("i");
    await expect.poll(() => results.count()).toBeGreaterThan(10);
    const shown = await iconsOf("#results-list");
    expect(Object.keys(shown)).toHaveLength(await results.count());
    const listed = await iconsOf("#all");
    for (const [page, src] of Object.entries(shown)) expect({ page, src }).toEqual({ page, src: listed[page] });
    const pageOf = (name: string) => `${site.url}browse/primary/package/${name}/`;
    expect(shown).toMatchObject({
      [pageOf("3DMinigolf")]: `${site.url}hbb/3DMinigolf/icon.png`,
      [pageOf("4k_Lighthouse")]: `${site.url}hbb/4k_Lighthouse/icon.png`,
    });
    expect(Object.values(shown)).toContain(`${site.url}assets/placeholder.svg`);
    const ownIcon = results.filter({ hasText: "3D Minigolf Deluxe" }).locator("img.icon");
    await expect.poll(() => ownIcon.evaluate((img: any) => img.complete && img.naturalWidth)).toBe(128);
    expect(await ownIcon.getAttribute("alt")).toBe("");
    await box.fill("");
    await expect.poll(() => page.locator("#all").isVisible()).toBe(true);
    await page.locator("#all").getByRole("link", { name: "3D Minigolf Deluxe" }).click();
    await page.waitForURL(/\/browse\/primary\/package\/3DMinigolf\/$/);
    expect(await page.locator("h1").textContent()).toBe("3D Minigolf Deluxe");
    expect(await seriousViolations(page)).toEqual([]);
    // The breadcrumb names the host by its name.
    expect(await page.locator("nav[aria-label=Breadcrumb] li").allTextContents()).toEqual([
      "Home",
      "Shopfront Homebrew",
      "3D Minigolf Deluxe",
    ]);
    // Its icon loads, and the download answers with the zip.
    const icon = page.locator("main img.icon");
    await expect.poll(() => icon.evaluate((img: any) => img.complete && img.naturalWidth)).toBe(128);
    expect(await icon.getAttribute("alt")).toBe("");
    const download = page.getByRole("link", { name: /^Download \u00b7 \d+(?:\.\d)? k?B$/ });
    const zip = await page.request.get(new URL((await download.getAttribute("href"))!, page.url()).href);
    expect(zip.status()).toBe(200);
    expect(zip.headers()["content-type"]).toBe("application/zip");
    // The zip the build made of its folder: a local file header first.
    expect((await zip.body()).subarray(0, 4)).toEqual(Buffer.from("PK\x03\x04", "latin1"));
    // Dates and controllers in words, with the machine-readable date.
    const released = page.locator(".details dt:text-is('Released') + dd time");
    expect(await released.textContent()).toMatch(
      /^\d{1,2} (January|February|March|April|May|June|July|August|September|October|November|December) \d{4}$/,
    );
    expect(await released.getAttribute("datetime")).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(await page.locator(".details dt:text-is('Controllers') + dd").textContent()).toMatch(/Wii Remote/);
    expect(await page.locator("main").textContent()).not.toMatch(/controllers|release_date/);
    // The API links are relative and answer.
    const api = await page.getByRole("link", { name: "GET /v1/primary/package/3DMinigolf" }).getAttribute("href");
    expect(api).toBe("../../../../v1/primary/package/3DMinigolf");
    expect((await page.request.get(new URL(api!, page.url()).href)).status()).toBe(200);
    expect(problems).toEqual([]);
  });

  it("announces each host's Atom feed and JSON Feed in the head of its pages, and the browser reads both", async () => {
    const { page, problems } = await watchedPage();
    /** The feeds the page's head announces, as chromium resolves their links, with what fetching each gives. */
    const announced = () =>
      page.evaluate(async () => {
        const links = [...document.querySelectorAll('head link[rel="alternate"]')] as {
          type: string;
          href: string;
          title: string;
        }[];
        return Promise.all(
          links.map(async (l) => {
            // A feed reader may read the link against the page's own address, ignoring <base>: both must agree.
            const raw = new URL((l as any).getAttribute("href") as string, (globalThis as any).location.href as string)
              .href;
            if (raw !== l.href) throw new Error(`${l.href} is ${raw} without the page's <base>`);
            const res = await fetch(l.href);
            const text = await res.text();
            const parsed =
              l.type === "application/atom+xml"
                ? (() => {
                    const xml = new (globalThis as any).DOMParser().parseFromString(text, "application/xml");
                    return {
                      error: xml.querySelector("parsererror") !== null,
                      entries: xml.getElementsByTagName("entry").length,
                    };
                  })()
                : { error: false, entries: (JSON.parse(text) as { items: unknown[] }).items.length };
            return {
              type: l.type,
              path: new URL(l.href).pathname,
              title: l.title,
              status: res.status,
              served: res.headers.get("content-type"),
              ...parsed,
            };
          }),
        );
      });
    const feedsOf = (host: string) => [`/browse/${host}/feed.atom`, `/browse/${host}/feed.jsonfeed`];
    await page.goto(site.url);
    const home = await announced();
    // The home page: every host's two feeds.
    expect(home.map((f) => f.path)).toEqual([...feedsOf("primary"), ...feedsOf("themes")]);
    await page.goto(`${site.url}browse/primary/`);
    const host = await announced();
    await page.goto(`${site.url}browse/primary/package/evil/`);
    const pkg = await announced();
    // A category's page and a coder's, reached as a visitor does, from the host's list.
    await page.goto(`${site.url}browse/primary/`);
    const lists = await page
      .locator("main .meta a")
      .evaluateAll((links: any[]) => links.slice(0, 2).map((a) => a.href as string));
    expect(lists.map((url) => new URL(url).pathname)).toEqual([
      expect.stringMatching(/^\/browse\/primary\/category\/[a-z]+\/$/),
      expect.stringMatching(/^\/browse\/primary\/coder\//),
    ]);
    // They carry a <base> of the host's folder: they announce no feed a reader would resolve
    // elsewhere, and link to the host's page, which announces them.
    for (const url of lists) {
      await page.goto(url);
      expect(await announced()).toEqual([]);
      expect(
        await page.locator('nav[aria-label="Breadcrumb"] a').evaluateAll((a: any[]) => a.map((l) => l.href)),
      ).toContain(`${site.url}browse/primary/`);
    }
    for (const feeds of [host, pkg]) {
      expect(feeds.map((f) => f.path)).toEqual(feedsOf("primary"));
      expect(feeds.map((f) => f.type)).toEqual(["application/atom+xml", "application/feed+json"]);
      expect(feeds[0]!.title).toBe("Shopfront Homebrew: new and updated apps (Atom)");
      for (const feed of feeds) {
        expect(feed).toMatchObject({ status: 200, served: feed.type, error: false });
        expect(feed.entries).toBeGreaterThan(0);
      }
    }
    expect(problems).toEqual([]);
  });

  it("shows hostile text as text: no dialog, no img, in the page and in search results", async () => {
    const { page, problems } = await watchedPage();
    await page.goto(`${site.url}browse/primary/package/evil/`);
    expect(await page.locator("h1").textContent()).toBe(`"><img src=x onerror=alert(1)>`);
    expect(await page.locator(".long").first().textContent()).toContain("<script>alert(1)</script>\n");
    // The one image is the site's own placeholder icon; nothing from the manifest became an element.
    expect(await page.locator("img").evaluateAll((imgs: any[]) => imgs.map((i) => i.getAttribute("src")))).toEqual([
      "../../../../assets/placeholder.svg",
    ]);
    expect(await page.locator("svg, img[onerror]").count()).toBe(0);
    expect(await page.locator("script").count()).toBe(0);
    expect(await page.locator('a[href^="javascript:"]').count()).toBe(0);
    await page.goto(`${site.url}browse/primary/`);
    await page.getByLabel("Search packages").pressSequentially("evil");
    await expect.poll(() => page.locator("#results-list li").count()).toBe(1);
    expect(await page.locator("#results-list").textContent()).toContain(`"><img src=x onerror=alert(1)>`);
    // Its one image is the site's placeholder icon (it has no files), as in the list.
    expect(
      await page.locator("#results-list img").evaluateAll((imgs: any[]) => imgs.map((i) => i.getAttribute("src"))),
    ).toEqual([`${site.url}assets/placeholder.svg`]);
    expect(await page.locator("svg, img[onerror]").count()).toBe(0);
    await page.waitForTimeout(200);
    expect(problems).toEqual([]);
  });

  it("is usable from the keyboard: Tab reaches the skip link, the search box and the list's links", async () => {
    const { page, problems } = await watchedPage();
    await page.goto(`${site.url}browse/primary/`);
    await page.locator("form.search:not([hidden])").waitFor();
    const focused: string[] = [];
    for (let i = 0; i < 12; i++) {
      await page.keyboard.press("Tab");
      focused.push(
        await page.evaluate(() => {
          const e = document.activeElement;
          return `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ""}:${(e.textContent ?? "").trim().slice(0, 20)}`;
        }),
      );
    }
    expect(focused[0]).toBe("a:Skip to content");
    expect(focused).toContain("input#q:");
    expect(focused.filter((f) => f.startsWith("a:")).length).toBeGreaterThan(3);
    // Typing a query and pressing Enter keeps the page (the form never submits).
    await page.getByLabel("Search packages").focus();
    await page.keyboard.type("tracker");
    await page.keyboard.press("Enter");
    await expect.poll(() => page.locator("#results-list li").count()).toBe(1);
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("category");
    expect(problems).toEqual([]);
  });

  it("saves screenshots of the home, host and package pages at desktop and phone widths", async () => {
    for (const [device, width, height] of [
      ["desktop", 1280, 800],
      ["phone", 390, 844],
    ] as const) {
      const { page, problems } = await watchedPage(width, height);
      for (const [name, path] of [
        ["home", ""],
        ["host", "browse/primary/"],
        ["package", "browse/primary/package/3DMinigolf/"],
        ["package-placeholder", "browse/primary/package/4k_Lighthouse/"],
        ["package-hostile", "browse/primary/package/evil/"],
      ]) {
        await page.goto(`${site.url}${path}`);
        await page.screenshot({ path: join(SCREENSHOTS, `${name}-${device}.png`), fullPage: true });
      }
      await page.goto(`${site.url}browse/primary/`);
      await page.getByLabel("Search packages").pressSequentially("box");
      await expect.poll(() => page.locator("#results-list li").count()).toBeGreaterThan(0);
      await page.screenshot({ path: join(SCREENSHOTS, `search-${device}.png`) });
      expect(problems).toEqual([]);
      await page.close();
    }
  });

  it("keeps a 10,000-package host light, and its search narrows the list at each keystroke (figures printed for docs/site.md)", async () => {
    const { page, problems } = await watchedPage();
    const bytes = new Map<string, number>();
    page.on("response", (r) => {
      // A response still arriving when the page closes has no body to count: left out.
      r.body().then(
        (body) => bytes.set(new URL(r.url()).pathname, body.length),
        () => undefined,
      );
    });
    await page.goto(`${large.url}browse/${largeHost}/`);
    // A page holds from 50 to 200 packages, cut where the names say (docs/site.md).
    expect(await page.locator("#all .app").count()).toBeGreaterThanOrEqual(50);
    expect(await page.locator("#all .app").count()).toBeLessThanOrEqual(200);
    const pageWeight = [...bytes.values()].reduce((a, b) => a + b, 0);
    const htmlBytes = bytes.get(`/browse/${largeHost}/`)!;
    // The index (its manifest, then its shards) is fetched on first use.
    const index = page.waitForResponse((r) => r.url().endsWith("/search.json"));
    await page.getByLabel("Search packages").focus();
    await index;
    // The menus are filled once the manifest's shards (one per page, a hundred here) have arrived.
    await expect.poll(() => page.locator("#coder option").count(), { timeout: 30_000 }).toBeGreaterThan(1);
    const searchBytes = () =>
      [...bytes].filter(([path]) => /\/search(?:\.json|\/)/.test(path)).reduce((a, [, n]) => a + n, 0);
    const shown = (await page.evaluate(
      async (queries: string[]) => {
        const input = document.getElementById("q");
        const status = document.getElementById("search-status")!;
        const out: { query: string; shown: number; status: string }[] = [];
        for (const query of queries) {
          const changed = new Promise<void>((resolve) => {
            const observer = new MutationObserver(() => {
              observer.disconnect();
              resolve();
            });
            observer.observe(status, { childList: true, characterData: true, subtree: true });
          });
          input.value = query;
          input.dispatchEvent(new Event("input", { bubbles: true }));
          // Each keystroke updates the status, then the list.
          await changed;
          await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve)));
          out.push({ query, shown: document.querySelectorAll("#results-list li").length, status: status.textContent });
        }
        return out;
      },
      ["a", "ab", "abc", "e", "em", "emu", "z", "zz", "q", "qu"],
    )) as { query: string; shown: number; status: string }[];
    const figures = {
      packages: 10_000,
      hostPageHtmlKB: +(htmlBytes / 1000).toFixed(1),
      hostPageTotalKB: +(pageWeight / 1000).toFixed(1),
      searchIndexKB: +(searchBytes() / 1000).toFixed(1),
    };
    console.log(`site figures: ${JSON.stringify(figures)}`);
    expect(htmlBytes).toBeLessThan(200_000);
    // A longer query lists no more than its prefix did, and the one-letter ones find packages.
    const count = new Map(shown.map((s) => [s.query, s.shown]));
    for (const { query, shown: n, status } of shown) {
      expect(status, query).not.toBe("");
      if (query.length > 1) expect(n, query).toBeLessThanOrEqual(count.get(query.slice(0, -1))!);
    }
    for (const query of ["a", "e"]) expect(count.get(query), query).toBeGreaterThan(0);
    expect(problems).toEqual([]);
  });
});
