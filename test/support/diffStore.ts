// A small store kept in git, with package files made here (zips of a boot.dol, meta.xml and
// icon.png, as homebrew is shipped), whose manifests agree with their meta.xml so that it validates
// with --strict: what the diff tests and the pull-request check's test commit, change and compare.
import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { dol, png, rawZip } from "../fixtures/package-files/fixture-bytes.mjs";

export interface StoreApp {
  host: string;
  name: string;
  version: string;
  displayName: string;
  coder: string;
  category: string;
  short: string;
  long: string;
  /** Seeds the binary's bytes: another seed, another boot.dol (and zip). */
  seed: number;
  /** Added to the zip (a readme), to change the zip alone. */
  readme?: string;
  /** The manifest's `controllers` (default "w", a Wii Remote). */
  controllers?: string;
  /** The manifest's release date, Unix seconds (default 2024-01-01). */
  releaseDate?: number;
  /** Fields of today's clients in the manifest: flags, supported_platforms, peripherals, authors. */
  today?: Record<string, unknown>;
}

export const STORE_HOSTS = [
  { id: "primary", name: "Store Applications", host: "apps.example.org", description: "Applications." },
  { id: "extra", name: "Store Extras", host: "extra.example.org", description: "More applications." },
];

const xml = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

function zipOf(app: StoreApp): Buffer {
  const meta = `<?xml version="1.0" encoding="UTF-8"?>
<app version="1">
  <name>${xml(app.displayName)}</name>
  <coder>${xml(app.coder)}</coder>
  <version>${xml(app.version)}</version>
  <release_date>20240101000000</release_date>
  <short_description>${xml(app.short)}</short_description>
  <long_description>${xml(app.long)}</long_description>
</app>
`;
  const stripes = (x: number, y: number) =>
    ((x >> 2) + (y >> 2) + app.seed) % 2 === 0 ? [30, 90, 200] : [250, 210, 40];
  return rawZip([
    { name: `apps/${app.name}/boot.dol`, data: dol(3000 + app.seed * 10, app.seed), method: 8 },
    { name: `apps/${app.name}/meta.xml`, data: Buffer.from(meta), method: 8 },
    { name: `apps/${app.name}/icon.png`, data: png(128, 48, stripes) },
    ...(app.readme ? [{ name: `apps/${app.name}/readme.txt`, data: Buffer.from(app.readme), method: 8 }] : []),
  ]);
}

function write(path: string, content: string | Buffer): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content);
}

/** Writes the store's catalogue folder under `root` (replacing it): hosts.json, each app's manifest and zip. */
export function writeStore(root: string, apps: readonly StoreApp[]): void {
  const catalogue = join(root, "catalogue");
  rmSync(catalogue, { recursive: true, force: true });
  write(join(catalogue, "hosts.json"), `${JSON.stringify({ default: "primary", hosts: STORE_HOSTS }, null, 2)}\n`);
  for (const host of STORE_HOSTS) mkdirSync(join(catalogue, host.id), { recursive: true });
  for (const app of apps) {
    const manifest = {
      category: app.category,
      coder: app.coder,
      contributors: "",
      controllers: app.controllers ?? "w",
      display_name: app.displayName,
      internal_name: app.name,
      long_description: app.long,
      package_type: "dol",
      release_date: app.releaseDate ?? 1704067200,
      short_description: app.short,
      updated: 1704067200,
      version: app.version,
      ...app.today,
    };
    write(join(catalogue, app.host, `${app.name}.json`), `${JSON.stringify(manifest, null, 2)}\n`);
    write(join(catalogue, app.host, `${app.name}.zip`), zipOf(app));
  }
}

export function git(cwd: string, ...args: string[]): string {
  return execFileSync(
    "git",
    ["-c", "user.name=Test", "-c", "user.email=test@example.org", "-c", "commit.gpgsign=false", ...args],
    { cwd, encoding: "utf8" },
  );
}

/** Commits everything under `root`; the commit's hash. */
export function commitAll(root: string, message: string): string {
  git(root, "add", "-A");
  git(root, "commit", "-q", "-m", message);
  return git(root, "rev-parse", "HEAD").trim();
}

/** The store's first state: three apps on the default host, one on the other. */
export const FIRST: readonly StoreApp[] = [
  {
    host: "primary",
    name: "snake",
    version: "1.0",
    displayName: "Snake",
    coder: "Kyle",
    category: "games",
    short: "A snake game",
    long: "Eat the apples and grow longer.",
    seed: 1,
  },
  {
    host: "primary",
    name: "paint",
    version: "2.0",
    displayName: "Paint",
    coder: "Ada",
    category: "utilities",
    short: "Draw pictures",
    long: "Draw with the Wii Remote.",
    seed: 2,
  },
  {
    host: "primary",
    name: "tetris",
    version: "0.5",
    displayName: "Blocks",
    coder: "Alexey",
    category: "games",
    short: "Falling blocks",
    long: "Fit the falling blocks into lines.",
    seed: 3,
  },
  {
    host: "extra",
    name: "radio",
    version: "3.1",
    displayName: "Radio",
    coder: "Marconi",
    category: "media",
    short: "Internet radio",
    long: "Listen to internet radio stations.",
    seed: 4,
  },
];
