import { describe, expect, it } from "vitest";
import { visibleText } from "./visible-text.js";

describe("visibleText", () => {
  it("escapes C0 controls, DEL and C1 as code points, and the line feed unless asked to keep it", () => {
    expect(visibleText("cmd #\r\x1b[2K  command:  git log")).toBe(
      "cmd #\\u{0d}\\u{1b}[2K  command:  git log",
    );
    expect(visibleText("\0a\x07b\bc\td\x0be\x0cf\x1fg\x7fh")).toBe(
      "\\u{00}a\\u{07}b\\u{08}c\\u{09}d\\u{0b}e\\u{0c}f\\u{1f}g\\u{7f}h",
    );
    expect(visibleText("\x80 \x85 \x9b31m \x9d52;c;eA==\x9c \x9f")).toBe(
      "\\u{80} \\u{85} \\u{9b}31m \\u{9d}52;c;eA==\\u{9c} \\u{9f}",
    );
    expect(visibleText("one\ntwo\r\n")).toBe("one\\u{0a}two\\u{0d}\\u{0a}");
    expect(visibleText("one\ntwo\r\n", { keepLineBreaks: true })).toBe("one\ntwo\\u{0d}\n");
  });

  it("escapes bidi marks, embeddings, overrides and isolates", () => {
    expect(visibleText("a\u202ab\u202bc\u202cd\u202de\u202ef")).toBe(
      "a\\u{202a}b\\u{202b}c\\u{202c}d\\u{202d}e\\u{202e}f",
    );
    expect(visibleText("a\u2066b\u2067c\u2068d\u2069e")).toBe("a\\u{2066}b\\u{2067}c\\u{2068}d\\u{2069}e");
    expect(visibleText("a\u200eb\u200fc\u061cd")).toBe("a\\u{200e}b\\u{200f}c\\u{61c}d");
  });

  it("escapes zero-width and other invisible characters, and the line and paragraph separators", () => {
    expect(visibleText("r\u200bm\u200c \u200d-\u2060r\ufefff")).toBe(
      "r\\u{200b}m\\u{200c} \\u{200d}-\\u{2060}r\\u{feff}f",
    );
    expect(visibleText("soft\u00adhyphen \u034f\u115f\u1160\u3164\uffa0\u17b4\u180e\ufff9")).toBe(
      "soft\\u{ad}hyphen \\u{34f}\\u{115f}\\u{1160}\\u{3164}\\u{ffa0}\\u{17b4}\\u{180e}\\u{fff9}",
    );
    expect(visibleText("a\u2028b\u2029c", { keepLineBreaks: true })).toBe("a\\u{2028}b\\u{2029}c");
  });

  it("escapes tag characters and variation selectors, which can smuggle text", () => {
    expect(visibleText("ok\u{e0069}\u{e0067}\u{e006e}")).toBe("ok\\u{e0069}\\u{e0067}\\u{e006e}");
    expect(visibleText("\u2764\ufe0f \u{e0100}")).toBe("\u2764\\u{fe0f} \\u{e0100}");
  });

  it("escapes spaces that look like U+0020 but are not shell word breaks", () => {
    expect(visibleText("rm -rf /\u00a0tmp \u2003x\u202fy\u3000z")).toBe(
      "rm -rf /\\u{a0}tmp \\u{2003}x\\u{202f}y\\u{3000}z",
    );
  });

  it("escapes every character that draws as a blank and is not U+0020 (issue 20)", () => {
    // Braille blank, Hangul fillers, the musical null notehead: letters and symbols that draw nothing.
    expect(visibleText("rm\u2800-rf x\u3164y\u115fz\u1160w\uffa0v\u{1d159}")).toBe(
      "rm\\u{2800}-rf x\\u{3164}y\\u{115f}z\\u{1160}w\\u{ffa0}v\\u{1d159}",
    );
    // Every White_Space character but U+0020 and the line feed kept as a line break.
    const spaces =
      "\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000\u0085";
    expect(visibleText(`a${spaces}b`, { keepLineBreaks: true })).toBe(
      "a\\u{a0}\\u{1680}\\u{2000}\\u{2001}\\u{2002}\\u{2003}\\u{2004}\\u{2005}\\u{2006}\\u{2007}\\u{2008}\\u{2009}\\u{200a}\\u{202f}\\u{205f}\\u{3000}\\u{85}b",
    );
    // Default-ignorable and format characters, whichever block they are in.
    expect(visibleText("\u180e\u17b4\u17b5\u2064\u{1bca0}\u{13430}\u{e0001}\ufff0\u{e0fff}")).toBe(
      "\\u{180e}\\u{17b4}\\u{17b5}\\u{2064}\\u{1bca0}\\u{13430}\\u{e0001}\\u{fff0}\\u{e0fff}",
    );
    // Private-use and unassigned code points: a font may draw them as nothing.
    expect(visibleText("\ue000\u{f0000}\u{10ffff}\u0378")).toBe("\\u{e000}\\u{f0000}\\u{10ffff}\\u{378}");
    // U+0020 stays, and so do visible letters next to the blanks.
    expect(visibleText("a b\u2800c")).toBe("a b\\u{2800}c");
  });

  it("escapes lone surrogates and keeps letters, combining marks and emoji", () => {
    expect(visibleText("a\ud800b\udc00c")).toBe("a\\u{d800}b\\u{dc00}c");
    expect(visibleText("héllo e\u0301 日本語 😀 👍🏽 Ωmega")).toBe("héllo e\u0301 日本語 😀 👍🏽 Ωmega");
  });

  it("doubles only the backslashes that stand before an escape or a literal `u{`", () => {
    // The model typed the six characters `\u{1b}`: shown so that it cannot pass for an ESC.
    expect(visibleText("printf '\\u{1b}[31m'")).toBe("printf '\\\\u{1b}[31m'");
    expect(visibleText("\\\\u{1b}")).toBe("\\\\\\\\u{1b}");
    // A backslash before a real ESC: an odd run before `u{`, the last of which is the escape.
    expect(visibleText("\\\x1b")).toBe("\\\\\\u{1b}");
    // Backslashes anywhere else are the script's own and stay as typed.
    expect(visibleText("grep 'a\\|b' | sed 's/\\r$//' && printf '\\x1b \\u202e \\n'")).toBe(
      "grep 'a\\|b' | sed 's/\\r$//' && printf '\\x1b \\u202e \\n'",
    );
    expect(visibleText("u{ not after a backslash")).toBe("u{ not after a backslash");
  });
});
