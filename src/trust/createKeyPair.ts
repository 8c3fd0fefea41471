// `shopfront key new`: a signing key pair for the file index. The secret key is for a CI secret,
// never a repository: a folder inside a git work tree is refused, and an existing key is never
// overwritten (clients that trust its public key would refuse every build signed by a new one).
import { existsSync, mkdirSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { FILE_INDEX } from "../routes/routeTable.js";
import { UsageError } from "../util/errors.js";
import { formatPublicKey, formatSecretKey, generateSecretKey, keyIdHex } from "./minisign.js";

/** The secret key's file name in the folder `key new` writes. */
export const SECRET_KEY_FILE = "shopfront.key";

export interface CreatedKeyPair {
  secretKeyFile: string;
  publicKeyFile: string;
  keyId: string;
}

/** The git work tree `dir` is in (the folder holding `.git`), if any. */
export function gitWorkTreeOf(dir: string): string | undefined {
  for (let at = resolve(dir); ; at = dirname(at)) {
    if (existsSync(join(at, ".git"))) return at;
    if (dirname(at) === at) return undefined;
  }
}

/** Writes a new key pair into `dir`: the secret key readable by its owner alone, and minisign.pub. */
export function createKeyPair(dir: string): CreatedKeyPair {
  const tree = gitWorkTreeOf(dir);
  if (tree !== undefined)
    throw new UsageError(
      `${resolve(dir)} is inside the git work tree ${tree}: a secret key there is one commit away from being published; choose --out outside it (the secret key belongs in a CI secret, docs/trust.md)`,
    );
  const secretKeyFile = join(dir, SECRET_KEY_FILE);
  const publicKeyFile = join(dir, FILE_INDEX.publicKey);
  for (const file of [secretKeyFile, publicKeyFile])
    if (existsSync(file))
      throw new UsageError(
        `${file} exists: a new key would make every client that trusts the old one refuse the index; move it away first`,
      );
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (!statSync(dir).isDirectory()) throw new UsageError(`${dir} is not a folder`);
  const key = generateSecretKey();
  writeFileSync(secretKeyFile, formatSecretKey(key), { mode: 0o600, flag: "wx" });
  writeFileSync(publicKeyFile, formatPublicKey(key), { flag: "wx" });
  return { secretKeyFile, publicKeyFile, keyId: keyIdHex(key.keyId) };
}
