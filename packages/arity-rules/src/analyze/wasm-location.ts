// Where the parser's wasm files are. Kept apart from the parser so that the public declarations never
// name web-tree-sitter's types (which need @types/emscripten in a consumer that checks its libraries).

import { fileURLToPath } from "node:url";

/** Where the parser's wasm files are: a path or a `file:` URL each; one left out keeps its default. */
export interface WasmLocation {
  /** web-tree-sitter's runtime, `tree-sitter.wasm` (default: next to web-tree-sitter's module). */
  readonly treeSitter?: string | URL;
  /** The bash grammar, `tree-sitter-bash.wasm` (default: the copy in this package's `grammar/`). */
  readonly bash?: string | URL;
}

let treeSitterWasm: string | null = null;
let bashWasm: string | null = null;

// Set while the parser's runtime is loaded or loading: it cannot move then.
let locked = false;

function toPath(location: string | URL): string {
  return typeof location === "string" ? location : fileURLToPath(location);
}

/**
 * Says where the wasm files of the bash parser are, for a consumer that bundles this package (its
 * bundle no longer sits beside them): copy `tree-sitter.wasm` (from web-tree-sitter) and
 * `tree-sitter-bash.wasm` (from this package's `grammar/`) next to the bundle and point here. Call it
 * before the first analysis: once the parser has started loading, the runtime cannot move and this
 * throws. After a failed load (ArityRulesError `PARSER_UNAVAILABLE`) it may be called again.
 */
export function setWasmLocation(location: WasmLocation): void {
  if (locked) {
    throw new Error("setWasmLocation: the bash parser is already loaded; call it before the first analysis");
  }
  if (location.treeSitter !== undefined) treeSitterWasm = toPath(location.treeSitter);
  if (location.bash !== undefined) bashWasm = toPath(location.bash);
}

/** The locations set (null: the default), for the parser. */
export function wasmLocations(): { treeSitter: string | null; bash: string | null } {
  return { treeSitter: treeSitterWasm, bash: bashWasm };
}

/** Called by the parser as its runtime starts loading (true) and when a load failed (false). */
export function lockWasmLocation(value: boolean): void {
  locked = value;
}
