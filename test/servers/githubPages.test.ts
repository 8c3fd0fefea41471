// GitHub Pages has no rules: the target is its two deploy files and an honest list of what Pages
// cannot serve. What it claims about the build is checked here, and the conformance suite is run
// against a model of Pages: a file at the request's decoded path (the query ignored; a folder's
// index.html for a path ending in /) is served with 200, anything else is 404.html with 404. Headers
// are not modelled (Pages sets its own, by extension). The browse site the build writes is
// among the files: plain files at their own paths, which Pages serves as they are.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { conformanceCases } from "../../src/check/conformance.js";
import { judge } from "../../src/check/runConformance.js";
import { renderNotFound } from "../../src/render/renderApi.js";
import { SITE } from "../../src/routes/routeTable.js";
import { githubPages } from "../../src/targets/githubPages.js";
import { readTree } from "../support/helpers.js";
import { buildSite } from "../support/servers/common.js";
import { fixtureApi, siteRequests } from "../support/site.js";

describe("github-pages", () => {
  it("adds .nojekyll and a 404.html holding the JSON error body, and the build has no v2 file to answer ?package= with a list", async () => {
    const site = await buildSite(["github-pages"]);
    const tree = readTree(site.root);
    expect(tree.get(".nojekyll")?.length).toBe(0);
    expect(tree.get("404.html")?.toString("utf8")).toBe(renderNotFound());
    expect(JSON.parse(tree.get("404.html")!.toString("utf8"))).toMatchObject({ error: "not_found" });
    expect([...tree.keys()].filter((path) => path.startsWith("v2/"))).toEqual([]);
    expect(tree.has(join("v1", "hosts"))).toBe(true);
  });

  it("serves every route whose file is at its own URL, and fails only in the rows it declares, a search always with 404", async () => {
    const api = await fixtureApi({ copies: true });
    const respond = (target: string) => {
      let file: string | undefined;
      try {
        const path = decodeURIComponent(target.split("?")[0]!).slice(1);
        file = api.files.get(path === "" || path.endsWith("/") ? `${path}${SITE.index}` : path);
      } catch {
        file = undefined;
      }
      return file === undefined
        ? { status: 404, headers: {}, body: Buffer.from(renderNotFound()) }
        : { status: 200, headers: {}, body: Buffer.from(file, "latin1") };
    };
    const anyFile = new Set(api.files.values());
    const failures = conformanceCases(api)
      .filter((c) => c.method === "GET")
      .flatMap((c) => judge(c, respond(c.target), api, anyFile))
      // Pages' own headers are not modelled: a site URL's are judged in its row.
      .filter((f) => f.row !== "content-type" && f.row !== "cors")
      .filter(
        (f) =>
          !(
            (f.row === "site" || f.row === "package-files" || f.row === "hbb") &&
            /^(Content-Type|Access-Control-Allow-Origin) is missing/.test(f.reason)
          ),
      );
    expect(failures.filter((f) => !(f.row in githubPages.cannot))).toEqual([]);
    for (const f of failures.filter((f) => f.row === "v2-query")) expect(f.reason).toMatch(/^status 404,/);
    // Each declared row the model judges does fail: nothing is declared that Pages could serve.
    for (const row of Object.keys(githubPages.cannot).filter((r) => r !== "methods" && r !== "content-type"))
      expect(
        failures.some((f) => f.row === row),
        row,
      ).toBe(true);
    // What the declared rows leave working: the host list, v1 lists, packages and category lists, the site.
    // The package files too, each alias from its copy (the build writes them for this target);
    // and the Homebrew Browser's files, each a file at its own URL, the stubs whatever their query.
    for (const row of [
      "v1-hosts",
      "v1-packages",
      "v1-package",
      "v1-category",
      "traversal",
      "site",
      "package-files",
      "hbb",
    ])
      expect(failures.filter((f) => f.row === row)).toEqual([]);
    for (const { target, file } of siteRequests(api)) {
      const res = respond(target);
      expect({ target, status: res.status, body: res.body.toString("latin1") }).toEqual({
        target,
        status: 200,
        body: api.files.get(file),
      });
    }
  });
});
