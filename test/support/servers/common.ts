// Starting and stopping real servers for the conformance suite: each on 127.0.0.1, a port it
// binds itself, its own temporary folder, stopped after the test.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chmodSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { buildCatalogue } from "../../../src/engine/buildCatalogue.js";
import { loadCatalogueNames } from "../../../src/load/loadCatalogue.js";
import type { CatalogueNames } from "../../../src/render/catalogueNames.js";
import type { TargetId } from "../../../src/targets/target.js";
import { copyConformanceWithFiles, copyFixture, tempDir } from "../helpers.js";

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

/**
 * Builds the conformance fixture (its package files too: zips and homebrew folders on two hosts)
 * into a world-readable folder (Apache's workers run as www-data), with canaries beside it. */
export async function buildSite(targets: readonly TargetId[] = []): Promise<Site> {
  const dir = tempDir("shopfront-site-");
  chmodSync(dir, 0o755);
  const catalogueDir = copyConformanceWithFiles();
  const root = join(dir, "dist");
  const result = await buildCatalogue({ catalogueDir, outDir: root, targets });
  if (!result.built) throw new Error(`fixture did not build: ${JSON.stringify(result.problems)}`);
  writeFileSync(join(dir, "secret.txt"), CANARY);
  return { root, dir };
}

/** The conformance fixture's names (hosts, packages, coders), which server configs list. */
export async function fixtureNames(): Promise<CatalogueNames> {
  const { names } = await loadCatalogueNames(copyFixture("conformance"));
  if (!names) throw new Error("the conformance fixture did not load");
  return names;
}

/**
 * The ports tried for servers that cannot listen on port 0 and say which port they got (nginx,
 * Apache httpd, Caddy, lighttpd). No port is freed and then reused: each is below Linux's ephemeral
 * range (32768 and up), where no port-0 listener or outgoing connection ever gets one; each process
 * starts at a random one and goes up, so parallel workers rarely meet; and a port that turns out to
 * be taken (another process listens there, or the server cannot bind it) is given up for the next.
 */
const PORTS = { first: 20_000, count: 12_000 };
let nextPort = PORTS.first + Math.floor(Math.random() * PORTS.count);

function candidatePort(): number {
  const port = nextPort;
  nextPort = PORTS.first + ((nextPort - PORTS.first + 1) % PORTS.count);
  return port;
}

/** A server that could not listen on its port because another process has it. */
class PortTaken extends Error {}

/** A server process to start on `port`, with the config written for it. */
export type ServerOnPort = (port: number) => { command: string; args: string[]; env?: NodeJS.ProcessEnv };

/** Starts a real server on a port it alone listens on: a taken port is given up for the next one. */
export async function startOnPort(server: ServerOnPort, attempts = 20): Promise<RunningServer> {
  let taken: PortTaken | undefined;
  for (let i = 0; i < attempts; i++) {
    const port = candidatePort();
    if (await canConnect(port)) continue;
    const { command, args, env } = server(port);
    try {
      return await startProcess(command, args, port, env);
    } catch (error) {
      if (!(error instanceof PortTaken)) throw error;
      taken = error;
    }
  }
  throw new Error(`no port found in ${attempts} attempts: ${taken?.message ?? "every one had a listener"}`);
}

/** The inode of the socket listening on 127.0.0.1:`port` (from /proc/net/tcp), if any. */
function listeningSocket(port: number): string | undefined {
  const local = `0100007F:${port.toString(16).toUpperCase().padStart(4, "0")}`;
  for (const line of readFileSync("/proc/net/tcp", "utf8").split("\n").slice(1)) {
    const fields = line.trim().split(/\s+/);
    // local_address, then st: 0A is LISTEN; the inode is the tenth field.
    if (fields[1] === local && fields[3] === "0A") return fields[9];
  }
  return undefined;
}

/** Whether process `pid` holds the socket listening on `port`: the server answering is ours. */
function listensOn(pid: number, port: number): boolean {
  const inode = listeningSocket(port);
  if (!inode) return false;
  try {
    return readdirSync(`/proc/${pid}/fd`).some((fd) => {
      try {
        return readlinkSync(`/proc/${pid}/fd/${fd}`) === `socket:[${inode}]`;
      } catch {
        return false;
      }
    });
  } catch {
    return false;
  }
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

/**
 * Starts a server process and waits until it listens: on `port` when it is a number (and the socket
 * listening there is the process's own), or, given a pattern, on the port its output shows as the
 * pattern's first group (a server told to listen on port 0). Its output is kept for the error message.
 */
export async function startProcess(
  command: string,
  args: string[],
  listen: number | RegExp,
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
  const portNow = () => (typeof listen === "number" ? listen : Number(listen.exec(output)?.[1] ?? NaN));
  let port = portNow();
  while (!(port > 0 && listensOn(child.pid!, port) && (await canConnect(port)))) {
    if (exited || Date.now() > deadline) {
      child.kill("SIGKILL");
      const message = `${command} did not start on port ${typeof listen === "number" ? listen : "0"}:\n${output}`;
      throw exited && /in use|could not bind|EADDRINUSE/i.test(output) ? new PortTaken(message) : new Error(message);
    }
    await new Promise((r) => setTimeout(r, 50));
    port = portNow();
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
