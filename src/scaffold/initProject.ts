// `shopfront init [DIR]`: a new catalogue repository that builds at once, here and in its CI.
// projectFiles is pure (the files and their text); initProject writes those that do not exist yet
// and keeps every one that does.
//
// shopfront is in no registry yet, so a project cannot name it by version: `npm install` and the
// workflow's `npm ci` would fail (E404). Nor by the folder it runs from: that path exists on this
// machine only. So init packs the running shopfront into the project, vendor/shopfront-VERSION.tgz,
// committed with it, and package.json depends on that relative path, which works wherever the
// project is cloned.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { CONFIG_FILE, type ProjectConfig } from "../config/readConfig.js";
import type { HostsFile } from "../catalogue/fields.js";
import { PAGES_WORKFLOW } from "../targets/githubPages.js";
import type { TargetFile } from "../targets/target.js";
import { HOSTS_FILE } from "../validate/catalogueRules.js";
import { FailureError } from "../util/errors.js";
import { VERSION } from "../util/version.js";
import { HOST_PLACEHOLDERS, manifestTemplate } from "../catalogue/manifestTemplate.js";
import { SCHEMA_FOLDER } from "./createManifest.js";

/** The example package of a new catalogue. */
export const EXAMPLE_PACKAGE = "primary/example.json";

/** The scripts a project's package.json runs shopfront with. */
const SCRIPTS = { build: "shopfront build", validate: "shopfront validate", serve: "shopfront serve" };

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

/** Every file of a new project, relative to its folder. `workflow` is the GitHub Pages workflow's text. */
export function projectFiles(options: { version: string; nowSeconds: number; workflow: string }): TargetFile[] {
  const config: ProjectConfig = {
    $schema: `./${SCHEMA_FOLDER}/config.schema.json`,
    catalogue: "catalogue",
    out: "dist",
    // What the workflow builds, so a local build writes the same output.
    targets: ["github-pages"],
  };
  const hosts: HostsFile & { $schema: string } = {
    $schema: `../${SCHEMA_FOLDER}/hosts-file.schema.json`,
    default: "primary",
    hosts: [
      {
        id: "primary",
        name: HOST_PLACEHOLDERS.primaryName,
        host: "apps.example.org",
        description: HOST_PLACEHOLDERS.description,
      },
      {
        id: "themes",
        name: HOST_PLACEHOLDERS.themesName,
        host: "themes.example.org",
        description: HOST_PLACEHOLDERS.description,
      },
    ],
  };
  const schema = (file: string) => `./${SCHEMA_FOLDER}/${file}`;
  const vscode = {
    "json.schemas": [
      {
        fileMatch: ["/catalogue/*/*.json", "!/catalogue/stats/*.json"],
        url: schema("manifest.schema.json"),
      },
      { fileMatch: ["/catalogue/hosts.json"], url: schema("hosts-file.schema.json") },
      { fileMatch: ["/catalogue/stats/*.json"], url: schema("stats.schema.json") },
      { fileMatch: [`/${CONFIG_FILE}`], url: schema("config.schema.json") },
    ],
  };
  const pkg = {
    private: true,
    scripts: SCRIPTS,
    devDependencies: { shopfront: `file:${vendoredTarball(options.version)}` },
  };
  return [
    { path: CONFIG_FILE, content: json(config) },
    { path: `catalogue/${HOSTS_FILE}`, content: json(hosts) },
    {
      path: `catalogue/${EXAMPLE_PACKAGE}`,
      content: manifestTemplate("example", options.nowSeconds, `../../${SCHEMA_FOLDER}/manifest.schema.json`),
    },
    // git keeps no empty folder, and a declared host needs one.
    { path: "catalogue/themes/.gitkeep", content: "" },
    {
      path: ".gitignore",
      content:
        "# shopfront's output: dist links to the live build in .dist.shopfront/\n/dist\n/.dist.shopfront/\nnode_modules/\n",
    },
    { path: PAGES_WORKFLOW, content: options.workflow },
    { path: ".vscode/settings.json", content: json(vscode) },
    { path: "package.json", content: json(pkg) },
  ];
}

export interface InitResult {
  /** Files written, relative to the project folder, in the order of projectFiles. */
  written: string[];
  /** Files that existed and were left as they were, each with what it lacks that init would have written. */
  kept: { path: string; lacks?: string }[];
}

/** Where a project keeps the shopfront it was made with, relative to its folder. */
export function vendoredTarball(version: string): string {
  return `vendor/shopfront-${version}.tgz`;
}

/** Writes the files of a new project into `dir` (made if missing); never over a file that exists. */
export function initProject(dir: string, now: () => number = Date.now): InitResult {
  const workflow = readFileSync(new URL(`../../${PAGES_WORKFLOW}`, import.meta.url), "utf8");
  const result: InitResult = { written: [], kept: [] };
  // Packed first, so that a project is never left without the shopfront its package.json names.
  const tarball = vendoredTarball(VERSION);
  const packed = !existsSync(join(dir, tarball));
  if (packed) packShopfront(fileURLToPath(new URL("../../", import.meta.url)), resolve(dir, tarball));
  for (const file of projectFiles({ version: VERSION, nowSeconds: Math.floor(now() / 1000), workflow })) {
    const path = join(dir, file.path);
    mkdirSync(dirname(path), { recursive: true });
    try {
      writeFileSync(path, file.content, { flag: "wx" });
      result.written.push(file.path);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
      const lacks = file.path === "package.json" ? packageLacks(path) : undefined;
      result.kept.push({ path: file.path, ...(lacks ? { lacks } : {}) });
    }
  }
  if (packed) result.written.push(tarball);
  else result.kept.push({ path: tarball });
  return result;
}

/**
 * Packs the shopfront at `root` (a checkout or an installed copy: both hold the compiled lib/) into
 * the tarball `to`, as npm would publish it. Its scripts are not run: lib/ is what runs now.
 */
function packShopfront(packageRoot: string, to: string): void {
  const root = packageRoot.replace(/[\\/]$/, "");
  mkdirSync(dirname(to), { recursive: true });
  const packed = mkdtempSync(join(dirname(to), ".pack-"));
  try {
    const run = spawnSync("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", packed], {
      cwd: root,
      encoding: "utf8",
    });
    if (run.error || run.status !== 0)
      throw new FailureError(
        `cannot pack shopfront into ${to}: npm pack in ${root} failed: ${run.error?.message ?? run.stderr.trim()}`,
      );
    const [{ filename }] = JSON.parse(run.stdout) as [{ filename: string }];
    renameSync(join(packed, filename), to);
  } finally {
    rmSync(packed, { recursive: true, force: true });
  }
}

/** What an existing package.json lacks of the scripts and the devDependency init writes, if anything. */
function packageLacks(path: string): string | undefined {
  let pkg: { scripts?: Record<string, unknown>; dependencies?: object; devDependencies?: object };
  try {
    pkg = JSON.parse(readFileSync(path, "utf8")) as typeof pkg;
  } catch {
    // An unreadable package.json is reported by npm; init adds nothing to it.
    return undefined;
  }
  const missing = Object.keys(SCRIPTS).filter((name) => pkg.scripts?.[name] === undefined);
  const lacks = missing.length > 0 ? [`the scripts ${missing.join(", ")}`] : [];
  if (!("shopfront" in { ...pkg.dependencies, ...pkg.devDependencies })) lacks.push("a devDependency on shopfront");
  return lacks.length > 0 ? lacks.join(" and ") : undefined;
}
