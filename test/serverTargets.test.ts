// The web server targets: what can reach their config text. --root and --listen are checked before
// a line is written; catalogue names never reach it at all (the generators do not read them); and
// each server's own config check accepts what they write.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { UsageError } from "../src/util/errors.js";
import { NAME_PATTERN_BODY } from "../src/catalogue/names.js";
import { targetById } from "../src/targets/index.js";
import type { CatalogueNames, ServerOptions, TargetId } from "../src/targets/target.js";
import { tempDir } from "./helpers.js";
import { checkApacheConfig } from "./servers/apache.js";
import { checkCaddyConfig } from "./servers/caddy.js";
import { checkLighttpdConfig } from "./servers/lighttpd.js";

const SERVER_TARGETS: { id: TargetId; check: (config: string) => Promise<void> }[] = [
  { id: "apache", check: checkApacheConfig },
  { id: "caddy", check: checkCaddyConfig },
  { id: "lighttpd", check: checkLighttpdConfig },
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

const MARK = "HOSTILE";
const HOSTILE_NAMES: CatalogueNames = {
  hosts: [`${MARK}"\n}`, `${MARK}/../..`, `${MARK}$1`],
  packages: new Map([[`${MARK}-host`, [`${MARK}{re.x.1}`, `${MARK}%00`, `${MARK}\nRewriteRule ^ /etc/passwd`]]]),
};
const NO_NAMES: CatalogueNames = { hosts: [], packages: new Map() };

describe.each(SERVER_TARGETS)("$id", ({ id, check }) => {
  const target = targetById(id);

  it.each(HOSTILE_ROOTS)("refuses the root %j", (root) => {
    expect(() => target.config({ ...OPTIONS, root }, NO_NAMES)).toThrow(UsageError);
  });

  it.each(HOSTILE_LISTEN)("refuses the address %j", (listen) => {
    expect(() => target.config({ ...OPTIONS, listen }, NO_NAMES)).toThrow(UsageError);
  });

  it("takes no catalogue name: hostile host ids and names change nothing it writes", () => {
    const config = target.config(OPTIONS, NO_NAMES);
    expect(target.config(OPTIONS, HOSTILE_NAMES)).toEqual(config);
    expect(JSON.stringify(config)).not.toContain(MARK);
    const deployed = target.deployFiles?.(NO_NAMES);
    expect(target.deployFiles?.(HOSTILE_NAMES)).toEqual(deployed);
    expect(JSON.stringify(deployed ?? [])).not.toContain(MARK);
  });

  it.each<ServerOptions["listen"]>([
    { host: "127.0.0.1", port: 8080 },
    { host: "[::1]", port: 8080 },
    { host: "localhost", port: 80 },
  ])("writes a config the server's own check accepts, listening on %j", async (listen) => {
    const root = join(tempDir("shopfront-check-"), "a root with spaces", "dist");
    mkdirSync(root, { recursive: true });
    const [file] = target.config({ root, listen }, NO_NAMES);
    expect(file!.content).toContain(root);
    await expect(check(file!.content)).resolves.toBeUndefined();
  });
});

describe("routePatterns", () => {
  it("the name pattern has no capturing group of its own, so configs can number theirs", () => {
    expect(new RegExp(`${NAME_PATTERN_BODY}|`).exec("")!.length).toBe(1);
  });
});
