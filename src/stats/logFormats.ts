// Over 300 lines: one short hand-written parser per log format, kept beside the others it is compared with.
// Access log lines -> requests, one parser per log format, and which format a log is in. Parsers are
// hand-written scans rather than one regular expression per line: a gigabyte of log is millions of
// lines, and a scan that only slices the fields it needs is several times faster.
//
// The layouts follow their documentation:
// - combined: nginx's `log_format combined` (https://nginx.org/en/docs/http/ngx_http_log_module.html)
//   and Apache's "%h %l %u %t \"%r\" %>s %b \"%{Referer}i\" \"%{User-agent}i\""
//   (https://httpd.apache.org/docs/current/logs.html#combined); the Common Log Format (no referer,
//   no user agent) and fields appended after the user agent are accepted too.
// - s3: Amazon S3 server access logs (https://docs.aws.amazon.com/AmazonS3/latest/userguide/LogFormat.html),
//   space-separated, with fields added at the end over the years.
// - cloudfront: CloudFront standard logs
//   (https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/standard-logs-reference.html),
//   W3C extended: tab-separated, columns named by the `#Fields:` header.
import { escapeNonAscii } from "../util/asciiJson.js";

export const LOG_FORMATS = ["combined", "s3", "cloudfront"] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** What the counting needs of one logged request. */
export interface LogRequest {
  /** GET, HEAD, ...; for S3, the verb of an object operation, else the whole operation (REST.GET.ACL). */
  method: string;
  /** The request target as logged: percent-encoded, perhaps with a query string; "" when unreadable. */
  path: string;
  status: number;
  /** The client's address. */
  client: string;
  /** "" when the log has none. */
  userAgent: string;
}

/** A comment or header line (no request, not an error). */
export const COMMENT = "comment";

/** A line the format cannot read, and why. */
export interface BadLine {
  bad: string;
}

export type ParsedLine = LogRequest | BadLine | typeof COMMENT;

export type LineParser = (line: string) => ParsedLine;

export function isBadLine(parsed: ParsedLine): parsed is BadLine {
  return typeof parsed === "object" && "bad" in parsed;
}

const SPACE = 0x20;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;

/**
 * The index just past the field that starts at `start`: a "quoted" field (Apache escapes `"` as
 * `\"`, nginx as `\x22`), a [bracketed] one, or a run of non-spaces. -1 when a quote or bracket is
 * not closed.
 */
function fieldEnd(line: string, start: number): number {
  const first = line.charCodeAt(start);
  if (first === QUOTE) {
    let from = start + 1;
    for (;;) {
      const quote = line.indexOf('"', from);
      if (quote < 0) return -1;
      let backslashes = 0;
      while (line.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes++;
      if (backslashes % 2 === 0) return quote + 1;
      from = quote + 1;
    }
  }
  if (first === OPEN_BRACKET) {
    const close = line.indexOf("]", start);
    return close < 0 ? -1 : close + 1;
  }
  const space = line.indexOf(" ", start);
  return space < 0 ? line.length : space;
}

/** Reads consecutive space-separated fields. */
class FieldReader {
  pos = 0;
  constructor(readonly line: string) {}

  /** The next field's [start, end), or a reason it cannot be read. */
  next(): [number, number] | string {
    if (this.pos >= this.line.length) return "too few fields";
    const start = this.pos;
    const end = fieldEnd(this.line, start);
    if (end < 0) return this.line.charCodeAt(start) === QUOTE ? "a quote is not closed" : "a bracket is not closed";
    if (end < this.line.length && this.line.charCodeAt(end) !== SPACE) return "a quoted field runs into the next";
    this.pos = end + 1;
    return [start, end];
  }

  /** The next field, which must be quoted, without its quotes and unescaped. */
  quoted(): string | BadLine {
    const field = this.next();
    if (typeof field === "string") return { bad: field };
    const [start, end] = field;
    if (this.line.charCodeAt(start) !== QUOTE) return { bad: "a field that should be quoted is not" };
    return unescapeField(this.line.slice(start + 1, end - 1));
  }

  /** Skips `n` fields; a reason when there are fewer. */
  skip(n: number): string | undefined {
    for (let i = 0; i < n; i++) {
      const field = this.next();
      if (typeof field === "string") return field;
    }
    return undefined;
  }
}

/**
 * A quoted field's text: `\"` and `\\` (Apache) and `\xHH` (both servers, for control characters,
 * `"`, `\` and, in nginx, bytes over 0x7f) undone. Escaped bytes are read back as UTF-8.
 */
export function unescapeField(text: string): string {
  if (!text.includes("\\")) return text;
  const bytes: number[] = [];
  const flush = (out: string[]) => {
    if (bytes.length > 0) out.push(Buffer.from(bytes).toString("utf8"));
    bytes.length = 0;
  };
  const out: string[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === "\\" && text[i + 1] === "x" && /^[0-9A-Fa-f]{2}$/.test(text.slice(i + 2, i + 4))) {
      bytes.push(parseInt(text.slice(i + 2, i + 4), 16));
      i += 3;
      continue;
    }
    flush(out);
    if (c === "\\" && (text[i + 1] === '"' || text[i + 1] === "\\")) {
      out.push(text[i + 1]!);
      i++;
    } else out.push(c);
  }
  flush(out);
  return out.join("");
}

/** `GET /path HTTP/1.1` -> method and target; a request line that is `-` or junk has no target. */
function splitRequestLine(request: string): { method: string; path: string } {
  const space = request.indexOf(" ");
  if (space < 0) return { method: request, path: "" };
  const end = request.indexOf(" ", space + 1);
  return { method: request.slice(0, space), path: request.slice(space + 1, end < 0 ? request.length : end) };
}

const DIGIT_0 = 0x30;

/** The three-digit status at line[start, end), or NaN. */
function statusAt(line: string, start: number, end: number): number {
  if (end - start !== 3) return NaN;
  let status = 0;
  for (let i = start; i < end; i++) {
    const digit = line.charCodeAt(i) - DIGIT_0;
    if (digit < 0 || digit > 9) return NaN;
    status = status * 10 + digit;
  }
  return status;
}

/**
 * `$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer"
 * "$http_user_agent"`, and anything after. The user is found by the time's bracket rather than by
 * counting fields, since Apache logs a user name as sent, spaces included.
 */
export function parseCombinedLine(line: string): ParsedLine {
  const addressEnd = line.indexOf(" ");
  if (addressEnd <= 0) return { bad: "too few fields" };
  const timeStart = line.indexOf(" [", addressEnd);
  if (timeStart < 0) return { bad: "no [time] field" };
  const reader = new FieldReader(line);
  reader.pos = timeStart + 1;
  const skipped = reader.skip(1);
  if (skipped) return { bad: skipped };
  const request = reader.quoted();
  if (typeof request !== "string") return request;
  const status = reader.next();
  if (typeof status === "string") return { bad: status };
  const code = statusAt(line, status[0], status[1]);
  if (Number.isNaN(code)) return { bad: "the status is not a number" };
  const bytes = reader.skip(1);
  if (bytes) return { bad: bytes };
  let userAgent = "";
  if (reader.pos < line.length) {
    const referer = reader.quoted();
    if (typeof referer !== "string") return referer;
    const agent = reader.quoted();
    if (typeof agent !== "string") return agent;
    userAgent = agent;
  }
  // Built field by field: an object spread here made the whole parse five times slower.
  const { method, path } = splitRequestLine(request);
  return { method, path, status: code, client: line.slice(0, addressEnd), userAgent };
}

/**
 * Bucket owner, bucket, [time], remote IP, requester, request ID, operation, key, "Request-URI",
 * HTTP status, error code, bytes sent, object size, total time, turn-around time, "Referer",
 * "User-Agent", then fields S3 has added since (version ID, host ID, signature version, ...), which
 * are ignored. The path is the Request-URI's, as the client sent it (the key field is encoded twice
 * for most operations). Only object operations have a method: REST.GET.OBJECT and
 * WEBSITE.GET.OBJECT are GETs, REST.GET.ACL is not.
 */
export function parseS3Line(line: string): ParsedLine {
  const reader = new FieldReader(line);
  const owner = reader.skip(2);
  if (owner) return { bad: owner };
  const time = reader.next();
  if (typeof time === "string") return { bad: time };
  if (line.charCodeAt(time[0]) !== OPEN_BRACKET) return { bad: "no [time] field" };
  const remote = reader.next();
  if (typeof remote === "string") return { bad: remote };
  const skipped = reader.skip(2);
  if (skipped) return { bad: skipped };
  const operationField = reader.next();
  if (typeof operationField === "string") return { bad: operationField };
  const operation = line.slice(operationField[0], operationField[1]);
  const parts = operation.split(".");
  if (parts.length < 3)
    return { bad: `the operation ${escapeNonAscii(JSON.stringify(operation.slice(0, 40)))} is not one of S3's` };
  const key = reader.skip(1);
  if (key) return { bad: key };
  const request = reader.quoted();
  if (typeof request !== "string") return request;
  const status = reader.next();
  if (typeof status === "string") return { bad: status };
  // Operations S3 runs itself (lifecycle expiry) have no HTTP status: "-".
  const code = line.slice(status[0], status[1]) === "-" ? 0 : statusAt(line, status[0], status[1]);
  if (Number.isNaN(code)) return { bad: "the status is not a number" };
  const middle = reader.skip(5);
  if (middle) return { bad: middle };
  const referer = reader.quoted();
  if (typeof referer !== "string") return referer;
  const userAgent = reader.quoted();
  if (typeof userAgent !== "string") return userAgent;
  const isObject = parts.length === 3 && parts[2] === "OBJECT";
  return {
    method: isObject ? parts[1]! : operation,
    path: splitRequestLine(request).path,
    status: code,
    client: line.slice(remote[0], remote[1]),
    userAgent: userAgent === "-" ? "" : userAgent,
  };
}

const CLOUDFRONT_COLUMNS = {
  client: "c-ip",
  method: "cs-method",
  path: "cs-uri-stem",
  status: "sc-status",
  userAgent: "cs(User-Agent)",
} as const;

/** CloudFront URL-encodes some fields (the user agent's spaces are %20); a bad escape leaves the text as it is. */
function decodeLenient(text: string): string {
  if (!text.includes("%")) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    // A malformed escape in a log line: the path is counted as written.
    return text;
  }
}

/**
 * A parser for one CloudFront log: tab-separated values whose columns the last `#Fields:` line
 * names (a log may be several files joined, each with its header). Data before any `#Fields:` line
 * is bad: the columns are whatever the distribution was set to log.
 */
export function cloudFrontParser(): LineParser {
  let columns: Record<keyof typeof CLOUDFRONT_COLUMNS, number> | undefined;
  let needed = 0;
  return (line) => {
    if (line.startsWith("#")) {
      if (line.startsWith("#Fields:")) {
        const names = line.slice("#Fields:".length).trim().split(/\s+/);
        const indexes = Object.entries(CLOUDFRONT_COLUMNS).map(([key, name]) => [key, names.indexOf(name)] as const);
        columns = indexes.every(([, i]) => i >= 0)
          ? (Object.fromEntries(indexes) as Record<keyof typeof CLOUDFRONT_COLUMNS, number>)
          : undefined;
        needed = Math.max(...indexes.map(([, i]) => i)) + 1;
      }
      return COMMENT;
    }
    if (!columns) return { bad: "no #Fields: line naming c-ip, cs-method, cs-uri-stem, sc-status and cs(User-Agent)" };
    const values = line.split("\t");
    if (values.length < needed) return { bad: "too few fields" };
    const statusText = values[columns.status]!;
    const status = statusAt(statusText, 0, statusText.length);
    if (Number.isNaN(status)) return { bad: "the status is not a number" };
    const userAgent = values[columns.userAgent]!;
    return {
      method: values[columns.method]!,
      path: values[columns.path]!,
      status,
      client: values[columns.client]!,
      userAgent: userAgent === "-" ? "" : decodeLenient(userAgent),
    };
  };
}

/** A fresh parser for a log of `format` (CloudFront's remembers the columns its header named). */
export function lineParserFor(format: LogFormat): LineParser {
  if (format === "cloudfront") return cloudFrontParser();
  return format === "s3" ? parseS3Line : parseCombinedLine;
}

/**
 * The format of a log, from one of its first lines: a W3C header is CloudFront's, a line S3's
 * parser reads is S3's (its third field is the time, where combined has the user), one the
 * combined parser reads is combined. Undefined when the line is none of them.
 */
export function detectFormat(line: string): LogFormat | undefined {
  if (line.startsWith("#Version:") || line.startsWith("#Fields:")) return "cloudfront";
  if (!isBadLine(parseS3Line(line))) return "s3";
  if (!isBadLine(parseCombinedLine(line))) return "combined";
  return undefined;
}
