// Port of Codex's token-budget truncation (codex-rs/utils/string/src/truncate.rs:
// truncate_middle_with_token_budget, truncate_with_byte_estimate, split_string, approx_token_count).

import { Buffer } from "node:buffer";

/** Codex's estimate: one token is about four bytes of UTF-8. */
const APPROX_BYTES_PER_TOKEN = 4;

export interface TruncationResult {
  /** The text to show the model: unchanged, or head + marker + tail. */
  readonly text: string;
  readonly truncated: boolean;
  /** `approxTokenCount` of the input, whether or not it was truncated. */
  readonly originalTokens: number;
  /** The N in `…N tokens truncated…`; 0 when nothing was cut. */
  readonly removedTokens: number;
}

/** ceil(UTF-8 bytes / 4), as Codex's `approx_token_count`. */
export function approxTokenCount(text: string): number {
  return tokensForBytes(Buffer.byteLength(text, "utf8"));
}

/** Tokens to bytes, as Codex's `approx_bytes_for_tokens`. */
export function approxBytesForTokens(tokens: number): number {
  return tokens * APPROX_BYTES_PER_TOKEN;
}

/**
 * Keeps the head and tail of `text` within `maxTokens` (half the byte budget each, cut on UTF-8
 * character boundaries) with `…N tokens truncated…` between them. As in Codex, N is the byte
 * overflow in tokens (not the bytes actually dropped), a budget of 0 leaves only the marker, and the
 * marker itself is not charged to the budget.
 */
export function truncateMiddle(text: string, maxTokens: number): TruncationResult {
  if (text === "") {
    checkBudget(maxTokens);
    return { text, truncated: false, originalTokens: 0, removedTokens: 0 };
  }
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length <= approxBytesForTokens(maxTokens)) {
    checkBudget(maxTokens);
    return { text, truncated: false, originalTokens: tokensForBytes(bytes.length), removedTokens: 0 };
  }
  return truncateBytes(bytes, bytes, bytes.length, maxTokens);
}

/**
 * `truncateMiddle` of an output of `totalBytes` (more than the budget) known only by its first bytes
 * (`head`, more than half the budget) and its last bytes (`tail`, at least half the budget).
 */
export function truncateBytes(
  head: Buffer,
  tail: Buffer,
  totalBytes: number,
  maxTokens: number,
): TruncationResult {
  checkBudget(maxTokens);
  const originalTokens = tokensForBytes(totalBytes);
  const maxBytes = approxBytesForTokens(maxTokens);
  if (maxBytes === 0) {
    return {
      text: truncationMarker(originalTokens),
      truncated: true,
      originalTokens,
      removedTokens: originalTokens,
    };
  }
  const headBudget = Math.floor(maxBytes / 2);
  const tailBudget = maxBytes - headBudget;
  if (head.length <= headBudget || tail.length < tailBudget) {
    throw new RangeError(
      `output kept for a smaller budget than ${maxTokens} tokens (head ${head.length}, tail ${tail.length} bytes)`,
    );
  }
  const headEnd = boundaryAtOrBefore(head, headBudget);
  const tailStart = boundaryAtOrAfter(tail, tail.length - tailBudget);
  // Where head and tail are the same bytes, the tail never starts before the head ends.
  const tailFrom = head === tail ? Math.max(tailStart, headEnd) : tailStart;
  const removedTokens = tokensForBytes(totalBytes - maxBytes);
  const text =
    head.toString("utf8", 0, headEnd) + truncationMarker(removedTokens) + tail.toString("utf8", tailFrom);
  return { text, truncated: true, originalTokens, removedTokens };
}

function checkBudget(maxTokens: number): void {
  if (!Number.isSafeInteger(maxTokens) || maxTokens < 0) {
    throw new RangeError(`maxTokens must be a non-negative integer, received ${String(maxTokens)}`);
  }
}

function tokensForBytes(bytes: number): number {
  return Math.ceil(bytes / APPROX_BYTES_PER_TOKEN);
}

function truncationMarker(removedTokens: number): string {
  return `…${removedTokens} tokens truncated…`;
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
