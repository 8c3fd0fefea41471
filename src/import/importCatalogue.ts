// `shopfront import hbb`, `import api`, `import oscmeta` and `import apps` as one call each: read the source, write what it holds
// into the catalogue, then validate the catalogue as it now is, so the report says whether the
// result builds. Nothing here prints; the result says what happened.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { validateCatalogue, type ValidationResult } from "../load/validateCatalogue.js";
import type { Problem } from "../catalogue/problems.js";
import { UsageError } from "../util/errors.js";
import { assertDeclaredHost, defaultImportHost } from "./defaultHost.js";
import { fetchApi, readApiFiles, type ApiChoice } from "./fetchApi.js";
import type { DownloadSettings } from "./fetchArchives.js";
import { parseHbbList } from "./parseHbbList.js";
import { readOscmeta, type ReadOscmetaOptions } from "./readOscmeta.js";
import { withMirrorFiles } from "./mirrorFiles.js";
import { readApps, type AppsRead } from "./readApps.js";
import { writeImport, type ImportSource, type ImportSummary } from "./writeImport.js";

export interface ImportReport {
  /** Problems of the catalogue's hosts.json or stats files that stopped the import: nothing was written. */
  problems: Problem[];
  summary?: ImportSummary;
  /** The catalogue validated after the import, and how long that took; absent when nothing was written (`summary.failed`). */
  validation?: ValidationResult & { ms: number };
}

export interface ImportTarget {
  catalogueDir: string;
  /** Overwrite existing manifests, stats entries, archives and hosts.json. */
  force: boolean;
  /** How packages' archives are fetched, for a source that has them. */
  downloads?: DownloadSettings;
}

/** Writes what a reader found, then validates the catalogue. */
export async function importSource(source: ImportSource, target: ImportTarget): Promise<ImportReport> {
  const { problems, summary } = await writeImport(source, target);
  if (!summary || summary.failed) return { problems, ...(summary ? { summary } : {}) };
  const started = performance.now();
  const validation = await validateCatalogue(target.catalogueDir);
  return { problems, summary, validation: { ...validation, ms: performance.now() - started } };
}

/**
 * `import hbb`: a Homebrew Browser list file, its packages put on `host` (defaultImportHost when
 * left out); with `files`, a mirror's archives.
 */
export async function importHbbList(
  options: ImportTarget & { file: string; host?: string; files?: string },
): Promise<ImportReport> {
  const host = options.host ?? (await defaultImportHost(options.catalogueDir));
  let bytes: Buffer;
  try {
    bytes = readFileSync(options.file);
  } catch (e) {
    throw new UsageError(`cannot read the list ${options.file}: ${(e as Error).message}`);
  }
  const source = parseHbbList(bytes, host);
  return importSource(options.files !== undefined ? withMirrorFiles(source, options.files) : source, options);
}

export interface ImportApiOptions extends ImportTarget {
  /** A running API's base URL; or, instead, */
  url?: string;
  /** a folder holding its responses as files (DIR/v1/hosts, DIR/v1/<host>/packages). */
  fromFiles?: string;
  /** Requests (and archives) fetched at once, and how long one request may take: for a URL. */
  concurrency: number;
  timeoutSeconds: number;
  onProgress?: (done: number, total: number) => void;
  /** Archives fetched out of those to fetch, and the bytes received. */
  onDownload?: (done: number, total: number, bytes: number) => void;
  /** Which API to read (the newest the server has by default), and the host a v4 or v3 API's repository becomes. */
  api?: ApiChoice;
  host?: string;
}

/** `import api`: a running API's hosts, packages and numbers, or the same JSON saved in files. */
export async function importApi(options: ImportApiOptions): Promise<ImportReport> {
  const { url, fromFiles, concurrency, timeoutSeconds, onProgress, onDownload, api, host } = options;
  if ((url === undefined) === (fromFiles === undefined))
    throw new UsageError("import api: give either the API's URL or --from-files DIR");
  const source =
    fromFiles !== undefined
      ? await readApiFiles(fromFiles)
      : await fetchApi({
          baseUrl: url!,
          concurrency,
          timeoutSeconds,
          ...(onProgress ? { onProgress } : {}),
          ...(api !== undefined ? { api } : {}),
          ...(host !== undefined ? { host } : {}),
        });
  return importSource(source, {
    catalogueDir: options.catalogueDir,
    force: options.force,
    downloads: { concurrency, timeoutSeconds, ...(onDownload ? { onProgress: onDownload } : {}) },
  });
}

export type ImportOscmetaOptions = ImportTarget &
  Omit<ReadOscmetaOptions, "catalogueDir" | "host"> & {
    /** The host the apps go on; defaultImportHost when left out. */
    host?: string;
  };

/**
 * `import oscmeta`: an Open Shop Channel app repository's apps, with their package files from a
 * folder, put on `host`. An oscmeta file its schema refuses refuses the import: nothing is written.
 */
export async function importOscmeta(options: ImportOscmetaOptions): Promise<ImportReport> {
  const host = options.host ?? (await defaultImportHost(options.catalogueDir));
  const { source, problems } = await readOscmeta({ ...options, host });
  if (!source) return { problems };
  const report = await importSource(source, options);
  return { ...report, problems: [...problems, ...report.problems] };
}

export type ImportAppsReport = ImportReport & Omit<AppsRead, "source"> & { host: string };

/**
 * `import apps`: an SD card's apps as packages of `host` (by default defaultImportHost), each with its
 * files. Every app is read and staged before anything is written.
 */
export async function importApps(
  options: ImportTarget & { dir: string; host?: string; now?: () => number; hbbList?: string },
): Promise<ImportAppsReport> {
  if (options.host !== undefined) await assertDeclaredHost(options.catalogueDir, options.host);
  const host = options.host ?? (await defaultImportHost(options.catalogueDir));
  const stageDir = mkdtempSync(join(tmpdir(), "shopfront-apps-"));
  try {
    const { source, ...read } = await readApps({
      dir: options.dir,
      host,
      catalogueDir: options.catalogueDir,
      stageDir,
      force: options.force,
      ...(options.now ? { now: options.now } : {}),
      ...(options.hbbList !== undefined ? { hbbList: options.hbbList } : {}),
    });
    const report = await importSource(source, options);
    return { ...report, ...read, host };
  } finally {
    rmSync(stageDir, { recursive: true, force: true });
  }
}
