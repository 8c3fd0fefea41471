// The pull-request check of the workflow `init` writes, run step by step as a runner would: a store
// made by `init`, kept in git; the build job's `run:` lines in a clone of the default branch, whose
// output and state are then saved as the Actions cache saves them; a pull request's clone at the
// same path with that cache restored by hand; then each `run:` line of the pull-request job in order,
// with GITHUB_STEP_SUMMARY a file and a stand-in `gh` that keeps the comment it is asked to post.
import { spawnSync } from "node:child_process";
import { chmodSync, cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { buildCatalogue } from "../../src/engine/buildCatalogue.js";
import { initProject } from "../../src/scaffold/initProject.js";
import { formatPublicKey, generateSecretKey, keyIdHex } from "../../src/trust/minisign.js";
import { commitAll, FIRST, git, writeStore, type StoreApp } from "../support/diffStore.js";
import { BIN, ROOT, tempDir } from "../support/helpers.js";

interface Step {
  uses?: string;
  run?: string;
  if?: string;
  id?: string;
  "continue-on-error"?: boolean;
  env?: Record<string, string>;
  with?: Record<string, string>;
}

interface Workflow {
  jobs: Record<string, { steps: Step[]; permissions?: Record<string, string> }>;
}

const BASH = ["--noprofile", "--norc", "-eo", "pipefail", "-c"];

/** A `run:` step as the runner runs it (bash -eo pipefail), in `cwd`: its exit status and output. */
function tryStep(
  cwd: string,
  script: string,
  env: NodeJS.ProcessEnv,
): { status: number | null; stdout: string; stderr: string } {
  return spawnSync("bash", [...BASH, script], {
    cwd,
    encoding: "utf8",
    timeout: 240_000,
    env: { ...process.env, NO_COLOR: "1", npm_config_audit: "false", npm_config_fund: "false", ...env },
  });
}

/** A `run:` step that must succeed; its output. */
function runStep(cwd: string, script: string, env: NodeJS.ProcessEnv): string {
  const result = tryStep(cwd, script, env);
  expect(result.status, `${script}\n${result.stdout}\n${result.stderr}`).toBe(0);
  return result.stdout;
}

/** A step's `env:`, each `${{ expression }}` replaced by what a runner gives it. */
function stepEnv(step: Step, context: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(step.env ?? {}).map(([name, value]) => [
      name,
      value.replace(/\$\{\{\s*(.*?)\s*\}\}/g, (_, expression: string) => {
        if (!(expression in context)) throw new Error(`the test does not know ${expression}`);
        return context[expression]!;
      }),
    ]),
  );
}

const SECOND: StoreApp[] = [
  ...FIRST.filter((a) => a.name !== "snake" && a.name !== "paint"),
  { ...FIRST.find((a) => a.name === "snake")!, version: "1.1", seed: 11 },
  {
    host: "primary",
    name: "chess",
    version: "0.1",
    displayName: "Chess",
    coder: "Judit",
    category: "games",
    short: "Chess for two",
    long: "Play chess against a friend.",
    seed: 5,
  },
];

/** The Actions cache, standing in: saved entries by key, restored by exact key or by a restore-keys prefix. */
class Cache {
  private readonly dir = tempDir("shopfront-cache-");
  private readonly keys: string[] = [];
  save(key: string, workspace: string): void {
    for (const name of ["dist", ".dist.shopfront"])
      cpSync(join(workspace, name), join(this.dir, key, name), { recursive: true, verbatimSymlinks: true });
    this.keys.push(key);
  }
  /** As actions/cache/restore: the exact key, else the newest entry whose key starts with a restore key. */
  restore(step: Step, context: Record<string, string>, workspace: string): string | undefined {
    const fill = (text: string) =>
      text.replace(/\$\{\{\s*(.*?)\s*\}\}/g, (_, expression: string) => {
        if (expression === "runner.os") return "Linux";
        if (expression === "hashFiles('package-lock.json')") return "lock";
        if (!(expression in context)) throw new Error(`the test does not know ${expression}`);
        return context[expression]!;
      });
    const key = fill(step.with!.key!);
    const prefixes = (step.with!["restore-keys"] ?? "").split("\n").filter(Boolean).map(fill);
    const hit =
      this.keys.find((k) => k === key) ?? [...this.keys].reverse().find((k) => prefixes.some((p) => k.startsWith(p)));
    if (hit) this.restoreEntry(hit, workspace);
    return hit;
  }
  restoreEntry(key: string, workspace: string): void {
    for (const name of ["dist", ".dist.shopfront"])
      cpSync(join(this.dir, key, name), join(workspace, name), { recursive: true, verbatimSymlinks: true });
  }
  key(commit: string): string {
    return `shopfront-Linux-lock-${commit}`;
  }
}

/**
 * gh, standing in: `gh api` lists the pull request's comments (through the real jq, as --jq does) and
 * edits one; `gh pr comment` writes a new one. Comments are files `<id>` in `dir`.
 */
function fakeGh(dir: string): string {
  const bin = tempDir("shopfront-bin-");
  writeFileSync(
    join(bin, "gh"),
    `#!/usr/bin/env node
const fs = require("node:fs");
const { join } = require("node:path");
const { execFileSync } = require("node:child_process");
const dir = ${JSON.stringify(dir)};
const args = process.argv.slice(2);
fs.appendFileSync(join(dir, "..", "gh.args"), args.join(" ") + "\\n");
const value = (flag) => args[args.indexOf(flag) + 1];
const ids = () => fs.readdirSync(dir).map(Number).sort((a, b) => a - b);
if (args[0] === "api" && args.includes("--jq")) {
  const list = JSON.stringify(ids().map((id) => ({ id, body: fs.readFileSync(join(dir, String(id)), "utf8") })));
  process.stdout.write(execFileSync("jq", ["-r", value("--jq")], { input: list }));
} else if (args[0] === "api" && value("--method") === "PATCH") {
  const id = /comments\\/(\\d+)$/.exec(args.find((a) => a.startsWith("repos/")))[1];
  if (!fs.existsSync(join(dir, id))) process.exit(1);
  fs.copyFileSync(value("-F").replace(/^body=@/, ""), join(dir, id));
} else if (args[0] === "pr" && args[1] === "comment") {
  fs.copyFileSync(value("--body-file"), join(dir, String(Math.max(100, ...ids()) + 1)));
} else process.exit(2);
`,
  );
  chmodSync(join(bin, "gh"), 0o755);
  return bin;
}

describe("the pull-request check of the workflow init writes", () => {
  it("leaves what the pull request would publish in the summary and one comment: from the base commit's cached build, from the base commit when the cache is an older one, and why when it does not build", () => {
    // The store, made by init (its shopfront a tarball of this checkout), with package files.
    const origin = join(tempDir("shopfront-pr-"), "store");
    initProject(origin);
    writeStore(origin, FIRST);
    runStep(origin, "npm install --prefer-offline", {});
    git(origin, "init", "-q", "-b", "main");
    const base = commitAll(origin, "the store");
    git(origin, "checkout", "-q", "-b", "pull");
    writeStore(origin, SECOND);
    // chess's manifest disagrees with its meta.xml: a warning, which --strict makes the check fail on.
    const chess = join(origin, "catalogue", "primary", "chess.json");
    writeFileSync(chess, readFileSync(chess, "utf8").replace('"Chess for two"', '"Chess for two players"'));
    commitAll(origin, "snake 1.1, chess added, paint removed");
    // What GitHub checks out for a pull request: the pull request merged into the base branch's tip.
    const merged = (name: string, into: string, branch: string) => {
      git(origin, "checkout", "-q", "-b", name, into);
      git(origin, "merge", "-q", "--no-ff", "-m", `merge ${branch}`, branch);
      git(origin, "checkout", "-q", "main");
    };
    merged("pr-1", "main", "pull");

    const workflow = parse(readFileSync(join(origin, ".github", "workflows", "pages.yml"), "utf8")) as Workflow;
    const runsOf = (job: string) => workflow.jobs[job]!.steps.filter((s) => s.run !== undefined);
    // Where a runner checks out, the same path for every job.
    const workspace = join(tempDir("shopfront-runner-"), "work", "store");
    const runnerTemp = tempDir("shopfront-runner-temp-");
    mkdirSync(join(workspace, ".."), { recursive: true });
    const cache = new Cache();

    // The build job on the default branch, then its cache saved (the output link and its folder).
    git(join(workspace, ".."), "clone", "-q", "--branch", "main", origin, workspace);
    for (const step of runsOf("build")) runStep(workspace, step.run!, { RUNNER_TEMP: runnerTemp });
    cache.save(cache.key(base), workspace);
    rmSync(workspace, { recursive: true });

    const job = workflow.jobs.validate!;
    const restore = job.steps.find((s) => s.uses?.startsWith("actions/cache/restore@"))!;
    expect(restore.with!.path!.trim().split("\n")).toEqual(["dist", ".dist.shopfront"]);
    const comments = join(tempDir("shopfront-gh-"), "comments");
    mkdirSync(comments);
    // Another workflow's comment, by the same bot: never edited.
    writeFileSync(join(comments, "50"), "### Coverage: 91%\n");
    const bin = fakeGh(comments);
    const summary = join(runnerTemp, "summary.md");
    const runs = runsOf("validate");
    expect(runs.map((s) => s.run!.split("\n")[0])).toEqual([
      "npm ci",
      "npx shopfront validate --strict --format github",
      'if [ -e dist ]; then base=dist; else git fetch --quiet --depth=1 origin "$BASE_SHA"; base="$BASE_SHA"; fi',
      'body="$RUNNER_TEMP/shopfront-diff.md"',
    ]);

    /** The pull request's job on `branch` (a merge into `baseSha`): its clone, the cache restored, each `run:` in order. */
    const runJob = (branch: string, baseSha: string, restoreByHand?: string) => {
      rmSync(workspace, { recursive: true, force: true });
      git(join(workspace, ".."), "clone", "-q", "--branch", branch, origin, workspace);
      const context = {
        "github.event.pull_request.base.sha": baseSha,
        "github.event.pull_request.number": "7",
        "github.token": "a-token",
      };
      const restored = restoreByHand ?? cache.restore(restore, context, workspace);
      if (restoreByHand) cache.restoreEntry(restoreByHand, workspace);
      writeFileSync(summary, "");
      // As the runner does: after a step fails, only the steps whose `if:` says !cancelled() run.
      const statuses: (number | null | "skipped")[] = [];
      let validateOutput = "";
      for (const step of runs) {
        const failed = statuses.some((s) => s !== 0 && s !== "skipped");
        if (failed && !step.if?.includes("!cancelled()")) {
          statuses.push("skipped");
          continue;
        }
        const result = tryStep(workspace, step.run!, {
          ...stepEnv(step, context),
          GITHUB_STEP_SUMMARY: summary,
          GITHUB_REPOSITORY: "owner/store",
          RUNNER_TEMP: runnerTemp,
          PATH: `${bin}:${process.env.PATH}`,
        });
        if (step.run!.startsWith("npx shopfront validate")) validateOutput = result.stdout;
        statuses.push(result.status);
      }
      return { restored, statuses, validateOutput, markdown: readFileSync(summary, "utf8") };
    };

    // 1. The base commit's build is in the cache: the pull request's catalogue is rebuilt over it.
    const first = runJob("pr-1", base);
    expect(first.restored).toBe(cache.key(base));
    // validate fails the check, with the warning as an annotation on the manifest; the rest still runs.
    expect(first.statuses).toEqual([0, 1, 0, 0]);
    expect(first.validateOutput).toMatch(
      /^::error file=catalogue\/primary\/chess\.json,line=\d+.*::\/short_description /m,
    );
    const markdown = first.markdown;
    expect(markdown.split("\n")[0]).toBe("<!-- shopfront diff -->");
    // Both commits named; the pull request's catalogue built over the restored state, not in full.
    expect(markdown).toMatch(
      new RegExp(
        `^### What clients would receive: \`dist\` \\(${base.slice(0, 12)}\\) → \`HEAD\` \\([0-9a-f]{12}, (rebuilt|built, written by content)\\)$`,
        "m",
      ),
    );
    expect(markdown).not.toContain("[!WARNING]");
    expect(markdown).toContain("- **Added** `chess` `0.1` (Chess)");
    expect(markdown).toContain("- **Removed** `paint` `2.0` (Paint)");
    expect(markdown).toContain("- **Updated** `snake` `1.1` (Snake)");
    expect(markdown).toContain("  - version: `1.0` → `1.1`");
    expect(markdown).toMatch(/^ {2}- zip `\/hbb\/snake\/snake\.zip`: .* → .*, SHA-256 `[0-9a-f]{64}`$/m);
    // The restored build's state kept its warnings (none: it was built with --strict); the pull request brings one.
    expect(markdown).toContain("**Problems**: 1 introduced, 0 fixed");
    expect(markdown).toMatch(/^- introduced: `primary\/chess\.json \/short_description` \(warning, \w+\): /m);
    // No comment had the marker: one was written; the other workflow's is as it was.
    expect(readFileSync(join(comments, "101"), "utf8")).toBe(markdown);
    expect(readFileSync(join(comments, "50"), "utf8")).toBe("### Coverage: 91%\n");

    // 2. The base branch moves on (an app added) and its build is not cached yet: an older main's is.
    git(origin, "checkout", "-q", "main");
    writeStore(origin, [
      ...FIRST,
      { ...FIRST[0]!, name: "later", displayName: "Later", seed: 9, short: "Added on main", long: "Later." },
    ]);
    const moved = commitAll(origin, "later added on main");
    merged("pr-2", moved, "pull");
    const second = runJob("pr-2", moved);
    // Only the base commit's cache is restored: none, so the base commit is built, and only the pull request's changes are named.
    expect(second.restored).toBeUndefined();
    expect(second.statuses).toEqual([0, 1, 0, 0]);
    expect(second.markdown).toContain(
      `### What clients would receive: \`${moved}\` (${moved.slice(0, 12)}, built in full) → \`HEAD\``,
    );
    for (const line of markdown.split("\n").filter((l) => l.startsWith("- **") || l.startsWith("  - version")))
      expect(second.markdown).toContain(line);
    expect(second.markdown).not.toContain("`later` `1.0`");
    expect(second.markdown).not.toContain("[!WARNING]");
    // The comment with the marker was edited, no new one written.
    expect(readdirSync(comments).sort()).toEqual(["101", "50"]);
    expect(readFileSync(join(comments, "101"), "utf8")).toBe(second.markdown);

    // 3. Had the older main's build been restored (as a key prefix would), the report says its base is not the merge base.
    const stale = runJob("pr-2", moved, cache.key(base));
    expect(stale.markdown).toContain(
      `> a \\(${base.slice(0, 12)}\\) is not the merge base of b \\(${moved.slice(0, 12)}\\)`,
    );
    expect(stale.markdown).toContain("- **Added** `later`");

    // 4. A pull request that does not build: why is in the summary and the comment, and the job fails.
    git(origin, "checkout", "-q", "-b", "broken", "pull");
    writeFileSync(join(origin, "catalogue", "primary", "snake.json"), "{ not json");
    commitAll(origin, "a broken manifest");
    merged("pr-3", moved, "broken");
    const broken = runJob("pr-3", moved);
    expect(broken.statuses).toEqual([0, 1, 1, 0]);
    expect(broken.markdown).toMatch(/^### ❌ `HEAD` \([0-9a-f]{12}\) does not build$/m);
    expect(broken.markdown).toMatch(/^- `primary\/snake\.json` \(error, \w+\): /m);
    expect(readFileSync(join(comments, "101"), "utf8")).toBe(broken.markdown);
  }, 900_000);

  it("diffs the restored build only once its signature holds, when shopfront.json names the store's key", async () => {
    const store = join(tempDir("shopfront-signed-"), "store");
    writeStore(store, FIRST);
    writeFileSync(
      join(store, "shopfront.json"),
      JSON.stringify({ catalogue: "catalogue", out: "dist", targets: ["github-pages"], publicKey: "minisign.pub" }),
    );
    git(store, "init", "-q", "-b", "pull");
    writeStore(store, SECOND);
    commitAll(store, "the pull request");
    // The restored cache: the base branch's build, signed by the store's key in the build job.
    const signing = generateSecretKey();
    const built = await buildCatalogue({
      catalogueDir: join(store, "catalogue"),
      outDir: join(store, "dist"),
      targets: ["github-pages"],
      index: { mirrors: [], secretKey: signing },
    });
    expect(built.built).toBeDefined();
    // npx, standing in: the shopfront of this checkout.
    const bin = tempDir("shopfront-bin-");
    writeFileSync(join(bin, "npx"), `#!/bin/sh\nshift\nexec node "${BIN}" "$@"\n`);
    chmodSync(join(bin, "npx"), 0o755);
    const workflow = parse(readFileSync(join(ROOT, ".github", "workflows", "pages.yml"), "utf8")) as Workflow;
    const diff = workflow.jobs.validate!.steps.find((s) => s.id === "diff")!;
    const runDiff = () => {
      const runnerTemp = tempDir("shopfront-runner-temp-");
      const summary = join(runnerTemp, "summary.md");
      writeFileSync(summary, "");
      const result = tryStep(store, diff.run!, {
        ...stepEnv(diff, { "github.event.pull_request.base.sha": "unused" }),
        GITHUB_STEP_SUMMARY: summary,
        RUNNER_TEMP: runnerTemp,
        PATH: `${bin}:${process.env.PATH}`,
      });
      return { ...result, summary: readFileSync(summary, "utf8") };
    };

    // Another key (a cache written by a build the store did not sign): the check fails, naming the signature; nothing
    // is built over the cache.
    writeFileSync(join(store, "minisign.pub"), formatPublicKey(generateSecretKey()));
    const bad = runDiff();
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain("the signature does not hold, so nothing the entry names was read");
    expect(bad.summary).toBe("");

    // The store's key: the signature holds, and the summary says so.
    writeFileSync(join(store, "minisign.pub"), formatPublicKey(signing));
    const good = runDiff();
    expect(good.status, good.stderr).toBe(0);
    // The folder's note: its commit (not recorded by this build), then the key whose signature held.
    expect(good.summary).toContain(
      `\`dist\` (commit not recorded, signature good by key ${keyIdHex(signing.keyId)}) →`,
    );
  }, 240_000);

  it("needs no secret, and comments only when the token may: never for a fork's pull request", () => {
    const workflow = parse(
      readFileSync(join(import.meta.dirname, "..", "..", ".github", "workflows", "pages.yml"), "utf8"),
    ) as Workflow;
    const job = workflow.jobs.validate!;
    expect(JSON.stringify(job)).not.toContain("secrets.");
    expect(job.permissions).toEqual({ contents: "read", "pull-requests": "write" });
    const comment = job.steps.find((s) => s.run?.includes("gh pr comment"))!;
    expect(comment.if).toContain("github.event.pull_request.head.repo.full_name == github.repository");
    expect(comment.if).toContain("steps.diff.outcome == 'success' || steps.diff.outcome == 'failure'");
    expect(comment["continue-on-error"]).toBe(true);
  });
});
