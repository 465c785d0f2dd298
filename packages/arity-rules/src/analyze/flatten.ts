// Copying a parsed tree into a FlatTree (flat-tree.ts), in one of two ways that give the same arrays.
//
// flattenWithCursor moves web-tree-sitter's public TreeCursor. Each of its reads and moves copies the
// cursor into the wasm memory (at the runtime's TRANSFER_BUFFER) and back, through emscripten's generic
// setValue/getValue, before and after the wasm call that does the work.
//
// The direct flattener makes those wasm calls itself. web-tree-sitter's C side keeps the cursor being
// worked on in TRANSFER_BUFFER: `ts_tree_cursor_new_wasm` writes the cursor there (from the node that
// `ts_tree_root_node_wasm` wrote there), every getter reads it from there, every move reads it and writes
// it back. As long as nothing else touches TRANSFER_BUFFER in between, which holds here since the whole
// walk is one synchronous loop with no other call into web-tree-sitter, the cursor never needs to leave
// the wasm memory. The wasm exports are found on the object given to `Parser.init()`: emscripten's
// factory uses that very object as its Module and puts every export on it. These are internals of
// web-tree-sitter 0.25, so the direct flattener is only used after it gave the same arrays as the
// public one on a probe script (chooseFlattener); otherwise the public one is.

import type { Language, Parser, Tree } from "web-tree-sitter";
import { acquireFlatTree, type FlatTree, releaseFlatTree } from "./flat-tree.js";

/** Copies tree into out (emptied first). */
export type Flattener = (tree: Tree, out: FlatTree) => void;

/** Through web-tree-sitter's public API: one TreeCursor walked over the whole tree. */
export function flattenWithCursor(tree: Tree, out: FlatTree): void {
  out.count = 0;
  const root = tree.rootNode;
  out.hasError = root.hasError;
  const cursor = root.walk();
  try {
    let parent = -1;
    let previous = -1;
    for (;;) {
      const index = out.add(
        cursor.nodeType,
        cursor.startIndex,
        cursor.endIndex,
        cursor.nodeIsNamed,
        parent,
        previous,
      );
      if (cursor.gotoFirstChild()) {
        parent = index;
        previous = -1;
        continue;
      }
      previous = index;
      while (!cursor.gotoNextSibling()) {
        if (!cursor.gotoParent()) return;
        previous = parent;
        parent = out.parents[parent] as number;
      }
    }
  } finally {
    cursor.delete();
  }
}

/** The wasm exports of web-tree-sitter's runtime that the direct flattener calls, each given the tree. */
const EXPORTS = [
  "_ts_tree_root_node_wasm",
  "_ts_node_has_error_wasm",
  "_ts_tree_cursor_new_wasm",
  "_ts_tree_cursor_delete_wasm",
  "_ts_tree_cursor_current_node_type_id_wasm",
  "_ts_tree_cursor_start_index_wasm",
  "_ts_tree_cursor_end_index_wasm",
  "_ts_tree_cursor_current_node_is_named_wasm",
  "_ts_tree_cursor_goto_first_child_wasm",
  "_ts_tree_cursor_goto_next_sibling_wasm",
  "_ts_tree_cursor_goto_parent_wasm",
] as const;

type WasmCall = (tree: number) => number;

/**
 * A flattener calling the runtime's wasm exports directly, or null when runtime (the object given to
 * `Parser.init()`) does not hold them all (another version of web-tree-sitter, or a runtime initialised
 * before, from another object).
 */
export function directFlattener(runtime: object, language: Language): Flattener | null {
  const calls = runtime as Partial<Record<(typeof EXPORTS)[number], unknown>>;
  if (!EXPORTS.every((name) => typeof calls[name] === "function")) return null;
  const exports = calls as Record<(typeof EXPORTS)[number], WasmCall>;
  const rootNode = exports._ts_tree_root_node_wasm;
  const hasError = exports._ts_node_has_error_wasm;
  const newCursor = exports._ts_tree_cursor_new_wasm;
  const deleteCursor = exports._ts_tree_cursor_delete_wasm;
  const typeId = exports._ts_tree_cursor_current_node_type_id_wasm;
  const startIndex = exports._ts_tree_cursor_start_index_wasm;
  const endIndex = exports._ts_tree_cursor_end_index_wasm;
  const isNamed = exports._ts_tree_cursor_current_node_is_named_wasm;
  const gotoFirstChild = exports._ts_tree_cursor_goto_first_child_wasm;
  const gotoNextSibling = exports._ts_tree_cursor_goto_next_sibling_wasm;
  const gotoParent = exports._ts_tree_cursor_goto_parent_wasm;
  const types = language.types;
  return (tree, out) => {
    // The tree's address in the wasm memory, which web-tree-sitter keeps at index 0 of every Tree.
    const address = (tree as unknown as { readonly 0: number })[0];
    out.count = 0;
    rootNode(address);
    out.hasError = hasError(address) === 1;
    newCursor(address);
    try {
      let parent = -1;
      let previous = -1;
      for (;;) {
        // As TreeCursor.nodeType names a type id.
        const type = types[typeId(address)] || "ERROR";
        const index = out.add(
          type,
          startIndex(address),
          endIndex(address),
          isNamed(address) === 1,
          parent,
          previous,
        );
        if (gotoFirstChild(address) === 1) {
          parent = index;
          previous = -1;
          continue;
        }
        previous = index;
        while (gotoNextSibling(address) !== 1) {
          if (gotoParent(address) !== 1) return;
          previous = parent;
          parent = out.parents[parent] as number;
        }
      }
    } finally {
      deleteCursor(address);
    }
  };
}

// Parsed to check the direct flattener before it is trusted: named and anonymous nodes at several depths,
// a heredoc, and non-ASCII text (indexes count UTF-16 code units). It checks how the two talk to the wasm
// runtime, which does not depend on the kind of node; it holds no parse error, whose recovery code the
// runtime would otherwise compile at every start (~20 ms): flatten.test.ts compares both on broken scripts.
const PROBE = "a=1 b 'é🙂' \"$x\" | c > f && { d $(e) || (f; g) & }\ncat <<E\n$z\nE";

/** True when the two flat trees hold the same nodes. */
export function sameFlatTrees(a: FlatTree, b: FlatTree): boolean {
  if (a.count !== b.count || a.hasError !== b.hasError) return false;
  for (let index = 0; index < a.count; index++) {
    if (
      a.types[index] !== b.types[index] ||
      a.starts[index] !== b.starts[index] ||
      a.ends[index] !== b.ends[index] ||
      a.named[index] !== b.named[index] ||
      a.parents[index] !== b.parents[index] ||
      a.nextSiblings[index] !== b.nextSiblings[index] ||
      a.previousSiblings[index] !== b.previousSiblings[index]
    ) {
      return false;
    }
  }
  return true;
}

/**
 * The direct flattener when runtime holds the wasm exports and it copies the probe script exactly as the
 * public one does; flattenWithCursor otherwise.
 */
export function chooseFlattener(runtime: object, parser: Parser, language: Language): Flattener {
  const direct = directFlattener(runtime, language);
  if (direct === null) return flattenWithCursor;
  const tree = parser.parse(PROBE);
  if (tree === null) return flattenWithCursor;
  const expected = acquireFlatTree();
  const actual = acquireFlatTree();
  try {
    flattenWithCursor(tree, expected);
    direct(tree, actual);
    return sameFlatTrees(expected, actual) ? direct : flattenWithCursor;
  } catch {
    return flattenWithCursor;
  } finally {
    releaseFlatTree(expected);
    releaseFlatTree(actual);
    tree.delete();
  }
}
