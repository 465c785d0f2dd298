// What the walker, the word reader and the redirection reader share while they read one tree: the script,
// the one cursor they all move, whether zsh runs it, and where opaque parts are reported.

import type { OpaquePart, OpaqueReason } from "../types.js";
import type { FlatCursor } from "./flat-tree.js";

export class WalkContext {
  readonly src: string;
  readonly cursor: FlatCursor;
  /** The script is run by zsh, which reads some of bash's syntax otherwise (see the top of walker.ts). */
  readonly zsh: boolean;
  /** Where opaque parts go; the redirection reader swaps in a list of its own to defer some. */
  opaque: OpaquePart[] = [];

  constructor(src: string, cursor: FlatCursor, zsh: boolean) {
    this.src = src;
    this.cursor = cursor;
    this.zsh = zsh;
  }

  /** The source text of the node at the cursor. */
  text(): string {
    return this.src.slice(this.cursor.startIndex, this.cursor.endIndex);
  }

  report(reason: OpaqueReason, start: number, end: number): void {
    this.opaque.push({ reason, text: this.src.slice(start, end) });
  }

  reportNode(reason: OpaqueReason): void {
    this.report(reason, this.cursor.startIndex, this.cursor.endIndex);
  }

  reportText(reason: OpaqueReason, text: string): void {
    this.opaque.push({ reason, text });
  }
}
