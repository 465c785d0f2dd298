import { createRequire } from "node:module";
import { expectedReceived } from "@conch/protocol";
import type { IBuffer, IDisposable, IMarker } from "@xterm/headless";

type Xterm = typeof import("@xterm/headless");
type XtermTerminal = InstanceType<Xterm["Terminal"]>;

let xterm: Xterm | null = null;

// Loaded with the first renderer, not with the package: only PTY sessions need it (~35 ms to load).
// It is CommonJS without an `exports` map, so require is the direct way in.
function loadXterm(): Xterm {
  xterm ??= createRequire(import.meta.url)("@xterm/headless") as Xterm;
  return xterm;
}

// xterm parses a few MB a second (far less for short lines), while a program on a PTY can print
// hundreds, and the PTY waits for whoever reads it: fed everything, xterm would set the pace of the
// session and burn a core. Past this many bytes since the previous read (flush), output is no longer
// fed to xterm but counted, until the next read, which renders its last SKIP_TAIL bytes. A read never
// waits on more than this, and a flood nobody reads costs little more than its counting.
const MAX_FEED = 512 * 1024;
const SKIP_TAIL = 64 * 1024;
// Switches between the normal and the alternate screen: the last one skipped is replayed.
const SCREEN_SWITCH = new RegExp(`${String.fromCharCode(0x1b)}\\[\\?(?:1049|1047|47)[hl]`, "g");

const CAN = "\x18";

/** Output skipped, not fed to xterm: counted, its end kept. */
interface Skipped {
  bytes: number;
  newlines: number;
  /** Its last bytes (at least SKIP_TAIL once that many were skipped), oldest first. */
  tail: Buffer[];
  tailBytes: number;
  /** The last screen switch in it, e.g. `\x1b[?1049h`, and where it starts in the skipped output. */
  screen: string | null;
  screenAt: number;
  /** The end of the previous chunk, so that a switch split between two chunks is seen. */
  carry: string;
}

export interface ScreenRendererOptions {
  /** Terminal width in cells. Default 80. */
  cols?: number;
  /** Terminal height in rows. Default 24. */
  rows?: number;
  /** Lines kept above the visible screen on the normal buffer. Default 5000. */
  scrollback?: number;
}

/**
 * Turns a PTY session's raw output into the text a model should read: carriage returns, cursor moves, erases
 * and colours are resolved by a headless xterm, so a `\r` progress bar reads as its final state only.
 */
export class ScreenRenderer {
  readonly #term: XtermTerminal;
  readonly #subscriptions: IDisposable[] = [];
  readonly #pendingFlushes = new Set<() => void>();
  /** First row of the logical line the previous read ended on (row 0 before the first read). */
  #readRow = 0;
  /** Text of that line up to the cursor at the previous read, to tell appended text from a rewrite. */
  #readPrefix = "";
  // Follows #readRow through reflows and inserted or deleted rows. xterm also disposes a marker whose row is
  // erased by `CSI J`, so it is re-placed from #readRow rather than trusted to survive.
  #readMarker: IMarker | undefined;
  // Programs redraw rows above the cursor (multi-line progress, a cleared screen); the visible rows above the
  // read line as they were at the read show which of them were rewritten since.
  #aboveRow = 0;
  #above: string[] = [];
  /** Unread rows trimmed out of the scrollback since the previous read. */
  #lost = 0;
  // xterm has no public trim event, but a trim lowers every marker's line by the rows trimmed (disposing it
  // once negative). A probe kept in the scrollback, where nothing erases it, measures trims exactly.
  #probe: IMarker | undefined;
  #probeLine = 0;
  #written = false;
  #disposed = false;
  /** Bytes (or UTF-16 units) handed to xterm since the previous flush. */
  #fed = 0;
  #skipped: Skipped | null = null;

  constructor(options: ScreenRendererOptions = {}) {
    const cols = checkInteger("cols", options.cols ?? 80, 1);
    const rows = checkInteger("rows", options.rows ?? 24, 1);
    const scrollback = checkInteger("scrollback", options.scrollback ?? 5000, 0);
    // `buffer` and `registerMarker` are "proposed" API in the headless build and throw without
    // allowProposedApi. Without reflowCursorLine a narrower resize cuts the cursor's line instead of wrapping
    // it, and the model would never see the cut text.
    this.#term = new (loadXterm().Terminal)({
      cols,
      rows,
      scrollback,
      allowProposedApi: true,
      reflowCursorLine: true,
    });
    // Counting on every scroll keeps the probe from being trimmed away before it is read.
    this.#subscriptions.push(this.#term.onScroll(() => this.#countTrims()));
    this.#countTrims();
  }

  /**
   * Feeds raw PTY output (UTF-8 bytes, possibly split mid-character across calls). Ignored after
   * dispose(). Past MAX_FEED bytes since the previous flush(), output is skipped until the next one:
   * counted, and its end rendered then; its other lines read as scrolled out of the terminal.
   */
  write(data: Uint8Array | string): void {
    if (this.#disposed) return;
    this.#written = true;
    if (data.length === 0) return;
    if (this.#skipped === null && this.#fed <= MAX_FEED) {
      this.#feed(data);
      return;
    }
    this.#skip(
      typeof data === "string"
        ? Buffer.from(data)
        : Buffer.from(data.buffer, data.byteOffset, data.byteLength),
    );
  }

  /**
   * Resolves once every write so far has been parsed (of skipped output, its end); xterm parses
   * asynchronously.
   */
  flush(): Promise<void> {
    if (this.#disposed) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        this.#pendingFlushes.delete(done);
        resolve();
      };
      this.#pendingFlushes.add(done);
      this.#term.write("", () => {
        this.#fed = 0;
        if (this.#disposed || this.#skipped === null) {
          done();
          return;
        }
        // xterm has parsed all it was fed: the end of what was skipped meanwhile is rendered now.
        this.#catchUp();
        this.#term.write("", done);
      });
    });
  }

  /** Hands `data` to xterm, counted (a string by its UTF-16 length). */
  #feed(data: Uint8Array | string): void {
    this.#fed += data.length;
    this.#term.write(data);
  }

  #skip(bytes: Buffer): void {
    this.#skipped ??= { bytes: 0, newlines: 0, tail: [], tailBytes: 0, screen: null, screenAt: 0, carry: "" };
    const skipped = this.#skipped;
    const start = skipped.bytes;
    skipped.bytes += bytes.length;
    skipped.newlines += newlines(bytes);
    if (bytes.includes(0x1b) || skipped.carry.includes("\x1b")) {
      const text = skipped.carry + bytes.toString("latin1");
      for (const match of text.matchAll(SCREEN_SWITCH)) {
        skipped.screen = match[0];
        skipped.screenAt = start - skipped.carry.length + match.index;
      }
      skipped.carry = text.slice(-7);
    } else {
      skipped.carry = "";
    }
    skipped.tail.push(Buffer.from(bytes));
    skipped.tailBytes += bytes.length;
    while (skipped.tail.length > 1 && skipped.tailBytes - (skipped.tail[0]?.length ?? 0) >= SKIP_TAIL) {
      skipped.tailBytes -= skipped.tail.shift()?.length ?? 0;
    }
  }

  /**
   * Renders the end of the skipped output, xterm having parsed everything before it: the screen it was
   * on, then its last lines from a line start (or, in a line with no end, from its last `\r`: a progress
   * bar's latest state). The lines it lacks count as scrolled out, so a read says so.
   */
  #catchUp(): void {
    const skipped = this.#skipped;
    if (skipped === null) return;
    this.#skipped = null;
    const all = Buffer.concat(skipped.tail);
    if (skipped.bytes <= SKIP_TAIL) {
      // It all fits: rendered whole, nothing is lost.
      this.#feed(all);
      return;
    }
    const tail = all.subarray(-SKIP_TAIL);
    const buffer = this.#term.buffer.active;
    const first = tail.indexOf(0x0a);
    const tailAt = skipped.bytes - tail.length;
    let rest: Buffer;
    let screen = skipped.screen;
    if (screen !== null && skipped.screenAt >= tailAt) {
      // The last screen switch is in the tail: rendered from it, the screen is drawn as the program drew it.
      rest = tail.subarray(skipped.screenAt - tailAt);
      screen = null;
    } else if (first !== -1) {
      // From the first line start in the tail; a `\r` before the first line's end (not its `\r\n`)
      // starts that line's latest state, as a progress bar redraws it.
      const cr = tail.subarray(0, Math.max(0, first - 1)).lastIndexOf(0x0d);
      rest = tail.subarray(cr === -1 ? first + 1 : cr);
    } else {
      const cr = tail.lastIndexOf(0x0d);
      rest = cr === -1 ? tail : tail.subarray(cr);
    }
    let lost = skipped.newlines - newlines(rest);
    // CAN returns xterm's parser to its ground state, should what was fed end inside an escape sequence.
    let lead = CAN;
    if (lost > 0 && buffer.cursorX > 0) {
      // The cursor's line ends where the skipped output's first line ended: it stays, shown in part.
      lead += "\r\n";
      lost--;
    } else if (lost > 0) {
      // The cursor's row holds a line the skipped output went on to rewrite: cleared, not overwritten.
      lead += "\r\x1b[2K";
    }
    // On the screen the skipped output ended on, after the cursor's line on the screen it started on.
    lead += screen ?? "";
    if (lost === 0 && skipped.newlines === 0 && rest.length < skipped.bytes && rest.indexOf(0x0d) !== 0) {
      // One line longer than the tail, not a progress bar: its skipped middle filled rows, now lost.
      lost = Math.ceil((skipped.bytes - rest.length) / this.#term.cols);
    }
    this.#lost += lost;
    this.#feed(lead);
    if (rest.length > 0) this.#feed(Buffer.from(rest));
  }

  /**
   * The text rendered since the previous call (the first call: since the start). Synchronous so a caller can
   * read and bookkeep atomically: await flush() first, or output still being parsed is left for the next read.
   *
   * Normal screen: the logical lines (wrapped rows joined) from the previous read position down to the
   * cursor's line. The line the previous read ended on contributes only what was appended after it, unless it
   * was rewritten before that point (a `\r` progress bar), in which case it is returned whole. Visible rows
   * above that line which were rewritten since (a multi-line progress display, a cleared screen) are returned
   * whole from the first changed row. If unread lines were trimmed out of the scrollback, the text starts with
   * `[... N lines scrolled out of the terminal ...]` ("1 line" when N is 1).
   *
   * Alternate screen (vim, less, top): the whole screen if anything was written since the previous read,
   * else "".
   */
  readSince(): string {
    if (this.#disposed) return "";
    const written = this.#written;
    this.#written = false;
    const buffer = this.#term.buffer.active;
    if (buffer.type === "alternate") return written ? this.screen() : "";

    this.#countTrims();
    const cursorRow = buffer.baseY + buffer.cursorY;
    let endRow = cursorRow;
    while (buffer.getLine(endRow + 1)?.isWrapped === true) endRow++;

    let startRow = this.#readRow;
    let prefix = this.#readPrefix;
    const rewritten = this.#above.findIndex(
      (text, i) => this.#aboveRow + i >= buffer.baseY && rowText(buffer, this.#aboveRow + i) !== text,
    );
    if (rewritten !== -1) {
      startRow = this.#aboveRow + rewritten;
      while (startRow > 0 && buffer.getLine(startRow)?.isWrapped === true) startRow--;
      prefix = "";
    }

    const lines = logicalLines(buffer, startRow, endRow);
    const first = lines[0];
    if (first !== undefined && prefix !== "" && first.startsWith(prefix)) {
      const appended = first.slice(prefix.length);
      // Nothing appended but a newline: the line break alone would read as a spurious blank line.
      if (appended.trimEnd() === "" && lines.length > 1) lines.shift();
      else lines[0] = appended;
    }
    if (this.#lost > 0) {
      lines.unshift(
        `[... ${this.#lost} ${this.#lost === 1 ? "line" : "lines"} scrolled out of the terminal ...]`,
      );
    }

    this.#markReadPosition(buffer, cursorRow);
    return joinTrimmed(lines);
  }

  /** The visible screen as text, rows trimmed of trailing spaces, trailing empty rows dropped. Call flush() first. */
  screen(): string {
    const buffer = this.#term.buffer.active;
    const rows: string[] = [];
    for (let row = buffer.viewportY; row < buffer.viewportY + this.#term.rows; row++) {
      rows.push(buffer.getLine(row)?.translateToString(true) ?? "");
    }
    return joinTrimmed(rows);
  }

  /** Resizes the terminal; the normal buffer reflows wrapped lines. Ignored after dispose(). */
  resize(cols: number, rows: number): void {
    if (this.#disposed) return;
    this.#term.resize(checkInteger("cols", cols, 1), checkInteger("rows", rows, 1));
    this.#countTrims();
  }

  /** Releases the terminal; pending flush() promises resolve. */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    for (const subscription of this.#subscriptions) subscription.dispose();
    this.#readMarker?.dispose();
    this.#probe?.dispose();
    this.#term.dispose();
    for (const done of this.#pendingFlushes) done();
  }

  #countTrims(): void {
    const trimmed = this.#probe === undefined ? 0 : Math.max(0, this.#probeLine - this.#probe.line);
    this.#aboveRow -= trimmed;
    const marker = this.#readMarker;
    if (marker !== undefined && !marker.isDisposed) {
      this.#readRow = marker.line;
    } else {
      this.#readRow -= trimmed;
      if (this.#readRow < 0) {
        this.#lost += -this.#readRow;
        this.#readRow = 0;
        this.#readPrefix = "";
      }
    }

    const buffer = this.#term.buffer.active;
    // registerMarker places markers on the normal buffer only (undefined on the alternate one).
    if (buffer.type !== "normal") return;
    const cursorRow = buffer.baseY + buffer.cursorY;
    // Reading from row 0 with no prefix needs no marker, and keeping none saves one per trimmed row.
    if ((marker === undefined || marker.isDisposed) && (this.#readRow > 0 || this.#readPrefix !== "")) {
      this.#readMarker = this.#term.registerMarker(this.#readRow - cursorRow);
    }
    const probe = this.#probe;
    // Re-placed once it has sunk to the top half of the scrollback, so it is rarely re-registered.
    const probeRow = Math.max(0, buffer.baseY - 1);
    if (probe === undefined || probe.isDisposed || probe.line < probeRow / 2) {
      probe?.dispose();
      this.#probe = this.#term.registerMarker(probeRow - cursorRow);
    }
    this.#probeLine = this.#probe?.line ?? 0;
  }

  #markReadPosition(buffer: IBuffer, cursorRow: number): void {
    let startRow = cursorRow;
    while (startRow > 0 && buffer.getLine(startRow)?.isWrapped === true) startRow--;
    let prefix = "";
    for (let row = startRow; row < cursorRow; row++) {
      prefix += buffer.getLine(row)?.translateToString(false) ?? "";
    }
    prefix += buffer.getLine(cursorRow)?.translateToString(false, 0, buffer.cursorX) ?? "";

    this.#aboveRow = buffer.baseY;
    this.#above = [];
    for (let row = buffer.baseY; row < startRow; row++) this.#above.push(rowText(buffer, row));

    this.#readMarker?.dispose();
    this.#readMarker = this.#term.registerMarker(startRow - cursorRow);
    this.#readRow = startRow;
    this.#readPrefix = prefix;
    this.#lost = 0;
  }
}

function newlines(bytes: Buffer): number {
  let count = 0;
  for (let at = bytes.indexOf(0x0a); at !== -1; at = bytes.indexOf(0x0a, at + 1)) count++;
  return count;
}

function checkInteger(name: string, value: number, min: number): number {
  if (!Number.isInteger(value) || value < min) {
    throw new RangeError(`ScreenRenderer options: ${expectedReceived(name, `an integer >= ${min}`, value)}`);
  }
  return value;
}

function rowText(buffer: IBuffer, row: number): string {
  return buffer.getLine(row)?.translateToString(true) ?? "";
}

/** Rows `start..end` as logical lines: a row continuing the previous one (`isWrapped`) is appended to it. */
function logicalLines(buffer: IBuffer, start: number, end: number): string[] {
  const lines: string[] = [];
  for (let row = start; row <= end; row++) {
    const line = buffer.getLine(row);
    const text = line?.translateToString(false) ?? "";
    if (row > start && line?.isWrapped === true) lines[lines.length - 1] += text;
    else lines.push(text);
  }
  return lines;
}

function joinTrimmed(lines: string[]): string {
  const trimmed = lines.map((line) => line.trimEnd());
  while (trimmed.length > 0 && trimmed[trimmed.length - 1] === "") trimmed.pop();
  return trimmed.join("\n");
}
