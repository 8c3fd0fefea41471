// minisign's public key and signature formats (https://jedisct1.github.io/minisign/), made and
// checked with node:crypto's Ed25519. A signature is of the file's BLAKE2b-512 ("ED", what minisign
// 0.11 makes and verifies by default), and its global signature covers the signature and the
// trusted comment. The secret key is shopfront's own text format (docs/trust.md): minisign's checks
// its key with BLAKE2b-256, which node:crypto does not have.
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  randomBytes,
  sign,
  verify,
} from "node:crypto";
import type { KeyObject } from "node:crypto";

/** Ed25519, as minisign names it in a key. */
const KEY_ALGORITHM = "Ed";
/** A signature of the file's BLAKE2b-512. */
const HASHED_ALGORITHM = "ED";
/** A signature of the file's bytes themselves (minisign -l, the legacy format). */
const LEGACY_ALGORITHM = "Ed";
const UNTRUSTED = "untrusted comment: ";
const TRUSTED = "trusted comment: ";
const SECRET_KEY_COMMENT = "shopfront secret key";

export interface PublicKey {
  /** The 8 bytes that name the key in its signatures. */
  keyId: Buffer;
  /** The Ed25519 public key, 32 bytes. */
  key: Buffer;
}

export interface SecretKey extends PublicKey {
  /** The Ed25519 seed, 32 bytes. */
  seed: Buffer;
}

/** A key's id as minisign prints it: the 8 bytes as a little-endian number, in uppercase hex. */
export function keyIdHex(keyId: Buffer): string {
  return Buffer.from(keyId).reverse().toString("hex").toUpperCase();
}

function publicKeyObject(key: Buffer): KeyObject {
  return createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: key.toString("base64url") }, format: "jwk" });
}

function privateKeyObject(secret: SecretKey): KeyObject {
  return createPrivateKey({
    key: { kty: "OKP", crv: "Ed25519", d: secret.seed.toString("base64url"), x: secret.key.toString("base64url") },
    format: "jwk",
  });
}

/** A new key pair with a random key id. */
export function generateSecretKey(): SecretKey {
  const { privateKey } = generateKeyPairSync("ed25519");
  const jwk = privateKey.export({ format: "jwk" });
  return { keyId: randomBytes(8), seed: Buffer.from(jwk.d!, "base64url"), key: Buffer.from(jwk.x!, "base64url") };
}

/** The public key file, as minisign -G writes it. */
export function formatPublicKey(key: PublicKey): string {
  const bytes = Buffer.concat([Buffer.from(KEY_ALGORITHM), key.keyId, key.key]);
  return `${UNTRUSTED}minisign public key ${keyIdHex(key.keyId)}\n${bytes.toString("base64")}\n`;
}

/** The secret key file: shopfront's format, the public key's layout with the seed before the key. */
export function formatSecretKey(key: SecretKey): string {
  const bytes = Buffer.concat([Buffer.from(KEY_ALGORITHM), key.keyId, key.seed, key.key]);
  return `${UNTRUSTED}${SECRET_KEY_COMMENT} ${keyIdHex(key.keyId)}: keep it secret (a CI secret), never in a repository\n${bytes.toString("base64")}\n`;
}

/** The base64 line after the comment, decoded; undefined when there is none or it is not base64. */
function keyLine(text: string): Buffer | undefined {
  const lines = text.split(/\r?\n/).filter((line) => line.trim() !== "");
  const line = lines[0]?.startsWith(UNTRUSTED) ? lines[1] : lines[0];
  if (line === undefined || !/^[A-Za-z0-9+/]+={0,2}$/.test(line.trim())) return undefined;
  return Buffer.from(line.trim(), "base64");
}

/** A public key file's key (or the base64 line alone, as minisign -P takes it); a string says what is wrong. */
export function parsePublicKey(text: string): PublicKey | string {
  const bytes = keyLine(text);
  if (bytes === undefined || bytes.length !== 42)
    return "not a minisign public key (a comment line, then 42 bytes in base64)";
  if (bytes.subarray(0, 2).toString("latin1") !== KEY_ALGORITHM) return "not an Ed25519 minisign public key";
  return { keyId: bytes.subarray(2, 10), key: bytes.subarray(10) };
}

/** A secret key file's key; a string says what is wrong. */
export function parseSecretKey(text: string): SecretKey | string {
  const bytes = keyLine(text);
  if (bytes === undefined || bytes.length !== 74 || bytes.subarray(0, 2).toString("latin1") !== KEY_ALGORITHM)
    return `not a ${SECRET_KEY_COMMENT} (shopfront key new writes one: a comment line, then 74 bytes in base64)`;
  const key: SecretKey = { keyId: bytes.subarray(2, 10), seed: bytes.subarray(10, 42), key: bytes.subarray(42) };
  const derived = createPublicKey(privateKeyObject({ ...key })).export({ format: "jwk" }).x;
  if (derived !== key.key.toString("base64url"))
    return `a damaged ${SECRET_KEY_COMMENT}: its public half does not match`;
  return key;
}

/** A signature file of `data` as minisign -S writes it, with this trusted comment (one line). */
export function signMinisign(
  data: Uint8Array,
  secret: SecretKey,
  trustedComment: string,
  untrustedComment: string,
): string {
  if (/[\r\n]/.test(trustedComment + untrustedComment)) throw new Error("internal: a minisign comment is one line");
  const privateKey = privateKeyObject(secret);
  const signature = sign(null, createHash("blake2b512").update(data).digest(), privateKey);
  const global = sign(null, Buffer.concat([signature, Buffer.from(trustedComment)]), privateKey);
  const line = Buffer.concat([Buffer.from(HASHED_ALGORITHM), secret.keyId, signature]).toString("base64");
  return `${UNTRUSTED}${untrustedComment}\n${line}\n${TRUSTED}${trustedComment}\n${global.toString("base64")}\n`;
}

export type SignatureCheck = { ok: true; trustedComment: string } | { ok: false; reason: string };

/** Whether `signatureText` is a good signature of `data` by `key`, prehashed or legacy, trusted comment included. */
export function verifyMinisign(data: Uint8Array, signatureText: string, key: PublicKey): SignatureCheck {
  const lines = signatureText.split(/\r?\n/);
  if (lines.length < 4 || !lines[0]!.startsWith(UNTRUSTED) || !lines[2]!.startsWith(TRUSTED))
    return {
      ok: false,
      reason: "not a minisign signature (four lines: comment, signature, trusted comment, signature)",
    };
  const bytes = Buffer.from(lines[1]!.trim(), "base64");
  const global = Buffer.from(lines[3]!.trim(), "base64");
  if (bytes.length !== 74 || global.length !== 64) return { ok: false, reason: "a malformed minisign signature" };
  const algorithm = bytes.subarray(0, 2).toString("latin1");
  if (algorithm !== HASHED_ALGORITHM && algorithm !== LEGACY_ALGORITHM)
    return { ok: false, reason: `an unknown signature algorithm ${JSON.stringify(algorithm)}` };
  if (!bytes.subarray(2, 10).equals(key.keyId))
    return {
      ok: false,
      reason: `signed with key ${keyIdHex(bytes.subarray(2, 10))}, not with the key given (${keyIdHex(key.keyId)})`,
    };
  const signature = bytes.subarray(10);
  const publicKey = publicKeyObject(key.key);
  const signed = algorithm === HASHED_ALGORITHM ? createHash("blake2b512").update(data).digest() : data;
  if (!verify(null, signed, publicKey, signature))
    return { ok: false, reason: "the signature does not match the file" };
  const trustedComment = lines[2]!.slice(TRUSTED.length);
  if (!verify(null, Buffer.concat([signature, Buffer.from(trustedComment)]), publicKey, global))
    return { ok: false, reason: "the trusted comment's signature does not match" };
  return { ok: true, trustedComment };
}
