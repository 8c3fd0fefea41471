// The package files of a real build, for the hosts that cannot rewrite (S3 + CloudFront, GitHub
// Pages, Netlify): until the build writes the copies at the aliases' paths for them (issue 29), the
// tests copy each stored file of the build to its aliases (aliasFilesOf), and expect the same bytes
// there.
import { copyFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import type { ExpectedApi } from "../../src/check/conformance.js";
import { aliasFilesOf } from "../../src/routes/routeTable.js";
import { readTree } from "./helpers.js";

/** Copies each stored package file of a built tree (`root`, the `dist` link or a slot) to its aliases' paths. */
export function writeAliasCopies(root: string): void {
  for (const path of readTree(root).keys()) {
    for (const alias of aliasFilesOf(path)) {
      mkdirSync(dirname(join(root, alias)), { recursive: true });
      copyFileSync(join(root, path), join(root, alias));
    }
  }
}

/** What the conformance suite expects of a host that serves the copies: each stored file's bytes at its aliases' paths too. */
export function withAliasCopies(api: ExpectedApi): ExpectedApi {
  const files = new Map(api.files);
  for (const [path, bytes] of api.files) for (const alias of aliasFilesOf(path)) files.set(alias, bytes);
  return { files, packages: api.packages };
}
