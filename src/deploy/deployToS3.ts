// Over 300 lines: the deploy's I/O in one place: listing, the last record, the phased uploads and their failures.
// `shopfront deploy`: reads the build, lists the bucket under the prefix, reads the last deploy's
// record, plans (planDeploy.ts), then uploads phase by phase with bounded parallelism, writes the
// new record and, with `delete`, deletes last. The SDK retries throttling (SlowDown, 503), 5xx and
// dropped connections with exponential backoff and jitter; a request that still fails stops the
// deploy with a FailureError that says what failed, and running the same command again finishes it.
// Over 300 lines: it is the deploy's whole I/O (the SDK client, the listing, the record, the phases)
// around the pure plan, and each part is a few lines of SDK calls that read best in sequence.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  DeleteObjectsCommand,
  GetObjectCommand,
  paginateListObjectsV2,
  PutObjectCommand,
  CopyObjectCommand,
  S3Client,
  S3ServiceException,
  type S3ClientConfig,
} from "@aws-sdk/client-s3";
import { FailureError, UsageError } from "../util/errors.js";
import { forEachConcurrently } from "../util/forEachConcurrently.js";
import { RESPONSE_HEADERS } from "../routes/routeTable.js";
import {
  copiesLast,
  DEFAULT_CACHE_CONTROL,
  normalizeEtag,
  parseDeployState,
  planDeploy,
  renderDeployState,
  STATE_FILE,
  type DeployPlan,
  type DeployState,
  type LocalFile,
  type ObjectRecord,
  type RemoteObject,
  type Upload,
} from "./planDeploy.js";
import { readBuild } from "./readBuild.js";
import { checkCacheControl } from "./checkCacheControl.js";
import { formatS3Url, keyPrefix, objectKey, parseS3Url, type S3Location } from "./s3Location.js";

export interface DeployOptions {
  /** `s3://BUCKET[/PREFIX]`. */
  url: string;
  /** The built folder (the `dist` link). */
  dir: string;
  region?: string;
  /** An S3-compatible store's endpoint URL; addressed path-style. */
  endpoint?: string;
  delete?: boolean;
  dryRun?: boolean;
  cacheControl?: string;
  onProgress?: (done: number, total: number) => void;
}

export interface DeployResult {
  location: S3Location;
  plan: DeployPlan;
  dryRun: boolean;
  /** Objects uploaded and the bytes sent (0 in a dry run). */
  uploaded: number;
  bytes: number;
  /**
   * Of the uploaded, the package files copied on the store's side, no bytes sent: onto themselves
   * with new metadata, or from another key that holds their bytes (Upload.copyFrom).
   */
  copied: number;
  deleted: number;
  /** Requests the SDK sent again after throttling, a 5xx or a dropped connection. */
  retries: number;
  /** Whether the bucket held nothing under the prefix before: the deploy is the first there. */
  first: boolean;
}

/** Uploads in flight at once: S3 takes thousands a second per prefix; this keeps a laptop's uplink busy without queueing. */
const CONCURRENCY = 16;
/** The SDK's default is 3; a deploy of thousands of objects meets more throttling than one call. */
const MAX_ATTEMPTS = 6;
/** DeleteObjects takes at most 1,000 keys. */
const DELETE_BATCH = 1000;

function checkEndpoint(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(
      `--endpoint ${JSON.stringify(value)} is not a URL; expected one such as http://127.0.0.1:9000`,
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new UsageError(`--endpoint ${value}: expected an http or https URL`);
  if (url.username || url.password || url.search || url.hash) {
    throw new UsageError(
      `--endpoint ${value}: give the store's base URL without credentials, query or fragment (credentials come from the AWS chain)`,
    );
  }
  return url.href;
}

/** Hints for the store's answers a maintainer can act on. */
const HINTS: Record<string, string> = {
  NoSuchBucket: "create the bucket first (shopfront does not create buckets)",
  AccessDenied:
    "the credentials need s3:ListBucket on the bucket and s3:GetObject, s3:PutObject and s3:DeleteObject on its objects (docs/publishing.md)",
  InvalidAccessKeyId: "the store does not know these credentials",
  SignatureDoesNotMatch: "the secret key does not match the access key",
  BadDigest: "a file changed while it was uploaded (a build running at the same time?); run the deploy again",
};

/** An error of the store or the network as a FailureError naming what failed; anything else is a bug and passes through. */
function storeError(what: string, error: unknown): unknown {
  if (!(error instanceof Error)) return error;
  const attempts = (error as { $metadata?: { attempts?: number } }).$metadata?.attempts ?? 1;
  const tries = attempts > 1 ? ` (tried ${attempts} times)` : "";
  if (error instanceof S3ServiceException) {
    const hint = HINTS[error.name];
    return new FailureError(`${what} failed${tries}: ${error.name}: ${error.message}${hint ? `; ${hint}` : ""}`);
  }
  // The network's own errors (ECONNREFUSED, ECONNRESET, ENOTFOUND, ...), not Node's ERR_* bugs.
  const code = (error as NodeJS.ErrnoException).code;
  if ((typeof code === "string" && /^E[A-Z]+$/.test(code)) || error.name === "TimeoutError") {
    return new FailureError(`${what} failed${tries}: the store could not be reached: ${error.message}`);
  }
  return error;
}

async function resolveClientConfig(client: S3Client): Promise<void> {
  try {
    await client.config.region();
  } catch {
    throw new UsageError("no AWS region: pass --region, or set AWS_REGION or a region in ~/.aws/config");
  }
  try {
    await client.config.credentials();
  } catch (e) {
    throw new FailureError(
      `no AWS credentials (${(e as Error).message}); shopfront reads them like the AWS CLI: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE and ~/.aws, SSO, or the machine's role`,
    );
  }
}

export async function deployToS3(options: DeployOptions): Promise<DeployResult> {
  const location = parseS3Url(options.url);
  const cacheControl = checkCacheControl(options.cacheControl ?? DEFAULT_CACHE_CONTROL);
  const config: S3ClientConfig = {
    maxAttempts: MAX_ATTEMPTS,
    // The SDK's default CRC32 checksums are refused by several S3-compatible stores; every upload
    // carries Content-MD5 instead, which S3 checks (BadDigest) just the same.
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
    ...(options.region ? { region: options.region } : {}),
    ...(options.endpoint
      ? { endpoint: checkEndpoint(options.endpoint), forcePathStyle: true }
      : { followRegionRedirects: true }),
  };
  const build = readBuild(options.dir);
  const client = new S3Client(config);
  try {
    await resolveClientConfig(client);
    return await deployWith(client, { ...options, location, cacheControl, root: build.root, files: build.files });
  } finally {
    client.destroy();
  }
}

interface Deploy extends DeployOptions {
  location: S3Location;
  cacheControl: string;
  root: string;
  files: readonly LocalFile[];
}

async function deployWith(client: S3Client, d: Deploy): Promise<DeployResult> {
  const { location } = d;
  const where = formatS3Url(location);
  let retries = 0;
  const send = async <T extends { $metadata: { attempts?: number } }>(
    what: string,
    call: () => Promise<T>,
  ): Promise<T> => {
    try {
      const output = await call();
      retries += (output.$metadata.attempts ?? 1) - 1;
      return output;
    } catch (error) {
      throw storeError(what, error);
    }
  };

  const remote: RemoteObject[] = [];
  try {
    const prefix = keyPrefix(location);
    for await (const page of paginateListObjectsV2(
      { client },
      { Bucket: location.bucket, ...(prefix ? { Prefix: prefix } : {}) },
    )) {
      retries += (page.$metadata.attempts ?? 1) - 1;
      for (const o of page.Contents ?? []) {
        if (o.Key !== undefined && o.ETag !== undefined && o.LastModified !== undefined)
          remote.push({ key: o.Key, etag: o.ETag, lastModified: o.LastModified });
      }
    }
  } catch (error) {
    throw storeError(`listing ${where}`, error);
  }

  const stateKey = objectKey(location, STATE_FILE);
  const stateObject = remote.find((o) => o.key === stateKey);
  let stateText: string | undefined;
  let state: DeployState | undefined;
  if (stateObject) {
    const got = await send(`reading ${stateKey}`, () =>
      client.send(new GetObjectCommand({ Bucket: location.bucket, Key: stateKey })),
    );
    stateText = await got.Body?.transformToString("utf8");
    state = stateText === undefined ? undefined : parseDeployState(stateText, stateObject.lastModified);
  }

  const plan = planDeploy({
    location,
    files: d.files,
    remote,
    ...(state ? { state } : {}),
    cacheControl: d.cacheControl,
    delete: d.delete ?? false,
  });
  const result: DeployResult = {
    location,
    plan,
    dryRun: d.dryRun ?? false,
    uploaded: 0,
    bytes: 0,
    copied: 0,
    deleted: 0,
    retries,
    first: remote.length === 0,
  };
  if (d.dryRun) return result;

  const uploads = plan.phases.reduce((n, phase) => n + phase.length, 0);
  const total = uploads + plan.deletions.length;
  let done = 0;
  const records = new Map<string, ObjectRecord>(plan.unchanged.map(({ file, record }) => [file.path, record]));
  const upload = async (u: Upload) => {
    if (u.inPlace) return copyObject(u, u.key, `setting the type and lifetime of ${u.key}`);
    if (u.copyFrom !== undefined) return copyObject(u, u.copyFrom, `copying ${u.copyFrom} to ${u.key}`);
    const body = readFileSync(join(d.root, u.path));
    const md5 = Buffer.from(u.md5, "hex").toString("base64");
    const put = await send(`uploading ${u.key}`, () =>
      client.send(
        new PutObjectCommand({
          Bucket: location.bucket,
          Key: u.key,
          Body: body,
          ContentMD5: md5,
          ContentType: u.contentType,
          CacheControl: u.cacheControl,
        }),
      ),
    );
    records.set(u.path, {
      md5: u.md5,
      etag: normalizeEtag(put.ETag ?? u.md5),
      contentType: u.contentType,
      cacheControl: u.cacheControl,
    });
    result.uploaded++;
    result.bytes += u.size;
    d.onProgress?.(++done, total);
  };
  // A package file whose bytes the object at `from` holds (its own key: copied onto itself with the
  // new metadata), copied on the store's side: no bytes sent.
  const copyObject = async (u: Upload, from: string, what: string) => {
    const copy = await send(what, () =>
      client.send(
        new CopyObjectCommand({
          Bucket: location.bucket,
          Key: u.key,
          CopySource: `${location.bucket}/${from.split("/").map(encodeURIComponent).join("/")}`,
          MetadataDirective: "REPLACE",
          ContentType: u.contentType,
          CacheControl: u.cacheControl,
        }),
      ),
    );
    records.set(u.path, {
      md5: u.md5,
      etag: normalizeEtag(copy.CopyObjectResult?.ETag ?? u.md5),
      contentType: u.contentType,
      cacheControl: u.cacheControl,
    });
    result.uploaded++;
    result.copied++;
    d.onProgress?.(++done, total);
  };
  try {
    const written = new Set(plan.phases.flat().map((u) => u.key));
    for (const phase of plan.phases)
      for (const wave of copiesLast(phase, written)) await forEachConcurrently(wave, CONCURRENCY, upload);
  } catch (error) {
    throw withProgress(error, `${result.uploaded} of ${uploads} uploads had finished`);
  }

  // Rewritten after any upload even when its text is the same (an object re-sent with the same
  // bytes and metadata): its new LastModified is what vouches for the objects written before it.
  const nextState = renderDeployState(records);
  if (result.uploaded > 0 || nextState !== stateText) {
    await send(`writing ${stateKey}`, () =>
      client.send(
        new PutObjectCommand({
          Bucket: location.bucket,
          Key: stateKey,
          Body: nextState,
          ContentType: RESPONSE_HEADERS["Content-Type"],
          CacheControl: "no-store",
        }),
      ),
    );
  }

  const prefix = keyPrefix(location);
  for (let i = 0; i < plan.deletions.length; i += DELETE_BATCH) {
    const keys = plan.deletions.slice(i, i + DELETE_BATCH);
    // The planner only deletes under the prefix; this is the last gate before the store.
    const outside = keys.find((key) => !key.startsWith(prefix) || key === stateKey);
    if (outside !== undefined)
      throw new Error(`internal: refusing to delete ${outside}, which is not a file of the deploy under ${where}`);
    const out = await send(`deleting ${keys.length} objects under ${where}`, () =>
      client.send(
        new DeleteObjectsCommand({
          Bucket: location.bucket,
          Delete: { Objects: keys.map((Key) => ({ Key })), Quiet: true },
        }),
      ),
    );
    const failed = out.Errors ?? [];
    result.deleted += keys.length - failed.length;
    if (failed.length > 0) {
      const first = failed[0]!;
      throw new FailureError(
        `deleting under ${where}: ${failed.length} objects were not deleted; the first, ${first.Key}: ${first.Code}: ${first.Message}`,
      );
    }
    done += keys.length;
    d.onProgress?.(done, total);
  }
  result.retries = retries;
  return result;
}

function withProgress(error: unknown, progress: string): unknown {
  if (!(error instanceof FailureError)) return error;
  return new FailureError(
    `${error.message}\n${progress}; nothing was deleted. Run the same command again to finish the deploy.`,
  );
}
