// A parsed tree copied out of web-tree-sitter into plain arrays, and a cursor over it for the walker.
//
// Every property read and every move of web-tree-sitter's TreeCursor copies the cursor into the wasm
// memory and back through emscripten's generic helpers, which cost more than the walk itself. The tree is
// therefore copied once, right after the parse (flatten.ts), and walked in JavaScript. The copy holds
// exactly what a TreeCursor visits: the visible nodes in preorder, each with the children the cursor
// finds under it, so a FlatCursor answers every question and every move as a TreeCursor on the same tree
// would (flatten.test.ts checks both against each other).

// Nodes a pooled tree may keep room for; a tree grown past this for one huge script is left to the GC.
const POOLED_CAPACITY = 4096;

export class FlatTree {
  /** Number of nodes; node 0 is the root. */
  count = 0;
  /** Whether the tree holds a syntax error (tree-sitter's `hasError` of the root). */
  hasError = false;
  /** Node types as web-tree-sitter names them (`nodeType`). */
  readonly types: string[] = [];
  /** Source range of each node, in UTF-16 code units (`startIndex`, `endIndex`). */
  starts: Int32Array;
  ends: Int32Array;
  /** 1 for a named node, 0 for an anonymous one. */
  named: Uint8Array;
  /** The parent of each node, -1 for the root. */
  parents: Int32Array;
  /** The next and previous sibling of each node, -1 when there is none. */
  nextSiblings: Int32Array;
  previousSiblings: Int32Array;

  constructor(capacity = 64) {
    this.starts = new Int32Array(capacity);
    this.ends = new Int32Array(capacity);
    this.named = new Uint8Array(capacity);
    this.parents = new Int32Array(capacity);
    this.nextSiblings = new Int32Array(capacity);
    this.previousSiblings = new Int32Array(capacity);
  }

  /** Appends a node under parent (-1 for the root), after previous (-1 for a first child); its index. */
  add(type: string, start: number, end: number, named: boolean, parent: number, previous: number): number {
    const index = this.count;
    if (index === this.starts.length) this.grow();
    this.count = index + 1;
    this.types[index] = type;
    this.starts[index] = start;
    this.ends[index] = end;
    this.named[index] = named ? 1 : 0;
    this.parents[index] = parent;
    this.previousSiblings[index] = previous;
    this.nextSiblings[index] = -1;
    if (previous !== -1) this.nextSiblings[previous] = index;
    return index;
  }

  private grow(): void {
    const capacity = this.starts.length * 2;
    this.starts = copied(this.starts, new Int32Array(capacity));
    this.ends = copied(this.ends, new Int32Array(capacity));
    this.named = copied(this.named, new Uint8Array(capacity));
    this.parents = copied(this.parents, new Int32Array(capacity));
    this.nextSiblings = copied(this.nextSiblings, new Int32Array(capacity));
    this.previousSiblings = copied(this.previousSiblings, new Int32Array(capacity));
  }
}

function copied<T extends Int32Array | Uint8Array>(from: T, to: T): T {
  to.set(from);
  return to;
}

// Trees are reused: a script is walked right after its parse, and a nested script (`bash -c`) takes
// another tree while the outer one is still being walked.
const spare: FlatTree[] = [];

export function acquireFlatTree(): FlatTree {
  const tree = spare.pop() ?? new FlatTree();
  tree.count = 0;
  tree.hasError = false;
  return tree;
}

export function releaseFlatTree(tree: FlatTree): void {
  if (tree.starts.length <= POOLED_CAPACITY) spare.push(tree);
}

/** The part of web-tree-sitter's TreeCursor that the walker uses, over a FlatTree. */
export class FlatCursor {
  private readonly tree: FlatTree;
  private node = 0;

  constructor(tree: FlatTree) {
    this.tree = tree;
  }

  get nodeType(): string {
    return this.tree.types[this.node] as string;
  }

  get startIndex(): number {
    return this.tree.starts[this.node] as number;
  }

  get endIndex(): number {
    return this.tree.ends[this.node] as number;
  }

  get nodeIsNamed(): boolean {
    return this.tree.named[this.node] === 1;
  }

  gotoFirstChild(): boolean {
    // In preorder, a node's first child comes right after it.
    const child = this.node + 1;
    if (child >= this.tree.count || this.tree.parents[child] !== this.node) return false;
    this.node = child;
    return true;
  }

  gotoNextSibling(): boolean {
    return this.moveTo(this.tree.nextSiblings[this.node] as number);
  }

  gotoPreviousSibling(): boolean {
    return this.moveTo(this.tree.previousSiblings[this.node] as number);
  }

  gotoParent(): boolean {
    return this.moveTo(this.tree.parents[this.node] as number);
  }

  private moveTo(node: number): boolean {
    if (node === -1) return false;
    this.node = node;
    return true;
  }
}
