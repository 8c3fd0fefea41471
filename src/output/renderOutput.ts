// Every file a build writes for a catalogue, assembled in this one place: the API, the package files
// (and, for a target that cannot rewrite, each again at its aliases' paths) and the Homebrew
// Browser's surface when the catalogue has package files, the OpenAPI document, the browse site
// unless it is turned off, and the deploy files of the chosen targets. The
// full build writes them; `check` and the conformance suite expect a deployment to serve them (less the
// targets' files, which configure a host and are not served).
import { renderOpenApi } from "../openapi/renderOpenApi.js";
import { catalogueNames } from "../render/catalogueNames.js";
import { renderApi, type OutputFile, type RenderedCatalogue } from "../render/renderApi.js";
import { renderTodayApi } from "../render/renderToday.js";
import { packageFilePaths } from "../routes/packageFileLayout.js";
import { aliasFilesOf, OPENAPI_FILE } from "../routes/routeTable.js";
import { renderHbb } from "../render/renderHbb.js";
import { siteFiles } from "../site/renderSite.js";
import type { SiteIndex } from "../site/siteIndex.js";
import type { TargetId } from "../targets/target.js";
import { targetById } from "../targets/index.js";
import { targetFiles } from "./targetFiles.js";

export interface OutputOptions {
  site: boolean;
  /** The targets whose deploy files the output holds; none when left out. */
  targets?: readonly TargetId[];
  /** The origin the build is deployed at, for the v3/v4 URLs and the site's feeds (shopfront.json's baseUrl). */
  baseUrl?: string | undefined;
  /** The build's time (its UTC day picks the featured app); now when left out. */
  nowMs?: number;
  /** Told the browse site's index, which the build's state keeps for the next build. */
  siteIndex?: (index: SiteIndex) => void;
}

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

/** Every file of the output, as one array (what `check` expects a deployment to serve). */
export function renderOutput(catalogue: RenderedCatalogue, options: OutputOptions): OutputFile[] {
  return [...outputFiles(catalogue, options)];
}

/**
 * Every file of the output, one group after another, each rendered only when the one before has been
 * taken: a full build hands the API's files to its writer while the site is still to be rendered.
 */
export function* outputFiles(catalogue: RenderedCatalogue, options: OutputOptions): Generator<OutputFile> {
  const targets = options.targets ?? [];
  const stored = storedPackageFiles(catalogue);
  yield* renderApi(catalogue);
  yield* renderTodayApi(catalogue, { baseUrl: options.baseUrl, nowMs: options.nowMs ?? Date.now() });
  // Before the stored files: the icon archive reads each icon where the build made it, whence it is moved.
  yield* renderHbb(catalogue);
  yield* stored;
  if (needsAliasFiles(targets)) yield* aliasFiles(stored);
  yield { path: OPENAPI_FILE, content: renderOpenApi() };
  if (options.site) yield* siteOutput(catalogue, options);
  if (targets.length > 0) yield* targetFiles(targets, catalogueNames(catalogue));
}

function* siteOutput(catalogue: RenderedCatalogue, options: OutputOptions): Generator<OutputFile> {
  const site = siteFiles(catalogue, options.baseUrl);
  options.siteIndex?.(site.index);
  yield* site.files;
}
