// What `shopfront build` and `shopfront validate` print on success: one summary line.
import type { BuildSummary } from "../engine/buildCatalogue.js";
import { listed, plural } from "./formatProblems.js";
import { CONFIG_FILE } from "../config/readConfig.js";

/** What became of the file index's entry in a build that wrote no file of its own: signed anew, written anew, or kept. */
export type IndexChange = "signed" | "written" | "kept";

/**
 * `built 2 hosts, 100000 packages (3 changed, 4 files written) in 0.6 s into dist`, or for a full
 * build its file count and why it was one. A build that changed no file of the API or the site but the file index's says what it did to it
 * (a first signature over an unsigned build): "nothing changed ... up to date" would hide it.
 */
export function formatBuildSummary(
  built: BuildSummary,
  time: string,
  out: string,
  index: IndexChange = "kept",
): string {
  const what = `built ${plural(built.hosts, "host")}, ${plural(built.packages, "package")}`;
  const mode = built.mode;
  if (mode.kind === "full")
    return `${what}, ${plural(built.files, "file")} in ${time} into ${out} (full build: ${mode.reason})`;
  if (built.filesWritten === 0 && index !== "kept")
    return `${what} (nothing changed; the file index ${index === "signed" ? "signed" : "written again, unsigned"}) in ${time} into ${out}`;
  if (built.filesWritten === 0) return `${what} (nothing changed) in ${time}; ${out} is up to date`;
  return `${what} (${built.changedPackages} changed, ${plural(built.filesWritten, "file")} written) in ${time} into ${out}`;
}

/** `valid: 2 hosts, 39 packages in 0.1 s` */
export function formatValidSummary(hosts: number, packages: number, time: string): string {
  return `valid: ${plural(hosts, "host")}, ${plural(packages, "package")} in ${time}`;
}

/** `note: the previous build had --target netlify and this one has none, so _redirects and _headers are gone; ...` */
export function formatDroppedTargets(
  dropped: NonNullable<BuildSummary["dropped"]>,
  targets: readonly string[],
): string {
  const flags = (ids: readonly string[]) => ids.map((id) => `--target ${id}`).join(" ");
  const aliases =
    dropped.aliasFiles > 0
      ? [`the ${plural(dropped.aliasFiles, "link")} that served the package files at their aliases' URLs`]
      : [];
  const gone = [...dropped.files, ...aliases];
  const files = gone.length === 1 && aliases.length === 0 ? `${gone[0]} is` : `${listed(gone)} are`;
  return (
    `note: the previous build had ${flags(dropped.targets)} and this one has ${targets.length > 0 ? flags(targets) : "none"}, ` +
    `so ${files} gone; put "targets" in ${CONFIG_FILE} to build them every time`
  );
}
