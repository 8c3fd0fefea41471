// What `serve --watch` prints after each build: its summary, or its problems (printed apart) and
// what is served meanwhile.
import type { WatchEvent } from "../serve/watchCatalogue.js";
import { formatBuildSummary } from "./formatBuild.js";
import { seconds } from "./report.js";

/** The line after a build: to stdout when it built, to stderr when it did not. */
export function formatWatchBuild(
  event: Extract<WatchEvent, { kind: "built" | "invalid" }>,
  out: string,
): { stream: "stdout" | "stderr"; line: string } {
  if (event.kind === "built")
    return { stream: "stdout", line: formatBuildSummary(event.built, seconds(event.ms), out) };
  return {
    stream: "stderr",
    line: event.served
      ? "still serving the last good build; fix the catalogue"
      : "nothing to serve (404) until the catalogue builds",
  };
}
