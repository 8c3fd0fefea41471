// A size for people: bytes in SI units with one decimal (14680064 -> "14.7 MB"), for the deploy's
// summary and the browse site's pages alike.
export function formatBytes(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  const units = ["kB", "MB", "GB", "TB"];
  let value = bytes / 1000;
  let unit = 0;
  // 999.96 kB would print as "1000.0 kB": move on to the next unit before rounding does.
  while (value >= 999.95 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}
