// What counts as a last line that shows something: a shell's prompt does; a line end, a carriage return
// and the escape sequences written around a prompt do not, split between chunks or not.
import { describe, expect, it } from "vitest";
import { LastLine } from "./shell-prompt.js";

function shows(...chunks: string[]): boolean {
  const line = new LastLine();
  for (const chunk of chunks) line.push(Buffer.from(chunk, "utf8"));
  return line.shows;
}

describe("LastLine", () => {
  it("shows a prompt after the answer, and nothing once a line ended", () => {
    expect(shows()).toBe(false);
    expect(shows("hi\r\nprompt$ ")).toBe(true);
    expect(shows("hi\r\n")).toBe(false);
    expect(shows("prompt$ ", "echo hi\r\n")).toBe(false);
    expect(shows("hi\r\n", "p")).toBe(true);
    expect(shows("λ ")).toBe(true);
  });

  it("does not count carriage returns, control characters or escape sequences as shown", () => {
    // bash after an accepted line: bracketed paste off, then a carriage return.
    expect(shows("echo hi\r\n\u001b[?2004l\r")).toBe(false);
    expect(shows("\r\u0007\u0008\u007f")).toBe(false);
    // A window title (OSC, ended by BEL or ST), a charset switch (ESC ( B), a DCS string.
    expect(shows("\u001b]0;user@host: ~\u0007\u001b(B\u001bP1$r0m\u001b\\")).toBe(false);
    expect(shows("\u001b]0;title\u0007prompt$ \u001b[?2004h")).toBe(true);
  });

  it("follows an escape sequence split between chunks", () => {
    expect(shows("done\r\n\u001b", "[?2004l\r")).toBe(false);
    expect(shows("done\r\n\u001b]0;ti", "tle\u001b", "\\")).toBe(false);
    expect(shows("done\r\n\u001b[3", "1m", "$ ")).toBe(true);
  });
});
