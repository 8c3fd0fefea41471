// What the hosts that cannot rewrite (S3 + CloudFront, GitHub Pages, Netlify) serve of the package
// files: the build for such a target writes each stored file again at its aliases' paths
// (aliasFilesOf), so the conformance suite expects the same bytes there too.
import type { ExpectedApi } from "../../src/check/conformance.js";
import { aliasFilesOf } from "../../src/routes/routeTable.js";

/** What the conformance suite expects of a host that serves the copies: each stored file's bytes at its aliases' paths too. */
export function withAliasCopies(api: ExpectedApi): ExpectedApi {
  const files = new Map(api.files);
  for (const [path, bytes] of api.files) for (const alias of aliasFilesOf(path)) files.set(alias, bytes);
  return { files, packages: api.packages };
}
