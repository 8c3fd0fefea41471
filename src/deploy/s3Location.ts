// Where a deploy goes: `s3://BUCKET[/PREFIX]`, checked before anything is sent. The prefix becomes
// the start of every key that is written, and of every key `--delete` may remove, so it is held to
// plain path segments: nothing that S3 keeps literally but a reader would take for a parent folder
// (`..`), an absolute path (a leading `/`) or two folders (`a//b`).
import { UsageError } from "../util/errors.js";

export interface S3Location {
  bucket: string;
  /** "" for the whole bucket, else segments joined by `/`, without a leading or trailing `/`. */
  prefix: string;
}

const URL_FORM = /^s3:\/\/([^/]*)(?:\/(.*))?$/s;

/** S3's rules for new general purpose buckets, which S3-compatible stores follow too. */
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
const IP_ADDRESS = /^\d+\.\d+\.\d+\.\d+$/;
const RESERVED_BUCKET_AFFIXES = {
  prefixes: ["xn--", "sthree-", "amzn-s3-demo-"],
  suffixes: ["-s3alias", "--ol-s3", ".mrap", "--x-s3", "--table-s3"],
};
const BUCKET_RULE = "3 to 63 lowercase letters, digits, '.' and '-', starting and ending with a letter or digit";

const SEGMENT = /^[A-Za-z0-9._-]+$/;
/** Far below S3's 1,024-byte key limit, leaving room for the API's own paths. */
const MAX_PREFIX = 512;

export function parseS3Url(value: string): S3Location {
  const match = URL_FORM.exec(value);
  if (!match)
    throw new UsageError(`${JSON.stringify(value)} is not an S3 URL; expected s3://BUCKET or s3://BUCKET/PREFIX`);
  const bucket = match[1]!;
  const why = bucketProblem(bucket);
  if (why) throw new UsageError(`${value}: the bucket name ${JSON.stringify(bucket)} ${why}`);
  return { bucket, prefix: parsePrefix(value, match[2] ?? "") };
}

function bucketProblem(bucket: string): string | undefined {
  if (bucket === "") return "is missing";
  if (!BUCKET.test(bucket)) return `is not valid: a bucket name is ${BUCKET_RULE}`;
  if (bucket.includes("..") || bucket.includes(".-") || bucket.includes("-."))
    return "is not valid: no '.' next to another '.' or a '-'";
  if (IP_ADDRESS.test(bucket)) return "is not valid: it has the form of an IP address";
  const affix =
    RESERVED_BUCKET_AFFIXES.prefixes.find((p) => bucket.startsWith(p)) ??
    RESERVED_BUCKET_AFFIXES.suffixes.find((s) => bucket.endsWith(s));
  return affix === undefined ? undefined : `is not valid: S3 reserves names with ${JSON.stringify(affix)}`;
}

/** The prefix with one trailing `/` allowed: s3://bucket/api/ is s3://bucket/api, s3://bucket/ the whole bucket. */
function parsePrefix(url: string, raw: string): string {
  if (raw === "") return "";
  const prefix = raw.endsWith("/") ? raw.slice(0, -1) : raw;
  const fail = (why: string) => new UsageError(`${url}: the prefix ${JSON.stringify(raw)} ${why}`);
  if (prefix.length > MAX_PREFIX) throw fail(`is longer than ${MAX_PREFIX} characters`);
  for (const segment of prefix.split("/")) {
    if (segment === "") throw fail("has an empty segment (a leading '/' or '//'); write s3://BUCKET/a/b");
    if (segment === "." || segment === "..")
      throw fail(`has a ${JSON.stringify(segment)} segment; name the folder itself`);
    if (!SEGMENT.test(segment)) throw fail("may only hold letters, digits, '.', '_', '-' and '/' between segments");
  }
  return prefix;
}

/** The key of a file of the build (a path such as `v1/hosts`) under the location's prefix. */
export function objectKey(location: S3Location, path: string): string {
  return location.prefix === "" ? path : `${location.prefix}/${path}`;
}

/** What every key of the deploy starts with: "" or the prefix and a `/` (so `api` never matches `api-old/`). */
export function keyPrefix(location: S3Location): string {
  return location.prefix === "" ? "" : `${location.prefix}/`;
}

export function formatS3Url(location: S3Location): string {
  return `s3://${location.bucket}${location.prefix === "" ? "" : `/${location.prefix}`}`;
}
