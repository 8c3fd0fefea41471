// The host `import hbb` and `import oscmeta` put packages on when no --host is given: `primary` when
// hosts.json declares it (or there is no hosts.json yet, which the import then writes), else the
// catalogue's only host. A catalogue of several hosts, none of them `primary`, must be told which.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { schemaValidators } from "../catalogue/schemas.js";
import { readSourceFile } from "../read/readCatalogue.js";
import { UsageError } from "../util/errors.js";
import { HOSTS_FILE, MAX_SOURCE_BYTES, validateHostsFile } from "../validate/catalogueRules.js";

export const DEFAULT_IMPORT_HOST = "primary";

/** The ids hosts.json declares; undefined when there is none, or none that can be read (the import reports it). */
async function declaredHosts(catalogueDir: string): Promise<string[] | undefined> {
  const path = join(catalogueDir, HOSTS_FILE);
  if (!existsSync(path)) return undefined;
  const { hostsFile } = validateHostsFile(readSourceFile(path, MAX_SOURCE_BYTES), await schemaValidators());
  return hostsFile?.hosts.map((h) => h.id);
}

/**
 * For `import apps --host ID`: a usage error, before anything is read or written, when hosts.json
 * declares hosts and ID is none of them. A card's apps go on a host the maintainer made; a typo in
 * ID would otherwise make a host of placeholders. (A catalogue without hosts.json gets one.)
 */
export async function assertDeclaredHost(catalogueDir: string, host: string): Promise<void> {
  const ids = await declaredHosts(catalogueDir);
  if (ids === undefined || ids.includes(host)) return;
  throw new UsageError(
    `${HOSTS_FILE} declares no host ${host} (it declares ${ids.join(", ")}): give one of them to --host, or declare ${host} in ${HOSTS_FILE} first; nothing was written`,
  );
}

/** The host to import into when none is given; a usage error naming the hosts when it could be several. */
export async function defaultImportHost(catalogueDir: string): Promise<string> {
  const ids = await declaredHosts(catalogueDir);
  // No hosts.json: the import writes one. An invalid one is reported by the import itself, which reads it again.
  if (ids === undefined) return DEFAULT_IMPORT_HOST;
  if (ids.includes(DEFAULT_IMPORT_HOST)) return DEFAULT_IMPORT_HOST;
  if (ids.length === 1) return ids[0]!;
  throw new UsageError(
    `give --host: ${HOSTS_FILE} declares ${ids.join(", ")} and no host ${DEFAULT_IMPORT_HOST}, so the packages could go on any of them`,
  );
}
