// GitHub Pages has no rules: the target is its two deploy files and an honest list of what Pages
// cannot serve. What it claims about the build is checked here.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { renderNotFound } from "../src/render/renderApi.js";
import { readTree } from "./helpers.js";
import { buildSite } from "./servers/common.js";

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
});
