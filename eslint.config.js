// ESLint (flat config): typescript-eslint's rules for src/, test/ and scripts/, the typed ones that
// catch real mistakes (a promise nobody awaits or handles, one passed where a callback's result is
// ignored), and import-x's no-cycle: no file of src/ may import itself back through others, shown at
// the line in an editor. import-x skips type-only imports; scripts/check-layers.mjs counts them and
// holds src/'s files and folders to the rule (`npm run lint` runs both, and CI runs it).
import js from "@eslint/js";
import { createNodeResolver, importX } from "eslint-plugin-import-x";
import tseslint from "typescript-eslint";

export default tseslint.config(
  {
    ignores: [
      "lib/",
      "dist/",
      ".dist.shopfront/",
      "node_modules/",
      "bench-results/",
      "test-output/",
      "test/fixtures/",
      "catalogue/",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ["**/*.ts"],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": "error",
      "@typescript-eslint/await-thenable": "error",
      "@typescript-eslint/return-await": ["error", "in-try-catch"],
      "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "inline-type-imports" }],
      "@typescript-eslint/no-import-type-side-effects": "error",
      // The preview server, the edge functions and the log parsers match control characters on purpose.
      "no-control-regex": "off",
      // `_` for a value skipped by position; CloudFront Functions' JavaScript has no catch without a binding.
      "@typescript-eslint/no-unused-vars": [
        "error",
        {
          argsIgnorePattern: "^_",
          varsIgnorePattern: "^_",
          destructuredArrayIgnorePattern: "^_",
          caughtErrors: "none",
        },
      ],
    },
  },
  {
    files: ["src/**/*.ts"],
    plugins: { "import-x": importX },
    settings: {
      "import-x/extensions": [".ts", ".js"],
      "import-x/parsers": { "@typescript-eslint/parser": [".ts"] },
      // Sources import each other as ./file.js, which is ./file.ts before it is compiled.
      "import-x/resolver-next": [
        createNodeResolver({ extensions: [".ts", ".js"], extensionAlias: { ".js": [".ts", ".js"] } }),
      ],
    },
    rules: { "import-x/no-cycle": ["error", { ignoreExternal: true }] },
  },
  {
    // The browser tests declare the few DOM globals they use as any; the OpenAPI test walks a document by known keys.
    files: ["test/**/*.ts"],
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
  {
    files: ["**/*.mjs", "**/*.js"],
    languageOptions: {
      globals: {
        performance: "readonly",
        process: "readonly",
        console: "readonly",
        Buffer: "readonly",
        URL: "readonly",
        setTimeout: "readonly",
        clearTimeout: "readonly",
      },
    },
  },
  {
    // Its keystroke figures run inside the browser page (page.evaluate), where these are the page's.
    files: ["scripts/bench-serve.mjs"],
    languageOptions: {
      globals: {
        document: "readonly",
        MutationObserver: "readonly",
        Event: "readonly",
        requestAnimationFrame: "readonly",
      },
    },
  },
);
