// Text the web server configs (nginx, Apache, Caddy, lighttpd) write alike.
import { ALLOWED_METHODS, RESPONSE_HEADERS } from "../../routes/routeTable.js";

/**
 * A value as a double-quoted string. Nothing is escaped because nothing needs it: the root and
 * address are refused if they hold a quote, `\` or `$` (serverOptions.ts), and the rest is ours.
 */
export function quote(value: string): string {
  return `"${value}"`;
}

/** A regex that matches a method the API answers; any other gets 405. */
export const ALLOWED_METHOD_REGEX = `^(?:${ALLOWED_METHODS.join("|")})$`;

/**
 * The headers a server adds to its responses: all but Content-Type, which each server sets by
 * typing every file as JSON (default_type, ForceType, mimetype.assign); adding it as a header too
 * would send it twice.
 */
export function headersExceptContentType(
  headers: Readonly<Record<string, string>> = RESPONSE_HEADERS,
): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => name !== "Content-Type"));
}
