// The docs hold to the CLI and to the repository: every `npx shopfront ...` line in README.md and
// docs/*.md names a command and options that the compiled CLI's --help lists, no command block runs
// a bare `shopfront`, and every relative link points at a file (and heading) inside the repository.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import type { Command } from "commander";
import { describe, expect, it } from "vitest";
import { createProgram } from "../../src/cli/program.js";
import { projectFiles } from "../../src/scaffold/initProject.js";
import { ROOT } from "../support/helpers.js";

const BIN = join(ROOT, "lib", "cli.js");
const DOCS = [
  "README.md",
  ...readdirSync(join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .sort()
    .map((f) => `docs/${f}`),
];
const read = (file: string) => readFileSync(join(ROOT, file), "utf8");

const helpTexts = new Map<string, string>();
function help(command: readonly string[]): string {
  const key = command.join(" ");
  let text = helpTexts.get(key);
  if (text === undefined) {
    text = execFileSync(process.execPath, [BIN, ...command, "--help"], {
      encoding: "utf8",
      env: { ...process.env, NO_COLOR: "1" },
    });
    helpTexts.set(key, text);
  }
  return text;
}

/** The commands a help text lists, without commander's own `help`. */
function commandsOf(command: readonly string[]): string[] {
  const text = help(command);
  const at = text.indexOf("\nCommands:\n");
  if (at < 0) return [];
  return [...text.slice(at).matchAll(/^ {2}([a-z][a-z-]*)/gm)].map((m) => m[1]!).filter((c) => c !== "help");
}

/** The long options a help text lists. */
function optionsOf(command: readonly string[]): Set<string> {
  return new Set([...help(command).matchAll(/^ +(?:-\w, )?(--[a-z][a-z-]*)/gm)].map((m) => m[1]!));
}

interface Invocation {
  where: string;
  words: string[];
}

/** Every `npx shopfront ...` in the docs, cut where the shell or the Markdown ends the command. */
function invocations(): Invocation[] {
  const found: Invocation[] = [];
  for (const file of DOCS)
    read(file)
      .split("\n")
      .forEach((line, i) => {
        for (const m of line.matchAll(/npx shopfront\b/g)) {
          // A synopsis's `URL | --from-files DIR` is one command; a pipe into another program is not.
          const rest = line.slice(m.index + m[0].length).split(/`|&&|\|\||;| > | #| \|(?! --)/)[0]!;
          found.push({ where: `${file}:${i + 1}`, words: rest.trim().split(/\s+/).filter(Boolean) });
        }
      });
  return found;
}

/** What is wrong with one invocation, if anything. */
function problemWith({ where, words }: Invocation): string | undefined {
  const [first, second] = words;
  // `npx shopfront` alone, or `npx shopfront <command>` as a placeholder.
  if (first === undefined || first.startsWith("<")) return undefined;
  const top = commandsOf([]);
  if (!top.includes(first)) return `${where}: no command "${first}"`;
  const subcommands = commandsOf([first]);
  // A group named alone (`npx shopfront import`) is prose about its subcommands.
  if (subcommands.length > 0 && second === undefined) return undefined;
  const command = subcommands.length > 0 ? [first, second!] : [first];
  if (subcommands.length > 0 && !subcommands.includes(second!))
    return `${where}: "${first}" has no subcommand "${second}" (it has ${subcommands.join(", ")})`;
  const known = optionsOf(command);
  const unknown = words
    .map((w) => /^\[?(--[a-z][a-z-]*)/.exec(w)?.[1])
    .filter((o): o is string => o !== undefined && !known.has(o));
  return unknown.length > 0 ? `${where}: ${command.join(" ")} has no ${unknown.join(", ")}` : undefined;
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function anchorsOf(file: string): Set<string> {
  const anchors = new Set<string>();
  let fenced = false;
  for (const line of read(file).split("\n")) {
    if (line.startsWith("```")) fenced = !fenced;
    const heading = !fenced && /^#{1,6} (.*)$/.exec(line);
    if (!heading) continue;
    const slug = heading[1]!
      .toLowerCase()
      .replace(/[^\p{L}\p{N} _-]/gu, "")
      .replace(/ /g, "-");
    let anchor = slug;
    for (let n = 1; anchors.has(anchor); n++) anchor = `${slug}-${n}`;
    anchors.add(anchor);
  }
  return anchors;
}

describe("the docs' commands", () => {
  const all = invocations();

  it("are found in README.md and docs/", () => {
    expect(all.length).toBeGreaterThan(40);
    expect(new Set(all.map((i) => i.where.split(":")[0]))).toContain("README.md");
  });

  it("each name a command, subcommand and options that `shopfront <command> --help` lists", () => {
    expect(all.map(problemWith).filter((p) => p !== undefined)).toEqual([]);
  });

  it("run shopfront as `npx shopfront`, never bare, in every command block", () => {
    const bare: string[] = [];
    for (const file of DOCS) {
      let fenced = false;
      read(file)
        .split("\n")
        .forEach((line, i) => {
          if (line.startsWith("```")) fenced = !fenced;
          else if (fenced && /(^|&& |\|\| |; )shopfront /.test(line)) bare.push(`${file}:${i + 1}: ${line}`);
        });
    }
    expect(bare).toEqual([]);
  });
});

describe("the docs' links", () => {
  it("each point at a file of this repository that exists, and at a heading it has", () => {
    const broken: string[] = [];
    for (const file of DOCS)
      for (const [, target] of read(file).matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue;
        const [path, anchor] = target!.split("#") as [string, string | undefined];
        const full = path === "" ? join(ROOT, file) : resolve(ROOT, dirname(file), path);
        if (relative(ROOT, full).startsWith("..")) broken.push(`${file}: ${target} is outside the repository`);
        else if (!existsSync(full)) broken.push(`${file}: ${target} does not exist`);
        else if (anchor !== undefined && !anchorsOf(relative(ROOT, full)).has(anchor))
          broken.push(`${file}: ${target} names no heading of ${relative(ROOT, full)}`);
      }
    expect(broken).toEqual([]);
  });

  it("never point at ../shared, which a clone does not have", () => {
    for (const file of DOCS) expect(read(file), file).not.toMatch(/\]\([^)]*\.\.\/shared/);
  });
});

/** Every command path, subcommands included (`["import", "api"]`), from the binary's help. */
function allCommands(prefix: readonly string[] = []): string[][] {
  return commandsOf(prefix).flatMap((c) => {
    const command = [...prefix, c];
    const subcommands = allCommands(command);
    return subcommands.length > 0 ? [command, ...subcommands] : [command];
  });
}

/** The help's option entries, each as one string (commander wraps an entry over several lines). */
function optionEntries(text: string): string[] {
  const at = text.indexOf("\nOptions:\n");
  if (at < 0) return [];
  const block = text.slice(at + "\nOptions:\n".length).split(/\n\n|\nCommands:\n/)[0]!;
  return block.split(/\n(?= {2}-)/).map((entry) => entry.replace(/\s+/g, " ").trim());
}

/** The synopsis of docs/cli.md: its first command block, one line per command form. */
function synopsis(): { line: string; words: string[] }[] {
  const text = read("docs/cli.md");
  const block = /```\n([\s\S]*?)```/.exec(text)![1]!;
  return block
    .split("\n")
    .filter((line) => line.startsWith("npx shopfront "))
    .map((line) => ({ line, words: line.slice("npx shopfront ".length).trim().split(/\s+/) }));
}

/** A value a placeholder of the synopsis stands for, by the option (or argument) it follows. */
const SAMPLES: Record<string, string> = {
  "--port": "8080",
  "--concurrency": "4",
  "--sample": "20",
  "--max-problems": "10",
  "--index-lifetime": "7",
  "--timeout": "30",
  "--target": "netlify",
  "--format": "json",
  "--fail-on": "nand",
  "--log-format": "combined",
  "--api": "v4",
  "--listen": "127.0.0.1:8080",
  "--base-url": "http://127.0.0.1:8080",
  "<target>": "nginx",
  "<url>": "http://127.0.0.1:8080",
};

/**
 * A synopsis line as one command a user could type: brackets dropped, repetition (`T...`) once,
 * the first of two alternatives (`URL | --from-files DIR`), and each placeholder a sample value.
 */
function exampleOf(words: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < words.length; i++) {
    if (words[i] === "|") {
      // Skip the other alternative: an option and its value.
      i += words[i + 2] !== undefined && !words[i + 2]!.startsWith("[") ? 2 : 1;
      continue;
    }
    const word = words[i]!.replace(/[[\]]/g, "").replace(/\.\.\.$/, "");
    const previous = out.at(-1);
    const sample = word.startsWith("-")
      ? undefined
      : previous?.startsWith("--")
        ? SAMPLES[words[i - 1]!.replace(/[[\]]/g, "")]
        : SAMPLES[word];
    out.push(sample ?? word);
  }
  return out;
}

/** The program with every action stubbed: parsing checks arguments, choices and conflicts, and runs nothing. */
function parsingOnly(): Command {
  const program = createProgram();
  const stub = (command: Command) => {
    command.exitOverride();
    command.configureOutput({ writeOut: () => {}, writeErr: () => {} });
    if (command.commands.length === 0) command.action(() => {});
    command.commands.forEach(stub);
  };
  stub(program);
  return program;
}

describe("each command's --help (the compiled binary)", () => {
  const commands = allCommands();

  it("runs for every command and subcommand", () => {
    expect(commands.map((c) => c.join(" "))).toEqual(
      expect.arrayContaining(["build", "check", "import hbb", "import api", "import oscmeta", "stats count"]),
    );
    for (const command of commands) expect(help(command), command.join(" ")).toMatch(/^Usage: shopfront /);
  });

  it("gives each option's default once", () => {
    const twice = commands.flatMap((command) =>
      optionEntries(help(command))
        .filter((entry) => (entry.match(/default:/g) ?? []).length > 1)
        .map((entry) => `${command.join(" ")}: ${entry}`),
    );
    expect(twice).toEqual([]);
  });

  it("lists every option the docs/cli.md synopsis gives the command, and the synopsis every option it lists", () => {
    const lines = synopsis();
    const missing: string[] = [];
    for (const command of commands) {
      const forms = lines.filter((l) => l.words.slice(0, command.length).join(" ") === command.join(" "));
      if (forms.length === 0) {
        // A group (`import`, `stats`) has no line of its own.
        if (commandsOf(command).length === 0) missing.push(`docs/cli.md has no synopsis of ${command.join(" ")}`);
        continue;
      }
      const documented = new Set(forms.flatMap((f) => [...f.line.matchAll(/--[a-z][a-z-]*/g)].map((m) => m[0])));
      for (const option of optionsOf(command))
        if (option !== "--help" && !documented.has(option))
          missing.push(`docs/cli.md's synopsis of ${command.join(" ")} lacks ${option}`);
    }
    expect(missing).toEqual([]);
  });

  it("of import names each kind of source, and of init each file it writes and what to run next", () => {
    for (const kind of commandsOf(["import"])) expect(help(["import"])).toMatch(new RegExp(`\\(${kind}\\)`));
    const init = help(["init"]).replace(/\s+/g, " ");
    for (const file of projectFiles({ version: "0", nowSeconds: 0, workflow: "" }))
      expect(init, file.path).toContain(file.path);
    expect(init).toContain("vendor/shopfront-<version>.tgz");
    expect(init).toMatch(/Next: .*npm install, npm run build/);
  });
});

describe("docs/cli.md's synopsis", () => {
  it("parses, each line as a user would type it, by the CLI's own parser (no command runs)", async () => {
    const failures: string[] = [];
    for (const { line, words } of synopsis()) {
      const example = exampleOf(words);
      try {
        await parsingOnly().parseAsync(example, { from: "user" });
      } catch (error) {
        failures.push(`${line}\n  as ${example.join(" ")}: ${(error as Error).message}`);
      }
    }
    expect(failures).toEqual([]);
  });
});
