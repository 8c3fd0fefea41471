// netlify-redirector ships Netlify's redirect engine as WebAssembly, without types: the part the
// tests use, as `netlify dev` called it.
declare module "netlify-redirector" {
  export interface MatchRequest {
    scheme: string;
    host: string;
    /** The decoded path. */
    path: string;
    /** The query string as sent, without "?". */
    query: string;
    getHeader(name: string): string;
    getCookie(name: string): string;
  }
  export interface Match {
    from: string;
    to: string;
    status: number;
    force: boolean;
  }
  export interface Matcher {
    match(request: MatchRequest): Match | null;
  }
  export function parsePlain(rules: string, options: Record<string, never>): Promise<Matcher>;
}
