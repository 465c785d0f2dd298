// Text that a person approves or reads (a terminal prompt, an MCP elicitation form, the web console)
// comes from the model or from a command's output. Printed raw, `\r` and ESC sequences could rewrite what
// is already on the screen, bidi overrides could reorder it and invisible characters could hide part of
// it, so every such character is shown as its code point instead.
//
// The notation is `\u{HEX}` (lowercase hex, at least two digits: `\u{1b}`, `\u{0d}`, `\u{202e}`). Shell
// scripts use `\r`, `\x1b` and `\u202e` themselves (printf, `$'...'`, sed), so those forms would be
// ambiguous, and escaping every backslash would double them all over a script a person must read. Only a
// run of backslashes that stands right before `u{` or before an escaped character is doubled, so the text
// shown reads back unambiguously: an odd run before `u{` ends in an escape, an even one is literal.

// C0 controls but `\n` (a tab included: it jumps the cursor to the margin, and the line then wraps to
// column 0), DEL and C1; spaces other than U+0020, which look like one but do not split shell words; the
// soft hyphen; bidi marks, embeddings, overrides and isolates; zero-width and other invisible format
// characters (joiners, word joiner, BOM, Hangul fillers, Khmer inherent vowels, Mongolian selectors,
// interlinear annotation, musical format controls); variation selectors and tag characters, which can
// carry hidden text; the line and paragraph separators; lone surrogates.
const ESCAPED_CLASS =
  String.raw`\0-\x09\x0b-\x1f\x7f-\xa0\xad\u034f\u061c\u115f\u1160\u1680\u17b4\u17b5\u180b-\u180f` +
  String.raw`\u2000-\u200f\u2028-\u202f\u205f-\u206f\u3000\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb` +
  String.raw`\u{1d173}-\u{1d17a}\u{e0000}-\u{e007f}\u{e0100}-\u{e01ef}`;

// The backslashes before each escaped character or `u{`, so that they can be doubled.
const KEEPING_LINE_BREAKS = new RegExp(String.raw`(\\*)(u\{|[${ESCAPED_CLASS}]|\p{Cs})`, "gu");
const ONE_LINE = new RegExp(String.raw`(\\*)(u\{|[\n${ESCAPED_CLASS}]|\p{Cs})`, "gu");

export interface VisibleTextOptions {
  /** Leave `\n` a real line break (the caller lays the lines out); by default it is escaped too. */
  readonly keepLineBreaks?: boolean;
}

/**
 * `text` with every control, invisible, bidi and look-alike space character shown as `\u{HEX}`, and the
 * backslashes before such an escape (or before a literal `u{`) doubled. Everything else (letters of any
 * script, combining marks, emoji) is left as is.
 */
export function visibleText(text: string, options: VisibleTextOptions = {}): string {
  const pattern = options.keepLineBreaks === true ? KEEPING_LINE_BREAKS : ONE_LINE;
  return text.replace(pattern, (_match, slashes: string, next: string) => {
    const shown = next === "u{" ? next : `\\u{${(next.codePointAt(0) ?? 0).toString(16).padStart(2, "0")}}`;
    return `${slashes}${slashes}${shown}`;
  });
}
