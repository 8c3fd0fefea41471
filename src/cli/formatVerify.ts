// What `shopfront verify` and `shopfront key new` print.
import type { CreatedKeyPair } from "../trust/createKeyPair.js";
import type { FileProblem, MirrorReport, VerifyReport } from "../trust/verifyDeployment.js";
import { plural } from "./formatProblems.js";

function formatFileProblem(problem: FileProblem): string {
  return `${problem.problem.padEnd(11)} ${problem.path}: ${problem.detail}`;
}

function formatMirror(mirror: MirrorReport): string[] {
  const revision = mirror.revision !== undefined ? ` (revision ${mirror.revision})` : "";
  const head = `mirror ${mirror.url}: ${mirror.status}${revision}${mirror.detail ? `: ${mirror.detail}` : ""}`;
  return [head, ...(mirror.files ?? []).map((f) => `  ${formatFileProblem(f)}`)];
}

export function formatVerifyReport(report: VerifyReport): string[] {
  const lines: string[] = [];
  const { signature } = report;
  if (signature.kind === "verified")
    lines.push(
      signature.key === "given"
        ? `signature: good, by key ${signature.keyId}`
        : `signature: good, by the served key ${signature.keyId}; this proves only that the index is consistent with that key, not who made it (pass --key with the key you trust)`,
    );
  else if (signature.kind === "unsigned")
    lines.push("signature: none: the index is unsigned, so nothing proves who made it");
  else lines.push(`signature: BAD: ${signature.reason}`);
  if (report.revision !== undefined) {
    const expires = report.expires !== undefined ? `, expires ${report.expires}` : "";
    // A stopped check read no shard: it knows no count of files.
    const files = report.stopped === undefined ? `, ${plural(report.indexed, "file")}` : "";
    lines.push(`index: revision ${report.revision}, built ${report.built}${expires}${files}`);
  }
  if (report.state?.kind === "remembered")
    lines.push(
      report.state.previous === undefined || report.state.previous === report.state.revision
        ? `state: revision ${report.state.revision} remembered`
        : `state: revision ${report.state.revision} remembered (was ${report.state.previous})`,
    );
  else if (report.state?.kind === "unsigned") lines.push("state: the index is unsigned: nothing remembered");
  if (report.stopped !== undefined) return [...lines, `stopped: ${report.stopped}`];
  for (const shard of report.badShards) lines.push(`bad shard  ${shard.path}: ${shard.detail}`);
  for (const problem of report.files) lines.push(formatFileProblem(problem));
  for (const mirror of report.mirrors ?? []) lines.push(...formatMirror(mirror));
  const sampled = report.checked < report.indexed ? ` (a sample of ${report.indexed})` : "";
  lines.push(
    report.files.length === 0
      ? `${plural(report.checked, "file")} checked${sampled}: all as the index says`
      : `${plural(report.checked, "file")} checked${sampled}: ${report.files.length} not as the index says`,
  );
  return lines;
}

export function formatKeyPair(created: CreatedKeyPair): string[] {
  return [
    `key ${created.keyId}`,
    `secret key: ${created.secretKeyFile} (keep it secret: store it as a CI secret, then delete or lock away this file)`,
    `public key: ${created.publicKeyFile} (give it to clients; every signed build also publishes it)`,
    `GitHub Actions: gh secret set SHOPFRONT_SIGNING_KEY < ${created.secretKeyFile}`,
    `project: copy ${created.publicKeyFile} into it and name it in shopfront.json ("publicKey": "minisign.pub"): diff, its pull-request check and verify then hold the store's index to it`,
  ];
}
