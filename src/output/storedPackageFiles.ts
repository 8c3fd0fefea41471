// Whether a build stores each package file again at its aliases' paths (hard links), for a target
// that cannot rewrite: engine/streamPackageFiles.ts writes them in a full build,
// engine/planPackageFiles.ts in a rebuild.
import type { TargetId } from "../targets/target.js";
import { targetById } from "../targets/index.js";

/** Whether one of the targets serves the package files' aliases from copies (Target.packageFiles). */
export function needsAliasFiles(targets: readonly TargetId[]): boolean {
  return targets.some((id) => targetById(id).packageFiles === "copies");
}
