// How a server without code (nginx, Apache) chooses among a path's query routes, the v2 form: the
// same steps, in the same order, as matchRequest. Each route in table order is tried; a parameter
// of it that is absent sends the server on to the next route, one that is repeated (or, for a
// name, not a valid one) is a 404; a route with all its parameters present answers. A server
// writes each step as one rule, in order, over the query string as sent.
import { PARAM_KINDS, type RouteQuery } from "../../routes/routeParams.js";
import type { QueryRoute, RoutePath } from "../../routes/routeTable.js";
import { filterQueryPatterns, queryPatterns, type QueryPatterns } from "../../routes/routeSyntax.js";

export type QueryDecision =
  /** The route's parameters before `bad` are present and `bad` is repeated or invalid: 404. */
  | { present: readonly RouteQuery[]; bad: RouteQuery }
  /** All the route's parameters are present, once: the route answers (a search: 404, see the targets). */
  | { present: readonly RouteQuery[]; route: QueryRoute };

/** The steps for a path's query routes, in the order a server must test them; none applies: the plain route. */
export function queryDecisions(path: RoutePath): QueryDecision[] {
  return path.queries.flatMap((route): QueryDecision[] => [
    ...route.query.map((bad, i) => ({ present: route.query.slice(0, i), bad })),
    { present: route.query, route },
  ]);
}

/** Each query key the path's routes take, once, in table order. */
export function queryKeys(path: RoutePath): RouteQuery[] {
  const keys = new Map<string, RouteQuery>();
  for (const route of path.queries)
    for (const query of route.query) if (!keys.has(query.key)) keys.set(query.key, query);
  return [...keys.values()];
}

/**
 * Regexes over the query string as sent for one query parameter, anchored like queryPatterns (put
 * `^` in front), to be tested in this order: `repeated` (404), `valid` (its one capture is the
 * value), then `present`. A name is queryPatterns(key): present but not valid is a 404. A filter
 * (label, text, search) counts only with a non-empty value: `repeated` is two such values, `valid`
 * one that `capture` takes, and `present` one that it refuses (a label that is not a name: a value
 * no package has).
 */
export function paramQueryPatterns(query: RouteQuery, capture?: string): QueryPatterns {
  return PARAM_KINDS[query.param] === "name"
    ? queryPatterns(query.key, capture)
    : filterQueryPatterns(query.key, capture);
}
