// How a terminal's last line ends, as a shell's prompt does: its last two shown characters; a line end,
// a carriage return and the escape sequences written around a prompt show nothing, split between
// chunks or not.
import { describe, expect, it } from "vitest";
import { LastLine } from "./shell-prompt.js";

function ending(...chunks: string[]): string {
  const line = new LastLine();
  for (const chunk of chunks) line.push(Buffer.from(chunk, "utf8"));
  return line.ending;
}

describe("LastLine", () => {
  it("ends as the prompt after the answer, and with nothing once a line ended", () => {
    expect(ending()).toBe("");
    expect(ending("hi\r\nprompt$ ")).toBe("$ ");
    expect(ending("hi\r\n")).toBe("");
    expect(ending("prompt$ ", "echo hi\r\n")).toBe("");
    expect(ending("hi\r\n", "p")).toBe("p");
    // Output cut mid-line does not end as a prompt.
    expect(ending("1\r\n2\r\n3\r\n12")).toBe("12");
    // Bytes, read as latin1: a multibyte character's last byte and the space.
    expect(ending("λ ")).toBe("\u00bb ");
  });

  it("does not count carriage returns, control characters or escape sequences as shown", () => {
    // bash after an accepted line: bracketed paste off, then a carriage return.
    expect(ending("echo hi\r\n\u001b[?2004l\r")).toBe("");
    expect(ending("\r\u0007\u0008\u007f")).toBe("");
    // A window title (OSC, ended by BEL or ST), a charset switch (ESC ( B), a DCS string.
    expect(ending("\u001b]0;user@host: ~\u0007\u001b(B\u001bP1$r0m\u001b\\")).toBe("");
    expect(ending("\u001b]0;title\u0007prompt$ \u001b[?2004h")).toBe("$ ");
    // Two ESCs in a row, an ESC inside a CSI, and a sequence cancelled by CAN.
    expect(ending("\u001b\u001b[0m")).toBe("");
    expect(ending("\u001b[\u001b[0m")).toBe("");
    expect(ending("\u001b[12\u0018$ ")).toBe("$ ");
  });

  it("sees zsh's end-of-line mark as not yet the prompt", () => {
    const mark = `\u001b[1m\u001b[7m#\u001b[27m\u001b[1m\u001b[0m${" ".repeat(79)}\r \r`;
    expect(ending("hi\r\n", mark)).toBe("  ");
    expect(ending("hi\r\n", mark, "\r\u001b[0m\u001b[27m\u001b[24m\u001b[J$ \u001b[K", "\u001b[?2004h")).toBe(
      "$ ",
    );
  });

  it("follows an escape sequence split between chunks", () => {
    expect(ending("done\r\n\u001b", "[?2004l\r")).toBe("");
    expect(ending("done\r\n\u001b]0;ti", "tle\u001b", "\\")).toBe("");
    expect(ending("done\r\n\u001b[3", "1m", "$ ")).toBe("$ ");
  });
});
