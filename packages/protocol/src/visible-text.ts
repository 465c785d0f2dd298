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

// What is escaped is kept as Unicode's own classes rather than a hand list, so a character added to a
// class by a later Unicode version is escaped too: every control (Cc: C0 but `\n`, a tab included: it
// jumps the cursor to the margin, and the line then wraps to column 0; DEL; C1) and format character
// (Cf: bidi marks, embeddings, overrides and isolates, zero-width characters, joiners, the word joiner,
// the BOM, interlinear annotation, tag characters, which can carry hidden text); every
// Default_Ignorable_Code_Point (Hangul fillers, Khmer inherent vowels, Mongolian and other variation
// selectors, the combining grapheme joiner); every White_Space character but U+0020 and `\n` (spaces that
// look like U+0020 but do not split shell words; the line and paragraph separators); private-use and
// unassigned code points (a font may draw them as anything, or nothing); lone surrogates. Then the
// characters that are none of these and still draw as a blank: U+2800 (braille pattern blank) and
// U+1D159 (musical symbol null notehead), and the Hangul fillers (already default-ignorable).
const ESCAPED_CLASS = String.raw`[\p{Cc}\p{Cf}\p{Co}\p{Cn}\p{Cs}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}\p{White_Space}\u2800\u3164\uffa0\u115f\u1160\u{1d159}]`;

// The backslashes before each escaped character or `u{`, so that they can be doubled. The `v` flag's set
// difference leaves out U+0020 (and `\n` where lines are kept).
const KEEPING_LINE_BREAKS = new RegExp(String.raw`(\\*)(u\{|[${ESCAPED_CLASS}--[\x20\n]])`, "gv");
const ONE_LINE = new RegExp(String.raw`(\\*)(u\{|[${ESCAPED_CLASS}--[\x20]])`, "gv");

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
