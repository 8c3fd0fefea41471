// --root and --listen, checked before any generator sees them: they go into server configs, so a
// value that could break out of a quoted string or a directive is refused, not escaped.
import { isAbsolute, resolve } from "node:path";
import { UsageError } from "../../util/errors.js";
import type { ServerOptions } from "../target.js";

/** Characters a root path may hold in a generated config: no quotes, `\`, `$`, `{`, `}`, `;`, `%`, `#` or control characters. */
const SAFE_PATH = /^\/[A-Za-z0-9._~+@,=:/ -]*$/;
const IPV4 =
  /^(?:(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])\.){3}(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])$/;
const IPV6 = /^\[[0-9A-Fa-f:.]+\]$/;
const HOSTNAME =
  /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

export function parseRoot(value: string, cwd = process.cwd()): string {
  const root = isAbsolute(value) ? value : resolve(cwd, value);
  if (!SAFE_PATH.test(root) || root.split("/").includes("..")) {
    throw new UsageError(
      `--root ${JSON.stringify(value)}: a path in a server config may only hold letters, digits, spaces and . _ ~ + @ , = : / -`,
    );
  }
  return root.length > 1 ? root.replace(/\/+$/, "") : root;
}

/** `HOST:PORT`, `[IPv6]:PORT` or `PORT` (all IPv4 interfaces). */
export function parseListen(value: string): ServerOptions["listen"] {
  const match = /^(?:(.*):)?([0-9]{1,5})$/.exec(value);
  const host = match?.[1] ?? "0.0.0.0";
  const port = Number(match?.[2]);
  if (!match || port < 1 || port > 65535 || !(IPV4.test(host) || IPV6.test(host) || HOSTNAME.test(host))) {
    throw new UsageError(
      `--listen ${JSON.stringify(value)}: expected HOST:PORT (127.0.0.1:8080, [::1]:8080, example.org:80) or PORT`,
    );
  }
  return { host, port };
}

/**
 * The options as a generator uses them, checked again (generators are also called from code): what
 * goes into the config is what was checked, and a relative root, which a server would read against
 * its own folder, is refused.
 */
export function parseServerOptions(options: ServerOptions): ServerOptions {
  if (!isAbsolute(options.root))
    throw new UsageError(`root ${JSON.stringify(options.root)}: a server config needs an absolute path`);
  return { root: parseRoot(options.root), listen: parseListen(`${options.listen.host}:${options.listen.port}`) };
}
