// The route table and the reference router as source text, for the code that routes at the edge
// (the CloudFront function, the Cloudflare worker) exactly like the preview server.
import { matchRequest } from "../../routes/matchRequest.js";
import { PORTABLE_ROUTES } from "../../routes/routeTable.js";

/**
 * Declarations of TABLE (the route table), then of each of `constants` as JSON, then the function
 * matchRequest, which the caller's handler calls as `matchRequest(TABLE, method, target)`.
 */
export function embedRouter(constants: Record<string, unknown>): string[] {
  return [
    `const TABLE = ${JSON.stringify(PORTABLE_ROUTES)};`,
    ...Object.entries(constants).map(([name, value]) => `const ${name} = ${JSON.stringify(value)};`),
    "",
    String(matchRequest),
  ];
}
