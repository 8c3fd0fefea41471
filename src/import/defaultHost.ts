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

/** The host to import into when none is given; a usage error naming the hosts when it could be several. */
export async function defaultImportHost(catalogueDir: string): Promise<string> {
  const path = join(catalogueDir, HOSTS_FILE);
  if (!existsSync(path)) return DEFAULT_IMPORT_HOST;
  const { hostsFile } = validateHostsFile(readSourceFile(path, MAX_SOURCE_BYTES), await schemaValidators());
  // An invalid hosts.json is reported by the import itself, which reads it again.
  if (!hostsFile) return DEFAULT_IMPORT_HOST;
  const ids = hostsFile.hosts.map((h) => h.id);
  if (ids.includes(DEFAULT_IMPORT_HOST)) return DEFAULT_IMPORT_HOST;
  if (ids.length === 1) return ids[0]!;
  throw new UsageError(
    `give --host: ${HOSTS_FILE} declares ${ids.join(", ")} and no host ${DEFAULT_IMPORT_HOST}, so the packages could go on any of them`,
  );
}
