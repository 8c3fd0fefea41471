// What a client remembers of each deployment it verified (`verify --state FILE`, docs/trust.md): the
// largest revision it accepted, the SHA-256 of that entry.json and the key that signed it. An index
// whose revision is smaller (a replayed or frozen copy, however well signed and unexpired), or of the
// same revision with other bytes, or signed by another key, or unsigned where a key signed before, is
// refused, as TUF's and apt's clients refuse a rollback. checkRemembered and remember are pure;
// readTrustState and writeTrustState do the I/O.
import { existsSync, readFileSync } from "node:fs";
import { FailureError } from "../util/errors.js";
import { writeAtomically } from "../util/writeAtomically.js";

/** The state file's format number: a file of another is refused, never overwritten. */
export const TRUST_STATE_FORMAT = 1;

/** What was accepted of one deployment. */
export interface Remembered {
  revision: number;
  /** entry.json's SHA-256 at that revision. */
  entrySha256: string;
  /** The signing key's id (hex) and the key itself (minisign.pub's second line). */
  keyId: string;
  publicKey: string;
  /** When it was accepted, ISO 8601 in UTC. */
  acceptedAt: string;
}

export interface TrustState {
  format: typeof TRUST_STATE_FORMAT;
  /** By deployment, its base URL without a trailing slash. */
  deployments: Record<string, Remembered>;
}

/** What a verify run saw of a deployment's entry, once its signature held (or that it has none). */
export interface Seen {
  revision: number;
  entrySha256: string;
  /** Undefined for an unsigned entry. */
  key?: { keyId: string; publicKey: string };
}

/** The name a deployment is remembered by: its base URL as a URL, without a trailing slash. */
export function deploymentId(url: string): string {
  return new URL(url).href.replace(/\/+$/, "");
}

export function emptyTrustState(): TrustState {
  return { format: TRUST_STATE_FORMAT, deployments: {} };
}

/** Why what was seen is refused against what was remembered, or undefined when it may be accepted. */
export function checkRemembered(remembered: Remembered | undefined, seen: Seen): string | undefined {
  if (remembered === undefined) return undefined;
  const since = `accepted at ${remembered.acceptedAt}`;
  if (seen.key === undefined)
    return `the index is unsigned, but key ${remembered.keyId} signed revision ${remembered.revision} (${since})`;
  if (seen.key.publicKey !== remembered.publicKey)
    return `signed by key ${seen.key.keyId}, not ${remembered.keyId}, which signed revision ${remembered.revision} (${since}); if the store changed its key, remove its entry from the state file`;
  if (seen.revision < remembered.revision)
    return `revision ${seen.revision} is older than revision ${remembered.revision} (${since}): a replayed or frozen copy of an older index`;
  if (seen.revision === remembered.revision && seen.entrySha256 !== remembered.entrySha256)
    return `revision ${seen.revision} has other bytes than the entry.json of the same revision ${since}: a revision is never signed twice`;
  return undefined;
}

/** The state with `seen` remembered for `id` (a signed entry that checkRemembered accepted). */
export function remember(state: TrustState, id: string, seen: Seen & { key: object }, nowMs: number): TrustState {
  const before = state.deployments[id];
  if (before && before.revision === seen.revision) return state;
  const record: Remembered = {
    revision: seen.revision,
    entrySha256: seen.entrySha256,
    keyId: seen.key.keyId,
    publicKey: seen.key.publicKey,
    acceptedAt: new Date(nowMs).toISOString(),
  };
  return { ...state, deployments: { ...state.deployments, [id]: record } };
}

function isRemembered(value: unknown): value is Remembered {
  const r = value as Remembered;
  return (
    typeof r === "object" &&
    r !== null &&
    Number.isSafeInteger(r.revision) &&
    typeof r.entrySha256 === "string" &&
    /^[0-9a-f]{64}$/.test(r.entrySha256) &&
    typeof r.keyId === "string" &&
    typeof r.publicKey === "string" &&
    typeof r.acceptedAt === "string"
  );
}

/** The state a file holds; what is wrong with it as a string. */
export function parseTrustState(text: string): TrustState | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return "not JSON";
  }
  const state = value as Partial<TrustState>;
  if (typeof state !== "object" || state === null || state.format !== TRUST_STATE_FORMAT)
    return `not a shopfront verify state of format ${TRUST_STATE_FORMAT}`;
  if (typeof state.deployments !== "object" || state.deployments === null) return "deployments is not an object";
  const bad = Object.entries(state.deployments).find(([, r]) => !isRemembered(r));
  if (bad) return `the entry of ${bad[0]} is not {revision, entrySha256, keyId, publicKey, acceptedAt}`;
  return state as TrustState;
}

/** The state file's state: empty when there is no such file; a file that is not one is a FailureError. */
export function readTrustState(file: string): TrustState {
  if (!existsSync(file)) return emptyTrustState();
  const parsed = parseTrustState(readFileSync(file, "utf8"));
  if (typeof parsed === "string")
    throw new FailureError(`${file}: ${parsed}; it is left as it is (another file, or move it away to start again)`);
  return parsed;
}

export function writeTrustState(file: string, state: TrustState): void {
  writeAtomically(file, `${JSON.stringify(state, null, 2)}\n`);
}
