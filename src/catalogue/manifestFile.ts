// A manifest file's bytes as shopfront writes them (`import` and `new`); a catalogue's editors may
// write theirs in any form the schema accepts.

/** A manifest as shopfront's catalogues hold it: the manifest fields in alphabetical order, two-space JSON. */
export function manifestText(manifest: Record<string, unknown>): string {
  const ordered: Record<string, unknown> = {};
  for (const key of Object.keys(manifest).sort()) ordered[key] = manifest[key];
  return `${JSON.stringify(ordered, null, 2)}\n`;
}
