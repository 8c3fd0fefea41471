// The icon served for a package whose files hold no icon.png (as the Open Shop Channel does):
// assets/placeholder-icon.png, 128x48, made by scripts/make-placeholder-icon.mjs.
import { fileURLToPath } from "node:url";

/** Path of the placeholder icon, from src/ and from the compiled lib/ alike. */
export const PLACEHOLDER_ICON = fileURLToPath(new URL("../../assets/placeholder-icon.png", import.meta.url));
