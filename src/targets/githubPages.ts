// GitHub Pages: plain static files, no rules of any kind. What is a file at its own URL works: the
// host list, the v1 lists and packages, and a category's list. Everything that needs a rule cannot,
// and is declared here so that `shopfront check --target github-pages` and the README say so: every
// v2 form, a coder (its lists are stored under the hex of its bytes, not at the URL a client writes),
// and the empty list for a value no package has. The fix for all of it is a Cloudflare Worker or
// rule in front of Pages. The browse site and the OpenAPI document need nothing: they are files at
// their own paths, which Pages types by their extensions (html, css, js, json) and serves with a
// folder's index.html at the folder's URL, the home page at `/`. The package files are too, at every
// URL clients use: the build writes a copy of each at each alias's path (aliasFilesOf), typed by
// extension (zip, png, xml; a binary as Pages types .dol and .elf).
import { renderNotFound } from "../render/renderApi.js";
import type { Target, TargetFile } from "./target.js";

/**
 * The workflow that builds the catalogue and publishes it on Pages. This repository's own copy is
 * the one `shopfront init` writes into a new project (the package ships it), and the one
 * test/unit/pagesWorkflow.test.ts checks against the README.
 */
export const PAGES_WORKFLOW = ".github/workflows/pages.yml";

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
  packageFiles: "copies",
  cannot: {
    "v2-package":
      "Pages ignores the query string and has no rewrite rules, so ?package= cannot be routed; the build has no v2 files, so it answers 404 rather than the whole list; the fix for this and the rest is a Cloudflare Worker or rule in front of Pages",
    "v2-packages": "no rewrite rules, so /v2/<host>/packages (which has no file of its own) answers 404",
    "v2-hosts": "no rewrite rules, so /v2/hosts (which has no file of its own) answers 404",
    "v2-category": "the query string is ignored and /v2 has no files: ?category= answers 404",
    "v2-coder": "the query string is ignored and /v2 has no files: ?coder= answers 404",
    "v2-category-coder": "the query string is ignored and /v2 has no files: ?category=&coder= answers 404",
    "v2-query": "a search needs code at request time, and /v2 has no files: ?query= answers 404",
    "v1-coder":
      "a coder's lists are stored under the hex of its bytes (no file name can hold every coder), and no rule maps the coder's URL to them: 404",
    "v1-category-coder": "as for a coder's list: stored under the coder's hex, so its URL answers 404",
    "filter-unknown":
      "no rule can answer a value no package has with the empty list: an unknown category or coder answers 404",
    "trailing-slash": "a URL ending in / names a folder, and no rule can serve the file instead",
    "not-found": "/404.json, a file of the build, answers 200 with the error body: Pages has no rule to hide it",
    methods: "Pages alone decides how OPTIONS and POST are answered: nothing configures a CORS preflight or a 405",
    "content-type":
      "Pages types files by extension only: the extensionless API files are application/octet-stream (every known client accepts it), so is each host's JSON Feed (feed.jsonfeed; its Atom feed is typed right), and the 404 is text/html",
    cache:
      "Pages sends Cache-Control: max-age=600 on every file, and nothing configures it: the API and the site get their 10 minutes, but the package files are cached 10 minutes too, not a day (icons) or four hours",
  },
  config: pagesFiles,
  deployFiles: pagesFiles,
  hbb: "only on a custom domain with Enforce HTTPS off; a github.io address (and a custom domain with it on) redirects to HTTPS, which the Wii app does not follow (GitHub's documentation, not run here)",
  usage:
    "`npx shopfront build --target github-pages`, then publish `dist/` as the Pages artifact (`.nojekyll` and `404.html` are in its root)",
};
