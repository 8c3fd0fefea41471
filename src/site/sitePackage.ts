// Which packages have files, as the site links them: the stored archive and icon's paths.
import type { PackageFilesInfo } from "../render/renderApi.js";
import { packageFilePaths } from "../routes/packageFileLayout.js";
import type { SiteFiles } from "./renderPages.js";

/** Where the site learns which packages have files, and where the default host's files sit (at the root). */
export interface FilesSource {
  defaultHost: string;
  of(host: string, name: string): Pick<PackageFilesInfo, "zipSize" | "icon"> | undefined;
}

/** A package as the site renders it: with the stored paths of its files when it has some. */
export function sitePackage<P extends { internal_name: string }>(
  host: string,
  p: P,
  files: FilesSource,
): P & { files?: SiteFiles } {
  const own = files.of(host, p.internal_name);
  if (!own) return p;
  const paths = packageFilePaths(host, files.defaultHost, p.internal_name, "boot.dol");
  return { ...p, files: { zipSize: own.zipSize, icon: own.icon, archive: paths.archive, iconFile: paths.icon } };
}
