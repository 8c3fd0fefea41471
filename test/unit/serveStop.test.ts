// `shopfront serve` started the way users start it, through npm (`npx shopfront serve` is `npm exec`,
// which runs the bin through `sh -c`), and stopped by killing npm's pid: the server must stop too,
// not go on serving, adopted by init. A server whose parent is not npm outlives it (`nohup`).
import { spawn, type ChildProcess } from "node:child_process";
import { chmodSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { buildCatalogue } from "../../src/engine/buildCatalogue.js";
import { copyFixture, ROOT, tempDir } from "../support/helpers.js";

const DEADLINE_MS = 20_000;

/** A project whose node_modules/.bin holds this checkout's CLI, as an installed shopfront would be. */
async function project(): Promise<{ cwd: string; dist: string; catalogueDir: string }> {
  const cwd = tempDir();
  writeFileSync(join(cwd, "package.json"), JSON.stringify({ private: true }));
  mkdirSync(join(cwd, "node_modules", ".bin"), { recursive: true });
  // npm makes a bin executable when it links it; tsc writes lib/cli.js without the bit.
  chmodSync(join(ROOT, "lib", "cli.js"), 0o755);
  symlinkSync(join(ROOT, "lib", "cli.js"), join(cwd, "node_modules", ".bin", "shopfront"));
  const catalogueDir = copyFixture("basic");
  const dist = join(cwd, "dist");
  await buildCatalogue({ catalogueDir, outDir: dist, targets: [] });
  return { cwd, dist, catalogueDir };
}

const started: ChildProcess[] = [];
const servers: number[] = [];
afterEach(() => {
  for (const child of started.splice(0)) child.kill("SIGKILL");
  for (const pid of servers.splice(0)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Already gone, as it should be.
    }
  }
});

/** Starts `command`, and resolves with the URL the server prints, once it serves. */
function startServing(cwd: string, command: string, args: string[]) {
  // As from a shell: none of the npm_* variables that this test run may have from `npx vitest`.
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("npm_")));
  const child = spawn(command, args, { cwd, stdio: ["ignore", "pipe", "pipe"], env: { ...env, NO_COLOR: "1" } });
  started.push(child);
  let stdout = "";
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  // The end of stdout is when every process holding it has exited: npm, the shell and the server.
  const ended = new Promise<void>((resolve) => child.stdout!.on("end", resolve));
  const url = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`not serving after ${DEADLINE_MS} ms: ${stdout}${stderr}`)),
      DEADLINE_MS,
    );
    child.stdout!.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      const found = / at (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout);
      if (found) {
        clearTimeout(timer);
        resolve(found[1]!);
      }
    });
  });
  return { child, url, ended, output: () => stdout };
}

/** The pids of the shopfront servers running from `cwd`, so that a failed test leaves none behind. */
function serversIn(cwd: string): number[] {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        const args = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
        // npm's title and the shell's command are single arguments, so neither has "serve" alone.
        return args.includes("serve") && args.some((arg) => arg.startsWith(cwd));
      } catch {
        return false;
      }
    })
    .map(Number);
}

async function answers(url: string): Promise<boolean> {
  try {
    return (await fetch(`${url}/v1/hosts`)).status === 200;
  } catch {
    return false;
  }
}

async function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${DEADLINE_MS} ms`)), DEADLINE_MS);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

describe("a server started through npm (npx shopfront serve)", () => {
  for (const [signal, watch] of [
    ["SIGTERM", false],
    ["SIGKILL", false],
    ["SIGKILL", true],
  ] as const) {
    it(`stops when npm is killed with ${signal}${watch ? " (serve --watch)" : ""}`, async () => {
      const { cwd, dist, catalogueDir } = await project();
      const args = watch
        ? ["serve", "--watch", "--catalogue", catalogueDir, "--out", dist, "--port", "0"]
        : ["serve", "--dir", dist, "--port", "0"];
      const run = startServing(cwd, "npm", ["exec", "--", "shopfront", ...args]);
      const url = await run.url;
      expect(await answers(url)).toBe(true);
      servers.push(...serversIn(cwd));
      run.child.kill(signal);
      await within(run.ended, "the server's exit");
      expect(await answers(url)).toBe(false);
    }, 60_000);
  }
});

describe("a server started by another parent", () => {
  it("outlives it, as nohup means it to", async () => {
    const { dist } = await project();
    // The parent prints the server's pid and stays until killed, like a shell that runs it in the background.
    const parent = `const c = require("node:child_process").spawn(process.execPath, process.argv.slice(1), { stdio: ["ignore", "inherit", "inherit"] }); console.log("pid " + c.pid); setInterval(() => {}, 60000);`;
    const run = startServing(tempDir(), process.execPath, [
      "-e",
      parent,
      join(ROOT, "lib", "cli.js"),
      "serve",
      "--dir",
      dist,
      "--port",
      "0",
    ]);
    const url = await run.url;
    servers.push(Number(/^pid (\d+)/m.exec(run.output())![1]));
    run.child.kill("SIGKILL");
    // Several times the poll of a server started by npm.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(await answers(url)).toBe(true);
  }, 60_000);
});
