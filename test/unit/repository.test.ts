// The repository stands on its own: a clone with nothing beside it installs, builds and tests (the
// benchmark alone may use a floor beside it, when there is one), its set-up names what the tests
// start, and it says under which licence it is.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../support/helpers.js";

/** Every file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .map((file) => join(dir, file))
    .filter((path) => statSync(path).isFile());
}

describe("the repository", () => {
  it("needs nothing beside it to build and test: no source, test, fixture or CI step reads ../shared", () => {
    const paths = [
      ...filesUnder(join(ROOT, "src")),
      ...filesUnder(join(ROOT, "test")),
      join(ROOT, ".ci", "run"),
      join(ROOT, "package.json"),
    ];
    const readers = paths.filter((path) =>
      /\.\.[/\\]shared|["'`]\.\.["'`],\s*["'`]shared["'`]/.test(readFileSync(path, "latin1")),
    );
    // Two tests name the folder only to check that nothing uses it: this one, and the docs' links.
    expect(readers.map((path) => relative(ROOT, path)).sort()).toEqual([
      "test/unit/docs.test.ts",
      "test/unit/repository.test.ts",
    ]);
  });

  it("names in its set-up every server package that CI installs for the tests", () => {
    const ci = readFileSync(join(ROOT, ".ci", "run"), "utf8");
    const installed = /apt-get install -y[^\n]*--no-install-recommends ([a-z0-9 -]+?)\s*>/.exec(ci)![1]!.split(" ");
    // The web servers of the conformance suite, rclone for its deploy, the browser (with a font) of the
    // site's tests, the feed parser that reads the site's Atom feeds, minisign for the signed index, and
    // unzip, which reads back the icon archives beside Python's zipfile.
    expect(installed).toEqual([
      "nginx",
      "apache2",
      "caddy",
      "lighttpd",
      "rclone",
      "chromium",
      "fonts-dejavu-core",
      "python3-feedparser",
      "minisign",
      "unzip",
    ]);
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    expect(readme).toContain(`sudo apt-get install -y ${installed.join(" ")}`);
  });

  it("has the MIT licence its package.json declares, and a README that is a start, not the reference", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { license: string };
    expect(pkg.license).toBe("MIT");
    expect(readFileSync(join(ROOT, "LICENSE"), "utf8")).toMatch(/^MIT License\n/);
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    expect(readme.length).toBeLessThan(6000);
    for (const page of readdirSync(join(ROOT, "docs"))) expect(readme, page).toContain(`docs/${page}`);
  });
});
