// Done means (issue 29): a catalogue whose packages are homebrew as it is shipped (folders and zips,
// boot.dol and boot.elf, with and without an icon, on the default host and on another) is built, and
// real nginx, which rewrites, serves every zip, icon, binary and meta.xml at every URL the Open
// Shop Channel has for it, stored and alias, with the bytes of the package's own files; the API's
// zip_size is the bytes of the zip served, and extracted the bytes under apps/<name>/ in it. The
// expected bytes are read here from the catalogue's folders and zips, not from the build.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { unzipSync } from "fflate";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sendRaw } from "../../src/check/runConformance.js";
import { FILE_ROUTES } from "../../src/routes/routeTable.js";
import { FIXTURES, ROOT } from "../support/helpers.js";
import { buildSite, type RunningServer } from "../support/servers/common.js";
import { startNginx } from "../support/servers/nginx.js";

const SOURCE = join(FIXTURES, "conformance", "with-files");
const PLACEHOLDER = readFileSync(join(ROOT, "assets", "placeholder-icon.png"));

/** The packages of the fixture with files: host, name, and whether the host is the default (files at the root). */
const PACKAGES = [
  { host: "primary", name: "snake-deluxe", root: true },
  { host: "primary", name: "chart.js", root: true },
  { host: "mirror.eu", name: "404.json", root: false },
  { host: "mirror.eu", name: "_under", root: false },
];

/** A package's own files, by path in the package (`apps/<name>/boot.dol`), from its folder or its zip. */
function sourceFiles(host: string, name: string): { zip?: Buffer; files: Map<string, Buffer> } {
  const zip = join(SOURCE, host, `${name}.zip`);
  if (existsSync(zip)) {
    const bytes = readFileSync(zip);
    const files = new Map(
      Object.entries(unzipSync(bytes))
        .filter(([path]) => !path.endsWith("/"))
        .map(([path, data]) => [path, Buffer.from(data)]),
    );
    return { zip: bytes, files };
  }
  const folder = join(SOURCE, host, name);
  const files = new Map<string, Buffer>();
  for (const entry of readdirSync(folder, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    files.set(path.slice(folder.length + 1), readFileSync(path));
  }
  return { files };
}

/** The file at `path` in the package, its name's case ignored (META.XML, Icon.PNG). */
function fileIn(files: ReadonlyMap<string, Buffer>, path: string): Buffer | undefined {
  return [...files].find(([p]) => p.toLowerCase() === path.toLowerCase())?.[1];
}

/** Every URL of a package's files: the route table's file routes, filled for the package and its host. */
function urlsOf(host: string, name: string, root: boolean): { url: string; kind: string; file: string }[] {
  // The package's own files: the Homebrew Browser's surface (hbb-*) is the host's, not a package's.
  return FILE_ROUTES.filter((r) => r.path.startsWith("/hosts/") !== root && !r.kind.startsWith("hbb-")).map((r) => ({
    url: r.path.replaceAll("{host}", host).replaceAll("{name}", name),
    kind: r.kind,
    file: r.file,
  }));
}

async function get(server: RunningServer, target: string): Promise<Buffer> {
  const res = await sendRaw(server.url, "GET", target);
  expect({ target, status: res.status }).toEqual({ target, status: 200 });
  return res.body;
}

describe("a catalogue of homebrew folders and zips, built and served by nginx", () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startNginx(await buildSite());
  });
  afterAll(() => server?.stop());

  it("has every URL the Open Shop Channel serves a package's files at, for both hosts", () => {
    const osc = (n: string) => [
      `/hbb/${n}/${n}.zip`,
      `/hbb/${n}/icon.png`,
      `/hbb/${n}.png`,
      `/unzipped_apps/${n}/apps/${n}/boot.dol`,
      `/unzipped_apps/${n}/apps/${n}/boot.elf`,
      `/unzipped_apps/${n}/apps/${n}/meta.xml`,
      ...["api", "api/v3", "api/v4"].flatMap((api) => [
        `/${api}/contents/${n}/${n}.zip`,
        `/${api}/contents/${n}/icon.png`,
      ]),
    ];
    expect(urlsOf("primary", "snake", true).map((u) => u.url)).toEqual(expect.arrayContaining(osc("snake")));
    expect(urlsOf("mirror.eu", "snake", false).map((u) => u.url)).toEqual(
      expect.arrayContaining(osc("snake").map((url) => `/hosts/mirror.eu${url}`)),
    );
  });

  it.each(PACKAGES)("serves $host/$name's zip, icon, binary and meta.xml at every URL, as its own files", async (p) => {
    const source = sourceFiles(p.host, p.name);
    const apps = `apps/${p.name}/`;
    const binaryName = fileIn(source.files, `${apps}boot.elf`) ? "boot.elf" : "boot.dol";
    const served = new Map<string, Buffer>();
    for (const { url, kind, file } of urlsOf(p.host, p.name, p.root)) {
      // The other binary's URL is a 404: a package has one.
      if (kind === "binary" && !file.endsWith(binaryName)) {
        expect((await sendRaw(server.url, "GET", url)).status, url).toBe(404);
        continue;
      }
      const body = await get(server, url);
      const first = served.get(kind);
      if (first) expect(body.equals(first), `${url} serves what the other ${kind} URLs serve`).toBe(true);
      else served.set(kind, body);
    }
    const zip = served.get("archive")!;
    if (source.zip) expect(zip.equals(source.zip), "the zip is the catalogue's, byte for byte").toBe(true);
    else {
      // A folder is zipped: the archive holds its files, each with its bytes, and nothing else.
      const entries = Object.entries(unzipSync(zip)).filter(([path]) => !path.endsWith("/"));
      expect(new Map(entries.map(([path, data]) => [path, Buffer.from(data)]))).toEqual(source.files);
    }
    expect(served.get("icon")!.equals(fileIn(source.files, `${apps}icon.png`) ?? PLACEHOLDER)).toBe(true);
    expect(served.get("binary")!.equals(fileIn(source.files, `${apps}${binaryName}`)!)).toBe(true);
    expect(served.get("meta")!.equals(fileIn(source.files, `${apps}meta.xml`)!)).toBe(true);

    // The API's sizes are the zip's as served: its bytes, and the bytes under apps/<name>/ in it.
    const extracted = Object.entries(unzipSync(zip))
      .filter(([path]) => path.startsWith(apps) && !path.endsWith("/"))
      .reduce((n, [, data]) => n + data.length, 0);
    for (const target of [`/v1/${p.host}/package/${p.name}`, `/v2/${p.host}/packages?package=${p.name}`]) {
      const json = JSON.parse((await get(server, target)).toString("utf8")) as Record<string, unknown>;
      expect({ target, zip_size: json.zip_size, extracted: json.extracted }).toEqual({
        target,
        zip_size: zip.length,
        extracted,
      });
    }
    // The fixture is shaped as intended: the source's own sizes where it is a zip.
    if (source.zip) expect(zip.length).toBe(statSync(join(SOURCE, p.host, `${p.name}.zip`)).size);
  });

  it("covers a zip and a folder, boot.dol and boot.elf, an icon and the placeholder on each host", () => {
    for (const host of ["primary", "mirror.eu"]) {
      const shapes = PACKAGES.filter((p) => p.host === host).map((p) => {
        const { zip, files } = sourceFiles(p.host, p.name);
        const apps = `apps/${p.name}/`;
        return {
          zip: zip !== undefined,
          elf: fileIn(files, `${apps}boot.elf`) !== undefined,
          icon: fileIn(files, `${apps}icon.png`) !== undefined,
        };
      });
      for (const key of ["zip", "elf", "icon"] as const)
        expect(new Set(shapes.map((s) => s[key])), `${host}: ${key}`).toEqual(new Set([true, false]));
    }
  });
});
