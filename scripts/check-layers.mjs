#!/usr/bin/env node
// The import graphs of src/, type-only imports counted: no file may import itself back through others,
// and no folder either, so that the folders import downward only (docs/development.md lists them in
// that order). ESLint's import-x/no-cycle says the same of files in an editor, but skips type-only
// imports. Prints the cycles found and exits 1 if there is one; `--graph` prints the folders' edges.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const src = join(root, "src");

function listFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return listFiles(path);
    return path.endsWith(".ts") ? [path] : [];
  });
}

/** The folder of src/ a file belongs to: its first segment below src/ (`cli.ts` at the top is `.`). */
function folderOf(file) {
  const parts = relative(src, file).split(sep);
  return parts.length === 1 ? "." : parts[0];
}

/** Relative specifiers of `import ... from`, `export ... from`, `import "..."` and `import(...)`. */
const specifierPattern = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)["'](\.[^"']+)["']/g;

/**
 * @param {(file: string) => string} nodeOf what a file counts as: itself, or its folder
 * @returns {Map<string, Map<string, string[]>>} node -> imported node -> the files that import it
 */
export function importGraph(nodeOf) {
  const graph = new Map();
  for (const file of listFiles(src)) {
    const from = nodeOf(file);
    for (const match of readFileSync(file, "utf8").matchAll(specifierPattern)) {
      const target = resolve(dirname(file), match[1].replace(/\.js$/, ".ts"));
      if (!target.startsWith(src + sep)) continue;
      const to = nodeOf(target);
      if (to === from) continue;
      if (!graph.has(from)) graph.set(from, new Map());
      const edges = graph.get(from);
      if (!edges.has(to)) edges.set(to, []);
      edges.get(to).push(relative(root, file));
    }
  }
  return graph;
}

/** The strongly connected components with more than one node (Tarjan's algorithm). */
export function cycles(graph) {
  let index = 0;
  const indices = new Map();
  const lowLinks = new Map();
  const stack = [];
  const onStack = new Set();
  const found = [];
  const connect = (node) => {
    indices.set(node, index);
    lowLinks.set(node, index);
    index += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node)?.keys() ?? []) {
      if (!indices.has(next)) {
        connect(next);
        lowLinks.set(node, Math.min(lowLinks.get(node), lowLinks.get(next)));
      } else if (onStack.has(next)) {
        lowLinks.set(node, Math.min(lowLinks.get(node), indices.get(next)));
      }
    }
    if (lowLinks.get(node) === indices.get(node)) {
      const component = [];
      let member;
      do {
        member = stack.pop();
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const node of [...graph.keys()].sort()) if (!indices.has(node)) connect(node);
  return found;
}

/** Each cycle of a graph, with the edges inside it and the files that make them. */
function describeCycles(graph, what) {
  return cycles(graph).map((cycle) => {
    const lines = [`${what} cycle in src/: ${cycle.join(", ")}`];
    for (const from of cycle) {
      for (const [to, files] of graph.get(from) ?? []) {
        if (cycle.includes(to)) lines.push(`  ${from} -> ${to}: ${[...new Set(files)].join(", ")}`);
      }
    }
    return lines.join("\n");
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const folders = importGraph(folderOf);
  if (process.argv.includes("--graph")) {
    for (const [from, edges] of [...folders].sort()) {
      for (const [to, files] of [...edges].sort()) console.log(`${from} -> ${to}  (${[...new Set(files)].join(", ")})`);
    }
  }
  const found = [
    ...describeCycles(
      importGraph((file) => relative(src, file)),
      "file",
    ),
    ...describeCycles(folders, "folder"),
  ];
  for (const cycle of found) console.error(cycle);
  if (found.length > 0) process.exit(1);
  console.log("src/: no import cycle between files or between folders");
}
