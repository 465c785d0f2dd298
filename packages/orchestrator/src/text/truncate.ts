// The model's text of an output too long for its budget: the head and the tail, cut on line boundaries,
// with one marker line between that says which lines were left out and where they are. Codex's token
// estimate (codex-rs/utils/string/src/truncate.rs: approx_token_count, approx_bytes_for_tokens) decides
// how much fits; Codex's `…N tokens truncated…` cut inside lines, which left a model no way to ask for
// exactly what it did not see.

import { Buffer } from "node:buffer";
import { expectedReceived } from "@conch/protocol";

/** Codex's estimate: one token is about four bytes of UTF-8. */
const APPROX_BYTES_PER_TOKEN = 4;
const NEWLINE = 0x0a;

/** What a cut left out: whole lines, but for a line longer than the half of the budget it fell in. */
export interface Omission {
  /** The first and last line (1-based, numbered as in the whole output) of which bytes were left out. */
  readonly firstLine: number;
  readonly lastLine: number;
  /** Bytes left out. */
  readonly bytes: number;
  /** Where they start: the byte offset, in this output, of the first byte left out. */
  readonly startByte: number;
}

export interface LineCut {
  /** The text before the marker: all of it when nothing was cut. */
  readonly head: string;
  /** The text after the marker; empty when nothing was cut. */
  readonly tail: string;
  /** Null when the text fits the budget. */
  readonly omission: Omission | null;
  /** `approxTokenCount` of the whole output, cut or not. */
  readonly originalTokens: number;
}

/** ceil(UTF-8 bytes / 4), as Codex's `approx_token_count`. */
export function approxTokenCount(text: string): number {
  return tokensForBytes(Buffer.byteLength(text, "utf8"));
}

/** Tokens to bytes, as Codex's `approx_bytes_for_tokens`. */
export function approxBytesForTokens(tokens: number): number {
  return tokens * APPROX_BYTES_PER_TOKEN;
}

function tokensForBytes(bytes: number): number {
  return Math.ceil(bytes / APPROX_BYTES_PER_TOKEN);
}

/** An output as a cut needs it: its first and last bytes (the same buffer when kept whole) and counts. */
export interface CutSource {
  /** The first bytes; all of them when `head === tail`. */
  readonly head: Buffer;
  /** The last bytes. */
  readonly tail: Buffer;
  readonly totalBytes: number;
  /** `\n` bytes in the whole output. */
  readonly newlines: number;
}

/**
 * Keeps the head and the tail of an output within `maxTokens` (half the bytes each, give or take the
 * newline of a line that fits but for it). Each side ends on a line boundary, so only whole lines are
 * left out, unless the line at the cut is longer than that side's half of the budget: that line alone
 * is cut inside, on a UTF-8 character boundary. A side
 * holds at most what its source kept (a session's window), and a line whose length the source cannot
 * tell is left out whole. Lines are numbered from `lineOffset + 1`: the line before the output's first
 * in the file that holds it (negative for a line of text put in front that the file lacks).
 */
export function cutLines(source: CutSource, maxTokens: number, lineOffset = 0): LineCut {
  checkBudget(maxTokens);
  const { head, tail, totalBytes } = source;
  const whole = head === tail;
  if (whole && head.length !== totalBytes) {
    throw new RangeError(`a whole output of ${totalBytes} bytes given as ${head.length}`);
  }
  const originalTokens = tokensForBytes(totalBytes);
  const maxBytes = approxBytesForTokens(maxTokens);
  if (whole && totalBytes <= maxBytes) {
    return { head: head.toString("utf8"), tail: "", omission: null, originalTokens };
  }
  const headBudget = Math.floor(maxBytes / 2);
  const headEnd = headCut(head, Math.min(headBudget, whole ? headBudget : head.length));
  const tailLimit = Math.min(maxBytes - headBudget, whole ? maxBytes : tail.length);
  const tailStart = tailCut(tail, tail.length - tailLimit, whole);
  // Where the tail buffer starts in the whole output.
  const tailBase = totalBytes - tail.length;
  const omittedBytes = tailBase + tailStart - headEnd;
  // Whole lines a byte over the budget at each end can leave nothing out.
  if (omittedBytes <= 0) return { head: head.toString("utf8"), tail: "", omission: null, originalTokens };
  const firstLine = lineOffset + countNewlines(head, 0, headEnd) + 1;
  // The line of the last byte left out: every newline before it, plus one.
  const lastLine = lineOffset + source.newlines - countNewlines(tail, tailStart - 1, tail.length) + 1;
  return {
    head: head.toString("utf8", 0, headEnd),
    tail: tail.toString("utf8", tailStart),
    omission: {
      firstLine: Math.max(1, firstLine),
      lastLine: Math.max(1, firstLine, lastLine),
      bytes: omittedBytes,
      startByte: headEnd,
    },
    originalTokens,
  };
}

/** `cutLines` of a string held whole. */
export function cutText(text: string, maxTokens: number, lineOffset = 0): LineCut {
  const bytes = Buffer.from(text, "utf8");
  return cutLines(
    { head: bytes, tail: bytes, totalBytes: bytes.length, newlines: countNewlines(bytes, 0, bytes.length) },
    maxTokens,
    lineOffset,
  );
}

/** The cut's text: head, the marker on a line of its own, tail. */
export function joinCut(cut: LineCut, marker: (omission: Omission) => string): string {
  if (cut.omission === null) return cut.head;
  const head = cut.head === "" || cut.head.endsWith("\n") ? cut.head : `${cut.head}\n`;
  return `${head}${marker(cut.omission)}${cut.tail === "" ? "" : "\n"}${cut.tail}`;
}

/**
 * Where the head ends, at most `limit` bytes in: after the last newline before `limit`, unless the line
 * crossing `limit` is longer than `limit` (known when `head` shows where it ends, or that it runs
 * past `limit` more bytes), which is cut at `limit`.
 */
function headCut(head: Buffer, limit: number): number {
  if (limit <= 0) return 0;
  const last = head.lastIndexOf(NEWLINE, limit - 1);
  if (last === limit - 1) return limit;
  // A line that fits but for its newline is shown whole, newline and all.
  if (head[limit] === NEWLINE) return limit + 1;
  const lineStart = last + 1;
  const end = head.indexOf(NEWLINE, limit);
  const longer = end === -1 ? head.length - lineStart > limit : end - lineStart > limit;
  return longer || last === -1 ? boundaryAtOrBefore(head, limit) : lineStart;
}

/**
 * Where the tail starts, at `from` or later in `tail`: after the first newline at or after `from`,
 * unless the line crossing `from` is longer than the tail's `tail.length - from` bytes (it runs to the
 * end, or is known to start far enough back), which is cut at `from`. `whole`: `tail` starts where
 * the output does.
 */
function tailCut(tail: Buffer, from: number, whole: boolean): number {
  if (from >= tail.length) return tail.length;
  if ((from === 0 && whole) || tail[from - 1] === NEWLINE) return from;
  // As at the head: a line one byte too long for the tail is shown whole.
  if (from >= 2 && tail[from - 2] === NEWLINE) return from - 1;
  const end = tail.indexOf(NEWLINE, from);
  if (end === -1) return boundaryAtOrAfter(tail, from);
  const before = from === 0 ? -1 : tail.lastIndexOf(NEWLINE, from - 1);
  const limit = tail.length - from;
  // A line that starts before what `tail` holds is at least `end + 1` bytes long.
  const longer = before === -1 && !whole ? end >= limit : end - (before + 1) > limit;
  return longer ? boundaryAtOrAfter(tail, from) : end + 1;
}

function checkBudget(maxTokens: number): void {
  if (!Number.isSafeInteger(maxTokens) || maxTokens < 0) {
    throw new RangeError(expectedReceived("maxTokens", "a non-negative integer", maxTokens));
  }
}

/** `\n` bytes in `bytes` from `start` to `end`. */
export function countNewlines(bytes: Uint8Array, start: number, end: number): number {
  let n = 0;
  const from = Math.max(0, start);
  for (let i = bytes.indexOf(NEWLINE, from); i !== -1 && i < end; i = bytes.indexOf(NEWLINE, i + 1)) n++;
  return n;
}

function isContinuationByte(byte: number | undefined): boolean {
  return byte !== undefined && (byte & 0xc0) === 0x80;
}

function boundaryAtOrBefore(bytes: Buffer, index: number): number {
  let i = index;
  while (i > 0 && isContinuationByte(bytes[i])) i--;
  return i;
}

function boundaryAtOrAfter(bytes: Buffer, index: number): number {
  let i = index;
  while (i < bytes.length && isContinuationByte(bytes[i])) i++;
  return i;
}
