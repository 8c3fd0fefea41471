// What `shopfront deploy` prints, as lines: the plan (for --dry-run), the summary, and the
// CloudFront steps that put the bucket behind the routing function. The CLI prints them.
import { formatBytes } from "../util/formatBytes.js";
import { plural } from "./formatProblems.js";
import { NOT_FOUND_FILE, RESPONSE_HEADERS } from "../routes/routeTable.js";
import type { DeployResult } from "../deploy/deployToS3.js";
import { PHASES } from "../routes/publishOrder.js";
import { UPLOAD_REASONS } from "../deploy/planDeploy.js";
import { formatS3Url, type S3Location } from "../deploy/s3Location.js";

/** Every action of the plan in the order it runs, one line each. */
export function formatPlan(result: DeployResult): string[] {
  const { plan } = result;
  const lines: string[] = [];
  plan.phases.forEach((phase, i) => {
    if (phase.length === 0) return;
    lines.push(`${PHASES[i]}:`);
    for (const u of phase) {
      const how = u.copyFrom === undefined ? "" : `, copied from ${u.copyFrom}, which holds its bytes`;
      lines.push(`  upload ${u.key} (${UPLOAD_REASONS[u.reason]}${how})`);
    }
  });
  if (plan.deletions.length > 0) {
    lines.push("deletions, last:");
    for (const key of plan.deletions) lines.push(`  delete ${key}`);
  }
  return lines;
}

/** The closing lines: what was (or, in a dry run, would be) done. */
export function formatSummary(result: DeployResult, dir: string, seconds: string): string[] {
  const { plan } = result;
  const where = formatS3Url(result.location);
  const uploads = plan.phases.flat();
  const lines: string[] = [];
  if (result.dryRun) {
    const bytes = uploads.reduce((n, u) => n + (u.inPlace || u.copyFrom !== undefined ? 0 : u.size), 0);
    lines.push(
      `dry run of ${dir} to ${where}: would upload ${uploads.length} (${formatBytes(bytes)}), leave ${plan.unchanged.length} unchanged, delete ${plan.deletions.length}; nothing was changed`,
    );
  } else {
    const retried = result.retries > 0 ? `, ${plural(result.retries, "request")} retried` : "";
    const copied = result.copied > 0 ? `, ${result.copied} of them copied by the store` : "";
    lines.push(
      `deployed ${dir} to ${where}: ${result.uploaded} uploaded (${formatBytes(result.bytes)}${copied}), ${plan.unchanged.length} unchanged, ${result.deleted} deleted in ${seconds}${retried}`,
    );
  }
  if (plan.skipped.length > 0)
    lines.push(`skipped ${plural(plan.skipped.length, "file")} that only other hosts read: ${plan.skipped.join(", ")}`);
  if (plan.kept.length > 0)
    lines.push(
      `kept ${plural(plan.kept.length, "object")} under ${where} that the build does not have (--delete removes them)`,
    );
  return lines;
}

/**
 * Whether to print the CloudFront steps: when asked, and after the first deploy to a bucket (or
 * prefix) on AWS, where they are next; never after a dry run, nor for another store (an --endpoint)
 * unless asked.
 */
export function showCloudFrontSetup(result: DeployResult, options: { endpoint?: string; cloudfrontHelp?: boolean }) {
  if (options.cloudfrontHelp) return true;
  return !result.dryRun && result.first && options.endpoint === undefined;
}

/** How to serve the bucket through CloudFront: the origin, the routing function, the error mapping, the headers. */
export function cloudFrontSetup(location: S3Location): string[] {
  const originPath = location.prefix === "" ? "no origin path" : `origin path /${location.prefix}`;
  // The objects carry the Content-Type; the other response headers come from CloudFront.
  const headers = Object.entries(RESPONSE_HEADERS)
    .filter(([name]) => name !== "Content-Type")
    .map(([name, value]) => `${name}: ${value}`);
  return [
    `To serve it through CloudFront (once per distribution; docs/hosting.md, "S3 + CloudFront", says why):`,
    `  1. Origin: the bucket ${location.bucket}, ${originPath}, with origin access control (the bucket stays private).`,
    `  2. Routing: \`shopfront config cloudfront --out cloudfront/\` writes the CloudFront Function: create it (runtime`,
    `     cloudfront-js-2.0), publish it, and associate it with the default cache behavior as event type viewer-request.`,
    `  3. Cache behavior: allowed methods GET, HEAD, OPTIONS, PUT, POST, PATCH, DELETE (the function answers all but`,
    `     GET and HEAD itself), and the managed cache policy CachingOptimized (the function folds the query into the path).`,
    `  4. Errors: custom error responses for 403 and 404, each with response page path /${NOT_FOUND_FILE} and response code 404`,
    `     (cloudfront/custom-error-responses.json); S3 answers 403 for a missing key when CloudFront may not list it.`,
    `  5. Headers: a response headers policy with ${headers.join(" and ")}`,
    `     (the managed CORS-and-SecurityHeadersPolicy).`,
  ];
}
