// How far a package archive may unpack before it is treated as a zip bomb. The Wii's SD cards are
// small and the build unpacks every entry once to check it, so the limits are low.

export interface ZipLimits {
  /** Sum of every entry's unpacked size (declared in the central directory). Default 1 GiB. */
  maxTotalUnpacked: number;
  /** An entry may unpack beyond this size only with a ratio up to `maxRatio`. Default 10 MiB. */
  maxEntryUnpacked: number;
  /** Unpacked bytes per packed byte, for entries above `maxEntryUnpacked`. Default 100. */
  maxRatio: number;
  /** Number of entries in the central directory. Default 65,535 (the classic zip's own limit). */
  maxEntries: number;
  /** Size of meta.xml that the reader accepts. Default 1 MiB. */
  maxMetaXml: number;
}

export const DEFAULT_ZIP_LIMITS: Readonly<ZipLimits> = {
  maxTotalUnpacked: 1024 * 1024 * 1024,
  maxEntryUnpacked: 10 * 1024 * 1024,
  maxRatio: 100,
  maxEntries: 65_535,
  maxMetaXml: 1024 * 1024,
};
