// The `--cache-control` of a deploy, checked before anything is sent: one header value.
import { UsageError } from "../util/errors.js";
import { SHORT_CACHE_CONTROL } from "../routes/routeTable.js";

export function checkCacheControl(value: string): string {
  if (!/^[\x20-\x7e]{1,1024}$/.test(value) || value.trim() === "") {
    throw new UsageError(
      `--cache-control ${JSON.stringify(value)}: expected a header value such as "${SHORT_CACHE_CONTROL}"`,
    );
  }
  return value;
}
