// Port of Codex's token-budget truncation (codex-rs/utils/string/src/truncate.rs:
// truncate_middle_with_token_budget, truncate_with_byte_estimate, split_string, approx_token_count).

import { Buffer } from "node:buffer";

/** Codex's estimate: one token is about four bytes of UTF-8. */
export const APPROX_BYTES_PER_TOKEN = 4;

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
  if (!Number.isSafeInteger(maxTokens) || maxTokens < 0) {
    throw new RangeError(`maxTokens must be a non-negative integer, received ${String(maxTokens)}`);
  }
  if (text === "") {
    return { text, truncated: false, originalTokens: 0, removedTokens: 0 };
  }
  const bytes = Buffer.from(text, "utf8");
  const originalTokens = tokensForBytes(bytes.length);
  const maxBytes = approxBytesForTokens(maxTokens);

  if (maxBytes === 0) {
    return {
      text: truncationMarker(originalTokens),
      truncated: true,
      originalTokens,
      removedTokens: originalTokens,
    };
  }
  if (bytes.length <= maxBytes) {
    return { text, truncated: false, originalTokens, removedTokens: 0 };
  }

  const headBudget = Math.floor(maxBytes / 2);
  const tailBudget = maxBytes - headBudget;
  const headEnd = boundaryAtOrBefore(bytes, headBudget);
  const tailStart = Math.max(boundaryAtOrAfter(bytes, bytes.length - tailBudget), headEnd);
  const removedTokens = tokensForBytes(bytes.length - maxBytes);
  const out =
    bytes.toString("utf8", 0, headEnd) + truncationMarker(removedTokens) + bytes.toString("utf8", tailStart);
  return { text: out, truncated: true, originalTokens, removedTokens };
}

export function tokensForBytes(bytes: number): number {
  return Math.ceil(bytes / APPROX_BYTES_PER_TOKEN);
}

export function truncationMarker(removedTokens: number): string {
  return `…${removedTokens} tokens truncated…`;
}

function isContinuationByte(byte: number | undefined): boolean {
  return byte !== undefined && (byte & 0xc0) === 0x80;
}

export function boundaryAtOrBefore(bytes: Buffer, index: number): number {
  let i = index;
  while (i > 0 && isContinuationByte(bytes[i])) i--;
  return i;
}

export function boundaryAtOrAfter(bytes: Buffer, index: number): number {
  let i = index;
  while (i < bytes.length && isContinuationByte(bytes[i])) i++;
  return i;
}
