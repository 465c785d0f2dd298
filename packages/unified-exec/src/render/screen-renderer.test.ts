import { describe, expect, it } from "vitest";
import { ScreenRenderer } from "./screen-renderer.js";

async function feed(renderer: ScreenRenderer, ...chunks: (string | Uint8Array)[]): Promise<void> {
  for (const chunk of chunks) renderer.write(chunk);
  await renderer.flush();
}

function numbered(from: number, to: number): string[] {
  const lines: string[] = [];
  for (let i = from; i <= to; i++) lines.push(`line ${i}`);
  return lines;
}

describe("ScreenRenderer", () => {
  it("renders plain lines", async () => {
    const renderer = new ScreenRenderer();
    await feed(renderer, "hello\r\nworld  \r\n");
    expect(renderer.readSince()).toBe("hello\nworld");
    renderer.dispose();
  });

  it("decodes UTF-8 split mid-character across writes", async () => {
    const renderer = new ScreenRenderer();
    const bytes = new TextEncoder().encode("héllo € 😀 done\r\n");
    await feed(renderer, ...Array.from(bytes, (byte) => Uint8Array.of(byte)));
    await feed(renderer, "a\uD83D", "\uDE00b\r\n");
    expect(renderer.readSince()).toBe("héllo € 😀 done\na😀b");
    renderer.dispose();
  });

  it("reads a carriage-return progress bar as its final state", async () => {
    const renderer = new ScreenRenderer();
    for (let i = 0; i <= 300; i++) renderer.write(`\rprogress ${i}%`);
    await feed(renderer, "\r\ndone\r\n");
    expect(renderer.readSince()).toBe("progress 300%\ndone");
    renderer.dispose();
  });

  it("returns the whole line when a read line is rewritten before the read column", async () => {
    const renderer = new ScreenRenderer();
    await feed(renderer, "\rprogress 5%");
    expect(renderer.readSince()).toBe("progress 5%");
    await feed(renderer, "\rprogress 42%");
    expect(renderer.readSince()).toBe("progress 42%");
    await feed(renderer, "\rprogress 100%\r\ndone\r\n");
    expect(renderer.readSince()).toBe("progress 100%\ndone");
    renderer.dispose();
  });

  it("strips colours and other SGR attributes", async () => {
    const renderer = new ScreenRenderer();
    await feed(renderer, "\x1b[31mred\x1b[0m plain \x1b[1;32mbold green\x1b[0m\r\n");
    expect(renderer.readSince()).toBe("red plain bold green");
    renderer.dispose();
  });

  it("returns only new text on consecutive reads", async () => {
    const renderer = new ScreenRenderer();
    await feed(renderer, "one\r\n");
    expect(renderer.readSince()).toBe("one");
    await feed(renderer, "two\r\n");
    expect(renderer.readSince()).toBe("two");
    expect(renderer.readSince()).toBe("");
    renderer.dispose();
  });

  it("returns only what was appended to the line of the previous read", async () => {
    const renderer = new ScreenRenderer();
    await feed(renderer, "$ ");
    expect(renderer.readSince()).toBe("$");
    await feed(renderer, "ls");
    expect(renderer.readSince()).toBe("ls");
    await feed(renderer, "\r\nfile.txt\r\n$ ");
    expect(renderer.readSince()).toBe("file.txt\n$");
    expect(renderer.screen()).toBe("$ ls\nfile.txt\n$");
    renderer.dispose();
  });

  it("joins wrapped rows into one line", async () => {
    const renderer = new ScreenRenderer({ cols: 20, rows: 5 });
    await feed(renderer, `${"x".repeat(30)}\r\n`);
    expect(renderer.readSince()).toBe("x".repeat(30));
    expect(renderer.screen()).toBe(`${"x".repeat(20)}\n${"x".repeat(10)}`);
    renderer.dispose();
  });

  it("returns the whole alternate screen, then the intact normal screen after leaving it", async () => {
    const renderer = new ScreenRenderer();
    await feed(renderer, "before\r\n$ ");
    expect(renderer.readSince()).toBe("before\n$");

    await feed(renderer, "vim\r\n\x1b[?1049h\x1b[H\x1b[2J", "\x1b[1;1Hline one", "\x1b[24;1H:q");
    const vimScreen = ["line one", ...Array<string>(22).fill(""), ":q"].join("\n");
    expect(renderer.readSince()).toBe(vimScreen);
    expect(renderer.screen()).toBe(vimScreen);
    expect(renderer.readSince()).toBe("");

    await feed(renderer, "\x1b[?1049l", "$ echo hi\r\nhi\r\n$ ");
    expect(renderer.screen()).toBe("before\n$ vim\n$ echo hi\nhi\n$");
    expect(renderer.readSince()).toBe("vim\n$ echo hi\nhi\n$");
    renderer.dispose();
  });

  it("restarts at the top of the screen when the cursor moved above the previous read", async () => {
    const renderer = new ScreenRenderer();
    await feed(renderer, "a\r\nb\r\n$ ");
    expect(renderer.readSince()).toBe("a\nb\n$");
    await feed(renderer, "clear\r\n\x1b[H\x1b[2J\x1b[3J$ ");
    expect(renderer.readSince()).toBe("$");
    renderer.dispose();
  });

  it("reads a multi-line redraw that erases the previous read position as its final state", async () => {
    const renderer = new ScreenRenderer({ rows: 5, scrollback: 2 });
    await feed(renderer, "pull\r\na: 10%\r\nb: 20%\r\n");
    expect(renderer.readSince()).toBe("pull\na: 10%\nb: 20%");
    // Cursor up two rows and erase below: xterm disposes markers on the erased rows, which is not a trim.
    await feed(renderer, "\x1b[2A\x1b[Ja: 100%\r\nb: 100%\r\n");
    expect(renderer.readSince()).toBe("a: 100%\nb: 100%");
    await feed(renderer, "\x1b[2A\x1b[Ja: done\r\nb: done\r\nok\r\n");
    expect(renderer.readSince()).toBe("a: done\nb: done\nok");
    renderer.dispose();
  });

  it("notes how many unread lines scrolled out of a small scrollback", async () => {
    const renderer = new ScreenRenderer({ rows: 24, scrollback: 10 });
    await feed(renderer, numbered(1, 100).join("\r\n"), "\r\n");
    // 101 rows (100 lines and the cursor's empty row) in a 34-row buffer: the first 67 are gone.
    expect(renderer.readSince()).toBe(
      ["[... 67 lines scrolled out of the terminal ...]", ...numbered(68, 100)].join("\n"),
    );

    await feed(renderer, numbered(101, 105).join("\r\n"), "\r\n");
    expect(renderer.readSince()).toBe(numbered(101, 105).join("\n"));

    // The read ended on the row that line 106 then filled; 34 more rows push just that one out.
    await feed(renderer, numbered(106, 139).join("\r\n"), "\r\n");
    expect(renderer.readSince()).toBe(
      ["[... 1 line scrolled out of the terminal ...]", ...numbered(107, 139)].join("\n"),
    );
    renderer.dispose();
  });

  it("resizes, reflowing wrapped lines and keeping the read position", async () => {
    const renderer = new ScreenRenderer({ cols: 20, rows: 5 });
    await feed(renderer, "hello\r\n$ ");
    expect(renderer.readSince()).toBe("hello\n$");

    renderer.resize(40, 10);
    await feed(renderer, "y".repeat(30));
    expect(renderer.screen()).toBe(`hello\n$ ${"y".repeat(30)}`);
    expect(renderer.readSince()).toBe("y".repeat(30));

    // Narrowing while the cursor sits on a half-typed line leaves xterm's cursor at the last column (a shell
    // redraws its prompt on SIGWINCH), so this narrows with the cursor on a fresh line.
    await feed(renderer, "\r\n");
    renderer.resize(10, 10);
    expect(renderer.screen()).toBe(
      `hello\n$ ${"y".repeat(8)}\n${"y".repeat(10)}\n${"y".repeat(10)}\n${"y".repeat(2)}`,
    );
    await feed(renderer, "z\r\n");
    expect(renderer.readSince()).toBe("z");
    renderer.dispose();
  });

  // A flood between two reads: past 512 KiB the output is skipped, counted, and its
  // end rendered at the next read; the lines it lacks read as scrolled out, and add up exactly.
  it("skips a flood it cannot keep up with, and counts every line it did not render", async () => {
    // A scrollback that would hold 100,000 lines: what is shown is the flood's end, not all it could hold.
    const renderer = new ScreenRenderer({ scrollback: 100_000 });
    const total = 400_000;
    const text = `${numbered(1, total).join("\r\n")}\r\n`;
    for (let at = 0; at < text.length; at += 65_536) renderer.write(text.slice(at, at + 65_536));
    await feed(renderer, "$ ");
    const read = renderer.readSince();
    const [notice, ...lines] = read.split("\n");
    const scrolled = Number(
      /^\[\.\.\. (\d+) lines scrolled out of the terminal \.\.\.\]$/.exec(notice ?? "")?.[1],
    );
    expect(lines.at(-1)).toBe("$");
    const shown = lines.slice(0, -1);
    expect(shown.length).toBeGreaterThan(100);
    // Rendered: the first 512 KiB since the previous read, and the last 64 KiB (~12 bytes a line).
    expect(shown.length).toBeLessThan(60_000);
    // Shown: the first lines, up to one shown in part where the skip began; then the last ones, in order.
    const cut = shown.findIndex((line, i) => line !== `line ${i + 1}`);
    expect(`line ${cut + 1}`.startsWith(shown[cut] ?? "x")).toBe(true);
    const tail = shown.slice(cut + 1);
    const from = Number(/^line (\d+)$/.exec(tail[0] ?? "")?.[1]);
    expect(tail).toEqual(numbered(from, total));
    expect(scrolled + shown.length).toBe(total);
    // What comes next renders as usual.
    await feed(renderer, "echo next\r\nnext\r\n$ ");
    expect(renderer.readSince()).toBe("echo next\nnext\n$");
    renderer.dispose();
  });

  it("a skipped flood that ends in a full-screen program shows its screen; a skipped progress bar its last state", async () => {
    const full = new ScreenRenderer({ cols: 40, rows: 5 });
    full.write(`${numbered(1, 200_000).join("\r\n")}\r\n`);
    await feed(full, "\x1b[?1049h\x1b[H\x1b[2Jtop of the screen\r\nsecond row");
    expect(full.screen()).toBe("top of the screen\nsecond row");
    full.dispose();

    const bar = new ScreenRenderer();
    bar.write(numbered(1, 60_000).join("\r\n"));
    bar.write("\r\n");
    for (let i = 0; i <= 100_000; i++) bar.write(`\rprogress ${i}%`);
    await feed(bar, "\r\ndone\r\n");
    const read = bar.readSince().split("\n");
    expect(read.slice(-2)).toEqual(["progress 100000%", "done"]);
    bar.dispose();
  });

  it("renders a short skip whole: nothing lost, no notice", async () => {
    const renderer = new ScreenRenderer();
    renderer.write("\rprogress 1%".repeat(43_691));
    renderer.write(" done\r\nresult: 42\r\n$ ");
    await renderer.flush();
    expect(renderer.readSince()).toBe("progress 1% done\nresult: 42\n$");
    renderer.dispose();
  });

  it("renders a skip's end on a clean row, whatever state what was fed left the cursor's row in", async () => {
    // 80 KiB of lines: longer than the tail kept, so the skip's end is rendered from a line start.
    const lines = `${numbered(1, 8_000).join("\r\n")}\r\nok\r\n$ `;
    const cases: [string, string][] = [
      ["a progress bar's row, cursor at column 0", "progress 99%\r".repeat(40_331)],
      ["inside a terminal title (OSC)", `${"\x1b[0m".repeat(131_072)}\x1b]0;tit`],
    ];
    for (const [what, fed] of cases) {
      // Room for every row rendered, so that the cursor's row is still there to read.
      const renderer = new ScreenRenderer({ scrollback: 10_000 });
      renderer.write(fed);
      renderer.write(`x\r\n${lines}`);
      await renderer.flush();
      const [notice, ...shown] = renderer.readSince().split("\n");
      expect(notice, what).toMatch(/^\[\.\.\. \d+ lines scrolled out of the terminal \.\.\.\]$/);
      const from = Number(/^line (\d+)$/.exec(shown[0] ?? "")?.[1]);
      expect(shown, what).toEqual([...numbered(from, 8_000), "ok", "$"]);
      renderer.dispose();
    }
  });

  it("rejects invalid sizes, naming the option and the value", () => {
    expect(() => new ScreenRenderer({ cols: 0 })).toThrow(
      "ScreenRenderer options: cols: expected an integer >= 1, received 0",
    );
    expect(() => new ScreenRenderer({ scrollback: 1.5 })).toThrow(
      "ScreenRenderer options: scrollback: expected an integer >= 0, received 1.5",
    );
  });

  it("resolves flush and reads nothing after dispose", async () => {
    const renderer = new ScreenRenderer();
    renderer.write("pending\r\n");
    const flushed = renderer.flush();
    renderer.dispose();
    await flushed;
    await renderer.flush();
    expect(renderer.readSince()).toBe("");
  });
});
