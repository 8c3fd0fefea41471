// Zips read back by other programs than the writer: Python's zipfile (what osc-dl reads a
// Homebrew Browser's archives with) and Info-ZIP's unzip, from Debian's packages.
import { createHash } from "node:crypto";
import { spawnSync } from "node:child_process";

/** What Python's zipfile reads of an archive, having tested every entry's CRC-32 (testzip). */
export interface PythonRead {
  names: string[];
  /** SHA-256 of each entry's length and bytes in turn (contentDigest). */
  digest: string;
  /** Each distinct [date_time, Unix mode, compression method, flag bits, extra length, comment length]. */
  kinds: string[];
}

const READ = String.raw`
import hashlib, json, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
assert z.testzip() is None
infos = z.infolist()
digest = hashlib.sha256()
for info in infos:
    data = z.read(info)
    digest.update(b"%d\0" % len(data))
    digest.update(data)
kinds = {json.dumps([list(i.date_time), oct(i.external_attr >> 16), i.compress_type, i.flag_bits, len(i.extra), len(i.comment)], separators=(",", ":")) for i in infos}
print(json.dumps({"names": [i.filename for i in infos], "digest": digest.hexdigest(), "kinds": sorted(kinds)}))
`;

export function readWithPython(file: string): PythonRead {
  const run = spawnSync("python3", ["-c", READ, file], { encoding: "utf8", maxBuffer: 256 << 20 });
  if (run.status !== 0) throw new Error(`python3's zipfile failed on ${file}: ${run.stderr}`);
  return JSON.parse(run.stdout) as PythonRead;
}

/** The digest readWithPython gives of these contents, in order. */
export function contentDigest(contents: Iterable<Uint8Array>): string {
  const hash = createHash("sha256");
  for (const bytes of contents) hash.update(`${bytes.length}\0`).update(bytes);
  return hash.digest("hex");
}

/** `unzip -t`: every entry's CRC-32 tested; the exit code and what it said. */
export function testWithUnzip(file: string): { status: number | null; output: string } {
  const run = spawnSync("unzip", ["-tqq", file], { encoding: "utf8", maxBuffer: 256 << 20 });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}
