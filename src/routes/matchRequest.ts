// The reference router: which file answers a request, or which error. The preview server calls it,
// and the CloudFront function and the Cloudflare worker embed its source verbatim (with
// filterValue.ts and filterList.ts), so it is written in the JavaScript that CloudFront Functions
// (runtime 2.0) accept: ES 5.1 with const, let, arrow functions and template literals; no for-of,
// spread, destructuring, shorthand properties, classes, `?.`, `??` or recursion, and nothing from
// outside the function but those modules' functions. test/servers/cloudfront.test.ts checks that.
import { coderKey, decodeValue } from "./filterValue.js";
import type { PortableRoutes, RouteId } from "./routeTable.js";

export type RouteMatch =
  | {
      status: 200;
      /**
       * `site` for a file of the browse site or the OpenAPI document (SITE in routeTable.ts), `file`
       * for a package file (FILE_ROUTES): `file` may not exist (an unknown package, or a URL whose
       * two names differ), which is a 404.
       */
      route: RouteId | "site" | "file";
      /** The file that answers; for a search, the list to filter. */
      file: string;
      /** For a filter route: what answers when `file` does not exist (no package has the value). */
      fallback?: string;
      /** For a search: the bytes an internal_name must contain (see filterList). */
      search?: string;
      /** For a package file: the stored file's template (FILE_ROUTES' `file`), which decides its headers. */
      template?: string;
    }
  | { status: 204 }
  | { status: 404 }
  | { status: 405 };

/**
 * Routes one request. `target` is the request-target as sent: the path, percent-encoded, and the
 * query. Path segments are split on `/` as sent, then percent-decoded; query values are decoded as a
 * web form (`+` is a space) but for a name, which is matched as sent (names never need encoding).
 * Hosts and names must match the name pattern, so no file outside the API can ever be named; a
 * category that does not is one no package has; a coder becomes the hex of its bytes. One trailing
 * slash is accepted on every route. A query route needs each of its parameters exactly once:
 * absent (a filter's empty value counts as absent), the next route is tried; repeated, or a name
 * that is invalid, the answer is 404. The site's files (SITE in routeTable.ts) are matched first.
 */
export function matchRequest(table: PortableRoutes, method: string, target: string): RouteMatch {
  if (method === "OPTIONS") return { status: 204 };
  if (method !== "GET" && method !== "HEAD") return { status: 405 };
  const mark = target.indexOf("?");
  let path = mark < 0 ? target : target.slice(0, mark);
  const query = mark < 0 ? "" : target.slice(mark + 1);
  const name = new RegExp(table.name);
  const decoded = (segment: string): string | undefined => {
    try {
      return decodeURIComponent(segment);
    } catch (e) {
      return undefined;
    }
  };

  // The site: `/`, a file at the root, or a path in a site folder whose every segment is a name as
  // sent (a folder's index page when it ends in `/`), of a type the site has. The query is ignored.
  const site = table.site;
  const parts = path.split("/");
  const last = parts.length - 1;
  if (
    parts[0] === "" &&
    (last === 1 ? parts[1] === "" || site.files.indexOf(parts[1]!) >= 0 : site.folders.indexOf(parts[1]!) >= 0)
  ) {
    if (parts[last] === "") parts[last] = site.index;
    for (let s = 1; s <= last; s++) if (!name.test(parts[s]!)) return { status: 404 };
    const dot = parts[last]!.lastIndexOf(".");
    return dot > 0 && site.extensions.indexOf(parts[last]!.slice(dot + 1)) >= 0
      ? { status: 200, route: "site", file: parts.slice(1).join("/") }
      : { status: 404 };
  }

  if (path.length > 1 && path.charAt(path.length - 1) === "/") path = path.slice(0, -1);
  const raw = path.split("/");
  if (raw[0] !== "") return { status: 404 };
  raw.shift();
  const pairs = query === "" ? [] : query.split("&");

  // Two passes at most: a search is answered by filtering the list that the request names without
  // its search parameter, so the second pass skips search routes.
  let search: string | undefined;
  for (let pass = 0; pass < 2; pass++) {
    let answer: RouteMatch | undefined;
    for (let r = 0; r < table.routes.length && answer === undefined; r++) {
      const route = table.routes[r]!;
      if (route.segments.length !== raw.length || (pass === 1 && route.search)) continue;
      const params: Record<string, string> = {};
      let matches = true;
      let known = true;
      for (let s = 0; s < raw.length && matches; s++) {
        const expected = route.segments[s]!;
        if (expected.charAt(0) !== "{") {
          matches = decoded(raw[s]!) === expected;
          continue;
        }
        const param = expected.slice(1, -1);
        const kind = table.kinds[param as keyof PortableRoutes["kinds"]];
        if (kind === "text") {
          params[param] = coderKey(decodeValue(raw[s]!, false));
          continue;
        }
        const value = decoded(raw[s]!);
        const valid = value !== undefined && name.test(value);
        if (kind === "name") matches = valid;
        else known = known && valid;
        params[param] = valid ? value! : "";
      }
      if (!matches) continue;
      let present = true;
      const queries = route.query || [];
      for (let q = 0; q < queries.length && present && answer === undefined; q++) {
        const key = queries[q]!.key;
        const param = queries[q]!.param;
        const kind = table.kinds[param];
        const values: string[] = [];
        for (let p = 0; p < pairs.length; p++) {
          const eq = pairs[p]!.indexOf("=");
          const value = eq < 0 ? "" : pairs[p]!.slice(eq + 1);
          if ((eq < 0 ? pairs[p] : pairs[p]!.slice(0, eq)) === key && (kind === "name" || value !== ""))
            values.push(value);
        }
        if (values.length === 0) present = false;
        else if (values.length > 1 || (kind === "name" && !name.test(values[0]!))) answer = { status: 404 };
        else if (kind === "name") params[param] = values[0]!;
        else if (kind === "search") search = decodeValue(values[0]!, true);
        else if (kind === "text") params[param] = coderKey(decodeValue(values[0]!, true));
        else {
          const value = decodeValue(values[0]!, true);
          if (name.test(value)) params[param] = value;
          else known = false;
        }
      }
      if (answer !== undefined) return answer;
      if (!present) continue;
      const fill = (template: string): string => {
        let file = template;
        for (const key in params) file = file.split(`{${key}}`).join(params[key]!);
        return file;
      };
      const fallback = route.fallback === undefined ? undefined : fill(route.fallback);
      const file = known ? fill(route.file) : fallback!;
      if (route.search && pass === 0) break;
      if (search === undefined)
        return fallback === undefined || !known
          ? { status: 200, route: route.id, file: file }
          : { status: 200, route: route.id, file: file, fallback: fallback };
      // The search's list: a filtered list, or the whole one when the rest names none (or names a package).
      const searchRoute = table.routes.filter((candidate) => candidate.search)[0]!;
      const list = route.fallback === undefined ? fill(searchRoute.file) : file;
      return { status: 200, route: searchRoute.id, file: list, fallback: fill(searchRoute.fallback!), search: search };
    }
    if (search === undefined) return { status: 404 };
  }
  return { status: 404 };
}

/**
 * Routes a GET or HEAD of a package file (the table's `files`), before matchRequest, which answers
 * every other request; undefined when the request is not one. Each segment is decoded as sent; a
 * parameter's segment is a name followed by the route's suffix, and the n-th name fills the file's
 * n-th placeholder, so two names that differ name a file that does not exist. The query is ignored
 * and no trailing slash is taken. A separate function, so that a host serving the files without
 * the router (CloudFront, by S3 keys) embeds matchRequest alone.
 */
export function matchFileRequest(table: PortableRoutes, method: string, target: string): RouteMatch | undefined {
  if (method !== "GET" && method !== "HEAD") return undefined;
  const mark = target.indexOf("?");
  const parts = (mark < 0 ? target : target.slice(0, mark)).split("/");
  const last = parts.length - 1;
  const name = new RegExp(table.name);
  for (let f = 0; f < table.files.length; f++) {
    const route = table.files[f]!;
    if (parts[0] !== "" || route.segments.length !== last) continue;
    const values: string[] = [];
    let matches = true;
    for (let s = 0; s < last && matches; s++) {
      const expected = route.segments[s]!;
      let value: string | undefined;
      try {
        value = decodeURIComponent(parts[s + 1]!);
      } catch (e) {
        value = undefined;
      }
      if (value === undefined) matches = false;
      else if (expected.charAt(0) !== "{") matches = value === expected;
      else {
        const suffix = expected.slice(expected.indexOf("}") + 1);
        const bare = value.slice(0, value.length - suffix.length);
        matches = value.length > suffix.length && value.slice(bare.length) === suffix && name.test(bare);
        values.push(bare);
      }
    }
    if (!matches) continue;
    let next = 0;
    const file = route.file.replace(/\{\w+\}/g, () => values[next++]!);
    return { status: 200, route: "file", file: file, template: route.file };
  }
  return undefined;
}
