// Over 350 lines: diff's report in text and Markdown, two renderings of one report that must
// change together.
// `diff`'s report for a terminal (text) and for a pull request (Markdown). Names, versions and
// descriptions come from manifests, which anyone opening a pull request writes: in text their
// control characters are shown escaped, so they cannot move the cursor or colour the terminal; in
// Markdown they are code spans or escaped text, so they cannot add markup, HTML, links or mentions.
import type { Problem } from "../catalogue/problems.js";
import type {
  AppAdded,
  ClientKind,
  FieldChange,
  FileState,
  HostDiff,
  PackageFileChange,
  ZipEntryChange,
} from "../diff/compareSnapshots.js";
import type { BaseCheck, DiffReport, SideBuild, SideInfo, UnbuiltReport } from "../diff/diffBuilds.js";
import type { WordChange } from "../diff/wordDiff.js";
import { formatBytes } from "../util/formatBytes.js";

/** The first line of the bot's comment, which the workflow finds it by (not by its author). */
export const COMMENT_MARKER = "<!-- shopfront diff -->";

export const CLIENT_LABELS: Record<ClientKind, string> = {
  "v1-v2": "v1/v2 API",
  "v4-v3": "v4/v3 API",
  "homebrew-browser": "Homebrew Browser",
  "package-files": "package files",
  site: "browse site",
  other: "other",
};

const FILE_LABELS: Record<PackageFileChange["kind"], string> = {
  archive: "zip",
  icon: "icon",
  binary: "binary",
  meta: "meta.xml",
};

const BUILD_LABELS: Record<SideBuild, string> = {
  full: "built in full",
  incremental: "rebuilt",
  unchanged: "rebuilt, unchanged",
};

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** A string's C0, C1 and DEL characters as `\u{…}`: nothing a terminal acts on. */
export function escapeControls(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\u{${c.codePointAt(0)!.toString(16)}}`);
}

const commitText = (side: SideInfo) =>
  side.commit ? `${side.commit.slice(0, 12)}${side.dirty ? " with uncommitted changes" : ""}` : "commit not recorded";

function sideWhat(side: SideInfo): string {
  if (side.kind === "revision") return `git revision ${commitText(side)}, ${BUILD_LABELS[side.build]}`;
  if (side.kind === "worktree") return `working tree at ${commitText(side)}, ${BUILD_LABELS[side.build]}`;
  if (side.kind === "url") return "deployment";
  return `built folder, ${commitText(side)}`;
}

function sideLine(which: string, side: SideInfo): string {
  const signed = side.signedBy !== undefined ? `, signature good by key ${side.signedBy}` : "";
  return `${which}: ${escapeControls(side.argument)} (${sideWhat(side)}, file index revision ${side.indexRevision}, built ${side.built}${signed})`;
}

/** The base check, in words; undefined when the first side is the merge base. */
export function baseWarning(base: BaseCheck | undefined): string | undefined {
  if (!base || base.status === "merge-base") return undefined;
  if (base.status === "unknown") return `a is not known to be the merge base of b: ${base.reason}`;
  return `a (${base.commit.slice(0, 12)}) is not the merge base of b${base.mergeBase ? ` (${base.mergeBase.slice(0, 12)})` : ""}: what differs between a and the merge base is reported here as b's change`;
}

/** Dates (Unix seconds in the API) as a day and time in UTC. */
const DATE_FIELDS = new Set(["release_date", "updated"]);

function dateText(value: unknown): unknown {
  return typeof value === "number" && Number.isFinite(value)
    ? new Date(value * 1000).toISOString().replace(/\.000Z$/, "Z")
    : value;
}

const CLIENT_SUFFIX: Record<NonNullable<FieldChange["client"]>, string> = {
  "v4-v3": " (v4/v3 API)",
  "homebrew-browser": " (Homebrew Browser)",
};

const fieldName = (change: FieldChange) => `${change.field}${change.client ? CLIENT_SUFFIX[change.client] : ""}`;

const shown = (change: FieldChange, value: unknown) => (DATE_FIELDS.has(change.field) ? dateText(value) : value);

/** Quoted values past this many characters in a problem's message are cut: a description quoted whole is long. */
const QUOTE_LIMIT = 80;

/** A problem's message with each long quoted value cut to its start and its length. */
export function shortMessage(message: string): string {
  return message.replace(/"(?:[^"\\]|\\.)*"/g, (quoted) =>
    quoted.length <= QUOTE_LIMIT ? quoted : `${quoted.slice(0, QUOTE_LIMIT - 20)}…" (${quoted.length - 2} characters)`,
  );
}

const fileState = (state: FileState | null) => (state ? `${state.size} B` : "none");

function valueText(value: unknown): string {
  return escapeControls(typeof value === "string" ? JSON.stringify(value) : JSON.stringify(value ?? null));
}

function wordsText(words: readonly WordChange[]): string {
  return words
    .map((w) => (w.kind === "same" ? w.text : w.kind === "removed" ? `[-${w.text}-]` : `{+${w.text}+}`))
    .map(escapeControls)
    .join(" ");
}

function fieldText(change: FieldChange): string {
  const field = escapeControls(fieldName(change));
  if (change.whitespaceOnly) return `${field}: only its spaces or line breaks changed`;
  return change.words
    ? `${field}: ${wordsText(change.words)}`
    : `${field}: ${valueText(shown(change, change.from))} -> ${valueText(shown(change, change.to))}`;
}

const entryState = (state: ZipEntryChange["from"]) => (state ? `${state.size} B` : "none");

function zipEntryText(change: ZipEntryChange): string {
  const what = !change.from ? "added" : !change.to ? "removed" : "changed";
  return `file in zip ${escapeControls(change.path)}: ${what}, ${entryState(change.from)} -> ${entryState(change.to)}`;
}

/** A line diff's runs as lines, each prefixed `-`, `+` or a space. */
function lineRuns(runs: readonly WordChange[]): { mark: " " | "-" | "+"; line: string }[] {
  return runs.flatMap((run) =>
    run.text.split("\n").map((line) => ({
      mark: run.kind === "same" ? (" " as const) : run.kind === "removed" ? ("-" as const) : ("+" as const),
      line,
    })),
  );
}

const NAND_WARNING = "it writes to the console's NAND (WRITES_TO_NAND): a mistake there can brick a Wii";
const sameBinaryWarning = (app: AppAdded) =>
  `its binary is byte for byte the one of ${app.sameBinaryAs.join(", ")}: a copy under another name?`;

function packageFileText(change: PackageFileChange): string {
  const state = change.to ? `, sha256 ${change.to.sha256}` : ", removed";
  return `${FILE_LABELS[change.kind]} ${escapeControls(change.path)}: ${fileState(change.from)} -> ${fileState(change.to)}${state}`;
}

const appText = (app: { name: string; version: string; displayName: string }) =>
  escapeControls(`${app.name} ${app.version} (${app.displayName})`);

function hostText(host: HostDiff): string[] {
  const lines = [`host ${host.host}${host.status === "kept" ? "" : ` (${host.status})`}:`];
  for (const app of host.added) {
    lines.push(`  added: ${appText(app)}`);
    if (app.writesToNand) lines.push(`    ! ${NAND_WARNING}`);
    if (app.sameBinaryAs.length > 0) lines.push(`    ! ${escapeControls(sameBinaryWarning(app))}`);
  }
  for (const app of host.removed) lines.push(`  removed: ${appText(app)}`);
  for (const { from, to } of host.renamed) lines.push(`  renamed: ${escapeControls(from.name)} -> ${appText(to)}`);
  for (const app of host.updated) {
    lines.push(`  updated: ${appText(app)}`);
    for (const field of app.fields) lines.push(`    ${fieldText(field)}`);
    for (const file of app.files) lines.push(`    ${packageFileText(file)}`);
    for (const entry of app.zipEntries ?? []) lines.push(`    ${zipEntryText(entry)}`);
    if (app.metaXml?.length) {
      lines.push("    meta.xml lines:");
      for (const { mark, line } of lineRuns(app.metaXml)) lines.push(`      ${mark} ${escapeControls(line)}`);
    }
    if (app.gainsNand) lines.push(`    ! ${NAND_WARNING}, which it did not before`);
    if (app.archiveChangedVersionSame)
      lines.push("    ! its zip changed and its version did not: clients that compare versions will not fetch it");
  }
  if (host.featured)
    lines.push(
      `  featured app (v4/v3 API): ${escapeControls(host.featured.from ?? "none")} -> ${escapeControls(host.featured.to ?? "none")}`,
    );
  const { entered, left, from, to } = host.hbb;
  if (entered.length + left.length > 0)
    lines.push(
      `  Homebrew Browser list: ${from} -> ${to} apps${entered.length ? `; enter: ${escapeControls(entered.join(", "))}` : ""}${left.length ? `; leave: ${escapeControls(left.join(", "))}` : ""}`,
    );
  return lines;
}

const problemText = (p: Problem) =>
  escapeControls(`${p.file}${p.pointer ? ` ${p.pointer}` : ""}: ${shortMessage(p.message)} (${p.severity})`);

/** A revision that does not build, for a terminal: its problems as `validate` lists them. */
export function formatUnbuiltText(report: UnbuiltReport): string[] {
  const { side, argument, commit, problems } = report.unbuilt;
  const errors = problems.filter((p) => p.severity === "error").length;
  return [
    `${side}: ${escapeControls(argument)}${commit ? ` (${commit.slice(0, 12)})` : ""} does not build: ${plural(errors, "error")}`,
    ...problems.map((p) => `  ${problemText(p)}`),
  ];
}

/** The report for a terminal. */
export function formatDiffText(report: DiffReport): string[] {
  const lines = [sideLine("a", report.a), sideLine("b", report.b)];
  const warning = baseWarning(report.base);
  if (warning) lines.push(`! ${warning}`);
  if (report.same) {
    lines.push(`no difference: the same ${plural(report.files.unchanged, "served file")}, byte for byte`);
  } else {
    for (const host of report.hosts) lines.push(...hostText(host));
    lines.push("clients (files added, removed, changed):");
    for (const c of report.clients)
      if (c.added + c.removed + c.changed > 0)
        lines.push(`  ${CLIENT_LABELS[c.kind]}: ${c.added} added, ${c.removed} removed, ${c.changed} changed`);
  }
  if (report.problems) {
    const { introduced, fixed } = report.problems;
    lines.push(`problems: ${introduced.length} introduced, ${fixed.length} fixed`);
    for (const p of introduced) lines.push(`  + ${problemText(p)}`);
    for (const p of fixed) lines.push(`  - ${problemText(p)}`);
  } else
    lines.push(
      "problems: not compared (a deployment, or a folder without its build's state beside it, does not say its problems)",
    );
  const { deploy } = report;
  lines.push(
    `deploy: ${plural(deploy.files, "file")} to send (${formatBytes(deploy.bytes)}), ${plural(deploy.deleted, "file")} to delete`,
  );
  return lines;
}

/** A code span holding `text` as it is: no markup, HTML, link or mention inside it works. */
export function markdownCode(text: string): string {
  const flat = text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, " ");
  if (flat.trim() === "") return "*(empty)*";
  const longest = Math.max(0, ...[...flat.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = "`".repeat(longest + 1);
  // A space either side keeps a backtick at an end from joining the fence; it is stripped again.
  const pad = flat.startsWith("`") || flat.endsWith("`") ? " " : "";
  return `${fence}${pad}${flat}${pad}${fence}`;
}

/**
 * Text as Markdown that renders as the text itself: every ASCII punctuation mark escaped, line
 * breaks made spaces, and `@` and `#` kept from making a mention or an issue link.
 */
export function markdownText(text: string): string {
  return text
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, " ")
    .replace(/[!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~]/g, (c) => `\\${c}${c === "@" || c === "#" ? "\u200b" : ""}`);
}

function wordsMarkdown(words: readonly WordChange[]): string {
  return words
    .map((w) =>
      w.kind === "same"
        ? markdownText(w.text)
        : w.kind === "removed"
          ? `~~${markdownText(w.text)}~~`
          : `**${markdownText(w.text)}**`,
    )
    .join(" ");
}

const valueMarkdown = (value: unknown) =>
  markdownCode(typeof value === "string" ? value : JSON.stringify(value ?? null));

function fieldMarkdown(change: FieldChange): string {
  const field = markdownText(fieldName(change));
  if (change.whitespaceOnly) return `${field}: only its spaces or line breaks changed`;
  return change.words
    ? `${field}: ${wordsMarkdown(change.words)}`
    : `${field}: ${valueMarkdown(shown(change, change.from))} → ${valueMarkdown(shown(change, change.to))}`;
}

function zipEntryMarkdown(change: ZipEntryChange): string {
  const what = !change.from ? "added" : !change.to ? "removed" : "changed";
  const size = (state: ZipEntryChange["from"]) => (state ? formatBytes(state.size) : "none");
  return `file in zip ${markdownCode(change.path)}: ${what}, ${size(change.from)} → ${size(change.to)}`;
}

const sizeMarkdown = (state: FileState | null) => (state ? formatBytes(state.size) : "none");

function packageFileMarkdown(change: PackageFileChange): string {
  const digest = change.to ? `, SHA-256 \`${change.to.sha256}\`` : ", removed";
  return `${FILE_LABELS[change.kind]} ${markdownCode(change.path)}: ${sizeMarkdown(change.from)} → ${sizeMarkdown(change.to)}${digest}`;
}

const appMarkdown = (app: { name: string; version: string; displayName: string }) =>
  `${markdownCode(app.name)} ${markdownCode(app.version)} (${markdownText(app.displayName)})`;

function hostMarkdown(host: HostDiff): string[] {
  const lines = ["", `#### Host ${markdownCode(host.host)}${host.status === "kept" ? "" : ` (${host.status})`}`, ""];
  for (const app of host.added) {
    lines.push(`- **Added** ${appMarkdown(app)}`);
    if (app.writesToNand) lines.push(`  - ⚠️ **${markdownText(NAND_WARNING)}**`);
    if (app.sameBinaryAs.length > 0)
      lines.push(
        `  - ⚠️ **its binary is byte for byte the one of** ${app.sameBinaryAs.map(markdownCode).join(", ")}: a copy under another name?`,
      );
  }
  for (const app of host.removed) lines.push(`- **Removed** ${appMarkdown(app)}`);
  for (const { from, to } of host.renamed) lines.push(`- **Renamed** ${markdownCode(from.name)} → ${appMarkdown(to)}`);
  for (const app of host.updated) {
    lines.push(`- **Updated** ${appMarkdown(app)}`);
    for (const field of app.fields) lines.push(`  - ${fieldMarkdown(field)}`);
    for (const file of app.files) lines.push(`  - ${packageFileMarkdown(file)}`);
    for (const entry of app.zipEntries ?? []) lines.push(`  - ${zipEntryMarkdown(entry)}`);
    const meta = app.metaXml ?? [];
    if (meta.length > 0) {
      // A code block whose fence no line of the file can close.
      const runs = lineRuns(meta).map(
        ({ mark, line }) => `${mark} ${line.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, " ")}`,
      );
      const fence = "`".repeat(
        Math.max(3, ...runs.map((l) => Math.max(0, ...[...l.matchAll(/`+/g)].map((m) => m[0].length + 1)))),
      );
      lines.push("  - meta.xml:", "", `    ${fence}diff`, ...runs.map((l) => `    ${l}`), `    ${fence}`, "");
    }
    if (app.gainsNand) lines.push(`  - ⚠️ **${markdownText(NAND_WARNING)}**, which it did not before`);
    if (app.archiveChangedVersionSame)
      lines.push("  - ⚠️ **its zip changed and its version did not**: clients that compare versions will not fetch it");
  }
  if (host.featured)
    lines.push(
      `- Featured app (v4/v3 API): ${host.featured.from ? markdownCode(host.featured.from) : "none"} → ${host.featured.to ? markdownCode(host.featured.to) : "none"}`,
    );
  const { entered, left, from, to } = host.hbb;
  if (entered.length + left.length > 0) {
    const names = (list: readonly string[]) => list.map(markdownCode).join(", ");
    lines.push(
      `- Homebrew Browser list: ${from} → ${to} apps${entered.length ? `; enter: ${names(entered)}` : ""}${left.length ? `; leave: ${names(left)}` : ""}`,
    );
  }
  return lines;
}

const problemMarkdown = (p: Problem) =>
  `${markdownCode(`${p.file}${p.pointer ? ` ${p.pointer}` : ""}`)} (${p.severity}, ${p.code}): ${markdownText(shortMessage(p.message))}`;

function sideMarkdown(side: SideInfo): string {
  const commit = side.commit
    ? `${side.commit.slice(0, 12)}${side.dirty ? " with uncommitted changes" : ""}`
    : undefined;
  if (side.kind === "revision" || side.kind === "worktree")
    return `${markdownCode(side.argument)} (${side.kind === "worktree" ? "working tree at " : ""}${commit ?? "no commit"}, ${BUILD_LABELS[side.build]})`;
  const signed = side.signedBy !== undefined ? `signature good by key ${side.signedBy}` : undefined;
  const notes = [...(side.kind === "folder" ? [commit ?? "commit not recorded"] : []), ...(signed ? [signed] : [])];
  return `${markdownCode(side.argument)}${notes.length > 0 ? ` (${notes.join(", ")})` : ""}`;
}

/** A revision that does not build, for a pull request: why, as `validate` gives its problems. */
export function formatUnbuiltMarkdown(report: UnbuiltReport, limit = MARKDOWN_LIMIT): string {
  const { side, argument, commit, problems } = report.unbuilt;
  const errors = problems.filter((p) => p.severity === "error").length;
  const top = [
    COMMENT_MARKER,
    `### ❌ ${markdownCode(argument)}${commit ? ` (${commit.slice(0, 12)})` : ""} does not build`,
    "",
    `The ${side === "b" ? "change" : "base"} has ${plural(errors, "error")}; nothing can be published until they are fixed (\`npx shopfront validate\` lists them):`,
    "",
  ];
  const lines = problems.map((p) => `- ${problemMarkdown(p)}`);
  let room = limit - top.join("\n").length - 200;
  let kept = 0;
  while (kept < lines.length && room >= lines[kept]!.length + 1) room -= lines[kept++]!.length + 1;
  const cut = kept < lines.length ? ["", `*${plural(lines.length - kept, "more problem")} left out.*`] : [];
  return `${[...top, ...lines.slice(0, kept), ...cut].join("\n")}\n`;
}

/**
 * Characters of Markdown at most: GitHub takes a comment of 65,536 and a step's summary of 1 MiB. Past
 * it, the apps' and problems' lines are cut, and a last line says how many were left out.
 */
export const MARKDOWN_LIMIT = 60_000;

/** The report for a pull request (a job summary or a comment), at most `limit` characters long. */
export function formatDiffMarkdown(report: DiffReport, limit = MARKDOWN_LIMIT): string {
  const top = [
    COMMENT_MARKER,
    `### What clients would receive: ${sideMarkdown(report.a)} → ${sideMarkdown(report.b)}`,
    "",
  ];
  const warning = baseWarning(report.base);
  if (warning) top.push(`> [!WARNING]`, `> ${markdownText(warning)}`, "");
  // The lines that may be cut, in order: each host's apps, then each problem.
  const details: string[] = [];
  if (report.same) top.push(`No difference: the same ${plural(report.files.unchanged, "served file")}, byte for byte.`);
  else {
    top.push("| Clients | Files added | removed | changed |", "| --- | ---: | ---: | ---: |");
    for (const c of report.clients)
      if (c.added + c.removed + c.changed > 0)
        top.push(`| ${CLIENT_LABELS[c.kind]} | ${c.added} | ${c.removed} | ${c.changed} |`);
    for (const host of report.hosts) details.push(...hostMarkdown(host));
  }
  const { deploy } = report;
  const bottom = [
    "",
    `**Deploy**: ${plural(deploy.files, "file")} to send (${formatBytes(deploy.bytes)}), ${plural(deploy.deleted, "file")} to delete.`,
  ];
  top.push("");
  if (report.problems) {
    const { introduced, fixed } = report.problems;
    top.push(`**Problems**: ${introduced.length} introduced, ${fixed.length} fixed`);
    if (introduced.length + fixed.length > 0) details.push("", "#### Problems", "");
    for (const p of introduced) details.push(`- introduced: ${problemMarkdown(p)}`);
    for (const p of fixed) details.push(`- fixed: ${problemMarkdown(p)}`);
  } else
    top.push(
      "**Problems**: not compared (a deployment, or a folder without its build's state beside it, does not say its problems)",
    );
  const size = (lines: readonly string[]) => lines.reduce((n, line) => n + line.length + 1, 0);
  // Room for the line that says what was cut.
  let room = limit - size(top) - size(bottom) - 200;
  let kept = 0;
  while (kept < details.length && room >= details[kept]!.length + 1) room -= details[kept++]!.length + 1;
  const cut =
    kept < details.length
      ? [
          "",
          `*${plural(details.length - kept, "more line")} left out: \`npx shopfront diff\` of the same two sides prints them all.*`,
        ]
      : [];
  return `${[...top, ...details.slice(0, kept), ...cut, ...bottom].join("\n")}\n`;
}
