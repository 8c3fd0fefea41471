// Preloaded into the CLI (`node --import`) by the tests that bound a command's memory: at exit, the
// process's peak resident set size (getrusage's ru_maxrss, in kilobytes) as the last line of stderr.
process.on("exit", () => process.stderr.write(`peak-rss-kb ${process.resourceUsage().maxRSS}\n`));
