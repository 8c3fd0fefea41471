// What `shopfront import` prints: a line for the run, each skipped package or part of the source with
// why (what to fix), the fields the source has that the API has not, and the hosts to edit.
import type { ImportSummary } from "../import/writeImport.js";
import { plural } from "./formatProblems.js";

/** Text from a source as it may be printed: one line, control characters escaped. */
function printable(text: string): string {
  return text.replace(
    /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

export function formatImportSummary(summary: ImportSummary, catalogue: string): string[] {
  const archives = summary.archives.length;
  const lines = [
    `imported ${plural(summary.written.length, "package")} into ${catalogue}` +
      (archives > 0 ? ` (${plural(archives, "archive")} fetched)` : "") +
      (summary.alreadyThere.length > 0 ? `; ${summary.alreadyThere.length} already there` : "") +
      (summary.skipped.length > 0 ? `; skipped ${summary.skipped.length}` : "") +
      (summary.statsFiles.length > 0 ? `; numbers in ${summary.statsFiles.join(", ")}` : ""),
  ];
  if (summary.hostsFile !== "kept") {
    const placeholders = summary.placeholderHosts;
    lines.push(
      `hosts.json ${summary.hostsFile === "written" ? "written" : `now declares ${placeholders.join(", ")}`}` +
        (placeholders.length > 0
          ? `: edit the name, host and description of ${placeholders.join(", ")} (placeholders)`
          : ""),
    );
  }
  for (const skip of summary.skipped) {
    const what = skip.name !== undefined ? `${skip.host}/${printable(skip.name)} (${skip.source})` : skip.source;
    lines.push(`skipped ${what}:`, ...skip.reasons.map((reason) => `  ${printable(reason)}`));
  }
  if (summary.notCarriedOver.length > 0) {
    const fields = summary.notCarriedOver.map(([field, n]) => `${printable(field)} (${plural(n, "package")})`);
    lines.push(`not carried over (the API has no such field): ${fields.join(", ")}`);
  }
  for (const note of summary.notes) lines.push(`note: ${printable(note)}`);
  if (summary.failed) lines.push(`nothing was written: no package could be imported, and ${catalogue} is as it was`);
  return lines;
}
