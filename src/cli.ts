#!/usr/bin/env node
// The `shopfront` command: src/cli/main.ts, as `npm install` bundled it (scripts/bundle.mjs) into
// lib/bundle/, so that Node loads a few files rather than each of the modules one by one.
const main = "./bundle/main.js";
await import(main);
