// The package files' routes (FILE_ROUTES) as every target writes them: a regex over the decoded
// path, the stored file it rewrites to (each `{name}` of the path onto the file's at the same place,
// so a mismatched pair names no file), its type and its cache lifetime.
import {
  FILE_ROUTES,
  packageCacheControl,
  PACKAGE_FILE_HEADERS,
  PACKAGE_FILE_TYPES,
  type FileRoute,
} from "../../routes/routeTable.js";
import type { Param } from "../../routes/routeParams.js";
import { fillByPosition, filePathPattern, NAME_CAPTURE, segmentsOf } from "../../routes/routeSyntax.js";

export interface FileRule {
  route: FileRoute;
  /** The path as a regex, anchored (`^/hbb/(NAME)/(NAME)\.zip$`), each parameter one capture group in path order. */
  regex: string;
  /** The parameters of the captures, in order. */
  params: Param[];
  /** The stored file, `/`-rooted, with the n-th parameter written `ref(n)` (n from 1). */
  file(ref: (group: number) => string): string;
  type: string;
  cacheControl: string;
}

export function fileRules(capture: (param: Param, index: number) => string = () => NAME_CAPTURE): FileRule[] {
  return FILE_ROUTES.map((route) => {
    const { pattern, params } = filePathPattern(segmentsOf(route.path), capture);
    return {
      route,
      regex: `^${pattern}$`,
      params,
      file: (ref) => `/${fillByPosition(route.file, (index) => ref(index + 1))}`,
      type: PACKAGE_FILE_TYPES[route.kind],
      cacheControl: packageCacheControl(route.kind),
    };
  });
}

/** The headers a package file is served with besides its type: the API's CORS and nosniff, and its cache lifetime. */
export function fileHeaders(rule: FileRule): Record<string, string> {
  return { ...PACKAGE_FILE_HEADERS, "Cache-Control": rule.cacheControl };
}
