// Each host's feeds: the Atom feed parses cleanly in Debian's python3-feedparser however hostile the
// manifests are, the JSON Feed has every field JSON Feed 1.1 requires, both link each entry's page,
// icon and (with files) its archive at the v4 API's own URL, and a rebuild writes a host's feeds only
// when its newest packages move, ending byte for byte where a full build does.
import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildCatalogue, type BuildOptions } from "../../src/engine/buildCatalogue.js";
import { FEED_SIZE, feedDate, renderAtomFeed, renderJsonFeed, type FeedPackage } from "../../src/site/renderFeeds.js";
import { contentTypeOf } from "../../src/routes/routeTable.js";
import {
  copyConformanceWithFiles,
  GEN_CATALOGUE,
  HOSTILE_TEXT,
  readJson,
  readTree,
  tempDir,
} from "../support/helpers.js";

/** Debian's feedparser, as a reader runs it: the feed's bozo flag and what it makes of each entry. */
function parseAtom(xml: string) {
  const script = `
import feedparser, json, sys
d = feedparser.parse(sys.stdin.buffer.read())
print(json.dumps({
  "bozo": d.bozo, "error": str(d.get("bozo_exception", "")), "version": d.version,
  "title": d.feed.get("title"), "subtitle": d.feed.get("subtitle"), "updated": d.feed.get("updated"),
  "links": [{"rel": l.get("rel"), "type": l.get("type"), "href": l.get("href")} for l in d.feed.get("links", [])],
  "entries": [{
    "id": e.get("id"), "title": e.get("title"), "summary": e.get("summary"), "updated": e.get("updated"),
    "author": e.get("author"), "content": [c.value for c in e.get("content", [])],
    "links": [{"rel": l.get("rel"), "type": l.get("type"), "href": l.get("href"), "length": l.get("length")} for l in e.get("links", [])],
    "thumbnails": [t.get("url") for t in e.get("media_thumbnail", [])],
    "tags": [t.get("term") for t in e.get("tags", [])],
  } for e in d.entries],
}))
`;
  const run = spawnSync("/usr/bin/python3", ["-c", script], { input: xml, encoding: "utf8" });
  if (run.status !== 0) throw new Error(`feedparser failed: ${run.stderr}`);
  return JSON.parse(run.stdout) as {
    bozo: boolean;
    error: string;
    version: string;
    title: string;
    subtitle: string;
    updated: string;
    links: { rel: string; type: string; href: string }[];
    entries: {
      id: string;
      title: string;
      summary: string;
      updated: string;
      author: string;
      content: string[];
      links: { rel: string; type: string; href: string; length: string | null }[];
      thumbnails: string[];
      tags: string[];
    }[];
  };
}

interface JsonFeed {
  version: string;
  title: string;
  home_page_url: string;
  feed_url: string;
  items: {
    id: string;
    url: string;
    title: string;
    content_html?: string;
    content_text?: string;
    image: string;
    date_modified: string;
    attachments?: { url: string; mime_type: string; size_in_bytes: number }[];
    _shopfront: { name: string; version: string };
  }[];
}

/** JSON Feed 1.1's required fields: the version URL, a title, and items each with an id and a content. */
function expectJsonFeed11(feed: JsonFeed): void {
  expect(feed.version).toBe("https://jsonfeed.org/version/1.1");
  expect(typeof feed.title).toBe("string");
  expect(Array.isArray(feed.items)).toBe(true);
  for (const item of feed.items) {
    expect(typeof item.id).toBe("string");
    expect(typeof (item.content_html ?? item.content_text)).toBe("string");
  }
}

// Beyond the site's hostile text: characters XML 1.0 cannot hold even as a reference, and a lone surrogate.
const FORBIDDEN = "\ufffe\uffff\ud800";
const hostile: FeedPackage = {
  internal_name: "evil",
  display_name: `${HOSTILE_TEXT.display_name}${FORBIDDEN} ]]> &amp; ünï`,
  version: HOSTILE_TEXT.version,
  short_description: `${HOSTILE_TEXT.short_description} <![CDATA[x]]>`,
  coder: HOSTILE_TEXT.coder,
  category: "games",
  release_date: 0,
  updated: 2147483647,
  files: { zipSize: 1234, icon: true, archive: "hbb/evil/evil.zip", iconFile: "hbb/evil/icon.png" },
};
const plain: FeedPackage = {
  internal_name: "plain",
  display_name: "Plain",
  version: "1.0",
  short_description: "A plain app",
  coder: "Ann",
  category: "utilities",
  release_date: 1300000000,
  updated: 0,
};
const hostileHost = { id: "primary", name: `<b>Host</b> & "co"${FORBIDDEN}`, host: "h", description: "</subtitle><x>" };

describe("a host's feeds", () => {
  it("parse without a bozo flag in feedparser, hostile titles and all, each entry with its fields", () => {
    const xml = renderAtomFeed("https://shop.example.org", hostileHost, [hostile, plain]);
    expect(/^[\x00-\x7f]*$/.test(xml)).toBe(true);
    const feed = parseAtom(xml);
    expect(feed.error).toBe("");
    expect(feed.bozo).toBe(false);
    expect(feed.version).toBe("atom10");
    expect(feed.title).toBe(`<b>Host</b> & "co"\ufffd\ufffd\ufffd: new and updated apps`);
    expect(feed.subtitle).toBe("</subtitle><x>");
    expect(feed.updated).toBe("2038-01-19T03:14:07Z");
    expect(feed.links).toContainEqual({
      rel: "self",
      type: "application/atom+xml",
      href: "https://shop.example.org/browse/primary/feed.atom",
    });
    const [evil, other] = feed.entries;
    expect(evil!.title).toBe(`${HOSTILE_TEXT.display_name}\ufffd\ufffd\ufffd ]]> &amp; ünï ${HOSTILE_TEXT.version}`);
    expect(evil!.summary).toBe(`${HOSTILE_TEXT.short_description} <![CDATA[x]]>`);
    expect(evil!.author).toBe(HOSTILE_TEXT.coder);
    expect(evil!.id).toBe("https://shop.example.org/browse/primary/package/evil/#2147483647");
    expect(evil!.links).toContainEqual({
      rel: "alternate",
      type: "text/html",
      href: "https://shop.example.org/browse/primary/package/evil/",
      length: null,
    });
    expect(evil!.links).toContainEqual({
      rel: "enclosure",
      type: "application/zip",
      href: "https://shop.example.org/hbb/evil/evil.zip",
      length: "1234",
    });
    expect(evil!.thumbnails).toEqual(["https://shop.example.org/hbb/evil/icon.png"]);
    expect(evil!.tags).toEqual(["games"]);
    // The HTML body holds the icon, the version and the download; the manifest's markup stays text.
    const body = evil!.content[0]!;
    expect(body).toContain('src="https://shop.example.org/hbb/evil/icon.png"');
    expect(body).toContain("Version 1.0&lt;/td&gt;&lt;script&gt;");
    expect([...body.matchAll(/<([a-zA-Z]+)/g)].map((m) => m[1])).toEqual(["p", "img", "p", "p", "a"]);
    expect([...body.matchAll(/href="([^"]*)"/g)].map((m) => m[1])).toEqual([
      "https://shop.example.org/hbb/evil/evil.zip",
    ]);
    // A package without files: the placeholder icon, and no enclosure.
    expect(other!.title).toBe("Plain 1.0");
    expect(other!.thumbnails).toEqual(["https://shop.example.org/assets/placeholder.svg"]);
    expect(other!.links.map((l) => l.rel)).toEqual(["alternate"]);
    expect(other!.updated).toBe("2011-03-13T07:06:40Z");
  });

  it("are valid with no entries", () => {
    const feed = parseAtom(renderAtomFeed("http://h", { id: "empty", name: "Empty", host: "h", description: "" }, []));
    expect(feed.bozo).toBe(false);
    expect(feed.entries).toEqual([]);
    expectJsonFeed11(JSON.parse(renderJsonFeed("http://h", hostileHost, [])) as JsonFeed);
  });

  it("write a JSON Feed 1.1 whose items have their icon, version and links", () => {
    const text = renderJsonFeed("https://shop.example.org", hostileHost, [hostile, plain]);
    expect(/^[\x00-\x7f]*$/.test(text)).toBe(true);
    const feed = JSON.parse(text) as JsonFeed;
    expectJsonFeed11(feed);
    expect(feed.feed_url).toBe("https://shop.example.org/browse/primary/feed.jsonfeed");
    expect(feed.home_page_url).toBe("https://shop.example.org/browse/primary/");
    const [evil, other] = feed.items;
    expect(evil).toMatchObject({
      url: "https://shop.example.org/browse/primary/package/evil/",
      title: `${hostile.display_name} ${HOSTILE_TEXT.version}`,
      image: "https://shop.example.org/hbb/evil/icon.png",
      date_modified: "2038-01-19T03:14:07Z",
      attachments: [
        { url: "https://shop.example.org/hbb/evil/evil.zip", mime_type: "application/zip", size_in_bytes: 1234 },
      ],
      _shopfront: { name: "evil", version: HOSTILE_TEXT.version },
    });
    expect(other!.image).toBe("https://shop.example.org/assets/placeholder.svg");
    expect(other!.attachments).toBeUndefined();
    expect(other!._shopfront.version).toBe("1.0");
  });

  it("are typed application/atom+xml and application/feed+json by the route table", () => {
    expect(contentTypeOf("browse/primary/feed.atom")).toBe("application/atom+xml");
    expect(contentTypeOf("browse/primary/feed.jsonfeed")).toBe("application/feed+json");
    expect(contentTypeOf("browse/primary/search.json")).toBe("application/json");
  });

  it("in a build, link each package's archive and icon at the v4 API's URLs, under the base URL", async () => {
    const catalogue = copyConformanceWithFiles();
    const out = join(tempDir(), "dist");
    const result = await buildCatalogue({ catalogueDir: catalogue, outDir: out, baseUrl: "https://shop.example.org" });
    expect(result.built).toBeDefined();
    const hosts = (readJson(join(out, "v1", "hosts")) as { repos: string[] }).repos;
    let withFiles = 0;
    for (const host of hosts) {
      const feed = JSON.parse(readFileSync(join(out, "browse", host, "feed.jsonfeed"), "utf8")) as JsonFeed;
      const atom = parseAtom(readFileSync(join(out, "browse", host, "feed.atom"), "latin1"));
      expect(atom.bozo).toBe(false);
      expect(atom.entries.map((e) => e.id)).toEqual(feed.items.map((i) => i.id));
      const packages = readJson(join(out, "v1", host, "packages")) as { internal_name: string }[];
      expect(feed.items.length).toBe(Math.min(FEED_SIZE, packages.length));
      const v4Path = host === "primary" ? "api/v4/contents" : `hosts/${host}/api/v4/contents`;
      const v4 = readJson(join(out, v4Path)) as { slug: string; assets: Record<string, { url: string }> }[];
      for (const item of feed.items) {
        const app = v4.find((a) => a.slug === item._shopfront.name)!;
        expect(item.url).toBe(`https://shop.example.org/browse/${host}/package/${app.slug}/`);
        if (item.attachments) {
          withFiles++;
          expect(item.attachments[0]!.url).toBe(app.assets.archive!.url);
          expect(item.image).toBe(app.assets.icon!.url);
        }
      }
    }
    expect(withFiles).toBeGreaterThan(0);
  });
});

/** Every file of a build's tree, by path. */
function tree(dir: string): Map<string, string> {
  return new Map([...readTree(dir)].map(([path, bytes]) => [path, bytes.toString("latin1")]));
}

describe("a rebuild of the feeds", () => {
  const settled = () => Date.now() + 10_000;
  const build = async (catalogueDir: string, outDir: string, extra: Partial<BuildOptions> = {}) => {
    const result = await buildCatalogue({ catalogueDir, outDir, now: settled, ...extra });
    if (!result.built) throw new Error(`build failed: ${JSON.stringify(result.problems)}`);
    return result.built;
  };

  it("writes a host's feeds only when its newest packages move, and ends where a full build does", async () => {
    const dir = tempDir();
    const catalogue = join(dir, "catalogue");
    execFileSync(process.execPath, [GEN_CATALOGUE, catalogue, "160", "2", "11", "--coders=real"]);
    const out = join(dir, "dist");
    await build(catalogue, out);
    const feedPaths = (host: string) => [`browse/${host}/feed.atom`, `browse/${host}/feed.jsonfeed`];
    const manifests = (host: string) =>
      (readJson(join(out, "v1", host, "packages")) as FeedPackage[]).sort((a, b) => feedDate(b) - feedDate(a));
    const [host] = (readJson(join(out, "v1", "hosts")) as { repos: string[] }).repos;
    const edit = (name: string, changes: Record<string, unknown>) => {
      const file = join(catalogue, host!, `${name}.json`);
      writeFileSync(file, JSON.stringify({ ...(JSON.parse(readFileSync(file, "utf8")) as object), ...changes }));
    };
    // A rebuild writes a file by renaming a new one over it: a written file has a new inode.
    const inodes = () => feedPaths(host!).map((path) => statSync(join(out, path)).ino);
    const step = async (change: () => void, feedsWritten: boolean) => {
      change();
      const before = inodes();
      const built = await build(catalogue, out);
      expect(built.mode.kind).toBe("incremental");
      const after = inodes();
      feedPaths(host!).forEach((path, i) => expect(after[i] !== before[i], path).toBe(feedsWritten));
      const fullOut = join(tempDir(), "full");
      await build(catalogue, fullOut);
      const [again, full] = [tree(out), tree(fullOut)];
      expect([...again.keys()].sort()).toEqual([...full.keys()].sort());
      expect([...again].filter(([path, content]) => full.get(path) !== content).map(([path]) => path)).toEqual([]);
    };
    const ordered = manifests(host!);
    expect(ordered.length).toBeGreaterThan(FEED_SIZE);
    // A package well outside the newest, edited but no newer: the feeds stay.
    const old = ordered[ordered.length - 1]!;
    await step(() => edit(old.internal_name, { short_description: "Edited, still old" }), false);
    // The same package updated today: it is the newest now.
    await step(() => edit(old.internal_name, { updated: 2000000000 }), true);
    expect(manifests(host!)[0]!.internal_name).toBe(old.internal_name);
    // One of the newest removed: the next newest enters, read from the live output.
    const newest = manifests(host!);
    await step(() => rmSync(join(catalogue, host!, `${newest[3]!.internal_name}.json`)), true);
    expect(
      (JSON.parse(readFileSync(join(out, feedPaths(host!)[1]!), "latin1")) as JsonFeed).items.map(
        (i) => i._shopfront.name,
      ),
    ).toEqual(
      manifests(host!)
        .slice(0, FEED_SIZE)
        .map((p) => p.internal_name),
    );
    // One of the newest edited (its version): its entry changes.
    await step(() => edit(newest[1]!.internal_name, { version: "9.9 <new>" }), true);
    // A new package, older than every entry: nothing moves.
    await step(
      () =>
        writeFileSync(
          join(catalogue, host!, "zzz-new.json"),
          JSON.stringify({
            ...old,
            internal_name: "zzz-new",
            release_date: 1,
            updated: 1,
            downloads: undefined,
            rating: undefined,
          }),
        ),
      false,
    );
  });
});

describe("the feed links of the site's pages", () => {
  it("resolve to the feeds from every page, read against the page's address or against its <base>", async () => {
    const dir = tempDir();
    const catalogue = join(dir, "catalogue");
    execFileSync(process.execPath, [GEN_CATALOGUE, catalogue, "60", "2", "5", "--coders=real"]);
    const out = join(dir, "dist");
    const result = await buildCatalogue({ catalogueDir: catalogue, outDir: out });
    expect(result.built, JSON.stringify(result.problems)).toBeTruthy();
    const files = tree(out);
    const pages = [...files.keys()].filter((path) => path.endsWith(".html"));
    const kinds = new Set<string>();
    let announced = 0;
    for (const path of pages) {
      const html = files.get(path)!;
      const pageUrl = new URL(path, "https://site.example/");
      const base = /<base href="([^"]*)">/.exec(html)?.[1];
      const baseUrl = base === undefined ? pageUrl : new URL(base, pageUrl);
      for (const [, href] of html.matchAll(/<link rel="alternate" type="[^"]+" href="([^"]+)"/g)) {
        announced++;
        kinds.add(path.replace(/\/(category|coder|package|page)\/.*/, "/$1/"));
        const asReader = new URL(href!, pageUrl).pathname.slice(1);
        const asBrowser = new URL(href!, baseUrl).pathname.slice(1);
        expect(asReader, `${path}: ${href}`).toBe(asBrowser);
        expect(files.has(asReader), `${path}: ${href}`).toBe(true);
        expect(asReader).toMatch(/^browse\/[^/]+\/feed\.(atom|jsonfeed)$/);
      }
    }
    expect(announced).toBeGreaterThan(0);
    // The home page, each host's page and its packages' pages announce them.
    expect([...kinds].some((k) => k.endsWith("/package/"))).toBe(true);
    expect(kinds.has("index.html")).toBe(true);
  });
});
