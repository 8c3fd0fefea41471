// The preview server's request log: one line per request, whatever the client does once it has
// its answer. Clients of this API are mostly one-shot downloaders that hang up as soon as the body
// is in (curl does); those requests must be logged like any other.
import fs from "node:fs";
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { servePreview, type PreviewServer } from "../../src/serve/servePreview.js";
import { buildSite } from "../support/servers/common.js";

/** Sends one HTTP/1.1 keep-alive request and hangs up the moment the whole body has arrived. */
function getThenHangUp(base: string, path: string): Promise<number> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let received = Buffer.alloc(0);
    socket.on("error", reject);
    socket.on("data", (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const headEnd = received.indexOf("\r\n\r\n");
      if (headEnd < 0) return;
      const head = received.subarray(0, headEnd).toString("latin1");
      const length = Number(/^content-length:\s*(\d+)/im.exec(head)?.[1] ?? 0);
      if (received.length - headEnd - 4 < length) return;
      socket.destroy();
      resolve(Number(head.split(" ")[1]));
    });
    socket.write(`GET ${path} HTTP/1.1\r\nHost: ${hostname}\r\nConnection: keep-alive\r\n\r\n`);
  });
}

/**
 * Makes the file reads that find end-of-file slow, as on a busy disk: the client then has the whole
 * body and hangs up before the server has read to the end of the file, which is the window in which
 * a hang-up went unlogged. (A client in another process, like curl, hits that window on its own.)
 */
function slowEndOfFile(): () => void {
  const read = fs.read;
  const patched = (...args: unknown[]): void => {
    const callback = args.pop() as (error: Error | null, bytesRead: number, buffer: unknown) => void;
    (read as (...a: unknown[]) => void)(...args, (error: Error | null, bytesRead: number, buffer: unknown) => {
      if (bytesRead === 0) setTimeout(() => callback(error, bytesRead, buffer), 100);
      else callback(error, bytesRead, buffer);
    });
  };
  fs.read = patched as typeof fs.read;
  return () => {
    fs.read = read;
  };
}

async function waitFor(condition: () => boolean): Promise<void> {
  for (let tries = 0; !condition(); tries++) {
    if (tries > 200) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe("the preview server's request log", () => {
  let server: PreviewServer;
  const lines: string[] = [];
  beforeAll(async () => {
    const site = await buildSite();
    server = await servePreview({ dir: site.root, host: "127.0.0.1", port: 0, log: (line) => lines.push(line) });
  });
  afterAll(() => server.close());

  it("logs a request whose client hangs up as soon as it has the body", async () => {
    lines.length = 0;
    const paths = ["/v1/hosts", "/v1/primary/packages", "/v1/primary/package/nope"];
    const statuses: number[] = [];
    const restore = slowEndOfFile();
    try {
      for (const path of paths) statuses.push(await getThenHangUp(server.url, path));
    } finally {
      restore();
    }
    expect(statuses).toEqual([200, 200, 404]);
    await waitFor(() => lines.length >= paths.length);
    expect(lines).toEqual(["GET /v1/hosts 200", "GET /v1/primary/packages 200", "GET /v1/primary/package/nope 404"]);
  });

  it("logs each request of a kept-alive connection once, with its method and status", async () => {
    lines.length = 0;
    const get = await fetch(`${server.url}/v2/primary/packages/`);
    await get.arrayBuffer();
    const head = await fetch(`${server.url}/v1/hosts`, { method: "HEAD" });
    await head.arrayBuffer();
    const post = await fetch(`${server.url}/v1/hosts`, { method: "POST" });
    await post.arrayBuffer();
    await waitFor(() => lines.length >= 3);
    expect(lines).toEqual(["GET /v2/primary/packages/ 200", "HEAD /v1/hosts 200", "POST /v1/hosts 405"]);
  });
});
