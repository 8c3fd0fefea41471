// `diff`'s report for a terminal (text) and for a pull request (Markdown). Names, versions and
// descriptions come from manifests, which anyone opening a pull request writes: in text their
// control characters are shown escaped, so they cannot move the cursor or colour the terminal; in
// Markdown they are code spans or escaped text, so they cannot add markup, HTML, links or mentions.
import type { Problem } from "../catalogue/problems.js";
import type { ClientKind, FieldChange, FileState, HostDiff, PackageFileChange } from "../diff/compareSnapshots.js";
import type { DiffReport, SideInfo } from "../diff/diffBuilds.js";
import type { WordChange } from "../diff/wordDiff.js";
import { formatBytes } from "../util/formatBytes.js";

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

const BUILD_LABELS: Record<Extract<SideInfo, { kind: "revision" }>["build"], string> = {
  full: "built in full",
  incremental: "rebuilt",
  unchanged: "rebuilt, unchanged",
};

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** A string's C0, C1 and DEL characters as `\u{…}`: nothing a terminal acts on. */
export function escapeControls(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\u{${c.codePointAt(0)!.toString(16)}}`);
}

function sideLine(which: string, side: SideInfo): string {
  const what =
    side.kind === "revision"
      ? `git revision ${side.commit.slice(0, 12)}, ${BUILD_LABELS[side.build]}`
      : side.kind === "url"
        ? "deployment"
        : "built folder";
  const signed = side.signedBy !== undefined ? `, signature good by key ${side.signedBy}` : "";
  return `${which}: ${escapeControls(side.argument)} (${what}, file index revision ${side.indexRevision}, built ${side.built}${signed})`;
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
  const field = escapeControls(change.field);
  return change.words
    ? `${field}: ${wordsText(change.words)}`
    : `${field}: ${valueText(change.from)} -> ${valueText(change.to)}`;
}

function packageFileText(change: PackageFileChange): string {
  const state = change.to ? `, sha256 ${change.to.sha256}` : ", removed";
  return `${FILE_LABELS[change.kind]} ${escapeControls(change.path)}: ${fileState(change.from)} -> ${fileState(change.to)}${state}`;
}

const appText = (app: { name: string; version: string; displayName: string }) =>
  escapeControls(`${app.name} ${app.version} (${app.displayName})`);

function hostText(host: HostDiff): string[] {
  const lines = [`host ${host.host}${host.status === "kept" ? "" : ` (${host.status})`}:`];
  for (const app of host.added) lines.push(`  added: ${appText(app)}`);
  for (const app of host.removed) lines.push(`  removed: ${appText(app)}`);
  for (const { from, to } of host.renamed) lines.push(`  renamed: ${escapeControls(from.name)} -> ${appText(to)}`);
  for (const app of host.updated) {
    lines.push(`  updated: ${appText(app)}`);
    for (const field of app.fields) lines.push(`    ${fieldText(field)}`);
    for (const file of app.files) lines.push(`    ${packageFileText(file)}`);
    if (app.archiveChangedVersionSame)
      lines.push("    ! its zip changed and its version did not: clients that compare versions will not fetch it");
  }
  const { entered, left, from, to } = host.hbb;
  if (entered.length + left.length > 0)
    lines.push(
      `  Homebrew Browser list: ${from} -> ${to} apps${entered.length ? `; enter: ${escapeControls(entered.join(", "))}` : ""}${left.length ? `; leave: ${escapeControls(left.join(", "))}` : ""}`,
    );
  return lines;
}

const problemText = (p: Problem) =>
  escapeControls(`${p.file}${p.pointer ? ` ${p.pointer}` : ""}: ${p.message} (${p.severity})`);

/** The report for a terminal. */
export function formatDiffText(report: DiffReport): string[] {
  const lines = [sideLine("a", report.a), sideLine("b", report.b)];
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
  const field = markdownText(change.field);
  return change.words
    ? `${field}: ${wordsMarkdown(change.words)}`
    : `${field}: ${valueMarkdown(change.from)} → ${valueMarkdown(change.to)}`;
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
  for (const app of host.added) lines.push(`- **Added** ${appMarkdown(app)}`);
  for (const app of host.removed) lines.push(`- **Removed** ${appMarkdown(app)}`);
  for (const { from, to } of host.renamed) lines.push(`- **Renamed** ${markdownCode(from.name)} → ${appMarkdown(to)}`);
  for (const app of host.updated) {
    lines.push(`- **Updated** ${appMarkdown(app)}`);
    for (const field of app.fields) lines.push(`  - ${fieldMarkdown(field)}`);
    for (const file of app.files) lines.push(`  - ${packageFileMarkdown(file)}`);
    if (app.archiveChangedVersionSame)
      lines.push("  - ⚠️ **its zip changed and its version did not**: clients that compare versions will not fetch it");
  }
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
  `${markdownCode(`${p.file}${p.pointer ? ` ${p.pointer}` : ""}`)} (${p.severity}, ${p.code}): ${markdownText(p.message)}`;

const sideMarkdown = (side: SideInfo) =>
  side.kind === "revision"
    ? `${markdownCode(side.argument)} (${side.commit.slice(0, 12)}, ${BUILD_LABELS[side.build]})`
    : `${markdownCode(side.argument)}${side.signedBy !== undefined ? ` (signature good by key ${side.signedBy})` : ""}`;

/**
 * Characters of Markdown at most: GitHub takes a comment of 65,536 and a step's summary of 1 MiB. Past
 * it, the apps' and problems' lines are cut, and a last line says how many were left out.
 */
export const MARKDOWN_LIMIT = 60_000;

/** The report for a pull request (a job summary or a comment), at most `limit` characters long. */
export function formatDiffMarkdown(report: DiffReport, limit = MARKDOWN_LIMIT): string {
  const top = [`### What clients would receive: ${sideMarkdown(report.a)} → ${sideMarkdown(report.b)}`, ""];
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
