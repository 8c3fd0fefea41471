// The build's one JSON escaping rule, for every file it writes and every answer computed at request
// time. escapeNonAscii is embedded verbatim (its source text) in the edge functions that answer a
// search (targets/shared/edgeRouter.ts), so it is written in the JavaScript CloudFront Functions accept.

/**
 * JSON text with every character outside printable ASCII escaped as \uXXXX, as Python's ensure_ascii
 * does: the bytes then decode the same whatever charset a host claims. The build's one escaping rule.
 */
export function escapeNonAscii(json: string): string {
  return /[^\x20-\x7e]/.test(json)
    ? json.replace(/[\u007f-\uffff]/g, (c) => `\\u${`000${c.charCodeAt(0).toString(16)}`.slice(-4)}`)
    : json;
}

/** A value as compact JSON, escaped by escapeNonAscii. */
export function asciiJson(value: unknown): string {
  return escapeNonAscii(JSON.stringify(value));
}
