// The HTTP side of the edge emulations: a server on 127.0.0.1 that hands each raw request to an
// emulated platform and writes back what it answers, so the conformance suite can run against it.
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import type { RunningServer } from "../servers/common.js";

export interface EmulatedResponse {
  status: number;
  headers: Record<string, string>;
  body: Uint8Array;
}

export function listen(answer: (req: IncomingMessage) => Promise<EmulatedResponse>): Promise<RunningServer> {
  const server = createServer((req, res) => {
    answer(req).then(
      ({ status, headers, body }) => {
        res.writeHead(status, headers);
        // A HEAD answer has the headers of the GET and no body, whatever the platform produced.
        res.end(req.method === "HEAD" ? undefined : body);
      },
      (error: Error) => {
        res.writeHead(500, { "content-type": "text/plain" });
        res.end(`emulation failed: ${error.stack}`);
      },
    );
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}`,
        stop: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
