import { spawnSync } from "node:child_process";
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { renderApacheVirtualHost } from "../../../src/targets/apache.js";
import { tempDir } from "../helpers.js";
import { fixtureNames, requireProgram, startOnPort, type RunningServer, type Site } from "./common.js";

const MODULES = ["mpm_event", "authz_core", "mime", "negotiation", "headers", "rewrite"];

/**
 * A minimal main config around `site`, with the server-wide settings a site has to cope with: no
 * options at all for `/` (stricter than Debian), so the generated config must allow following the
 * `dist` link itself; types guessed from file names; and a handler for .php files set the way
 * libapache2-mod-php sets its own (type-map stands in for PHP: on a JSON file it answers 406).
 */
function mainConfig(dir: string, site: string): string {
  return [
    `ServerRoot ${dir}`,
    `DefaultRuntimeDir ${dir}`,
    `PidFile ${dir}/httpd.pid`,
    `ErrorLog ${dir}/error.log`,
    "LogLevel warn",
    ...MODULES.map((m) => `LoadModule ${m}_module /usr/lib/apache2/modules/mod_${m}.so`),
    // Root starts the server, as in production; its workers must be able to read the site.
    "User www-data",
    "Group www-data",
    "ServerName 127.0.0.1",
    "TypesConfig /etc/mime.types",
    "<Directory />",
    "    Options None",
    "    AllowOverride None",
    "    Require all denied",
    "</Directory>",
    `<FilesMatch ".+\\.ph(?:ar|p|tml)$">`,
    "    SetHandler type-map",
    "</FilesMatch>",
    site,
    "",
  ].join("\n");
}

/** Apache's own syntax check (`apache2 -t`) of a generated config in the minimal main config; throws what it said. */
export async function checkApacheConfig(config: string): Promise<void> {
  const apache2 = requireProgram("apache2", "apache2");
  const dir = tempDir("shopfront-apache-");
  writeFileSync(join(dir, "apache2.conf"), mainConfig(dir, config));
  const run = spawnSync(apache2, ["-t", "-f", join(dir, "apache2.conf")], { encoding: "utf8" });
  const output = `${run.stdout}${run.stderr}`;
  if (run.status !== 0 || !output.includes("Syntax OK")) throw new Error(`apache2 -t refused the config:\n${output}`);
}

async function startApache(site: (port: number) => string): Promise<RunningServer> {
  const apache2 = requireProgram("apache2", "apache2");
  const dir = tempDir("shopfront-apache-");
  chmodSync(dir, 0o755);
  return startOnPort((port) => {
    writeFileSync(join(dir, "apache2.conf"), mainConfig(dir, site(port)));
    return { command: apache2, args: ["-f", join(dir, "apache2.conf"), "-DFOREGROUND"] };
  });
}

/** Real Apache httpd with the generated <VirtualHost>. */
export async function startApacheVirtualHost(site: Site): Promise<RunningServer> {
  const names = await fixtureNames();
  return startApache((port) =>
    renderApacheVirtualHost({ root: site.root, listen: { host: "127.0.0.1", port } }, names),
  );
}

/**
 * Real Apache httpd as a shared host runs it: a plain virtual host with `AllowOverride All` whose
 * DocumentRoot is the built folder, so the generated .htaccess in it (a build with `targets:
 * ["apache"]`) does all the routing. Following the `dist` link is the host's business here.
 */
export function startApacheHtaccess(site: Site): Promise<RunningServer> {
  return startApache((port) =>
    [
      `Listen 127.0.0.1:${port}`,
      `<VirtualHost 127.0.0.1:${port}>`,
      `    DocumentRoot "${site.root}"`,
      `    <Directory "${site.dir}">`,
      "        Options FollowSymLinks",
      "    </Directory>",
      `    <Directory "${site.root}">`,
      "        AllowOverride All",
      "        Require all granted",
      "    </Directory>",
      "</VirtualHost>",
    ].join("\n"),
  );
}
