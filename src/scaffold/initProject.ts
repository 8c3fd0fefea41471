// `shopfront init [DIR]`: a new catalogue repository that builds at once. projectFiles is pure (the
// files and their text); initProject writes those that do not exist yet and keeps every one that does.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { CONFIG_FILE, type ProjectConfig } from "../config/readConfig.js";
import type { HostsFile } from "../catalogue/fields.js";
import { PAGES_WORKFLOW } from "../targets/githubPages.js";
import type { TargetFile } from "../targets/target.js";
import { HOSTS_FILE } from "../validate/catalogueRules.js";
import { VERSION } from "../util/version.js";
import { manifestTemplate, SCHEMA_FOLDER } from "./createManifest.js";

/** The example package of a new catalogue. */
export const EXAMPLE_PACKAGE = "primary/example.json";

/** The scripts a project's package.json runs shopfront with. */
const SCRIPTS = { build: "shopfront build", validate: "shopfront validate", serve: "shopfront serve" };

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

/** Every file of a new project, relative to its folder. `workflow` is the GitHub Pages workflow's text. */
export function projectFiles(options: {
  version: string;
  nowSeconds: number;
  workflow: string;
  /** How package.json names shopfront (default `^<version>`); see dependencyOn. */
  dependency?: string;
}): TargetFile[] {
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
        name: "<name of the repository>",
        host: "apps.example.org",
        description: "<what this repository offers>",
      },
      {
        id: "themes",
        name: "<name of the themes repository>",
        host: "themes.example.org",
        description: "<what this repository offers>",
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
    devDependencies: { shopfront: options.dependency ?? `^${options.version}` },
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

/**
 * How a new project depends on the running shopfront: by version when it was installed (it lies in
 * a node_modules folder, from a registry or a tarball), else by its folder, since a checkout of
 * shopfront is in no registry and `npm install` must find it.
 */
export function dependencyOn(packageRoot: string, version: string): string {
  return packageRoot.split(sep).includes("node_modules") ? `^${version}` : `file:${packageRoot}`;
}

/** Writes the files of a new project into `dir` (made if missing); never over a file that exists. */
export function initProject(dir: string, now: () => number = Date.now): InitResult {
  const workflow = readFileSync(new URL(`../../${PAGES_WORKFLOW}`, import.meta.url), "utf8");
  const result: InitResult = { written: [], kept: [] };
  const root = fileURLToPath(new URL("../../", import.meta.url)).replace(/[\\/]$/, "");
  const dependency = dependencyOn(root, VERSION);
  for (const file of projectFiles({ version: VERSION, nowSeconds: Math.floor(now() / 1000), workflow, dependency })) {
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
  return result;
}

/** What an existing package.json lacks of the scripts and the devDependency init writes, if anything. */
function packageLacks(path: string): string | undefined {
  let pkg: { scripts?: Record<string, unknown>; dependencies?: object; devDependencies?: object };
  try {
    pkg = JSON.parse(readFileSync(path, "utf8")) as typeof pkg;
  } catch {
    return undefined;
  }
  const missing = Object.keys(SCRIPTS).filter((name) => pkg.scripts?.[name] === undefined);
  const lacks = missing.length > 0 ? [`the scripts ${missing.join(", ")}`] : [];
  if (!("shopfront" in { ...pkg.dependencies, ...pkg.devDependencies })) lacks.push("a devDependency on shopfront");
  return lacks.length > 0 ? lacks.join(" and ") : undefined;
}
