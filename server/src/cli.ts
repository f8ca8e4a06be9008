#!/usr/bin/env node
import { runCli } from "./cli/run";

// A reader that stops early (`engram token list --org … | head -1`) closes the pipe: the command ends there, quietly,
// as Unix tools do, rather than with a stack trace for each line it could not write.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code !== "EPIPE") throw error;
  process.exit(process.exitCode ?? 0);
});

process.exitCode = await runCli(process.argv.slice(2));
