#!/usr/bin/env node
import { runCli } from "./cli/run";

/** The status of a process stopped by writing to a closed pipe (128 + SIGPIPE), as shells report for `yes | head -1`. */
const CLOSED_PIPE_STATUS = 141;

// A reader that stops early (`engram token list --org … | head -1`) closes the pipe: the command stops there, quietly,
// as Unix tools do, with the closed pipe's status, so a script that checks it knows not everything was written (a
// new token's secret, say). Any other failure to write is told in one line.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code !== "EPIPE") process.stderr.write(`engram: cannot write the output: ${error.message}\n`);
  process.exit(error.code === "EPIPE" ? CLOSED_PIPE_STATUS : 1);
});

// An error line that cannot be written (stderr on a full disk) has no one left to tell: the status says what it
// would have, rather than an unhandled write error replacing it with 1.
process.stderr.on("error", () => {});

process.exitCode = await runCli(process.argv.slice(2));
