// Writes assets/placeholder-icon.png, the 128x48 icon served for a package without icon.png: a grey
// card with a lighter frame. Run once; the PNG is committed.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { png } from "../test/fixtures/package-files/fixture-bytes.mjs";

const frame = (x, y) => x < 3 || y < 3 || x > 124 || y > 44;
const icon = png(128, 48, (x, y) => (frame(x, y) ? [170, 170, 170] : [72, 72, 72]));
writeFileSync(join(import.meta.dirname, "..", "assets", "placeholder-icon.png"), icon);
