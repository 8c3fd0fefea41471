// Run by `npm install` (prepare) after tsc: writes lib/validators.cjs, the schemas compiled by ajv
// ahead of time, so a build does not spend a tenth of a second compiling them on every run.
import { writeFileSync } from "node:fs";
import { precompiledValidatorsSource } from "../lib/catalogue/schemas.js";

writeFileSync(new URL("../lib/validators.cjs", import.meta.url), await precompiledValidatorsSource());
