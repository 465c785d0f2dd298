// One script, parsed, copied into a FlatTree and walked synchronously. The tree is freed whatever happens.

import type { Analysis } from "../types.js";
import { collectLexicalHazards, collectParseErrors, LEXICAL_HAZARD } from "./checks.js";
import { acquireFlatTree, FlatCursor, releaseFlatTree } from "./flat-tree.js";
import type { BashParser } from "./parser.js";
import { Walker } from "./walker.js";

/** Scripts longer than this (in UTF-8 bytes) are not parsed: they are opaque as `too-large`. */
const MAX_SCRIPT_BYTES = 65_536;

// How much of a too-large script its opaque part quotes.
const PREVIEW_CHARS = 100;

/** True when script is over MAX_SCRIPT_BYTES, without encoding it when the answer is plain. */
export function isTooLarge(script: string): boolean {
  if (script.length > MAX_SCRIPT_BYTES) return true; // every UTF-16 unit is at least one UTF-8 byte
  if (script.length * 3 <= MAX_SCRIPT_BYTES) return false; // and at most three
  return Buffer.byteLength(script, "utf8") > MAX_SCRIPT_BYTES;
}

/** The analysis of a script too large to parse. */
export function tooLarge(script: string): Analysis {
  return {
    commands: [],
    operators: [],
    redirects: [],
    opaque: [{ reason: "too-large", text: preview(script) }],
  };
}

/** The start of a script, for an opaque part that stands for all of it. */
function preview(script: string): string {
  let text = script.slice(0, PREVIEW_CHARS);
  const last = text.charCodeAt(text.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) text = text.slice(0, -1);
  return `${text}…`;
}

/**
 * Analyses script with parser; depth counts the `bash -c` scripts around it, and `zsh` says zsh runs it
 * (a nested script is read as the shell that runs it reads it).
 */
export function analyzeScript(parser: BashParser, script: string, depth: number, zsh = false): Analysis {
  if (isTooLarge(script)) return tooLarge(script);
  const tree = parser.parser.parse(script);
  if (tree === null) {
    return { commands: [], operators: [], redirects: [], opaque: [{ reason: "parse-error", text: script }] };
  }
  const flat = acquireFlatTree();
  try {
    const walker = new Walker(
      script,
      new FlatCursor(flat),
      depth,
      (nested, nestedDepth, nestedZsh) => analyzeScript(parser, nested, nestedDepth, nestedZsh),
      zsh,
    );
    try {
      parser.flatten(tree, flat);
      // The checks read the tree through web-tree-sitter's nodes, once the flattening is done.
      if (flat.hasError) collectParseErrors(tree.rootNode, script, walker.opaque);
      if (LEXICAL_HAZARD.test(script)) collectLexicalHazards(tree, script, walker.opaque);
      walker.walk();
    } catch (error) {
      // Nesting deep enough to exhaust the stack (thousands of subshells in 64 KiB): fail closed.
      if (!(error instanceof RangeError)) throw error;
      return {
        commands: [],
        operators: [],
        redirects: [],
        opaque: [{ reason: "too-deep", text: preview(script) }],
      };
    }
    return walker.result();
  } finally {
    releaseFlatTree(flat);
    tree.delete();
  }
}
