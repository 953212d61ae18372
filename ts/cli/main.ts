#!/usr/bin/env node
// The `ctxwin` executable (package.json "bin"). Exit codes: 0 done, 1 the command failed (a
// file it could not read, a model error), 2 a bad command line (with the usage on stderr).
import "../runtime/node-loader.js"; // loads the core on Node before anything uses it
import { runCli } from "./run.js";

const io = { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env };
process.exitCode = await runCli(process.argv.slice(2), io);
