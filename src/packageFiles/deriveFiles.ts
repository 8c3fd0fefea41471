// What a package's files say about it (DerivedFiles), from the parts of its archive the build
// unpacked or, for a folder it zipped, read as it zipped them: meta.xml parsed, the icon's size, the
// binary checked and hashed. The same parts (EntryTap, as an entry's bytes pass) and the same
// derivation whichever way they came (inspectPackageZip.ts, checkFolderZip.ts), so a folder and the
// zip of it derive the same.
import { createHash, type Hash } from "node:crypto";
import { closeSync, openSync, rmSync, writeSync } from "node:fs";
import { binaryProblem, DOL_HEADER_BYTES } from "./checkBinary.js";
import { packageFinding, type PackageFinding, type PackageLayout } from "./checkZipEntries.js";
import { parseMetaXml, type MetaXml } from "./parseMetaXml.js";
import { ICON_HEIGHT, ICON_WIDTH, PNG_HEADER_BYTES, parsePngSize } from "./parsePngSize.js";
import type { ZipLimits } from "./zipLimits.js";

/** What a package's files say about it, as the Open Shop Channel's server derives it. */
export interface DerivedFiles {
  /** Bytes of the archive as served. */
  zip_size: number;
  zip_md5: string;
  zip_sha256: string;
  /** Bytes of the files under apps/<name>/ (the HBB list's "extracted"). */
  extracted: number;
  /** The binary's extension. */
  package_type: "dol" | "elf";
  binary: { entry: string; size: number; md5: string; sha256: string };
  /** undefined when the package has no usable icon.png: the placeholder icon is served. */
  icon?: { entry: string; size: number; width: number; height: number };
  /** Every folder under apps/<name>/, written `/apps/<name>/<sub>`, sorted. */
  subdirectories: string[];
  /** Folders at the archive's root besides `apps`, sorted. */
  root_folders: string[];
  /** undefined when meta.xml could not be read. */
  meta?: MetaXml;
  /** meta.xml's entry in the archive, with meta. */
  metaEntry?: string;
}

/** What the build kept of one entry as it read it. */
export interface Unpacked {
  size: number;
  md5?: string;
  sha256?: string;
  /** The first `keep` bytes (servedRole's). */
  head?: Buffer;
}

/**
 * One entry's part kept as its bytes pass (servedRole's): its size, first bytes and hashes, and its
 * copy served beside the archive written at `to`.
 */
export class EntryTap {
  size = 0;
  readonly #keep: number;
  readonly #kept: Buffer[] = [];
  #keptBytes = 0;
  readonly #md5: Hash | undefined;
  readonly #sha256: Hash | undefined;
  #out: number | undefined;
  readonly #to: string | undefined;
  #unpacked: Unpacked | undefined;

  constructor(role: ServedRole, to: string | undefined) {
    this.#keep = role.keep;
    this.#md5 = role.hash ? createHash("md5") : undefined;
    this.#sha256 = role.hash ? createHash("sha256") : undefined;
    this.#to = to;
    this.#out = to === undefined ? undefined : openSync(to, "w");
  }

  see(chunk: Buffer): void {
    this.size += chunk.length;
    this.#md5?.update(chunk);
    this.#sha256?.update(chunk);
    if (this.#out !== undefined) for (let done = 0; done < chunk.length;) done += writeSync(this.#out, chunk, done);
    if (this.#keptBytes < this.#keep) {
      // Copied: the chunk's buffer is read over next.
      const part = Buffer.from(chunk.subarray(0, this.#keep - this.#keptBytes));
      this.#kept.push(part);
      this.#keptBytes += part.length;
    }
  }

  close(): void {
    if (this.#out !== undefined) closeSync(this.#out);
    this.#out = undefined;
  }

  /** Removes the served copy (closed first). */
  remove(): void {
    this.close();
    if (this.#to !== undefined) rmSync(this.#to, { force: true });
  }

  /** What was kept, once the entry was read whole. */
  unpacked(): Unpacked {
    if (this.#unpacked) return this.#unpacked;
    const unpacked: Unpacked = { size: this.size, head: Buffer.concat(this.#kept) };
    if (this.#md5 && this.#sha256) {
      unpacked.md5 = this.#md5.digest("hex");
      unpacked.sha256 = this.#sha256.digest("hex");
    }
    return (this.#unpacked = unpacked);
  }
}

/** How an entry is read: how many of its first bytes to keep, whether to hash it, and its name when served beside the archive. */
export interface ServedRole {
  keep: number;
  hash: boolean;
  served?: string;
}

/** An entry's role in the package `layout`: meta.xml, the icon, the binary, or none. */
export function servedRole(layout: PackageLayout | undefined, entry: string, limits: ZipLimits): ServedRole {
  if (entry === layout?.binary?.entry)
    return { keep: DOL_HEADER_BYTES, hash: true, served: `boot.${layout.binary.type}` };
  if (entry === layout?.meta) return { keep: limits.maxMetaXml, hash: false, served: "meta.xml" };
  if (entry === layout?.icon) return { keep: PNG_HEADER_BYTES, hash: false, served: "icon.png" };
  return { keep: 0, hash: false };
}

/**
 * Derives a package's values from its layout and the parts kept of its entries (`part`, by entry
 * name), adding to `findings` what they show; undefined when there is no binary to derive from.
 * The archive's own size and hashes are the caller's.
 */
export function deriveFiles(
  layout: PackageLayout,
  part: (entry: string) => Unpacked | undefined,
  limits: ZipLimits,
  findings: PackageFinding[],
): Omit<DerivedFiles, "zip_size" | "zip_md5" | "zip_sha256"> | undefined {
  let meta: MetaXml | undefined;
  const metaBytes = layout.meta === undefined ? undefined : part(layout.meta);
  if (layout.meta !== undefined && metaBytes !== undefined) {
    if (metaBytes.size > limits.maxMetaXml) {
      findings.push(
        packageFinding("META_UNREADABLE", `${layout.meta} is larger than ${limits.maxMetaXml} bytes`, layout.meta),
      );
    } else {
      const read = parseMetaXml(metaBytes.head!);
      if (read.ok) {
        meta = read.meta;
        for (const w of read.warnings)
          findings.push(packageFinding("META_BAD_DATE", `${layout.meta}: ${w}`, layout.meta, "warning"));
      } else
        findings.push(packageFinding("META_UNREADABLE", `${layout.meta} cannot be read: ${read.reason}`, layout.meta));
    }
  }

  let icon: DerivedFiles["icon"];
  const iconBytes = layout.icon === undefined ? undefined : part(layout.icon);
  if (layout.icon !== undefined && iconBytes !== undefined) {
    const dimensions = parsePngSize(iconBytes.head!);
    if (dimensions === undefined) {
      findings.push(packageFinding("ICON_NOT_PNG", `${layout.icon} is not a PNG image`, layout.icon));
    } else {
      icon = { entry: layout.icon, size: iconBytes.size, ...dimensions };
      if (dimensions.width !== ICON_WIDTH || dimensions.height !== ICON_HEIGHT) {
        findings.push(
          packageFinding(
            "ICON_WRONG_SIZE",
            `${layout.icon} is ${dimensions.width}x${dimensions.height}, not ${ICON_WIDTH}x${ICON_HEIGHT}`,
            layout.icon,
            "warning",
          ),
        );
      }
    }
  }

  const binary = layout.binary === undefined ? undefined : part(layout.binary.entry);
  if (layout.binary === undefined || binary === undefined) return undefined;
  const unloadable = binaryProblem(binary.head!, binary.size, layout.binary.type);
  if (unloadable !== undefined)
    findings.push(packageFinding("PACKAGE_BAD_BINARY", `${layout.binary.entry} ${unloadable}`, layout.binary.entry));
  const derived: Omit<DerivedFiles, "zip_size" | "zip_md5" | "zip_sha256"> = {
    extracted: layout.extracted,
    package_type: layout.binary.type,
    binary: { entry: layout.binary.entry, size: binary.size, md5: binary.md5!, sha256: binary.sha256! },
    subdirectories: layout.subdirectories,
    root_folders: layout.rootFolders,
  };
  if (icon) derived.icon = icon;
  if (meta) {
    derived.meta = meta;
    derived.metaEntry = layout.meta!;
  }
  return derived;
}
