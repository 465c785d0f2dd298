#!/usr/bin/env node
import { setFlagsFromString } from "node:v8";
import { main } from "./main.js";

// Baseline code only for tree-sitter's WebAssembly. Optimised code parses a script in ~12 µs instead of
// ~17, but tiering up leaves conchd tens of MiB larger, and every command it spawns pays for that: fork
// and exec of a larger address space cost ~0.5-3 ms more per spawn (measured on Node 20), far more than
// the parse saves.
setFlagsFromString("--liftoff-only");

const code = await main(process.argv.slice(2));
// Exit explicitly: everything conchd started is already killed and flushed, and nothing else it may
// still hold (a paused stdin, a closed PTY's handle) should keep a finished daemon alive.
process.exit(code);
