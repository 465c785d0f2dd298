import { readCorpus } from "@conch/test-config";
import { describe, expect, it } from "vitest";
import type { Tree, TreeCursor } from "web-tree-sitter";
import { FlatCursor, FlatTree } from "./flat-tree.js";
import { chooseFlattener, directFlattener, flattenWithCursor, sameFlatTrees } from "./flatten.js";
import { loadBashParser, loadRuntime } from "./parser.js";

const bash = await loadBashParser();
const { exports } = await loadRuntime();
const language = bash.parser.language;
if (language === null) throw new Error("the bash parser has no language");

// Scripts with every kind of node the walker meets, and the ways a parse goes wrong.
const SCRIPTS = [
  "",
  "ls -la",
  "a=1 b=2 c 'd' \"$e\" $'f\\n' $\"g\" ${h:-i} $((j + 1)) `k` $(l) <(m) >(n) {o,p} q* [r] ~/s",
  "a && b || c | d |& e; f & g",
  "! a | b; time -p c; coproc d; eval e; command -v f; builtin g",
  "if a; then b; elif c; then d; else e; fi; while f; do g; done; until h; do i; done",
  "for x in a b; do c; done; for ((i = 0; i < 3; i++)); do d; done; select y in e; do f; done",
  "case $x in a|b) c;; d) e;& f) g;;& *) h;; esac",
  "f() { a; }; function g { b; } > out; { c; } 2>&1; (d) < in; ((e++))",
  "[ -f a ] && [[ $b == c* && -n $d ]] || test e",
  "cat <<EOF > out && next\nbody $x $(y)\nEOF\ncat <<-'E' | wc\n\tquoted\n\tE\n",
  'a <<< "here" 3<&0 4>&- 5<>f >| g &> h &>> i 2>/dev/null',
  "declare -a x=(1 2); export A=b C; local -r d; readonly e=1; unset f; typeset g",
  "bash -c 'rm -rf x' && sh -lc \"echo $(bash -c 'ls')\" && zsh -c 'echo =(ls) $x[1] >! f'",
  "echo ünïcödé 🎉 \"ção\" 'ß' $'\\u00e9' ‐‐dash — done",
  "echo a\\\nb \\ c\r\nd\f\ve # comment\n# another",
  "x=$(cat <<EOF\n$(nested)\nEOF\n)",
  "echo ${ ls; } ${| pwd; } ${!x} ${#y[@]} ${z/a/b} ${w@P}",
  "repeat 3 echo; foreach x (a b) echo $x; end; () { echo; }; rm f &!",
  "echo $(( ; [[ a",
  "if then fi done esac ;; ) } ]] ` ' \"",
  "ls ;; pwd & & | |",
  "a=( [k]=v ) b[$i]=2 c+=d",
  `${"( ls | ".repeat(40)}ls${" )".repeat(40)}`,
];

interface SafetyCase {
  argv: string[];
}
interface PolicyCase {
  command?: string[];
  commands?: string[][];
}

function corpusScripts(): string[] {
  const scripts: string[] = [];
  for (const { argv } of readCorpus("codex-safety-cases") as SafetyCase[]) {
    scripts.push(argv.join(" "));
    if (argv.length === 3) scripts.push(argv[2] as string);
  }
  for (const { command, commands } of readCorpus("codex-execpolicy-cases") as PolicyCase[]) {
    for (const argv of [...(command === undefined ? [] : [command]), ...(commands ?? [])]) {
      scripts.push(argv.join(" "));
    }
  }
  return scripts;
}

// Every script, and cut short at several places (an unfinished script is a parse error, often with
// MISSING nodes).
const ALL = [...new Set([...SCRIPTS, ...corpusScripts()])].flatMap((script) => {
  const cuts = [script];
  for (let end = 3; end < script.length; end += 5) cuts.push(script.slice(0, end));
  return cuts;
});

function withTree<T>(script: string, use: (tree: Tree) => T): T {
  const tree = bash.parser.parse(script);
  if (tree === null) throw new Error(`no tree for ${JSON.stringify(script)}`);
  try {
    return use(tree);
  } finally {
    tree.delete();
  }
}

function flattened(tree: Tree, flatten: (tree: Tree, out: FlatTree) => void): FlatTree {
  const flat = new FlatTree(4);
  flatten(tree, flat);
  return flat;
}

/** The nodes of a flat tree as plain rows, for a readable difference. */
function rows(flat: FlatTree): unknown[] {
  const out: unknown[] = [flat.hasError];
  for (let index = 0; index < flat.count; index++) {
    out.push([
      flat.types[index],
      flat.starts[index],
      flat.ends[index],
      flat.named[index],
      flat.parents[index],
      flat.nextSiblings[index],
      flat.previousSiblings[index],
    ]);
  }
  return out;
}

function describeNode(cursor: TreeCursor | FlatCursor): unknown[] {
  return [cursor.nodeType, cursor.startIndex, cursor.endIndex, cursor.nodeIsNamed];
}

describe("flattening a tree", () => {
  it("calls the runtime's wasm exports directly with the web-tree-sitter installed", () => {
    expect(bash.flatten).not.toBe(flattenWithCursor);
  });

  it("gives the same arrays through the wasm exports as through the public TreeCursor", () => {
    const direct = directFlattener(exports, language);
    if (direct === null) throw new Error("the runtime lacks the wasm exports");
    expect(ALL.length).toBeGreaterThan(1500);
    for (const script of ALL) {
      withTree(script, (tree) => {
        const expected = flattened(tree, flattenWithCursor);
        const actual = flattened(tree, direct);
        if (!sameFlatTrees(expected, actual)) {
          expect({ script, nodes: rows(actual) }).toEqual({ script, nodes: rows(expected) });
        }
      });
    }
  });

  it("numbers nodes as TreeCursor descendants, with the parent and siblings a TreeCursor moves to", () => {
    const nodeAt = (flat: FlatTree, index: number): unknown[] | null =>
      index === -1
        ? null
        : [flat.types[index], flat.starts[index], flat.ends[index], flat.named[index] === 1];
    for (const script of ALL) {
      withTree(script, (tree) => {
        const flat = flattened(tree, bash.flatten);
        const cursor = tree.walk();
        try {
          expect(flat.hasError).toBe(tree.rootNode.hasError);
          for (let index = 0; index < flat.count; index++) {
            cursor.gotoDescendant(index);
            expect({ script, index, node: describeNode(cursor) }).toEqual({
              script,
              index: cursor.currentDescendantIndex,
              node: nodeAt(flat, index),
            });
            const moves: [(cursor: TreeCursor) => boolean, Int32Array][] = [
              [(c) => c.gotoParent(), flat.parents],
              [(c) => c.gotoNextSibling(), flat.nextSiblings],
              [(c) => c.gotoPreviousSibling(), flat.previousSiblings],
            ];
            for (const [move, links] of moves) {
              cursor.gotoDescendant(index);
              // Compared by what the node is: TreeCursor miscounts descendants after a move backwards.
              const node = move(cursor) ? describeNode(cursor) : null;
              expect({ script, index, node }).toEqual({
                script,
                index,
                node: nodeAt(flat, links[index] as number),
              });
            }
          }
          cursor.gotoDescendant(flat.count - 1);
          expect(cursor.gotoFirstChild() || cursor.gotoNextSibling()).toBe(false);
        } finally {
          cursor.delete();
        }
      });
    }
  });

  it("moves a FlatCursor as a TreeCursor moves on the same tree, failed moves included", () => {
    let seed = 7;
    const random = (limit: number): number => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % limit;
    };
    const moves = ["gotoFirstChild", "gotoNextSibling", "gotoPreviousSibling", "gotoParent"] as const;
    for (const script of ALL) {
      withTree(script, (tree) => {
        const flat = flattened(tree, bash.flatten);
        const expected = tree.walk();
        const actual = new FlatCursor(flat);
        try {
          expect(describeNode(actual)).toEqual(describeNode(expected));
          for (let step = 0; step < 3 * flat.count; step++) {
            const move = moves[random(moves.length)] as (typeof moves)[number];
            expect({ script, step, move, moved: actual[move]() }).toEqual({
              script,
              step,
              move,
              moved: expected[move](),
            });
            expect(describeNode(actual)).toEqual(describeNode(expected));
          }
        } finally {
          expected.delete();
        }
      });
    }
  });
});

describe("choosing a flattener", () => {
  it("takes the public TreeCursor when the runtime object lacks the wasm exports", () => {
    expect(directFlattener({}, language)).toBe(null);
    expect(chooseFlattener({}, bash.parser, language)).toBe(flattenWithCursor);
  });

  it("takes the public TreeCursor when the wasm exports copy the probe script otherwise", () => {
    const swapped = {
      ...exports,
      _ts_tree_cursor_start_index_wasm: (exports as Record<string, unknown>)._ts_tree_cursor_end_index_wasm,
    };
    expect(directFlattener(swapped, language)).not.toBe(null);
    expect(chooseFlattener(swapped, bash.parser, language)).toBe(flattenWithCursor);
    expect(chooseFlattener(exports, bash.parser, language)).not.toBe(flattenWithCursor);
  });

  it("grows a tree past its first capacity and keeps every node", () => {
    const script = `${"a | ".repeat(300)}b`;
    withTree(script, (tree) => {
      const small = flattened(tree, bash.flatten);
      const large = new FlatTree(4096);
      bash.flatten(tree, large);
      expect(small.count).toBeGreaterThan(1200);
      expect(rows(small)).toEqual(rows(large));
    });
  });
});
