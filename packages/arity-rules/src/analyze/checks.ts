// Checks on the whole tree, run only when the cheap test before them says they might find something:
// parse errors, and places where tree-sitter-bash reads the text differently from bash.

import type { Node, Tree } from "web-tree-sitter";
import type { OpaquePart } from "../types.js";
import { FUNSUB_START } from "./words.js";

/** Reports every ERROR node and every MISSING token (with the text of the construct it should close). */
export function collectParseErrors(root: Node, src: string, out: OpaquePart[]): void {
  if (root.type === "ERROR") {
    out.push({ reason: "parse-error", text: src });
    return;
  }
  visitErrors(root, src, out);
}

function visitErrors(node: Node, src: string, out: OpaquePart[]): void {
  for (const child of node.children) {
    if (child === null) continue;
    if (child.type === "ERROR" || child.isMissing) {
      let context: Node | null = child;
      while (context !== null && context.startIndex === context.endIndex) context = context.parent;
      out.push({
        reason: "parse-error",
        text: context === null ? "" : src.slice(context.startIndex, context.endIndex),
      });
      // A function substitution (`${ cmd; }`, `${| cmd; }`) is an ERROR for tree-sitter-bash; it runs cmd.
      const text = src.slice(child.startIndex, child.endIndex);
      if (child.type === "ERROR" && FUNSUB_START.test(text) && text.endsWith("}")) {
        out.push({ reason: "command-substitution", text });
      }
    } else if (child.hasError) {
      visitErrors(child, src, out);
    }
  }
}

/**
 * The characters at which tree-sitter-bash and bash can read a script differently: `\r`, `\f`, `\v` (blanks
 * for tree-sitter, word characters for bash), NUL, a backslash before a blank (tree-sitter skips `\ ` as
 * blank where bash keeps a space in the word; it skips `\` newline even inside a word, where bash joins the
 * two halves) and `#` (a comment for tree-sitter in places where bash does not start one).
 */
export const LEXICAL_HAZARD: RegExp = /[\0\r\f\v#]|\\[\n \t]/;

// Characters before which `#` starts a comment in bash (a `#` must begin a word).
const COMMENT_PRECEDERS = " \t\n;&|()<>";

/**
 * Reports, as `unsupported-syntax`, each word in which tree-sitter-bash would see other words than bash:
 * `echo a\<newline>#; rm x` is one command for tree-sitter (the rest is a comment) and two for bash;
 * `echo a \<CR><LF>rm x` is one for tree-sitter and two for bash; `rm \ -rf` has the argument ` -rf` for
 * bash and `-rf` for tree-sitter.
 */
export function collectLexicalHazards(tree: Tree, src: string, out: OpaquePart[]): void {
  // Made only when a character needs a look at the tree: most scripts have none of them.
  let rootNode: Node | null = null;
  const root = (): Node => {
    rootNode ??= tree.rootNode;
    return rootNode;
  };
  for (let index = 0; index < src.length; index++) {
    const char = src[index];
    let hazard = false;
    if (char === "\0") {
      hazard = true;
    } else if (char === "\r" || char === "\f" || char === "\v") {
      hazard = !insideToken(root(), index);
    } else if (char === "\\") {
      const next = src[index + 1];
      if (next === "\\") {
        index++; // an escaped backslash
        continue;
      }
      if (next === " " || next === "\t") {
        hazard = !insideToken(root(), index);
      } else if (next === "\n") {
        const before = src[index - 1];
        const after = src[index + 2];
        // Bash joins the text on both sides; tree-sitter reads a blank there.
        hazard =
          before !== undefined &&
          after !== undefined &&
          !isBlank(before) &&
          !isBlank(after) &&
          !insideToken(root(), index);
      }
    } else if (char === "#") {
      const before = src[index - 1];
      const startsComment =
        before === undefined ||
        (COMMENT_PRECEDERS.includes(before) && !(before === "\n" && src[index - 2] === "\\"));
      hazard = !startsComment && root().descendantForIndex(index, index + 1)?.type === "comment";
    }
    if (hazard) {
      let start = index;
      while (start > 0 && !isBlank(src[start - 1] as string)) start--;
      let end = char === "\\" ? index + 2 : index + 1;
      while (end < src.length && !isBlank(src[end] as string)) end++;
      out.push({ reason: "unsupported-syntax", text: src.slice(start, end) });
      index = end - 1;
    }
  }
}

function isBlank(char: string): boolean {
  return char === " " || char === "\t" || char === "\n";
}

/**
 * True when the character at index is part of a token (a leaf), or of the text of a double-quoted string
 * (whose gaps between parts the walker reads too), not skipped between tokens as blank.
 */
function insideToken(root: Node, index: number): boolean {
  const node = root.descendantForIndex(index, index + 1);
  return node !== null && (node.childCount === 0 || node.type === "string");
}
