// The package as npm publishes it: packed, installed from the tarball into an empty folder (which
// downloads its dependencies from the registry, and runs no prepare script), then used as a
// maintainer starts: `npx shopfront init`, `npx shopfront build`. It proves that package.json's
// `files` holds everything the installed tool reads: lib with its precompiled validators, the
// schemas, the browse site's stylesheet and script, and the workflow init writes.
import { UNSIGNED_NOTE } from "../../src/cli/commands/build.js";
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readJson, ROOT, tempDir } from "../support/helpers.js";

function run(command: string, args: string[], cwd: string, timeout = 60_000) {
  const result = spawnSync(command, args, {
    cwd,
    encoding: "utf8",
    timeout,
    env: { ...process.env, NO_COLOR: "1", npm_config_audit: "false", npm_config_fund: "false" },
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr, error: result.error };
}

describe("the packed package", () => {
  it("installs from its tarball, and its init and build work at once", { timeout: 240_000 }, () => {
    if (!existsSync(join(ROOT, "lib", "validators.cjs")))
      throw new Error("lib/ is missing or incomplete: run `npm run compile` (npm test does)");
    const packed = tempDir("shopfront-pack-");
    // The tarball of lib/ as compiled: prepare is not run again, so no test sees lib/ change under it.
    const pack = run("npm", ["pack", "--ignore-scripts", "--pack-destination", packed], ROOT);
    expect(pack.code, pack.stderr).toBe(0);
    const [tarball] = readdirSync(packed).filter((f) => f.endsWith(".tgz"));
    expect(tarball).toBeDefined();

    const project = tempDir("shopfront-installed-");
    const install = run("npm", ["install", join(packed, tarball!)], project, 180_000);
    expect(install.error).toBeUndefined();
    expect(install.code, install.stderr).toBe(0);
    const installed = join(project, "node_modules", "shopfront");
    for (const file of [
      "lib/cli.js",
      "lib/validators.cjs",
      "schemas/config.schema.json",
      "site-assets/site.css",
      "site-assets/search.js",
      ".github/workflows/pages.yml",
    ])
      expect(existsSync(join(installed, file)), file).toBe(true);

    const init = run("npx", ["--no", "shopfront", "init"], project);
    expect(init.code, init.stderr).toBe(0);
    // npm install wrote package.json, with the dependency but none of the scripts.
    expect(init.stdout).toContain("kept package.json: it exists, and lacks the scripts build, validate, serve");
    // The installed shopfront packs itself into the project, as one from a clone does.
    const { version } = readJson(join(installed, "package.json")) as { version: string };
    expect(init.stdout).toContain(`wrote vendor/shopfront-${version}.tgz`);
    expect(existsSync(join(project, "vendor", `shopfront-${version}.tgz`))).toBe(true);

    const build = run("npx", ["--no", "shopfront", "build"], project);
    expect(build.code, build.stderr).toBe(0);
    // npx may warn about the machine's npm configuration; shopfront itself prints only the warnings
    // of the placeholders init left in hosts.json and the example manifest, their count, and that the
    // file index is unsigned (no key in a new project).
    const said = build.stderr.split("\n").filter((line) => line !== "" && !line.startsWith("npm warn"));
    expect(said.pop()).toBe(UNSIGNED_NOTE);
    expect(said.at(-1)).toBe("9 warnings in 2 files");
    for (const line of said.slice(0, -1)) expect(line).toMatch(/ is the placeholder .* \(warning\)$/);
    expect(build.stdout).toMatch(/^built 2 hosts, 1 package, \d+ files in \d+\.\d s into dist/);
    expect(readJson(join(project, "dist", "v1", "hosts"))).toHaveProperty("repos");
    expect(existsSync(join(project, "dist", ".nojekyll"))).toBe(true);
    expect(existsSync(join(project, "dist", "assets", "search.js"))).toBe(true);
  });
});
