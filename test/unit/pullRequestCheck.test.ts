// The pull-request check of the workflow `init` writes, run step by step as a runner would: a store
// made by `init`, kept in git; the build job's `run:` lines in a clone of the default branch, whose
// output and state are then saved as the Actions cache saves them; a pull request's clone at the
// same path with that cache restored by hand; then each `run:` line of the pull-request job in order,
// with GITHUB_STEP_SUMMARY a file and a stand-in `gh` that keeps the comment it is asked to post.
import { spawnSync } from "node:child_process";
import { chmodSync, cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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

describe("the pull-request check of the workflow init writes", () => {
  it("leaves what the pull request would publish in the job summary and the comment, from the base branch's cached build", () => {
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
    git(origin, "checkout", "-q", "main");

    const workflow = parse(readFileSync(join(origin, ".github", "workflows", "pages.yml"), "utf8")) as Workflow;
    const runsOf = (job: string) => workflow.jobs[job]!.steps.filter((s) => s.run !== undefined);
    // Where a runner checks out, the same path for every job.
    const workspace = join(tempDir("shopfront-runner-"), "work", "store");
    const runnerTemp = tempDir("shopfront-runner-temp-");
    mkdirSync(join(workspace, ".."), { recursive: true });

    // The build job on the default branch, then its cache saved (the output link and its folder).
    git(join(workspace, ".."), "clone", "-q", "--branch", "main", origin, workspace);
    for (const step of runsOf("build")) runStep(workspace, step.run!, { RUNNER_TEMP: runnerTemp });
    const cache = tempDir("shopfront-cache-");
    for (const name of ["dist", ".dist.shopfront"])
      cpSync(join(workspace, name), join(cache, name), { recursive: true, verbatimSymlinks: true });
    rmSync(workspace, { recursive: true });

    // The pull request's job: its clone at the same path, the cache restored by hand.
    git(join(workspace, ".."), "clone", "-q", "--branch", "pull", origin, workspace);
    const job = workflow.jobs.validate!;
    const restore = job.steps.find((s) => s.uses?.startsWith("actions/cache/restore@"))!;
    expect(restore.with!.path!.trim().split("\n")).toEqual(["dist", ".dist.shopfront"]);
    for (const name of restore.with!.path!.trim().split("\n"))
      cpSync(join(cache, name), join(workspace, name), { recursive: true, verbatimSymlinks: true });

    // gh, standing in: it keeps its arguments and the comment's body; --edit-last finds no comment yet.
    const bin = tempDir("shopfront-bin-");
    const comments = join(bin, "comments");
    writeFileSync(
      join(bin, "gh"),
      `#!/bin/sh\necho "$@" >> "${comments}.args"\ncase " $* " in *" --edit-last "*) exit 1;; esac\nwhile [ "$1" != --body-file ]; do shift; done\ncat "$2" >> "${comments}"\n`,
    );
    chmodSync(join(bin, "gh"), 0o755);
    const summary = join(runnerTemp, "summary.md");
    writeFileSync(summary, "");
    const context = {
      "github.event.pull_request.base.sha": base,
      "github.event.pull_request.number": "7",
      "github.token": "a-token",
    };
    const runs = runsOf("validate");
    expect(runs.map((s) => s.run!.split("\n")[0])).toEqual([
      "npm ci",
      "npx shopfront validate --strict --format github",
      'if [ -e dist ]; then base=dist; else git fetch --quiet --depth=1 origin "$BASE_SHA"; base="$BASE_SHA"; fi',
      'gh pr comment "$PR_NUMBER" --edit-last --body-file "$RUNNER_TEMP/shopfront-diff.md" ||',
    ]);
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
        RUNNER_TEMP: runnerTemp,
        PATH: `${bin}:${process.env.PATH}`,
      });
      if (step.run!.startsWith("npx shopfront validate")) validateOutput = result.stdout;
      statuses.push(result.status);
    }
    // validate fails the check, with the warning as an annotation on the manifest; the rest still runs.
    expect(statuses).toEqual([0, 1, 0, 0]);
    expect(validateOutput).toMatch(/^::error file=catalogue\/primary\/chess\.json,line=\d+.*::\/short_description /m);

    const markdown = readFileSync(summary, "utf8");
    // The pull request's catalogue is built over the restored state, not in full.
    expect(markdown).toMatch(
      /^### What clients would receive: `dist` → `HEAD` \([0-9a-f]{12}, (rebuilt|built, written by content)\)$/m,
    );
    expect(markdown).toContain("- **Added** `chess` `0.1` (Chess)");
    expect(markdown).toContain("- **Removed** `paint` `2.0` (Paint)");
    expect(markdown).toContain("- **Updated** `snake` `1.1` (Snake)");
    expect(markdown).toContain("  - version: `1.0` → `1.1`");
    expect(markdown).toMatch(/^ {2}- zip `\/hbb\/snake\/snake\.zip`: .* → .*, SHA-256 `[0-9a-f]{64}`$/m);
    // The restored build's state kept its warnings (none: it was built with --strict); the pull request brings one.
    expect(markdown).toContain("**Problems**: 1 introduced, 0 fixed");
    expect(markdown).toMatch(/^- introduced: `primary\/chess\.json \/short_description` \(warning, \w+\): /m);
    // The comment is the summary; the first try edited nothing, so one was written.
    expect(readFileSync(comments, "utf8")).toBe(markdown);
    expect(readFileSync(`${comments}.args`, "utf8").trim().split("\n")).toEqual([
      `pr comment 7 --edit-last --body-file ${runnerTemp}/shopfront-diff.md`,
      `pr comment 7 --body-file ${runnerTemp}/shopfront-diff.md`,
    ]);

    // Without a cache (the first pull request, or a new lock), the base commit is built instead.
    for (const name of ["dist", ".dist.shopfront"]) rmSync(join(workspace, name), { recursive: true, force: true });
    writeFileSync(summary, "");
    const diff = job.steps.find((s) => s.id === "diff")!;
    runStep(workspace, diff.run!, { ...stepEnv(diff, context), GITHUB_STEP_SUMMARY: summary, RUNNER_TEMP: runnerTemp });
    const fromCommit = readFileSync(summary, "utf8");
    expect(fromCommit).toContain(
      `### What clients would receive: \`${base}\` (${base.slice(0, 12)}, built in full) → \`HEAD\``,
    );
    for (const line of markdown.split("\n").filter((l) => l.startsWith("- **") || l.startsWith("  - ")))
      expect(fromCommit).toContain(line);
    expect(fromCommit).toContain("**Problems**: 1 introduced, 0 fixed");
  }, 600_000);

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
    expect(good.summary).toContain(`\`dist\` (signature good by key ${keyIdHex(signing.keyId)}) →`);
  }, 240_000);

  it("needs no secret, and comments only when the token may: never for a fork's pull request", () => {
    const workflow = parse(
      readFileSync(join(import.meta.dirname, "..", "..", ".github", "workflows", "pages.yml"), "utf8"),
    ) as Workflow;
    const job = workflow.jobs.validate!;
    expect(JSON.stringify(job)).not.toContain("secrets.");
    expect(job.permissions).toEqual({ contents: "read", "pull-requests": "write" });
    const comment = job.steps.find((s) => s.run?.startsWith("gh pr comment"))!;
    expect(comment.if).toContain("github.event.pull_request.head.repo.full_name == github.repository");
    expect(comment.if).toContain("steps.diff.outcome == 'success'");
    expect(comment["continue-on-error"]).toBe(true);
  });
});
