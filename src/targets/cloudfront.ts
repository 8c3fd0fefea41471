// S3 + CloudFront: a CloudFront Function (cloudfront-js-2.0) on the viewer-request event. It embeds
// the reference router and the route table, so CloudFront routes exactly like the preview server:
// a route's request goes on to S3 rewritten to its file, everything else is answered at the edge.
// A file of the browse site or the OpenAPI document goes on the same way (`/` to index.html, a
// folder's URL to its index.html), and a missing one meets the same custom error response as the API.
// It cannot read objects, so two things of the route table are beyond it (see `cannot`): answering a
// filter's fallback (the empty list) when no package has the value, and a search.
//
// No viewer-response function: S3 objects carry Content-Type from their upload metadata (the deploy
// sets each object's type, the API's JSON or a site file's own), and CloudFront never runs
// viewer-response functions on origin responses of 400 or more, so it could not fix the error
// responses anyway. CORS comes from a response headers policy, which CloudFront applies to every
// response of the cache behavior.
import { renderMethodNotAllowed, renderNotFound } from "../render/renderApi.js";
import {
  FILE_ROUTE_ROOTS,
  NOT_FOUND_FILE,
  PORTABLE_ROUTES,
  PREFLIGHT_HEADERS,
  RESPONSE_HEADERS,
  type PortableRoutes,
} from "../routes/routeTable.js";
import { escapeRegex } from "../routes/routeSyntax.js";
import { VERSION } from "../util/version.js";
import { compactSource, embedRouter } from "./shared/edgeRouter.js";
import { banner, type Target, type TargetFile } from "./target.js";

/** CloudFront's quota on the size of a function's code. */
export const FUNCTION_SIZE_LIMIT = 10_240;

/**
 * The distribution's custom error responses. Without s3:ListBucket, S3 answers a missing key with
 * 403, so both 403 and 404 become the JSON 404 (404.json is an object with Content-Type
 * application/json like every other). Short caching, so a package published later shows soon.
 */
export const CUSTOM_ERROR_RESPONSES = {
  Quantity: 2,
  Items: [403, 404].map((code) => ({
    ErrorCode: code,
    ResponsePagePath: `/${NOT_FOUND_FILE}`,
    ResponseCode: "404",
    ErrorCachingMinTTL: 60,
  })),
};

const STATUS_TEXT = { 204: "No Content", 404: "Not Found", 405: "Method Not Allowed" } as const;

/** Headers in the shape of the event's response object (names in lower case), as JSON. */
function headerFields(headers: Record<string, string>): string {
  return JSON.stringify(
    Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), { value }])),
  );
}

/**
 * A response the function generates, as a JavaScript object literal in the shape of the event's
 * response object; `headers` is an expression (a shared constant), so that the code stays small.
 */
function response(status: keyof typeof STATUS_TEXT, headers: string, body?: string): string {
  const text = body === undefined ? "" : `,body:{encoding:"text",data:${JSON.stringify(body)}}`;
  return `{statusCode:${status},statusDescription:${JSON.stringify(STATUS_TEXT[status])},headers:${headers}${text}}`;
}

/**
 * The table the function routes by: without the package files' routes, and without every route
 * whose URL the handler sends on to S3 before routing (below one of FILE_ROUTE_ROOTS: today's
 * API, whose URL paths are their files' paths). S3 answers those by key, as it does the package files.
 */
export function cloudFrontTable(): PortableRoutes {
  const sentOn = (segments: readonly string[]) => segments.length > 1 && FILE_ROUTE_ROOTS.includes(segments[0]!);
  const routes = PORTABLE_ROUTES.routes.filter((route) => !sentOn(route.segments));
  return { ...PORTABLE_ROUTES, files: [], routes };
}

/**
 * The viewer-request function. Only the JavaScript that runtime 2.0 accepts (see matchRequest.ts),
 * compacted (compactSource) to stay within FUNCTION_SIZE_LIMIT.
 */
export function renderCloudFrontFunction(): string {
  return [
    banner("//", "cloudfront", VERSION),
    "// CloudFront Function, runtime cloudfront-js-2.0, for the viewer-request event of the API's cache behavior.",
    ...compactSource([
      ...embedRouter({}, cloudFrontTable()),
      // The answers the function generates; 204 and 405 share one headers object.
      `const HEADERS = ${headerFields(RESPONSE_HEADERS)};`,
      `const PREFLIGHT = ${headerFields({ ...RESPONSE_HEADERS, ...PREFLIGHT_HEADERS })};`,
      `const RESPONSES = {204: ${response(204, "PREFLIGHT")}, 404: ${response(404, "HEADERS", renderNotFound())}, 405: ${response(405, "PREFLIGHT", renderMethodNotAllowed())}};`,
      "function handler(event) {",
      "  const request = event.request;",
      // The package files (and today's API) are S3 objects at every URL they answer (the build writes a copy at each
      // alias's path): S3 serves them with their type and lifetime, a missing one is the custom 404.
      `  if (/^\\/(${FILE_ROUTE_ROOTS.map(escapeRegex).join("|")})(\\/|$)/.test(request.uri)) { request.querystring = {}; return request; }`,
      // The router takes the request-target as sent; the event keeps names and values as sent
      // (percent-encoding included) and folds a repeated parameter into multiValue.
      "  const pairs = [];",
      "  for (const name in request.querystring) {",
      "    const field = request.querystring[name];",
      "    const values = field.multiValue || [field];",
      "    for (let i = 0; i < values.length; i++) pairs.push(name + '=' + values[i].value);",
      "  }",
      "  const match = matchRequest(TABLE, request.method, pairs.length > 0 ? request.uri + '?' + pairs.join('&') : request.uri);",
      "  if (match.status !== 200) return RESPONSES[match.status];",
      // A search filters a list at request time; the function cannot read the list, and sending the
      // request on would answer the whole list as if it were the search's answer.
      "  if (match.search !== undefined) return RESPONSES[404];",
      // The cache key is computed after this function, so each file is cached once, whatever query it was asked with.
      "  request.uri = '/' + match.file;",
      "  request.querystring = {};",
      "  return request;",
      "}",
    ]),
    "",
  ].join("\n");
}

export const cloudfront: Target = {
  id: "cloudfront",
  title: "S3 + CloudFront",
  kind: "platform",
  packageFiles: "copies",
  cannot: {
    "filter-unknown":
      "a CloudFront Function cannot read S3, so it cannot tell that no package has a coder or category and answer the empty list: the missing list becomes the custom error response, a 404 (values that are never a category do answer [])",
    "v2-coder":
      "a coder sent raw so that it reads as one no package has (a raw & ends the value, a raw + is a space) answers 404, not the empty list, for the reason filter-unknown gives",
    "v2-query":
      "a search filters a list at request time, and a CloudFront Function can neither read the list nor change S3's answer: ?query= answers 404, never the unfiltered list",
  },
  config: (): TargetFile[] => [
    { path: "shopfront-viewer-request.js", content: renderCloudFrontFunction() },
    { path: "custom-error-responses.json", content: `${JSON.stringify(CUSTOM_ERROR_RESPONSES, null, 2)}\n` },
  ],
  hbb: 'yes, with the cache behavior\'s viewer protocol policy "HTTP and HTTPS" (not "Redirect HTTP to HTTPS"); CloudFront\'s own documentation, not run here',
  usage:
    "`npx shopfront build --target cloudfront` and [`npx shopfront deploy`](publishing.md#s3-and-s3-compatible-stores) to the bucket; `npx shopfront config cloudfront --out cloudfront/`, then set up the distribution as [S3 + CloudFront](#s3--cloudfront) says",
};
