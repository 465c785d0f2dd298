import { visibleText } from "@conch/protocol";
import type { Omission } from "../text/truncate.js";
import type { SpillGap } from "./spill-writer.js";

// Characters a POSIX shell reads literally in a word; anything else gets the path single-quoted.
const SHELL_PLAIN = /^[A-Za-z0-9_./@%+=:,-]+$/;

/** Lines the suggested range reads: enough to be useful, few enough to fit a default token budget. */
const SUGGESTED_LINES = 200;

/** Where the whole of a cut output is, as the marker that stands for the cut says. */
export type SpillPointer =
  | { readonly kind: "file"; readonly path: string; readonly gap: SpillGap | null }
  | { readonly kind: "failed"; readonly reason: string }
  | { readonly kind: "unsaved" };

export const UNSAVED: SpillPointer = { kind: "unsaved" };

/** The pointer to a spill file written (or that failed with `error`), or to none. */
export function spillPointer(
  spill: { readonly path: string; readonly gap: SpillGap | null } | null,
  error: string | null,
): SpillPointer {
  if (spill !== null) return { kind: "file", path: spill.path, gap: spill.gap };
  return error === null ? UNSAVED : { kind: "failed", reason: error };
}

/**
 * The one line that stands where a cut left lines out: which lines (numbered as in the spill file),
 * how much, and how to read them, e.g.
 * `[… lines 4,212–1,997,500 omitted (14.8 MB); full output: PATH — read a range with: sed -n '4212,4411p' PATH]`.
 * `sed -n 'A,Bp' FILE` is known safe to Conch's approval, so reading a slice never asks under
 * `untrusted`. When the file itself lacks the middle of a huge output, the line says which lines and
 * how its later lines are numbered, and suggests a range the file holds.
 */
export function omissionMarker(omission: Omission, where: SpillPointer): string {
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

/** `line 7` or `lines 4,212–1,997,500`. */
export function lineRange(first: number, last: number): string {
  return first === last ? `line ${formatCount(first)}` : `lines ${formatCount(first)}–${formatCount(last)}`;
}

/** A count with thousands separators (`1,997,500`), the same in every locale. */
export function formatCount(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

const SIZE_UNITS = ["kB", "MB", "GB", "TB"] as const;

/** `1 byte`, `812 bytes`, `40.2 kB`, `14.8 MB`: decimal units, one decimal. */
export function formatSize(bytes: number): string {
  if (bytes < 1000) return bytes === 1 ? "1 byte" : `${bytes} bytes`;
  let value = bytes;
  for (const unit of SIZE_UNITS) {
    value /= 1000;
    // Rounded up to 1000.0 of a unit, the next unit reads better.
    if (Number(value.toFixed(1)) < 1000 || unit === "TB") return `${value.toFixed(1)} ${unit}`;
  }
  return `${bytes} bytes`;
}

function shellQuote(word: string): string {
  return SHELL_PLAIN.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}
