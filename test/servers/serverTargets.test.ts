// The web server targets: what can reach their config text. --root and --listen are checked before
// a line is written; a coder, free text, reaches it only escaped; and each server's own config
// check accepts what they write.
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { UsageError } from "../../src/util/errors.js";
import { NAME_PATTERN_BODY } from "../../src/catalogue/names.js";
import { targetById } from "../../src/targets/index.js";
import type { CatalogueNames } from "../../src/render/catalogueNames.js";
import type { ServerOptions, TargetId } from "../../src/targets/target.js";
import { renderConfig } from "../../src/targets/renderConfig.js";
import { writeConfig } from "../../src/targets/writeConfig.js";
import { copyFixture, manifest, tempDir, writeFiles } from "../support/helpers.js";
import { checkApacheConfig } from "../support/servers/apache.js";
import { checkCaddyConfig } from "../support/servers/caddy.js";
import { checkLighttpdConfig } from "../support/servers/lighttpd.js";
import { checkNginxConfig } from "../support/servers/nginx.js";

const SERVER_TARGETS: { id: TargetId; check: (config: string) => Promise<void> }[] = [
  { id: "apache", check: checkApacheConfig },
  { id: "caddy", check: checkCaddyConfig },
  { id: "lighttpd", check: checkLighttpdConfig },
  { id: "nginx", check: checkNginxConfig },
];

const OPTIONS: ServerOptions = { root: "/srv/api/dist", listen: { host: "127.0.0.1", port: 8080 } };

const HOSTILE_ROOTS = [
  '/srv/api"\nInclude /etc/shadow',
  "/srv/api;\n}",
  "/srv/$HOME",
  "/srv/${HOME}",
  "/srv/{x}",
  "/srv/%2e%2e",
  "/srv/a#b",
  "/srv/`id`",
  "/srv/a\\b",
  "/srv/a'b",
  "/srv/api\u0000",
  "/srv/../etc",
  "srv/api",
  "../../etc",
  "",
];

const HOSTILE_LISTEN: ServerOptions["listen"][] = [
  { host: "127.0.0.1 ; evil", port: 80 },
  { host: '127.0.0.1"', port: 80 },
  { host: "127.0.0.1\n", port: 80 },
  { host: "a}b", port: 80 },
  { host: "[::1]]", port: 80 },
  { host: "::1", port: 80 },
  { host: "exa mple.org", port: 80 },
  { host: "127.0.0.1", port: 0 },
  { host: "127.0.0.1", port: 65536 },
  { host: "127.0.0.1", port: 80.5 },
  { host: "127.0.0.1", port: Number.NaN },
];

/** Coders are free text: these are what a manifest may hold (a line: no control characters). */
const HOSTILE_CODERS = [
  '"\u2028}; include /etc/shadow;',
  "$1 %1 {re.x.1} ${HOME} `id`",
  "</VirtualHost> RewriteRule ^ /etc/passwd",
  "../../../etc/passwd",
  "a\\b' #c",
];
/** Pieces of those coders that no config holds unless a coder reached it unescaped. */
const HOSTILE_PIECES = [
  '"\u2028};',
  "/etc/shadow",
  "{re.x.1}",
  "${HOME}",
  "`id`",
  "</VirtualHost> RewriteRule",
  "/etc/passwd",
  "../../..",
  "\\b'",
];
const NAMES: CatalogueNames = {
  hosts: ["primary"],
  packages: new Map([["primary", ["snake"]]]),
  coders: new Map([["primary", ["Artemio Urbina"]]]),
  categories: new Map([["primary", new Map([["utilities", ["Artemio Urbina"]]])]]),
};
const HOSTILE_NAMES: CatalogueNames = {
  ...NAMES,
  coders: new Map([["primary", HOSTILE_CODERS]]),
  categories: new Map([["primary", new Map([["utilities", HOSTILE_CODERS]])]]),
};

describe.each(SERVER_TARGETS)("$id", ({ id, check }) => {
  const target = targetById(id);

  it.each(HOSTILE_ROOTS)("refuses the root %j", (root) => {
    expect(() => target.config({ ...OPTIONS, root }, NAMES)).toThrow(UsageError);
  });

  it.each(HOSTILE_LISTEN)("refuses the address %j", (listen) => {
    expect(() => target.config({ ...OPTIONS, listen }, NAMES)).toThrow(UsageError);
  });

  it("writes a coder only escaped, whatever it holds, and its server accepts the result", async () => {
    const config = target
      .config(OPTIONS, HOSTILE_NAMES)
      .map((f) => f.content)
      .join("\n");
    for (const piece of HOSTILE_PIECES) expect(config).not.toContain(piece);
    const root = join(tempDir("shopfront-check-"), "dist");
    mkdirSync(root, { recursive: true });
    await expect(check(target.config({ ...OPTIONS, root }, HOSTILE_NAMES)[0]!.content)).resolves.toBeUndefined();
  });

  it.each<ServerOptions["listen"]>([
    { host: "127.0.0.1", port: 8080 },
    { host: "[::1]", port: 8080 },
    { host: "localhost", port: 80 },
  ])("writes a config the server's own check accepts, listening on %j", async (listen) => {
    const root = join(tempDir("shopfront-check-"), "a root with spaces", "dist");
    mkdirSync(root, { recursive: true });
    const [file] = target.config({ root, listen }, NAMES);
    expect(file!.content).toContain(root);
    await expect(check(file!.content)).resolves.toBeUndefined();
  });
});

describe("routePatterns", () => {
  it("the name pattern has no capturing group of its own, so configs can number theirs", () => {
    expect(new RegExp(`${NAME_PATTERN_BODY}|`).exec("")!.length).toBe(1);
  });
});

describe("a server config for a catalogue", () => {
  it("is refused, with the catalogue's problems, when the catalogue has errors: coders come from a valid catalogue only", async () => {
    const catalogueDir = copyFixture("basic");
    writeFiles(catalogueDir, { "primary/snake.json": manifest("snake", { coder: 7 }) });
    const result = await renderConfig({ target: "nginx", root: "/srv/api/dist", listen: "8080", catalogueDir });
    expect(result.files).toBeUndefined();
    expect(result.problems.map((p) => `${p.file} ${p.pointer}`)).toContain("primary/snake.json /coder");
  });

  it("stops with a usage error naming the coder that nginx cannot hold in one parameter", () => {
    const long = "\u{10FFFF}".repeat(128);
    const names: CatalogueNames = { ...NAMES, coders: new Map([["primary", [long]]]) };
    expect(() => targetById("nginx").config(OPTIONS, names)).toThrow(UsageError);
    expect(() => targetById("nginx").config(OPTIONS, names)).toThrow(/nginx reads at most 4095/);
  });
});

describe("writeConfig (shopfront config --out)", () => {
  const options = { root: "/srv/api/dist", listen: "8080", catalogueDir: "" };

  it("writes one file to the path, several into the folder, and without a path only renders them", async () => {
    const catalogueDir = copyFixture("basic");
    const out = tempDir();
    const one = await writeConfig({ ...options, catalogueDir, target: "nginx", out: join(out, "api.conf") });
    expect(one.written).toBe(true);
    expect(readFileSync(join(out, "api.conf"), "utf8")).toBe(one.files![0]!.content);
    const several = await writeConfig({ ...options, catalogueDir, target: "netlify", out: join(out, "netlify") });
    expect(several.files!.map((f) => f.path)).toEqual(["_redirects", "_headers"]);
    expect(readdirSync(join(out, "netlify")).sort()).toEqual(["_headers", "_redirects"]);
    for (const file of several.files!) expect(readFileSync(join(out, "netlify", file.path), "utf8")).toBe(file.content);
    const printed = await writeConfig({ ...options, catalogueDir, target: "nginx" });
    expect(printed).toEqual({ problems: [], files: one.files, written: false });
  });

  it("writes nothing when the catalogue has errors", async () => {
    const catalogueDir = copyFixture("basic");
    writeFiles(catalogueDir, { "primary/snake.json": manifest("snake", { coder: 7 }) });
    const out = join(tempDir(), "api.conf");
    const result = await writeConfig({ ...options, catalogueDir, target: "nginx", out });
    expect(result).toMatchObject({ written: false });
    expect(result.files).toBeUndefined();
    expect(existsSync(out)).toBe(false);
  });
});
