// What the tests of a hostile server share: a server on 127.0.0.1 that answers as the test says, a
// body that never ends, and closing it with its connections.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** Answers 200 with a body that never ends, written as fast as the client reads it, until it hangs up. */
export function endless(res: ServerResponse, type?: string): void {
  res.writeHead(200, type === undefined ? {} : { "content-type": type });
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  let open = true;
  res.once("close", () => (open = false));
  const pump = () => {
    while (open && res.write(chunk));
  };
  res.on("drain", pump);
  pump();
}

/** A server on 127.0.0.1, on a port of its own, and its base URL. */
export async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<[Server, string]> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return [server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`];
}

/** Closes a server and every connection it still has. */
export const close = (server: Server | undefined) =>
  new Promise<void>((resolve) => {
    server?.closeAllConnections();
    server?.close(() => resolve());
    if (!server) resolve();
  });
