// The request `shopfront check` sends before the suite: GET /v1/hosts. A server that cannot be
// reached at all would fail every case with the same network error; this says so once instead.
import { FailureError } from "../util/errors.js";
import { sendRaw, type HttpResponse } from "./runConformance.js";

/** What a network error means, in words a user can act on. */
function describeNetworkError(error: Error, url: URL): string {
  const code = (error as NodeJS.ErrnoException).code;
  const where = url.host;
  switch (code) {
    case "ECONNREFUSED":
      return `connection refused: nothing listens on ${where}`;
    case "ENOTFOUND":
      return `the host name ${url.hostname} was not found (DNS)`;
    case "EAI_AGAIN":
      return `the host name ${url.hostname} could not be looked up (DNS); is this machine online?`;
    case "ETIMEDOUT":
      return `the connection to ${where} timed out`;
    case "EHOSTUNREACH":
    case "ENETUNREACH":
      return `no route to ${where}`;
    case "ECONNRESET":
      return `${where} closed the connection without an answer`;
    default:
      return error.message;
  }
}

/**
 * Sends GET /v1/hosts and returns the answer, whatever its status; throws a FailureError naming
 * the URL and the reason when no answer comes (refused, unknown host, timeout, TLS failure).
 */
export async function reachDeployment(baseUrl: URL): Promise<HttpResponse> {
  try {
    return await sendRaw(baseUrl.href, "GET", "/v1/hosts");
  } catch (error) {
    if (!(error instanceof Error)) throw error;
    throw new FailureError(`cannot reach ${baseUrl.href}: ${describeNetworkError(error, baseUrl)}`);
  }
}
