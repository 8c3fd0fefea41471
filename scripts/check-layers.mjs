#!/usr/bin/env node
// The folder-level import graph of src/: every import (type-only ones too) between two folders of src/
// is an edge, and the graph must have no cycle, so that the folders import downward only. ESLint's
// import-x/no-cycle holds the files to the same rule; this holds the folders. Prints the cycles found
// and exits 1 if there is one. `--graph` prints the edges.
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

const specifierPattern = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)['"](\.[^'"]+)['"]/g;

/** @returns {Map<string, Map<string, string[]>>} folder -> imported folder -> the files that import it */
export function folderGraph() {
  const graph = new Map();
  for (const file of listFiles(src)) {
    const from = folderOf(file);
    const text = readFileSync(file, "utf8");
    for (const match of text.matchAll(specifierPattern)) {
      const target = resolve(dirname(file), match[1]);
      if (!target.startsWith(src + sep)) continue;
      const to = folderOf(target);
      if (to === from) continue;
      if (!graph.has(from)) graph.set(from, new Map());
      const edges = graph.get(from);
      if (!edges.has(to)) edges.set(to, []);
      edges.get(to).push(relative(root, file));
    }
  }
  return graph;
}

/** The strongly connected components with more than one folder (Tarjan's algorithm). */
export function folderCycles(graph) {
  let index = 0;
  const indices = new Map();
  const lowLinks = new Map();
  const stack = [];
  const onStack = new Set();
  const cycles = [];
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
      if (component.length > 1) cycles.push(component.sort());
    }
  };
  for (const node of [...graph.keys()].sort()) if (!indices.has(node)) connect(node);
  return cycles;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const graph = folderGraph();
  if (process.argv.includes("--graph")) {
    for (const [from, edges] of [...graph].sort()) {
      for (const [to, files] of [...edges].sort()) console.log(`${from} -> ${to}  (${[...new Set(files)].join(", ")})`);
    }
  }
  const cycles = folderCycles(graph);
  for (const cycle of cycles) {
    console.error(`folder cycle in src/: ${cycle.join(", ")}`);
    for (const from of cycle) {
      for (const [to, files] of graph.get(from) ?? []) {
        if (cycle.includes(to)) console.error(`  ${from} -> ${to}: ${[...new Set(files)].join(", ")}`);
      }
    }
  }
  if (cycles.length > 0) process.exit(1);
  console.log(`src/ folders: ${graph.size} importing, no cycle`);
}
