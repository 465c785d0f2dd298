import { visibleText } from "@conch/protocol";
import { describe, expect, it } from "vitest";
import { hasWasmScanner, isPlainAscii } from "./plain-ascii.js";
import { cleanTerminalText, TerminalTextFilter } from "./terminal-text.js";

const clean = (text: string): [string, number] => {
  const { text: cleaned, removed } = cleanTerminalText(text);
  return [cleaned, removed];
};

describe("cleanTerminalText", () => {
  it("removes CSI sequences whole, 7-bit and 8-bit", () => {
    expect(clean("\x1b[1;31merror\x1b[0m: \x1b[38;5;208mbad\x1b[m\n")).toEqual(["error: bad\n", 4]);
    expect(clean("\x9b32mgreen\x9b0m\n")).toEqual(["green\n", 2]);
    expect(clean("\x1b[?25l\x1b[2J\x1b[Hhidden cursor\x1b[?25h\n")).toEqual(["hidden cursor\n", 4]);
  });

  it("removes OSC 52 and other control strings whole, whatever ends them", () => {
    expect(clean("a\x1b]52;c;cm0gLXJmIH4=\x07b\n")).toEqual(["ab\n", 1]);
    expect(clean("a\x1b]52;c;cm0gLXJmIH4=\x1b\\b\n")).toEqual(["ab\n", 1]);
    expect(clean("a\x9d52;c;eA==\x9cb\n")).toEqual(["ab\n", 1]);
    expect(clean("\x1b]0;title\x07\x1b]8;;https://example.com\x1b\\link\x1b]8;;\x1b\\\n")).toEqual([
      "link\n",
      3,
    ]);
    expect(
      clean("a\x1bPq#0;2;0;0;0#0~~\x1b\\b\x1b_Gf=100;AAAA\x1b\\c\x1b^pm\x1b\\d\x1bXsos\x1b\\e\n"),
    ).toEqual(["abcde\n", 4]);
    // tmux passthrough: the doubled ESC ends the DCS and the OSC after it is removed too.
    expect(clean("a\x1bPtmux;\x1b\x1b]52;c;eA==\x07\x1b\\b\n")).toEqual(["ab\n", 4]);
  });

  it("ends an unterminated control string at the line's end, and drops one still open at the end", () => {
    expect(clean("a\x1b]0;never ended\nnext line\n")).toEqual(["a\nnext line\n", 1]);
    expect(clean("a\x1b]52;c;eA==")).toEqual(["a", 1]);
    expect(clean("a\x1b]0;t\x18b\x1b]0;t\x1ac\n")).toEqual(["abc\n", 2]);
  });

  it("removes two-character and intermediate ESC sequences, and cancels broken ones", () => {
    expect(clean("\x1b7\x1b(B\x1b#8\x1bcx\x1b=\x1b>\n")).toEqual(["x\n", 6]);
    expect(clean("\x1b\x1b[31mx\n")).toEqual(["x\n", 2]);
    expect(clean("a\x1b[31\nb\x1b\u00e9c\x1b[1\x18d\n")).toEqual(["a\nb\u00e9cd\n", 3]);
  });

  it("keeps a \\r line's last state, and \\r\\n is a line break", () => {
    expect(clean("10%\r50%\r100%\n")).toEqual(["100%\n", 2]);
    expect(clean("one\r\ntwo\r\n")).toEqual(["one\ntwo\n", 0]);
    expect(clean("working\r\x1b[Kdone\n")).toEqual(["done\n", 2]);
    expect(clean("\x1b[2K\r[=====>    ] 50%\x1b[2K\r[==========] 100%\n")).toEqual([
      "[==========] 100%\n",
      4,
    ]);
    // A \r before a colour reset and the line feed moved nothing.
    expect(clean("kept\r\x1b[0m\n")).toEqual(["kept\n", 2]);
    expect(clean("cmd #\r\x1b[2K  command:  git log\n")).toEqual(["  command:  git log\n", 2]);
    expect(clean("last\r")).toEqual(["last", 1]);
  });

  it("lets a backspace erase the character before it", () => {
    expect(clean("_\bX and X\bX and 😀\bok\n")).toEqual(["X and X and ok\n", 3]);
    expect(clean("|\b/\b-\b\\\b|\n")).toEqual(["|\n", 4]);
    expect(clean("\r\bx\n")).toEqual(["x\n", 2]);
  });

  it("removes C1 controls, other C0 controls and DEL, and keeps tabs", () => {
    expect(clean("a\x80b\x85c\x9cd\x00e\x07f\x0bg\x0ch\x7fi\tj\n")).toEqual(["abcdefghi\tj\n", 8]);
  });

  it("removes bidi controls, zero-width and other invisible characters", () => {
    expect(clean("safe\u202e\u2066txt.exe\u2069\u202c\u200e\u200f\u061c\n")).toEqual(["safetxt.exe\n", 7]);
    expect(clean("r\u200bm\u200c \u200d-\u2060r\ufefff\u00ad\n")).toEqual(["rm -rf\n", 6]);
    expect(clean("ok\u{e0069}\u{e0067}\u{e006e}\u2764\ufe0f\u{e0100}\u2028\u2029\u3164\n")).toEqual([
      "ok\u2764\n",
      8,
    ]);
    expect(clean("héllo e\u0301 日本語 😀 \u00a0\u2003 \ufffd\n")).toEqual([
      "héllo e\u0301 日本語 😀 \u00a0\u2003 \ufffd\n",
      0,
    ]);
  });
});

describe("the characters removed", () => {
  it("are those a person is shown escaped (visibleText), but for \\t, \\n, the look-alike spaces, and what only a person could misread", () => {
    const spaces = [0xa0, 0x1680, 0x202f, 0x205f, 0x3000];
    for (let code = 0x2000; code <= 0x200a; code++) spaces.push(code);
    // Private-use and unassigned code points, and blank-looking letters and symbols: a model reads them
    // as the code points they are (default-ignorable ones, assigned or not, are dropped for it too).
    const misread = /^[\p{Co}\p{Cn}\u2800\u{1d159}]$/u;
    const ignorable = /^\p{Default_Ignorable_Code_Point}$/u;
    const personOnly = { test: (char: string) => misread.test(char) && !ignorable.test(char) };
    const disagree: string[] = [];
    for (let code = 0; code <= 0x10ffff; code++) {
      if (code >= 0xd800 && code <= 0xdfff) continue;
      const char = String.fromCodePoint(code);
      const removed = cleanTerminalText(`a${char}\n`).text !== `a${char}\n`;
      const escaped = visibleText(char, { keepLineBreaks: true }) !== char;
      const dropped = escaped && code !== 0x09 && !spaces.includes(code) && !personOnly.test(char);
      if (removed !== dropped) disagree.push(code.toString(16));
    }
    expect(disagree).toEqual([]);
  });
});

describe("TerminalTextFilter", () => {
  it("gives the same text whatever the pieces, a sequence or a \\r line split anywhere", () => {
    const input = "\x1b[31mred\x1b[0m\n10%\r50%\r100%\r\nOSC\x1b]52;c;eA==\x1b\\ \u202eend\x9b1m\n";
    const whole = cleanTerminalText(input);
    expect(whole).toEqual({ text: "red\n100%\nOSC end\n", removed: 7 });
    for (let at = 1; at < input.length; at++) {
      const filter = new TerminalTextFilter();
      const text = filter.write(input.slice(0, at)) + filter.write(input.slice(at)) + filter.end();
      expect({ text, removed: filter.takeRemoved() }, `split at ${at}`).toEqual(whole);
    }
  });

  it("gives the same text for ASCII when told it is ASCII, and a decoder's U+FFFD is no special", () => {
    let ascii = "\ufffd";
    for (let code = 0; code < 0x80; code++) ascii += `${String.fromCharCode(code)}x\x1b[1mb\r\n`;
    const hinted = new TerminalTextFilter();
    const text = hinted.write(ascii, true) + hinted.end();
    expect({ text, removed: hinted.takeRemoved() }).toEqual(cleanTerminalText(ascii));
  });

  it("holds the current line until its end; flush gives it out for a reader that cannot wait", () => {
    const filter = new TerminalTextFilter();
    expect(filter.write("done\nPassword: \x1b[")).toBe("done\n");
    expect(filter.flush()).toBe("Password: ");
    // The next read continues the sequence, and a \r there replaces the line without a spurious break.
    expect(filter.write("0m\r\n10%")).toBe("\n");
    expect(filter.flush()).toBe("10%");
    expect(filter.write("\r50%")).toBe("");
    expect(filter.end()).toBe("50%");
    // The ESC sequence and the last \r; the \r of the \r\n is a line break.
    expect(filter.takeRemoved()).toBe(2);
  });

  it("passes on a line too long to hold, and a \\r after it then starts a new line", () => {
    const long = "x".repeat(20_000);
    const filter = new TerminalTextFilter();
    const first = filter.write(long);
    expect([first.length, first.replaceAll("x", "")]).toEqual([20_000, ""]);
    expect(filter.write("\rshort")).toBe("\n");
    expect(filter.end()).toBe("short");
    expect(filter.takeRemoved()).toBe(1);
  });

  it("passes on the rest of a line that went out in part as it comes, as text or as plain bytes", () => {
    for (const plain of [false, true]) {
      const filter = new TerminalTextFilter();
      const give = (text: string): string =>
        plain
          ? Buffer.concat(filter.writePlainAscii(Buffer.from(text)) ?? []).toString("latin1")
          : filter.write(text);
      expect(give("x".repeat(20_000)).length).toBe(20_000);
      // Nothing of the same line is held any more: a \r then starts a new line, and loses nothing.
      expect(give("tail of it")).toBe("tail of it");
      expect(filter.write("\rshort")).toBe("\n");
      expect(filter.end()).toBe("short");
    }
  });
});

describe("isPlainAscii", () => {
  it("refuses every control but tab and line feed, DEL and every byte past it, wherever it lies, both ways", () => {
    // Node's WebAssembly has SIMD on x64 and arm64: the test holds both ways to the rule.
    expect(hasWasmScanner()).toBe(true);
    const backing = Buffer.alloc(2100, "a");
    for (const loopOnly of [true, false]) {
      for (let code = 0; code < 0x100; code++) {
        const plain = (code >= 0x20 && code < 0x7f) || code === 0x09 || code === 0x0a;
        for (const offset of [0, 1, 2, 3]) {
          // Short runs (the loop's every alignment) and long ones (the WebAssembly blocks and their tail).
          for (const length of [1, 2, 3, 5, 8, 17, 530, 2047]) {
            // Every vector of a 64-byte block (at 0, 16, 32 and 48 of it), the halfway point, the tail.
            for (const at of new Set([
              0,
              1,
              16,
              33,
              50,
              63,
              length >> 1,
              length - 16,
              length - 2,
              length - 1,
            ])) {
              if (at < 0 || at >= length) continue;
              const data = backing.subarray(offset, offset + length).fill(0x61);
              data[at] = code;
              if (isPlainAscii(data, loopOnly) !== plain) {
                throw new Error(
                  `code ${code} at ${at} of ${length} bytes, offset ${offset}, loop ${loopOnly}`,
                );
              }
            }
          }
        }
      }
    }
    expect(isPlainAscii(Buffer.from("plain text\twith tabs\nand lines\n"))).toBe(true);
    expect(isPlainAscii(Buffer.alloc(200_000, "x"))).toBe(true);
  });
});
