import { visibleText } from "@conch/protocol";
import type { SpillPointer } from "../spill/spill-pointer.js";
import type { SpillGap } from "../spill/spill-writer.js";
import { formatCount, formatSize, lineRange } from "../text/counts.js";
import type { Omission } from "../text/truncate.js";

// Characters a POSIX shell reads literally in a word; anything else gets the path single-quoted.
const SHELL_PLAIN = /^[A-Za-z0-9_./@%+=:,-]+$/;

/** Lines the suggested range reads: enough to be useful, few enough to fit a default token budget. */
const SUGGESTED_LINES = 200;

/**
 * The one line that stands where a cut left lines out: which lines (numbered as in the spill file),
 * how much, and how to read them, e.g.
 * `[… lines 4,212–1,997,500 omitted (14.8 MB); full output: PATH — read a range with: sed -n '4212,4411p' PATH]`.
 * `sed -n 'A,Bp' FILE` is known safe to Conch's approval, so reading a slice never asks under
 * `untrusted`. When the file itself lacks the middle of a huge output, the line says which lines and
 * how its later lines are numbered, and suggests a range the file holds.
 */
export function omissionMarker(
  omission: Omission,
  where: SpillPointer,
  byteBase: number | null = null,
): string {
  // Inside one line, a range of lines would print the same long line again: bytes are what to read.
  if (
    where.kind === "file" &&
    where.gap === null &&
    byteBase !== null &&
    omission.firstLine === omission.lastLine
  ) {
    return `[${bytesClause(omission, where.path, byteBase)}]`;
  }
  const what = `… ${lineRange(omission.firstLine, omission.lastLine)} omitted (${formatSize(omission.bytes)})`;
  switch (where.kind) {
    case "unsaved":
      return `[${what}; the full output was not saved]`;
    case "failed":
      return `[${what}; the full output could not be saved: ${visibleText(where.reason)}]`;
    case "file":
      return `[${what}; ${fileClause(omission, where.path, where.gap)}]`;
  }
}

/** Bytes a byte-range read prints: about a default token budget's worth. */
const SUGGESTED_BYTES = 8000;

/**
 * A cut inside one line: where it is in bytes, and reads that work on a line of any length (`tail -c`
 * and `head -c`, known safe; `grep -ob` to find a string's offset).
 */
function bytesClause(omission: Omission, path: string, byteBase: number): string {
  const quoted = shellQuote(path);
  const first = byteBase + omission.startByte + 1;
  const last = first + omission.bytes - 1;
  return (
    `… ${formatSize(omission.bytes)} of line ${formatCount(omission.firstLine)} omitted (bytes ${formatCount(first)}–${formatCount(last)} of the output); ` +
    `full output: ${quoted} — read ${formatCount(SUGGESTED_BYTES)} bytes from there with: tail -c +${first} ${quoted} | head -c ${SUGGESTED_BYTES}; ` +
    `find where a string is with: grep -ob 'STRING' ${quoted}`
  );
}

function fileClause(omission: Omission, path: string, gap: SpillGap | null): string {
  const quoted = shellQuote(path);
  const range = suggestedRange(omission, gap);
  let clause = `full output: ${quoted}`;
  if (gap !== null) {
    const renumbered =
      gap.shift === 0
        ? ""
        : `; after them, line N of the output is its line N${gap.shift > 0 ? "−" : "+"}${formatCount(Math.abs(gap.shift))}`;
    clause += ` (too large to keep whole: it lacks ${lineRange(gap.firstLine, gap.lastLine)}, ${formatSize(gap.bytes)}${renumbered})`;
  }
  if (range === null) return `${clause}, which are among the lines it lacks`;
  return `${clause} — read a range with: sed -n '${range[0]},${range[1]}p' ${quoted}`;
}

/** The first lines of the omitted ones that the file holds, as the file numbers them; null for none. */
function suggestedRange(omission: Omission, gap: SpillGap | null): [number, number] | null {
  const { firstLine, lastLine } = omission;
  const first = (from: number, to: number): [number, number] => [
    from,
    Math.min(to, from + SUGGESTED_LINES - 1),
  ];
  if (gap === null || firstLine <= gap.keptLines)
    return first(firstLine, Math.min(lastLine, gap?.keptLines ?? lastLine));
  if (lastLine < gap.resumeLine) return null;
  const [from, to] = first(Math.max(firstLine, gap.resumeLine), lastLine);
  return [from - gap.shift, to - gap.shift];
}

/** The notice after binary output, which is summarised rather than shown: where its bytes are. */
export function spillNotice(path: string, totalBytes: number, omittedBytes = 0): string {
  const quoted = shellQuote(path);
  const saved =
    omittedBytes > 0
      ? `Output (${totalBytes} bytes) saved to ${quoted} with the middle ${omittedBytes} bytes omitted`
      : `Full output (${totalBytes} bytes) saved to ${quoted}`;
  return `[${saved}]`;
}

function shellQuote(word: string): string {
  return SHELL_PLAIN.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}
