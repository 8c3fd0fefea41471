import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { renderLighttpd } from "../../../src/targets/lighttpd.js";
import { tempDir } from "../helpers.js";
import { requireProgram, fixtureNames, startOnPort, type RunningServer, type Site } from "./common.js";

/**
 * A minimal main config that includes the fragment, with the settings of Debian's lighttpd.conf a
 * site has to cope with: its module list (mod_redirect early), types guessed from file names, .inc
 * and ~ refused, .php, .pl and .fcgi not sent as static files, its URL parsing options (which decode
 * a %2F in a path). Its own socket is the fragment's
 * address, so nothing else is opened.
 */
function mainConfig(dir: string, fragment: string, port: number): string {
  writeFileSync(join(dir, "shopfront.conf"), fragment);
  mkdirSync(join(dir, "empty"));
  const path = join(dir, "lighttpd.conf");
  writeFileSync(
    path,
    [
      `server.document-root = "${dir}/empty"`,
      'server.bind = "127.0.0.1"',
      `server.port = ${port}`,
      `server.errorlog = "${dir}/error.log"`,
      'server.modules = ("mod_indexfile", "mod_access", "mod_alias", "mod_redirect")',
      'server.http-parseopts = ("header-strict" => "enable", "host-strict" => "enable", "host-normalize" => "enable", "url-normalize-unreserved" => "enable", "url-normalize-required" => "enable", "url-ctrls-reject" => "enable", "url-path-2f-decode" => "enable", "url-path-dotseg-remove" => "enable")',
      'include_shell "/usr/share/lighttpd/create-mime.conf.pl"',
      'url.access-deny = ("~", ".inc")',
      'static-file.exclude-extensions = (".php", ".pl", ".fcgi")',
      'index-file.names = ("index.php", "index.html")',
      `include "${dir}/shopfront.conf"`,
      'server.modules += ("mod_dirlisting", "mod_staticfile")',
      "",
    ].join("\n"),
  );
  return path;
}

/** lighttpd's own check (`lighttpd -tt`, which also loads the modules) of a generated fragment; throws what it said. */
export async function checkLighttpdConfig(fragment: string): Promise<void> {
  const lighttpd = requireProgram("lighttpd", "lighttpd");
  const dir = tempDir("shopfront-lighttpd-");
  const run = spawnSync(lighttpd, ["-tt", "-f", mainConfig(dir, fragment, 8080)], { encoding: "utf8" });
  const log = join(dir, "error.log");
  const output = `${run.stdout}${run.stderr}${existsSync(log) ? readFileSync(log, "utf8") : ""}`;
  // An unknown key is only a warning, in the error log, and the check still exits 0.
  if (run.status !== 0 || output.trim() !== "") throw new Error(`lighttpd -tt refused the config:\n${output}`);
}

/** Real lighttpd with the generated fragment; the site is built with `targets: ["lighttpd"]` for its error files. */
export async function startLighttpd(site: Site): Promise<RunningServer> {
  const lighttpd = requireProgram("lighttpd", "lighttpd");
  const dir = tempDir("shopfront-lighttpd-");
  const names = await fixtureNames();
  return startOnPort((port) => {
    const config = mainConfig(
      dir,
      renderLighttpd({ root: site.root, listen: { host: "127.0.0.1", port } }, names),
      port,
    );
    return { command: lighttpd, args: ["-D", "-f", config] };
  });
}
