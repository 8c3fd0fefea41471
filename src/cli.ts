#!/usr/bin/env node
// The command line: commander parses and checks the arguments, each command (src/cli/commands/)
// calls one core function and prints its result, and this file turns what is thrown into an exit
// code: 0 ok, 1 invalid catalogue, failed check (or a failure outside the catalogue), 2 usage
// error, 3 internal error. Commands that serve, check or import load their modules on use, so a
// build starts quickly. Only this file catches.
import { EXIT, exitCodeFor } from "./cli/exit.js";
import { createProgram } from "./cli/program.js";

const program = createProgram();

// A reader that closes the pipe early (`shopfront ... | head`) has what it wanted: not an error.
for (const stream of [process.stdout, process.stderr])
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error;
    process.exit(process.exitCode ?? EXIT.ok);
  });

try {
  await program.parseAsync(process.argv);
} catch (error) {
  process.exitCode = exitCodeFor(error);
}
