// The signed index a client checks the catalogue with: `entry.json`, its minisign signature and
// the public key at the root, and the shards under `index/` that `entry.json` names. They change
// with every build, as the lists do, and name the package files and lists, so a deploy sends them
// after everything else they could name.
export const INDEX_ENTRY_FILE = "entry.json";
export const INDEX_SIGNATURE_FILE = "entry.json.minisig";
export const INDEX_PUBLIC_KEY_FILE = "minisign.pub";
export const INDEX_FOLDER = "index";

/** minisign's signature and key files are text. */
const TEXT_FILES: readonly string[] = [INDEX_SIGNATURE_FILE, INDEX_PUBLIC_KEY_FILE];

/** True for a file of the signed index (a path relative to the build's root). */
export function isIndexFile(path: string): boolean {
  return path === INDEX_ENTRY_FILE || TEXT_FILES.includes(path) || path.startsWith(`${INDEX_FOLDER}/`);
}

/** The type an index file is served with: text for the signature and key, JSON for the rest. */
export function indexContentType(path: string): string {
  return TEXT_FILES.includes(path) ? "text/plain" : "application/json";
}
