// Where an rclone deploy goes: `rclone:REMOTE:PATH` (a remote of the user's rclone config; PATH
// relative to the remote's home, or absolute: `sftp:/var/www`, a local or alias remote's
// `/srv/site`) or `rclone:/ABSOLUTE/PATH` (a folder on this machine, rclone's local backend), checked before
// rclone runs. The path becomes the root every file is written under and every stray `--delete`
// removes is looked for under, so it is held to plain segments: no `..` that would climb out of it.
import { UsageError } from "../util/errors.js";

export interface RcloneLocation {
  /** A remote of the rclone config, or undefined for a local folder. */
  remote?: string;
  /** Under the remote (may be "", or absolute from `/`), or the local folder's absolute path; no trailing `/` but the root's. */
  path: string;
}

const SCHEME = "rclone:";
/** rclone's rule for a remote's name (letters, digits, `_ - . + @` and spaces), not starting with `-` or a space. */
const REMOTE_NAME = /^[A-Za-z0-9_.+@][A-Za-z0-9_.+@ -]*$/;
const FORMS = "rclone:REMOTE:PATH (a remote of your rclone config) or rclone:/ABSOLUTE/PATH (a local folder)";

export function parseRcloneUrl(value: string): RcloneLocation {
  if (!value.startsWith(SCHEME))
    throw new UsageError(`${JSON.stringify(value)} is not an rclone target; expected ${FORMS}`);
  const rest = value.slice(SCHEME.length);
  const fail = (why: string) => new UsageError(`${value}: ${why}; expected ${FORMS}`);
  // Control characters would reach rclone's arguments and the log; neither reads them as a path.
  if (/[\x00-\x1f\x7f]/.test(rest)) throw fail("it holds a control character");
  if (rest.startsWith("/")) return { path: checkedPath(rest, fail, true) };
  const colon = rest.indexOf(":");
  if (colon === -1) throw fail("a local folder must be given by its absolute path");
  const remote = rest.slice(0, colon);
  // `rclone::backend:...` is rclone's on-the-fly remote, whose settings (often credentials) would sit in the command line.
  if (remote === "") throw fail("name a remote of your rclone config (an on-the-fly :backend: remote is not taken)");
  if (!REMOTE_NAME.test(remote)) throw fail(`${JSON.stringify(remote)} is not an rclone remote name`);
  const path = rest.slice(colon + 1);
  return { remote, path: checkedPath(path, fail, path.startsWith("/")) };
}

function checkedPath(raw: string, fail: (why: string) => UsageError, absolute: boolean): string {
  const segments = raw.split("/").slice(absolute ? 1 : 0);
  // One trailing `/` names the same folder.
  if (segments.length > 1 && segments.at(-1) === "") segments.pop();
  if (segments.length === 1 && segments[0] === "") return absolute ? "/" : "";
  for (const segment of segments) {
    if (segment === "") throw fail(`the path ${JSON.stringify(raw)} has an empty segment ('//')`);
    if (segment === "." || segment === "..")
      throw fail(`the path ${JSON.stringify(raw)} has a ${JSON.stringify(segment)} segment; name the folder itself`);
  }
  return `${absolute ? "/" : ""}${segments.join("/")}`;
}

/** The location as rclone takes it on its command line: `REMOTE:PATH`, or the absolute folder. */
export function rclonePath(location: RcloneLocation, file?: string): string {
  const base = location.remote === undefined ? location.path : `${location.remote}:${location.path}`;
  if (file === undefined) return base;
  return base.endsWith("/") || base.endsWith(":") ? `${base}${file}` : `${base}/${file}`;
}

export function formatRcloneUrl(location: RcloneLocation): string {
  return `${SCHEME}${rclonePath(location)}`;
}
