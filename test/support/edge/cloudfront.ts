// S3 + CloudFront, emulated just enough to run the conformance suite against the generated CloudFront
// Function without an AWS account. What it takes from the CloudFront Developer Guide:
// - The viewer-request event ("CloudFront Functions event structure"): request.method; request.uri
//   and query values as the viewer sent them, percent-encoding kept ("URI, query string, and headers
//   encoding": UTF-8 values reach the function unchanged); one querystring field per name, whose
//   multiValue lists every value when the name repeats; header names in lower case.
// - The runtime ("JavaScript runtime 2.0 features"): strict mode, no Node globals. The function runs
//   in a fresh node:vm context; test/servers/cloudfront.test.ts checks its syntax against the documented list.
// - A returned request goes to the origin with the function's uri; a returned response goes to the
//   viewer as it is, with no custom error page ("Status code and body").
// - S3 without s3:ListBucket: the object's bytes with the Content-Type it was uploaded with (the
//   deploy sets contentTypeOf's: the API's JSON, a site file's type by its extension, a package
//   file's) and the Cache-Control it was uploaded with (servedCacheControlOf's: a package file's lifetime, else the deploy's default short one); 403 for a missing key.
// - The distribution's CustomErrorResponses (CUSTOM_ERROR_RESPONSES): an origin 403 or 404 becomes
//   the ResponsePagePath object, fetched from the origin, with the ResponseCode.
// - The response headers policy (CORS-and-SecurityHeadersPolicy): Access-Control-Allow-Origin and
//   X-Content-Type-Options on origin responses. Responses the function makes keep only its own headers.
import type { IncomingMessage } from "node:http";
import { createContext, runInContext } from "node:vm";
import { contentTypeOf, servedCacheControlOf } from "../../../src/routes/routeTable.js";
import { CUSTOM_ERROR_RESPONSES } from "../../../src/targets/cloudfront.js";
import { readTree } from "../helpers.js";
import type { RunningServer, Site } from "../servers/common.js";
import { listen, type EmulatedResponse } from "./listen.js";

interface Field {
  value: string;
  multiValue?: { value: string }[];
}

export interface ViewerRequest {
  method: string;
  uri: string;
  querystring: Record<string, Field>;
  headers: Record<string, Field>;
  cookies: Record<string, Field>;
}

interface FunctionResponse {
  statusCode: number;
  headers?: Record<string, { value: string }>;
  body?: string | { encoding: "text" | "base64"; data: string };
}

export type Handler = (event: {
  version: "1.0";
  context: { eventType: "viewer-request" };
  viewer: { ip: string };
  request: ViewerRequest;
}) => ViewerRequest | FunctionResponse;

/** Loads the function's code as CloudFront runs it: strict mode, nothing but the language's own globals. */
export function loadFunction(code: string): Handler {
  return runInContext(`"use strict";\n${code}\nhandler;`, createContext({})) as Handler;
}

function addField(fields: Record<string, Field>, name: string, value: string): void {
  const field = fields[name];
  if (!field) fields[name] = { value };
  else field.multiValue = [...(field.multiValue ?? [{ value: field.value }]), { value }];
}

/** The viewer-request event's request for a raw request-target. */
export function viewerRequest(method: string, target: string, headers: Record<string, string> = {}): ViewerRequest {
  const mark = target.indexOf("?");
  const querystring: Record<string, Field> = {};
  for (const pair of mark < 0 ? [] : target.slice(mark + 1).split("&")) {
    if (pair === "") continue;
    const eq = pair.indexOf("=");
    addField(querystring, eq < 0 ? pair : pair.slice(0, eq), eq < 0 ? "" : pair.slice(eq + 1));
  }
  const fields: Record<string, Field> = {};
  for (const [name, value] of Object.entries(headers)) addField(fields, name.toLowerCase(), value);
  return { method, uri: mark < 0 ? target : target.slice(0, mark), querystring, headers: fields, cookies: {} };
}

function bodyBytes(body: FunctionResponse["body"]): Uint8Array {
  if (body === undefined) return new Uint8Array();
  if (typeof body === "string") return Buffer.from(body);
  return Buffer.from(body.data, body.encoding === "base64" ? "base64" : "utf8");
}

/** The generated function in front of an S3 bucket holding the built folder. */
export function startCloudFront(site: Site, code: string): Promise<RunningServer> {
  const handler = loadFunction(code);
  const bucket = readTree(site.root);

  const s3 = (uri: string): EmulatedResponse => {
    let key: string;
    try {
      key = decodeURIComponent(uri.slice(1));
    } catch {
      key = "";
    }
    const object = bucket.get(key);
    if (!object)
      return {
        status: 403,
        headers: { "content-type": "application/xml" },
        body: Buffer.from("<Error><Code>AccessDenied</Code></Error>"),
      };
    return {
      status: 200,
      headers: {
        "content-type": contentTypeOf(key),
        "content-length": String(object.length),
        "cache-control": servedCacheControlOf(key),
      },
      body: object,
    };
  };

  const origin = (uri: string): EmulatedResponse => {
    let res = s3(uri);
    const mapping = CUSTOM_ERROR_RESPONSES.Items.find((item) => item.ErrorCode === res.status);
    if (mapping) res = { ...s3(mapping.ResponsePagePath), status: Number(mapping.ResponseCode) };
    return {
      ...res,
      headers: { ...res.headers, "access-control-allow-origin": "*", "x-content-type-options": "nosniff" },
    };
  };

  return listen(async (req: IncomingMessage) => {
    const headers = Object.fromEntries(Object.entries(req.headers).map(([name, value]) => [name, String(value)]));
    const result = handler({
      version: "1.0",
      context: { eventType: "viewer-request" },
      viewer: { ip: "127.0.0.1" },
      request: viewerRequest(req.method ?? "GET", req.url ?? "/", headers),
    });
    if ("statusCode" in result) {
      const out: Record<string, string> = {};
      for (const [name, { value }] of Object.entries(result.headers ?? {})) out[name] = value;
      return { status: result.statusCode, headers: out, body: bodyBytes(result.body) };
    }
    return origin(result.uri);
  });
}
