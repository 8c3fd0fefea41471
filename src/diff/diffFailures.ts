// What fails a merge-blocking check (`diff --exit-code`, `--fail-on`): pure, over the report.
import { isError } from "../catalogue/problems.js";
import type { DiffReport } from "./diffBuilds.js";

export const FAIL_ON = ["difference", "problems", "nand", "removed", "base"] as const;
export type FailOn = (typeof FAIL_ON)[number];

/** Why the report fails each condition asked for that holds: one sentence each, none when it passes. */
export function diffFailures(report: DiffReport, failOn: readonly FailOn[]): string[] {
  const reasons: string[] = [];
  const on = new Set(failOn);
  if (on.has("difference") && !report.same) reasons.push("the two sides differ");
  if (on.has("problems")) {
    const introduced = report.problems?.introduced ?? [];
    if (introduced.length > 0)
      reasons.push(
        `${introduced.length} problem${introduced.length === 1 ? "" : "s"} introduced (${introduced.filter(isError).length} errors)`,
      );
    if (!report.problems) reasons.push("the problems could not be compared (a side does not say its problems)");
  }
  if (on.has("nand")) {
    const apps = report.hosts.flatMap((h) => [
      ...h.added.filter((a) => a.writesToNand).map((a) => `${h.host}/${a.name}`),
      ...h.updated.filter((u) => u.gainsNand).map((u) => `${h.host}/${u.name}`),
    ]);
    if (apps.length > 0) reasons.push(`writes to the NAND, newly: ${apps.join(", ")}`);
  }
  if (on.has("removed")) {
    const apps = report.hosts.flatMap((h) => h.removed.map((a) => `${h.host}/${a.name}`));
    if (apps.length > 0) reasons.push(`removed: ${apps.join(", ")}`);
  }
  if (on.has("base") && report.base?.status !== "merge-base")
    reasons.push(
      report.base?.status === "not-merge-base"
        ? "the first side is not the merge base of the second"
        : "the first side is not known to be the merge base of the second",
    );
  return reasons;
}
