// GitHub Pages: plain static files, no rules of any kind. v1 works as files; everything that needs a
// rule cannot, and is declared here so that `shopfront check --target github-pages` and the README
// say so. The fix for all of it is a Cloudflare Worker or rule in front of Pages.
import { renderNotFound } from "../render/renderApi.js";
import type { Target, TargetFile } from "./target.js";

function pagesFiles(): TargetFile[] {
  return [
    // Jekyll would otherwise build the site and drop files it does not publish (names starting with _).
    { path: ".nojekyll", content: "" },
    // Pages answers every miss with 404.html, and clients parse an error body as JSON.
    { path: "404.html", content: renderNotFound() },
  ];
}

export const githubPages: Target = {
  id: "github-pages",
  title: "GitHub Pages",
  kind: "platform",
  cannot: {
    "v2-package":
      "Pages ignores the query string and has no rewrite rules, so ?package= cannot be routed; the build has no v2 files, so it answers 404 rather than the whole list; the fix for this and the rest is a Cloudflare Worker or rule in front of Pages",
    "v2-packages": "no rewrite rules, so /v2/<host>/packages (which has no file of its own) answers 404",
    "trailing-slash": "a URL ending in / names a folder, and no rule can serve the file instead",
    "not-found": "/404.json, a file of the build, answers 200 with the error body: Pages has no rule to hide it",
    methods: "Pages alone decides how OPTIONS and POST are answered: nothing configures a CORS preflight or a 405",
    "content-type":
      "Pages types files by extension only: the extensionless API files are application/octet-stream (every known client accepts it) and the 404 is text/html",
  },
  config: pagesFiles,
  deployFiles: pagesFiles,
  usage:
    "`shopfront build --target github-pages`, then publish `dist/` as the Pages artifact (`.nojekyll` and `404.html` are in its root)",
};
