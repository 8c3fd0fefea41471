// The `_headers` file that Netlify and Cloudflare Pages both read from the deploy root (one syntax):
// the API's headers on every path, so no extensionless file keeps a guessed type.
import { RESPONSE_HEADERS } from "../../routes/routeTable.js";

export function renderHeadersFile(): string {
  return ["/*", ...Object.entries(RESPONSE_HEADERS).map(([name, value]) => `  ${name}: ${value}`), ""].join("\n");
}
