import { defineConfig } from "vitest/config";

// One project per kind of test, each runnable alone (`npx vitest run --project unit`); `npm test`
// runs them all. Shared helpers live in test/support/, fixture catalogues in test/fixtures/.
const project = (name: string) => ({
  extends: true as const,
  test: { name, include: [`test/${name}/**/*.test.ts`] },
});

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    projects: [
      // Through the core and the compiled binary, with in-process servers on 127.0.0.1 at most.
      project("unit"),
      // Real nginx, Apache httpd, Caddy and lighttpd, a local S3 server, and the hosts' emulations.
      project("servers"),
      // The browse site in Debian's chromium.
      project("browser"),
      // A bounded load test of the preview server.
      project("load"),
    ],
  },
});
