// Every host target, one module each. The CLI, the README's hosting table and the tests take
// the list from here.
import { UsageError } from "../util/errors.js";
import { apache } from "./apache.js";
import { caddy } from "./caddy.js";
import { cloudflare } from "./cloudflare.js";
import { cloudfront } from "./cloudfront.js";
import { githubPages } from "./githubPages.js";
import { lighttpd } from "./lighttpd.js";
import { netlify } from "./netlify.js";
import { nginx } from "./nginx.js";
import type { Target, TargetId } from "./target.js";
import { vercel } from "./vercel.js";

export const TARGETS: readonly Target[] = [
  nginx,
  apache,
  caddy,
  lighttpd,
  cloudfront,
  cloudflare,
  netlify,
  vercel,
  githubPages,
];

export function targetById(id: string): Target {
  const target = TARGETS.find((t) => t.id === id);
  if (!target)
    throw new UsageError(
      `unknown target ${JSON.stringify(id)}; the targets are ${TARGETS.map((t) => t.id).join(", ")}`,
    );
  return target;
}

export type { Target, TargetId };
