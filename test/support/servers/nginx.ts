import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { renderNginx } from "../../../src/targets/nginx.js";
import { tempDir } from "../helpers.js";
import { fixtureNames, requireProgram, startOnPort, type RunningServer, type Site } from "./common.js";

/** A minimal main config around the generated server block, in a fresh folder; returns the folder. */
function writeMainConfig(config: string): string {
  const dir = tempDir("shopfront-nginx-");
  writeFileSync(join(dir, "shopfront.conf"), config);
  for (const temp of ["body", "proxy", "fastcgi", "uwsgi", "scgi"]) mkdirSync(join(dir, temp));
  writeFileSync(
    join(dir, "nginx.conf"),
    [
      "daemon off;",
      "master_process off;",
      "worker_processes 1;",
      `pid ${dir}/nginx.pid;`,
      `error_log ${dir}/error.log warn;`,
      "events { worker_connections 256; }",
      "http {",
      "  access_log off;",
      ...["body", "proxy", "fastcgi", "uwsgi", "scgi"].map(
        (t) => `  ${t === "body" ? "client_body" : t}_temp_path ${dir}/${t};`,
      ),
      `  include ${dir}/shopfront.conf;`,
      "}",
      "",
    ].join("\n"),
  );
  return dir;
}

/** nginx's own check (`nginx -t`) of a generated config in the minimal main config; throws what it said. */
export async function checkNginxConfig(config: string): Promise<void> {
  const nginx = requireProgram("nginx", "nginx");
  const dir = writeMainConfig(config);
  const run = spawnSync(nginx, ["-t", "-e", `${dir}/error.log`, "-p", dir, "-c", `${dir}/nginx.conf`], {
    encoding: "utf8",
  });
  const output = `${run.stdout}${run.stderr}`;
  if (run.status !== 0 || !output.includes("test is successful"))
    throw new Error(`nginx -t refused the config:\n${output}`);
}

/** Real nginx with the generated server block, included in a minimal main config. */
export async function startNginx(site: Site): Promise<RunningServer> {
  const nginx = requireProgram("nginx", "nginx");
  const names = await fixtureNames();
  return startOnPort((port) => {
    const dir = writeMainConfig(renderNginx({ root: site.root, listen: { host: "127.0.0.1", port } }, names));
    return { command: nginx, args: ["-e", `${dir}/error.log`, "-p", dir, "-c", `${dir}/nginx.conf`] };
  });
}
