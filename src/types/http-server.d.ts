// The part of http-server 14.1.1 that shopfront uses. (Its DefinitelyTyped types say createServer
// returns an http.Server; it returns an HttpServer that wraps one.)
declare module "http-server" {
  import type { IncomingMessage, Server, ServerResponse } from "node:http";

  /** union's response wrapper; `response` is the real ServerResponse. */
  export interface UnionResponse {
    response: ServerResponse;
    emit(event: "next"): boolean;
  }

  export type BeforeHandler = (req: IncomingMessage, res: UnionResponse) => void;

  export interface Options {
    root: string;
    /** Seconds, or -1 for no-cache. */
    cache?: number;
    /** Compared with the string "false". */
    showDir?: "false";
    autoIndex?: "false";
    showDotfiles?: boolean;
    before?: BeforeHandler[];
  }

  export interface HttpServer {
    server: Server;
    listen(port: number, host: string, callback: () => void): void;
    close(): void;
  }

  export function createServer(options: Options): HttpServer;
}
