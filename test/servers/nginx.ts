import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { renderNginx } from "../../src/targets/nginx.js";
import { tempDir } from "../helpers.js";
import { fixtureNames, freePort, requireProgram, startProcess, type RunningServer, type Site } from "./common.js";

/** Real nginx with the generated server block, included in a minimal main config. */
export async function startNginx(site: Site): Promise<RunningServer> {
  const nginx = requireProgram("nginx", "nginx");
  const dir = tempDir("shopfront-nginx-");
  const port = await freePort();
  writeFileSync(
    join(dir, "shopfront.conf"),
    renderNginx({ root: site.root, listen: { host: "127.0.0.1", port } }, await fixtureNames()),
  );
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
  return startProcess(nginx, ["-e", `${dir}/error.log`, "-p", dir, "-c", `${dir}/nginx.conf`], port);
}
