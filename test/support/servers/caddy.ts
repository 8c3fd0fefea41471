import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { renderCaddy } from "../../../src/targets/caddy.js";
import { tempDir } from "../helpers.js";
import { fixtureNames, requireProgram, startOnPort, type RunningServer, type Site } from "./common.js";

/** A Caddyfile: a global block (no admin endpoint, no automatic HTTPS) and the site block. */
function caddyfile(dir: string, site: string): string {
  const path = join(dir, "Caddyfile");
  writeFileSync(path, ["{", "\tadmin off", "\tauto_https off", "}", site].join("\n"));
  return path;
}

/** Caddy keeps its state under XDG folders; each run gets its own. */
function caddyEnv(dir: string): NodeJS.ProcessEnv {
  for (const sub of ["data", "config"]) mkdirSync(join(dir, sub));
  return { XDG_DATA_HOME: join(dir, "data"), XDG_CONFIG_HOME: join(dir, "config") };
}

/** Caddy's own check (`caddy validate`) of a generated site block; throws what it said. */
export async function checkCaddyConfig(config: string): Promise<void> {
  const caddy = requireProgram("caddy", "caddy");
  const dir = tempDir("shopfront-caddy-");
  const run = spawnSync(caddy, ["validate", "--adapter", "caddyfile", "--config", caddyfile(dir, config)], {
    encoding: "utf8",
    env: { ...process.env, ...caddyEnv(dir) },
  });
  const output = `${run.stdout}${run.stderr}`;
  if (run.status !== 0 || !output.includes("Valid configuration"))
    throw new Error(`caddy validate refused the config:\n${output}`);
}

/** Real Caddy with the generated site block. */
export async function startCaddy(site: Site): Promise<RunningServer> {
  const caddy = requireProgram("caddy", "caddy");
  const dir = tempDir("shopfront-caddy-");
  const names = await fixtureNames();
  return startOnPort((port) => {
    const config = caddyfile(dir, renderCaddy({ root: site.root, listen: { host: "127.0.0.1", port } }, names));
    return { command: caddy, args: ["run", "--adapter", "caddyfile", "--config", config], env: caddyEnv(dir) };
  });
}
