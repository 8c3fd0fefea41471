// The package files as a build stores them: each package's archive, icon, binary and meta.xml at
// routes/packageFileLayout.ts's paths, and, for a target that cannot rewrite, each again at its
// aliases' paths. The full build (engine/fullBuild.ts) writes them.
import type { OutputFile, RenderedCatalogue } from "../render/renderApi.js";
import { packageFilePaths } from "../routes/packageFileLayout.js";
import { aliasFilesOf } from "../routes/routeTable.js";
import type { TargetId } from "../targets/target.js";
import { targetById } from "../targets/index.js";

/**
 * The stored files of every package with files, at routes/packageFileLayout.ts's paths: the archive,
 * the icon (or the placeholder), the binary and meta.xml, as files on disk (never read here).
 */
export function storedPackageFiles(catalogue: RenderedCatalogue): OutputFile[] {
  const files: OutputFile[] = [];
  for (const [host, packages] of catalogue.packages) {
    for (const p of packages) {
      const stored = p.stored;
      if (!stored) continue;
      const paths = packageFilePaths(host, catalogue.defaultHost!, p.name, stored.binary.name);
      files.push(
        { path: paths.archive, content: stored.archive },
        { path: paths.icon, content: stored.icon },
        { path: paths.binary, content: stored.binary.content },
      );
      if (stored.meta !== undefined) files.push({ path: paths.meta, content: stored.meta });
    }
  }
  return files;
}

/** Whether one of the targets serves the package files' aliases from copies (Target.packageFiles). */
export function needsAliasFiles(targets: readonly TargetId[]): boolean {
  return targets.some((id) => targetById(id).packageFiles === "copies");
}

/**
 * Each stored package file again at each of its aliases' paths (aliasFilesOf), for a host that
 * cannot rewrite: a hard link to the stored file, so an alias costs no disk and no copying.
 */
export function aliasFiles(stored: readonly OutputFile[]): OutputFile[] {
  return stored.flatMap((file) => aliasFilesOf(file.path).map((path) => ({ path, content: { sameAs: file.path } })));
}
