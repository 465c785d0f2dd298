// What the walker gathers for one simple command before it is pushed, or for the redirections written
// after a compound command: argv with the indexes of its non-literal words, redirections, deferred opaque
// parts.

import type { OpaquePart, Redirect } from "../types.js";

/** The words, redirections and deferred opaque parts gathered for one command, or for a redirection list. */
export class Parts {
  readonly argv: string[] = [];
  /** Indexes of argv words that are not literal (they hold their source text). */
  dynamic: number[] | null = null;
  readonly redirects: Redirect[] = [];
  /** Where the command's text ends, its own redirections included. */
  end: number;
  /** Opaque parts of trailing redirections, reported when the redirections are applied. */
  deferred: OpaquePart[] | null = null;
  /** Source range of the last word read into argv (start -1 after an assignment), to spot split words. */
  lastStart = -1;
  lastEnd = -1;

  constructor(end: number) {
    this.end = end;
  }

  add(word: string, literal: boolean): void {
    if (!literal) this.markDynamic(this.argv.length);
    this.argv.push(word);
  }

  markDynamic(index: number): void {
    if (this.dynamic === null) this.dynamic = [index];
    else if (!this.dynamic.includes(index)) this.dynamic.push(index);
  }

  isLiteral(index: number): boolean {
    return this.dynamic === null || !this.dynamic.includes(index);
  }

  /** Appends other after this: its redirections, words and deferred parts. */
  append(other: Parts): void {
    for (const redirect of other.redirects) this.redirects.push(redirect);
    for (let index = 0; index < other.argv.length; index++) {
      this.add(other.argv[index] as string, other.isLiteral(index));
    }
    if (other.deferred !== null) this.deferred = [...(this.deferred ?? []), ...other.deferred];
    if (other.end > this.end) this.end = other.end;
  }
}
