#!/usr/bin/env node
import { setFlagsFromString } from "node:v8";
import { main } from "./main.js";

// conch lives for one command. V8 would tier tree-sitter's WebAssembly up to optimised code in the
// background, and the process then waits about half a second at exit for that compile to finish:
// baseline code is plenty for one parse.
setFlagsFromString("--liftoff-only");

process.exitCode = await main(process.argv.slice(2));
