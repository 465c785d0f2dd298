#!/usr/bin/env node
import { main } from "./main.js";

const code = await main(process.argv.slice(2));
// Exit explicitly: everything conchd started is already killed and flushed, and nothing else it may
// still hold (a paused stdin, a closed PTY's handle) should keep a finished daemon alive.
process.exit(code);
