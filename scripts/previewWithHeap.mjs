// @ts-check
// The preview server as `shopfront serve` runs it (the compiled code, logging every request to
// stdout), in a process started with --expose-gc that answers "heap" over IPC with the JavaScript
// heap still alive after a full garbage collection: a load test can then tell a leak from V8 growing
// its heap to the load. (Memory outside the heap, such as socket buffers, is freed too lazily to
// measure; a leaked Buffer still leaves its object on the heap.)
import { servePreview } from "../lib/serve/servePreview.js";

const server = await servePreview({
  dir: process.argv[2] ?? "dist",
  host: "127.0.0.1",
  port: 0,
  log: (line) => process.stdout.write(`${line}\n`),
});
process.send?.({ url: server.url });
process.on("message", (message) => {
  if (message === "heap") {
    /** @type {() => void} */ (globalThis.gc)();
    process.send?.({ heapMb: process.memoryUsage().heapUsed / 2 ** 20 });
  } else if (message === "stop") void server.close().then(() => process.exit(0));
});
