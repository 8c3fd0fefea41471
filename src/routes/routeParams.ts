// The parameters a route names and how each reaches a file: the words both the route table
// (routeTable.ts) and the translator into hosts' syntax (routeSyntax.ts) are written in.
/** Every parameter a route's path, query or file names, as `{host}` in a template. */
export type Param = "host" | "name" | "category" | "coder" | "query";

/**
 * How a parameter's value, percent-decoded in a path and form-decoded in a query, reaches a file:
 * - `name`: as itself; it must pass the name rule, or the answer is 404.
 * - `label`: as itself when it passes the name rule (every category does); any other value is one
 *   no package has, and the route answers its fallback.
 * - `text`: as the lowercase hex of its bytes (coderKey in filterValue.ts), whatever it holds.
 * - `search`: names no file; code at request time filters the route's list by it.
 */
export type ParamKind = "name" | "label" | "text" | "search";

export const PARAM_KINDS: Readonly<Record<Param, ParamKind>> = {
  host: "name",
  name: "name",
  category: "label",
  coder: "text",
  query: "search",
};

/**
 * A query parameter that carries a route parameter (the v2 form). The route needs each of its
 * query parameters present exactly once; a filter's (any kind but `name`) empty value counts as absent.
 */
export interface RouteQuery {
  key: string;
  param: Param;
}
