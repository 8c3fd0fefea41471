// Starting and stopping real servers for the conformance suite: each on 127.0.0.1, a free port,
// its own temporary folder, stopped after the test.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chmodSync, writeFileSync } from "node:fs";
import { createServer, connect } from "node:net";
import { join } from "node:path";
import { buildCatalogue } from "../../src/build/buildCatalogue.js";
import { loadCatalogue } from "../../src/load/loadCatalogue.js";
import { catalogueNames } from "../../src/render/catalogueNames.js";
import type { CatalogueNames } from "../../src/render/catalogueNames.js";
import type { TargetId } from "../../src/targets/target.js";
import { copyFixture, tempDir } from "../helpers.js";

export interface RunningServer {
  url: string;
  /** The server's process, when the test started one. */
  pid?: number;
  stop(): Promise<void>;
}

export interface Site {
  /** The built output (a link to the live slot), which servers use as their root. */
  root: string;
  /** The folder that holds the output and a canary file that must never be served. */
  dir: string;
}

export const CANARY = "shopfront-canary: this file lies outside the output and must never be served";

/** Builds the conformance fixture into a world-readable folder (Apache's workers run as www-data), with canaries beside it. */
export async function buildSite(targets: readonly TargetId[] = []): Promise<Site> {
  const dir = tempDir("shopfront-site-");
  chmodSync(dir, 0o755);
  const catalogueDir = copyFixture("conformance");
  const root = join(dir, "dist");
  const result = await buildCatalogue({ catalogueDir, outDir: root, targets });
  if (!result.built) throw new Error(`fixture did not build: ${JSON.stringify(result.problems)}`);
  writeFileSync(join(dir, "secret.txt"), CANARY);
  return { root, dir };
}

/** The conformance fixture's names (hosts, packages, coders), which server configs list. */
export async function fixtureNames(): Promise<CatalogueNames> {
  const { catalogue } = await loadCatalogue(copyFixture("conformance"));
  if (!catalogue) throw new Error("the conformance fixture did not load");
  return catalogueNames(catalogue);
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** The path of a program, or an error that says how CI installs it. */
export function requireProgram(program: string, debianPackage: string): string {
  const found = spawnSync("sh", ["-c", `command -v ${program}`], { encoding: "utf8" }).stdout.trim();
  if (!found) throw new Error(`${program} is not installed: apt-get install -y ${debianPackage} (.ci/run does)`);
  return found;
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/** Starts a server process and waits until its port answers; its output is kept for the error message. */
export async function startProcess(
  command: string,
  args: string[],
  port: number,
  env: NodeJS.ProcessEnv = {},
): Promise<RunningServer> {
  const child: ChildProcess = spawn(command, args, {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let output = "";
  child.stdout!.on("data", (d: Buffer) => (output += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (output += d.toString()));
  let exited = false;
  child.once("exit", () => (exited = true));
  const deadline = Date.now() + 15_000;
  while (!(await canConnect(port))) {
    if (exited || Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`${command} did not start on port ${port}:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    stop: () =>
      new Promise<void>((resolve) => {
        if (exited) return resolve();
        child.once("exit", () => resolve());
        // The whole process group: servers fork workers.
        process.kill(-child.pid!, "SIGTERM");
        setTimeout(() => !exited && process.kill(-child.pid!, "SIGKILL"), 5_000).unref();
      }),
  };
}
