// The GitHub Pages workflow cannot run here, so it is read: it parses as YAML, has the triggers
// and permissions Pages needs and no more, uses the real actions, runs the commands that
// docs/publishing.md documents, in order, prints problems as annotations on the manifests' lines, and
// restores the last build from a cache that a new shopfront never reuses.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { ROOT } from "../support/helpers.js";

interface Step {
  uses?: string;
  run?: string;
  id?: string;
  with?: Record<string, unknown>;
  env?: Record<string, string>;
}

interface Job {
  if?: string;
  needs?: string;
  permissions?: Record<string, string>;
  environment?: { name: string; url: string };
  concurrency?: { group: string; "cancel-in-progress": boolean };
  steps: Step[];
}

interface Workflow {
  on: Record<string, unknown>;
  permissions: Record<string, string>;
  jobs: Record<string, Job>;
}

const workflow = parse(readFileSync(join(ROOT, ".github", "workflows", "pages.yml"), "utf8")) as Workflow;
const publishing = readFileSync(join(ROOT, "docs", "publishing.md"), "utf8");

/** The commands of the GitHub Pages section of docs/publishing.md: its first sh block, one per line. */
function documentedCommands(): string[] {
  const start = publishing.indexOf("\n## GitHub Pages\n");
  const section = publishing.slice(start, publishing.indexOf("\n## ", start + 1));
  const block = /```sh\n([\s\S]*?)```/.exec(section);
  if (!block) throw new Error("the GitHub Pages section of docs/publishing.md has no sh block");
  return block[1]!.trim().split("\n");
}

const runs = (job: Job) => job.steps.flatMap((s) => (s.run ? [s.run] : []));
/** A command as a maintainer types it at home: `--format github` only matters on the runner. */
const withoutFormat = (command: string) => command.replace(" --format github", "");
const uses = (job: Job) => job.steps.flatMap((s) => (s.uses ? [s.uses] : []));

describe(".github/workflows/pages.yml", () => {
  const { validate, build, deploy } = workflow.jobs;

  it("runs on pushes to the default branch, on pull requests, by hand and daily (the featured app moves on)", () => {
    expect(workflow.on).toEqual({
      push: { branches: ["main"] },
      pull_request: null,
      workflow_dispatch: null,
      schedule: [{ cron: "17 0 * * *" }],
    });
    expect(Object.keys(workflow.jobs)).toEqual(["validate", "build", "deploy"]);
  });

  it("reads the repository and nothing else, except the deploy job, which may write Pages, and the pull request's check, which may comment", () => {
    expect(workflow.permissions).toEqual({ contents: "read" });
    expect(validate!.permissions).toEqual({ contents: "read", "pull-requests": "write" });
    expect(build!.permissions).toBeUndefined();
    expect(deploy!.permissions).toEqual({ pages: "write", "id-token": "write" });
  });

  it("on a pull request, validates (failing with shopfront's exit code), then says what merging would publish (test/unit/pullRequestCheck.test.ts runs it)", () => {
    expect(validate!.if).toBe("github.event_name == 'pull_request'");
    expect(runs(validate!).slice(0, 2)).toEqual(["npm ci", "npx shopfront validate --strict --format github"]);
    expect(runs(validate!)[2]).toContain(
      'npx shopfront diff "$base" HEAD --out dist --target github-pages --format markdown',
    );
    expect(uses(validate!)).toEqual(["actions/checkout@v4", "actions/setup-node@v4", "actions/cache/restore@v4"]);
    expect(publishing).toContain("On a pull request it runs `npx shopfront validate --strict --format github`");
    // The cache the build job saves of the base commit, and only that one: an older build of the base
    // branch is never restored (its later changes would read as the pull request's). It never saves one.
    const restore = validate!.steps.find((s) => s.uses === "actions/cache/restore@v4")!;
    const saved = build!.steps.find((s) => s.uses?.startsWith("actions/cache@"))!;
    expect(restore.with!.path).toBe(saved.with!.path);
    expect(restore.with!["restore-keys"]).toBeUndefined();
    expect(restore.with!.key).toBe(
      String(saved.with!.key).replace("${{ github.sha }}", "${{ github.event.pull_request.base.sha }}"),
    );
  });

  it("on a push, runs the documented commands in order and uploads the output folder", () => {
    expect(build!.if).toBe("github.event_name != 'pull_request'");
    expect(runs(build!).map(withoutFormat)).toEqual(documentedCommands().map(withoutFormat));
    expect(runs(build!)).toEqual([
      "npm ci",
      "npx shopfront validate --strict --format github",
      "npx shopfront build --target github-pages --strict --format github",
    ]);
    expect(build!.steps.at(-1)).toEqual({ uses: "actions/upload-pages-artifact@v4", with: { path: "dist" } });
  });

  it("signs the file index with the repository's secret, when it has one (docs/trust.md)", () => {
    const step = build!.steps.find((s) => s.run?.startsWith("npx shopfront build"))!;
    expect(step.env).toEqual({ SHOPFRONT_SIGNING_KEY: "${{ secrets.SHOPFRONT_SIGNING_KEY }}" });
    expect(readFileSync(join(ROOT, "docs", "trust.md"), "utf8")).toContain("SHOPFRONT_SIGNING_KEY");
  });

  it("restores the last build's output and state before building, keyed so that another shopfront never reuses it", () => {
    const cache = build!.steps.findIndex((s) => s.uses?.startsWith("actions/cache@"));
    expect(build!.steps[cache]).toEqual({
      uses: "actions/cache@v4",
      with: {
        path: "dist\n.dist.shopfront\n",
        key: "shopfront-${{ runner.os }}-${{ hashFiles('package-lock.json') }}-${{ github.sha }}",
        "restore-keys": "shopfront-${{ runner.os }}-${{ hashFiles('package-lock.json') }}-\n",
      },
    });
    expect(build!.steps.findIndex((s) => s.run?.startsWith("npx shopfront build"))).toBeGreaterThan(cache);
    // The output shopfront.json names, which `init` writes and ignores in git.
    expect(publishing).toContain("`dist` and `.dist.shopfront`");
    expect(uses(validate!)).not.toContain("actions/cache@v4");
  });

  it("prints every problem of every shopfront command as a GitHub annotation", () => {
    const commands = [...runs(validate!), ...runs(build!)].filter((run) => run.startsWith("npx shopfront "));
    expect(commands.length).toBe(3);
    for (const command of commands) expect(command).toMatch(/ --format github$/);
  });

  it("sets up Node.js 20 with the npm cache", () => {
    for (const job of [validate!, build!]) {
      expect(job.steps.find((s) => s.uses?.startsWith("actions/setup-node@"))!.with).toEqual({
        "node-version": 20,
        cache: "npm",
      });
    }
  });

  it("deploys the build's artifact with actions/deploy-pages, one deploy at a time, never cancelled", () => {
    expect(deploy!.needs).toBe("build");
    expect(deploy!.environment).toEqual({ name: "github-pages", url: "${{ steps.deployment.outputs.page_url }}" });
    expect(deploy!.steps).toEqual([{ id: "deployment", uses: "actions/deploy-pages@v4" }]);
    expect(deploy!.concurrency).toEqual({ group: "pages-deploy", "cancel-in-progress": false });
  });
});
