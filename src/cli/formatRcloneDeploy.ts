// What `shopfront deploy rclone:...` prints, as lines: the plan (for --dry-run) and the summary.
import { formatBytes } from "../util/formatBytes.js";
import { plural } from "./formatProblems.js";
import { PHASES } from "../routes/publishOrder.js";
import { UPLOAD_REASONS } from "../deploy/planDeploy.js";
import type { RcloneDeployResult } from "../deploy/deployToRclone.js";
import { formatRcloneUrl } from "../deploy/rcloneLocation.js";

/** Every action of the plan in the order it runs, one line each. */
export function formatRclonePlan(result: RcloneDeployResult): string[] {
  const lines: string[] = [];
  let phase: number | undefined;
  for (const batch of result.plan.batches) {
    if (batch.phase !== phase) lines.push(`${PHASES[batch.phase]}:`);
    phase = batch.phase;
    for (const u of batch.files) lines.push(`  upload ${u.path} (${UPLOAD_REASONS[u.reason]})`);
  }
  if (result.plan.deletions.length > 0) {
    lines.push("deletions, last:");
    for (const path of result.plan.deletions) lines.push(`  delete ${path}`);
  }
  return lines;
}

/** The closing lines: what was (or, in a dry run, would be) done. */
export function formatRcloneSummary(result: RcloneDeployResult, dir: string, seconds: string): string[] {
  const { plan } = result;
  const where = formatRcloneUrl(result.location);
  const uploads = plan.batches.flatMap((b) => b.files);
  const lines: string[] = [];
  if (result.dryRun) {
    const bytes = uploads.reduce((n, u) => n + u.size, 0);
    lines.push(
      `dry run of ${dir} to ${where}: would upload ${uploads.length} (${formatBytes(bytes)}), leave ${plan.unchanged.length} unchanged, delete ${plan.deletions.length}; nothing was changed`,
    );
  } else {
    lines.push(
      `deployed ${dir} to ${where}: ${result.uploaded} uploaded (${formatBytes(result.bytes)}), ${plan.unchanged.length} unchanged, ${result.deleted} deleted in ${seconds}`,
    );
  }
  if (plan.kept.length > 0)
    lines.push(
      `kept ${plural(plan.kept.length, "file")} under ${where} that the build does not have (--delete removes them)`,
    );
  return lines;
}
