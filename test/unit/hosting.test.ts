// What every target declares, and what none may do: the hosting table of docs/hosting.md is exactly what the
// target list renders, and no name that breaks the name rule ever reaches a generated file.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CONFORMANCE_ROWS } from "../../src/routes/conformanceRows.js";
import { aliasFilesOf, aliasUrlsOf, cacheControlOf, contentTypeOf } from "../../src/routes/routeTable.js";
import { TARGETS } from "../../src/targets/index.js";
import { renderHostingTable } from "../support/renderHostingTable.js";
import type { CatalogueNames } from "../../src/render/catalogueNames.js";
import type { ServerOptions } from "../../src/targets/target.js";
import { ROOT } from "../support/helpers.js";

describe("the hosting table of docs/hosting.md", () => {
  it("is exactly what renderHostingTable() renders from the target list (paste its output into docs/hosting.md when a target changes)", () => {
    expect(readFileSync(join(ROOT, "docs", "hosting.md"), "utf8")).toContain(`\n${renderHostingTable()}\n`);
  });

  it("has a row per target, each with a one-line set-up and reasons only for conformance rows", () => {
    const rows = renderHostingTable().trimEnd().split("\n").slice(2);
    expect(rows).toHaveLength(TARGETS.length);
    for (const target of TARGETS) {
      expect(target.usage).not.toMatch(/\n/);
      for (const [row, why] of Object.entries(target.cannot)) {
        expect(Object.keys(CONFORMANCE_ROWS)).toContain(row);
        expect(why).not.toBe("");
      }
    }
  });

  it("shows a host's limits: GitHub Pages serves static v1 paths and today's API (v3, v4), the site and the package files from copies only, and cannot force the type or the cache lifetimes", () => {
    const pages = renderHostingTable()
      .split("\n")
      .find((line) => line.startsWith("| GitHub Pages |"))!;
    expect(pages).toContain(
      "| GET /v1/hosts<br>GET /v1/&lt;host&gt;/packages<br>GET /v1/&lt;host&gt;/package/&lt;name&gt;<br>GET /v1/&lt;host&gt;/category/&lt;category&gt;/packages<br>GET /api/v4/information, /api/v4/contents, /api/v4/featured-app (another host under /hosts/&lt;host&gt;/); 404 for a featured app when none qualifies<br>GET /api/v3/information, /api/v3/contents, /api/v3/featured-app (another host under /hosts/&lt;host&gt;/) | yes | from copies, which `build --target github-pages` writes (hard links: no extra disk), but not under /api/v3/contents/ and /api/v4/contents/, where today's contents lists stand | only on a custom domain with Enforce HTTPS off; a github.io address (and a custom domain with it on) redirects to HTTPS, which the Wii app does not follow (GitHub's documentation, not run here); hbb_download.php answers an empty 200 | no | yes | no |",
    );
    expect(pages).toContain("Cloudflare Worker or rule in front");
  });

  it("says host by host whether the Homebrew Browser can be served over plain HTTP", () => {
    const verdict = Object.fromEntries(TARGETS.map((t) => [t.id, /^(yes|no|only)\b/.exec(t.hbb)?.[1]]));
    expect(verdict).toEqual({
      nginx: "yes",
      apache: "yes",
      caddy: "yes",
      lighttpd: "yes",
      netlify: "no",
      cloudflare: "only",
      vercel: "no",
      cloudfront: "yes",
      "github-pages": "only",
    });
    for (const t of TARGETS) {
      const cell = t.hbb.replace(/</g, "&lt;").replace(/>/g, "&gt;");
      expect(renderHostingTable()).toContain(`| ${cell}; hbb_download.php answers an empty 200 |`);
    }
  });
});

describe("the package files on each host", () => {
  it("are served by rewrite where the host can check a name in its rules, from copies where it cannot", () => {
    const how = Object.fromEntries(TARGETS.map((t) => [t.id, t.packageFiles]));
    expect(how).toEqual({
      nginx: "rewrite",
      apache: "rewrite",
      caddy: "rewrite",
      lighttpd: "rewrite",
      netlify: "copies",
      cloudflare: "rewrite",
      vercel: "rewrite",
      cloudfront: "copies",
      "github-pages": "copies",
    });
  });

  it("a copying host needs a copy of each stored file at each alias's path, and nothing for any other file", () => {
    expect(aliasFilesOf("hbb/snake/icon.png")).toEqual(["hbb/snake.png", "api/contents/snake/icon.png"]);
    expect(aliasFilesOf("hbb/snake/snake.zip")).toEqual(["api/contents/snake/snake.zip"]);
    expect(aliasFilesOf("hosts/themes/hbb/dark/icon.png")).toEqual([
      "hosts/themes/hbb/dark.png",
      "hosts/themes/api/contents/dark/icon.png",
    ]);
    // Under api/v3/contents and api/v4/contents stand today's contents lists (files): no copy can, a rewrite does.
    expect(aliasUrlsOf("hbb/snake/icon.png")).toEqual([
      "hbb/snake.png",
      "api/contents/snake/icon.png",
      "api/v3/contents/snake/icon.png",
      "api/v4/contents/snake/icon.png",
    ]);
    expect(aliasUrlsOf("hosts/themes/hbb/dark/dark.zip")).toEqual([
      "hosts/themes/api/contents/dark/dark.zip",
      "hosts/themes/api/v3/contents/dark/dark.zip",
      "hosts/themes/api/v4/contents/dark/dark.zip",
    ]);
    for (const file of [
      "unzipped_apps/snake/apps/snake/boot.dol",
      "unzipped_apps/snake/apps/snake/meta.xml",
      "hbb/snake/other.zip",
      "hbb/../x/icon.png",
      "api/contents/snake/icon.png",
      "v1/primary/package/icon.png",
    ])
      expect(aliasFilesOf(file), file).toEqual([]);
  });

  it("types each file by its place, never by its name alone: a package named icon.png stays JSON", () => {
    expect(contentTypeOf("hbb/snake/snake.zip")).toBe("application/zip");
    expect(contentTypeOf("hbb/snake/icon.png")).toBe("image/png");
    expect(contentTypeOf("api/v4/contents/snake/icon.png")).toBe("image/png");
    expect(contentTypeOf("hosts/themes/unzipped_apps/a.b/apps/a.b/boot.elf")).toBe("application/octet-stream");
    expect(contentTypeOf("unzipped_apps/snake/apps/snake/meta.xml")).toBe("application/xml");
    expect(cacheControlOf("hbb/snake/icon.png")).toBe("public, max-age=86400, must-revalidate");
    expect(cacheControlOf("hbb/snake/snake.zip")).toBe("public, max-age=14400, must-revalidate");
    for (const file of ["v1/primary/package/icon.png", "hbb/snake/other.zip", "unzipped_apps/a/apps/b/boot.dol"]) {
      expect(contentTypeOf(file), file).toBe("application/json");
      expect(cacheControlOf(file), file).toBeUndefined();
    }
  });
});

describe("names that break the name rule", () => {
  const HOSTILE = [
    "../hostile",
    "hostile name",
    "hostile\n/*  /secret  200!",
    "hostile%2e",
    "hostile/x",
    'hostile"q',
    "hostile$x",
    ".hostile",
    "hostile.",
    "nul.hostile",
    "h".repeat(65),
  ];
  const options: ServerOptions = { root: "/srv/api/dist", listen: { host: "127.0.0.1", port: 8080 } };
  const as = (host: string, name: string): CatalogueNames => ({
    hosts: ["primary", host],
    packages: new Map([
      ["primary", ["snake", name]],
      [host, []],
    ]),
    coders: new Map([
      ["primary", ["Test Coder"]],
      [host, []],
    ]),
    categories: new Map([
      ["primary", new Map([["games", ["Test Coder"]]])],
      [host, new Map()],
    ]),
  });

  it.each(TARGETS.map((t) => [t.id, t] as const))(
    "never reach a file %s generates: it refuses them or leaves them out",
    (_, target) => {
      for (const hostile of HOSTILE) {
        for (const names of [as("themes", hostile), as(hostile, "ok")]) {
          for (const generate of [() => target.config(options, names), () => target.deployFiles?.(names) ?? []]) {
            let files: { content: unknown }[];
            try {
              files = generate();
            } catch (e) {
              expect((e as Error).message).toMatch(/does not match the name rule/);
              continue;
            }
            for (const file of files) expect(String(file.content)).not.toContain(hostile);
          }
        }
      }
    },
  );

  it("make the generators that take names throw, rather than write a rule for them", () => {
    const netlify = TARGETS.find((t) => t.id === "netlify")!;
    expect(() => netlify.deployFiles!(as("themes", "../../hosts"))).toThrow(/does not match the name rule/);
    expect(() => netlify.deployFiles!(as("hostile host", "ok"))).toThrow(/does not match the name rule/);
  });
});
