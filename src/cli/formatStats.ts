// How a `shopfront stats count` run reads in a terminal: a line for the run, one per log, then what
// was skipped and why, and the first bad lines.
import { SKIP_REASONS, type SkipReason } from "../stats/countDownloads.js";
import type { CountSummary, LogOutcome } from "../stats/countLogs.js";
import { plural } from "./formatProblems.js";

function formatLog(log: LogOutcome): string {
  const what = `${log.format ?? "unknown format"}, ${plural(log.lines, "line")}, ${plural(log.downloads, "download")}`;
  const state =
    log.state === "failed"
      ? `failed, nothing of it counted: ${log.error}`
      : log.state === "already counted"
        ? "already counted, skipped"
        : log.state === "grown"
          ? `grown since it was counted, the rest counted (${what})`
          : `counted (${what})`;
  return `  ${log.path}: ${state}`;
}

/** The lines of the summary; logs are named as they were given, the stats file as `statsPath`. */
export function formatCountSummary(summary: CountSummary, statsPath: string): string[] {
  const states = (state: LogOutcome["state"]) => summary.logs.filter((l) => l.state === state).length;
  const counted = states("counted") + states("grown");
  const head = [
    `${plural(counted, "log")} counted`,
    states("grown") > 0 ? `(${states("grown")} grown since last counted)` : "",
    states("already counted") > 0 ? `${states("already counted")} already counted` : "",
    states("failed") > 0 ? `${states("failed")} failed` : "",
  ].filter(Boolean);
  const lines = [
    `${head.join(", ").replace(", (", " (")}: ${plural(summary.lines, "line")} read, ${plural(summary.downloads, "download")} of ${plural(summary.packages, "package")} ${summary.written ? `added to ${statsPath}` : `(${statsPath} unchanged)`}`,
    ...summary.logs.map(formatLog),
  ];
  const skipped = (Object.keys(SKIP_REASONS) as SkipReason[])
    .filter((reason) => summary.skipped[reason] > 0)
    .map((reason) => `${summary.skipped[reason]} ${SKIP_REASONS[reason]}`);
  if (skipped.length > 0) lines.push(`skipped: ${skipped.join(", ")}`);
  if (summary.unknownNames.top.length > 0) {
    const top = summary.unknownNames.top.map(([name, n]) => `${name} (${n})`).join(", ");
    const more = summary.unknownNames.distinct - summary.unknownNames.top.length;
    lines.push(`unknown packages, not counted: ${top}${more > 0 ? ` and ${more} more` : ""}`);
  }
  if (summary.bad > 0) {
    lines.push(
      `${plural(summary.bad, "bad line")}, not counted${summary.bad > summary.badExamples.length ? "; the first:" : ":"}`,
    );
    for (const bad of summary.badExamples) lines.push(`  ${bad.file}:${bad.line}: ${bad.reason}`);
  }
  if (summary.capped.length > 0)
    lines.push(`downloads stopped at the maximum, 2147483647: ${summary.capped.join(", ")}`);
  return lines;
}
