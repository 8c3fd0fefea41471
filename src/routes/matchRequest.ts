// The reference router: which file answers a request, or which error. The preview server calls it,
// and the CloudFront function and the Cloudflare worker embed its source verbatim, so it is written
// in the JavaScript that CloudFront Functions (runtime 2.0) accept: ES 5.1 with const, let, arrow
// functions and template literals; no for-of, spread, destructuring, shorthand properties, classes,
// `?.` or `??`, and nothing from outside the function. test/cloudfront.test.ts checks that.
import type { PortableRoutes, RouteId } from "./routeTable.js";

export type RouteMatch =
  { status: 200; route: RouteId; file: string } | { status: 204 } | { status: 404 } | { status: 405 };

/**
 * Routes one request. `target` is the request-target as sent: the path, percent-encoded, and the
 * query. Path segments are percent-decoded before they are matched; query values are matched as
 * sent (names never need encoding). Every parameter must match the name pattern, so no file outside
 * the API can ever be named. One trailing slash is accepted on every route. A query route needs its
 * parameter exactly once: absent, the next route is tried; repeated or invalid, the answer is 404.
 */
export function matchRequest(table: PortableRoutes, method: string, target: string): RouteMatch {
  if (method === "OPTIONS") return { status: 204 };
  if (method !== "GET" && method !== "HEAD") return { status: 405 };
  const mark = target.indexOf("?");
  let path = mark < 0 ? target : target.slice(0, mark);
  const query = mark < 0 ? "" : target.slice(mark + 1);
  if (path.length > 1 && path.charAt(path.length - 1) === "/") path = path.slice(0, -1);
  const raw = path.split("/");
  if (raw[0] !== "") return { status: 404 };
  const segments: string[] = [];
  for (let i = 1; i < raw.length; i++) {
    try {
      segments.push(decodeURIComponent(raw[i]!));
    } catch (e) {
      return { status: 404 };
    }
  }
  const name = new RegExp(table.name);
  for (let r = 0; r < table.routes.length; r++) {
    const route = table.routes[r]!;
    if (route.segments.length !== segments.length) continue;
    const params: Record<string, string> = {};
    let matches = true;
    for (let s = 0; s < segments.length && matches; s++) {
      const expected = route.segments[s]!;
      const actual = segments[s]!;
      if (expected.charAt(0) === "{") {
        matches = name.test(actual);
        params[expected.slice(1, -1)] = actual;
      } else {
        matches = expected === actual;
      }
    }
    if (!matches) continue;
    if (route.query) {
      const values: string[] = [];
      const pairs = query === "" ? [] : query.split("&");
      for (let p = 0; p < pairs.length; p++) {
        const eq = pairs[p]!.indexOf("=");
        const key = eq < 0 ? pairs[p] : pairs[p]!.slice(0, eq);
        if (key === route.query.key) values.push(eq < 0 ? "" : pairs[p]!.slice(eq + 1));
      }
      if (values.length === 0) continue;
      if (values.length > 1 || !name.test(values[0]!)) return { status: 404 };
      params[route.query.param] = values[0]!;
    }
    let file = route.file;
    for (const key in params) file = file.split(`{${key}}`).join(params[key]!);
    return { status: 200, route: route.id, file: file };
  }
  return { status: 404 };
}
