// A local S3-compatible store for the deploy tests (s3rver on 127.0.0.1, keeping its objects in a
// folder, so a stopped store can be started again with the same bucket), and a proxy in front of it
// that can answer with throttling or 5xx errors, record the requests, or stop like a dead server.
import { createServer, request, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { S3Client } from "@aws-sdk/client-s3";
import { ROOT, tempDir } from "../helpers.js";
import { startProcess, type RunningServer } from "./common.js";

export const TEST_BUCKET = "shopfront-test";

/**
 * s3rver's fixed account, as the standard AWS chain reads it from the environment; and nothing
 * else for the chain to find: no config files of this machine, no instance metadata service.
 */
export const S3_ENV = {
  AWS_ACCESS_KEY_ID: "S3RVER",
  AWS_SECRET_ACCESS_KEY: "S3RVER",
  AWS_REGION: "us-east-1",
  AWS_CONFIG_FILE: "/nonexistent/shopfront-test/config",
  AWS_SHARED_CREDENTIALS_FILE: "/nonexistent/shopfront-test/credentials",
  AWS_EC2_METADATA_DISABLED: "true",
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
} as const;

export interface S3Store extends RunningServer {
  /** The folder that holds the objects. */
  dir: string;
}

/** Starts s3rver with the test bucket; `dir` from a stopped store brings its objects back. */
export async function startS3Store(dir = tempDir("shopfront-s3-")): Promise<S3Store> {
  const bin = join(ROOT, "node_modules", "s3rver", "bin", "s3rver.js");
  // s3rver 3.7.1 encrypts ListObjectsV2 continuation tokens with DES, which OpenSSL 3 (Node 17 and
  // later) keeps in its legacy provider: https://github.com/jamhall/s3rver/issues/818
  const args = [
    "--openssl-legacy-provider",
    bin,
    "-d",
    dir,
    "-a",
    "127.0.0.1",
    "-p",
    "0",
    "-s",
    "--configure-bucket",
    TEST_BUCKET,
  ];
  // Port 0: the system picks a free port, and s3rver says which.
  return { ...(await startProcess(process.execPath, args, /^S3rver listening on 127\.0\.0\.1:(\d+)$/m)), dir };
}

/** A client for the test's own reads and writes, as another tool would make them. */
export function storeClient(url: string): S3Client {
  return new S3Client({
    endpoint: url,
    forcePathStyle: true,
    region: S3_ENV.AWS_REGION,
    credentials: { accessKeyId: S3_ENV.AWS_ACCESS_KEY_ID, secretAccessKey: S3_ENV.AWS_SECRET_ACCESS_KEY },
  });
}

/** What the proxy does with a request: pass it on, answer with an S3 error, or stop for good. */
export type Fault = undefined | { status: number; code: string } | "stop";

export interface RecordedRequest {
  method: string;
  /** The key, for requests on an object; "" for requests on the bucket (listing, DeleteObjects). */
  key: string;
}

export interface FaultProxy {
  url: string;
  /** Every request that reached the proxy, in order of arrival. */
  requests: RecordedRequest[];
  close(): Promise<void>;
}

function keyOf(req: IncomingMessage): string {
  const path = new URL(req.url ?? "/", "http://proxy").pathname;
  return decodeURIComponent(path.split("/").slice(2).join("/"));
}

/**
 * A proxy to `upstream`. `fault` sees each request with its number (1-based) among requests of its
 * method. "stop" cuts every connection and stops listening, as a server that dies does: that
 * request and every later one fail to connect.
 */
export async function startFaultProxy(
  upstream: string,
  fault: (req: RecordedRequest, n: number) => Fault = () => undefined,
): Promise<FaultProxy> {
  const requests: RecordedRequest[] = [];
  const counts = new Map<string, number>();
  const target = new URL(upstream);
  const server = createServer((req, res) => {
    const recorded = { method: req.method ?? "", key: keyOf(req) };
    requests.push(recorded);
    const n = (counts.get(recorded.method) ?? 0) + 1;
    counts.set(recorded.method, n);
    const action = fault(recorded, n);
    if (action === "stop") {
      server.close();
      server.closeAllConnections();
      return;
    }
    if (action) {
      req.resume();
      res.writeHead(action.status, { "content-type": "application/xml" });
      res.end(
        `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${action.code}</Code><Message>injected by the test proxy</Message></Error>`,
      );
      return;
    }
    // The Host header goes on unchanged: it is part of the request's signature.
    const forward = request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on("error", () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        if (!server.listening) return resolve();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
