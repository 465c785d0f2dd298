// Programs write for terminals: colours and titles, hyperlinks, OSC 52 clipboard writes, `\r` progress
// lines, and now and then text meant not to be seen (bidi overrides, zero-width or tag characters). A
// model renders none of it, and its text is printed again by clients and consoles, where a sequence
// would act. So the model's text keeps what a terminal would have shown and drops the rest, counted, so
// that the text can say so.

// Outside escape sequences: C0 controls but `\t` and `\n`, DEL, C1; then Unicode's own classes, so that
// a character a later Unicode version adds to them is dropped too: every format character (Cf: the soft
// hyphen, bidi marks, embeddings, overrides and isolates, zero-width characters, tag characters, which
// can carry hidden text), every Default_Ignorable_Code_Point (Hangul fillers, variation selectors), the
// line and paragraph separators. What `visibleText` (@conch/approval) shows escaped to a person (a test
// holds them together), less tabs and the look-alike spaces, which a model reads as what they are, and
// less private-use, unassigned and blank-looking characters, which a person could misread but a model
// reads as the code points they are. Found by a loop over char codes: a regular expression with this
// class is several times slower once the text holds other scripts, or when matches are close together;
// the class is read once into a table (BMP) and tried only on surrogate pairs (astral).
export const SPECIAL_BELOW_A0: Uint8Array = new Uint8Array(0xa0).map((_, code) =>
  (code < 0x20 && code !== 0x09 && code !== 0x0a) || code >= 0x7f ? 1 : 0,
);

const INVISIBLE = /[\p{Cf}\p{Default_Ignorable_Code_Point}\p{Zl}\p{Zp}]/u;

let bmpSpecial: Uint8Array | null = null;

/** The BMP characters from U+00A0 on that INVISIBLE matches, read on first use. */
function bmpTable(): Uint8Array {
  if (bmpSpecial === null) {
    const table = new Uint8Array(0x10000);
    for (let code = 0xa0; code < 0x10000; code++) {
      if (code >= 0xd800 && code <= 0xdfff) continue;
      if (INVISIBLE.test(String.fromCharCode(code))) table[code] = 1;
    }
    bmpSpecial = table;
  }
  return bmpSpecial;
}

function isSpecialFromA0(code: number): boolean {
  return bmpTable()[code] === 1;
}

/** An astral character (a surrogate pair) INVISIBLE matches. */
function isSpecialPair(high: number, low: number): boolean {
  return low >= 0xdc00 && low <= 0xdfff && INVISIBLE.test(String.fromCharCode(high, low));
}

// The special characters of ASCII text. On ASCII (held one byte a character) this regular expression
// finds them twice as fast as the loop, once the next one is more than a few characters away; close by,
// the loop wins, so it looks there first.
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const ASCII_SPECIAL = /[\0-\x08\x0b-\x1f\x7f]/g;
const NEAR = 32;

/** The index of the next special character in `text` from `from`, or `text.length`. */
function nextSpecial(text: string, from: number, ascii: boolean): number {
  const length = text.length;
  const near = ascii ? Math.min(length, from + NEAR) : length;
  for (let i = from; i < near; i++) {
    const code = text.charCodeAt(i);
    if (code < 0xa0) {
      if (SPECIAL_BELOW_A0[code] === 1) return i;
    } else if (code >= 0xd800 && code <= 0xdbff) {
      if (isSpecialPair(code, text.charCodeAt(i + 1))) return i;
    } else if (isSpecialFromA0(code)) {
      return i;
    }
  }
  if (near === length) return length;
  ASCII_SPECIAL.lastIndex = near;
  return ASCII_SPECIAL.test(text) ? ASCII_SPECIAL.lastIndex - 1 : length;
}

/**
 * The index of the next character that ends a control string (OSC, DCS, SOS, PM, APC), or `text.length`:
 * BEL, ESC (`ESC \` is ST), CAN, SUB, C1 ST, and also a line feed. No string a program means to send
 * holds one, and a stray `ESC ]` that a terminal would let swallow the rest of the output then costs
 * one line of it.
 */
function nextStringEnd(text: string, from: number): number {
  const length = text.length;
  for (let i = from; i < length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x07 || code === 0x0a || code === 0x18 || code === 0x1a || code === 0x1b || code === 0x9c)
      return i;
  }
  return length;
}

const GROUND = 0;
const ESCAPE = 1;
const ESCAPE_INTERMEDIATE = 2;
const CSI = 3;
const CONTROL_STRING = 4;
const CONTROL_STRING_ESCAPE = 5;
type State = 0 | 1 | 2 | 3 | 4 | 5;

const BS = 0x08;
const LF = 0x0a;
const CR = 0x0d;
const CAN = 0x18;
const SUB = 0x1a;
const ESC = 0x1b;
const DEL = 0x7f;
const C1_DCS = 0x90;
const C1_SOS = 0x98;
const C1_CSI = 0x9b;
const C1_OSC = 0x9d;
const C1_PM = 0x9e;
const C1_APC = 0x9f;

// A line is held until its end, since a `\r` may still replace it. One longer than this is passed on as
// it is (memory stays bounded), the rest of it too as it comes, and a later `\r` then starts a new line
// instead.
const MAX_HELD_LINE = 16 * 1024;
// Enough for an erase-in-line's parameter; longer parameters are kept no further.
const MAX_PARAMS = 8;

/**
 * Cleans terminal output into a model's text, a piece at a time: an escape sequence, a `\r` line or a
 * character may be split anywhere between pieces.
 *
 * - ECMA-48 sequences are removed whole: CSI (7- and 8-bit), control strings (OSC, DCS, SOS, PM, APC,
 *   ended by BEL, ST, CAN, SUB, ESC or a line feed) and two-character ESC sequences.
 * - `\r\n` is a line break. Any other `\r` returns to the start of the line: what is printed next replaces
 *   the line (`10%\r50%\r100%\n` reads `100%\n`), and a line feed right after keeps it. An erase in line
 *   (`CSI K`, `CSI 2K`) empties it.
 * - A backspace erases the character before it (`_\bX` and `X\bX` overstrikes read `X`, a spinner reads
 *   its last frame).
 * - Other controls, C1 controls and invisible characters are removed. `\t` and `\n` stay.
 *
 * Each removal (a sequence, a `\r` or backspace applied, a character dropped) counts one.
 */
export class TerminalTextFilter {
  #state: State = GROUND;
  /** What is emitted by the current `write`. */
  #out = "";
  /** The current line, not emitted yet. */
  #line = "";
  // Part of the current line went out already in this same text (it was too long to hold), so a `\r`
  // must start a new line rather than join it.
  #breakOnReturn = false;
  /** A `\r` came last: a line feed now makes it a `\r\n`. */
  #afterReturn = false;
  /** The cursor is back at the start of the line: the next printed character replaces the line. */
  #returned = false;
  #params = "";
  #intermediate = false;
  #removed = 0;

  /**
   * The text that can be given out so far; the current line waits for its end, `flush` or `end`.
   * `ascii`: `text` has no character past U+007F, but for any U+FFFD; the search is then faster.
   */
  write(text: string, ascii = false): string {
    const length = text.length;
    let i = 0;
    while (i < length) {
      if (this.#state === GROUND) {
        const end = nextSpecial(text, i, ascii);
        if (end > i) this.#print(text, i, end);
        if (end === length) break;
        const code = text.charCodeAt(end);
        // A special astral character is a surrogate pair, dropped whole.
        i = end + (code >= 0xd800 && code <= 0xdbff ? 2 : 1);
        this.#special(code);
      } else if (this.#state === CONTROL_STRING) {
        i = nextStringEnd(text, i);
        if (i === length) break;
        if (this.#step(text.charCodeAt(i))) i++;
      } else if (this.#step(text.charCodeAt(i))) {
        i++;
      }
    }
    const out = this.#out;
    this.#out = "";
    return out;
  }

  /**
   * What `write` gives out for `data`, as bytes, when `data` is plain ASCII (`isPlainAscii`: the caller
   * checked, and that no character before it is left unfinished) and no sequence or `\r` is pending;
   * else null, and `data` goes through `write`. Plain output (most of it) then costs no decoding,
   * cleaning or encoding: the bytes given out are `data`'s own, after the held line.
   */
  writePlainAscii(data: Buffer): Buffer[] | null {
    if (this.#state !== GROUND || this.#afterReturn || this.#returned || this.#out !== "") return null;
    const out: Buffer[] = [];
    const lastLineFeed = data.lastIndexOf(LF);
    if (lastLineFeed === -1) {
      // A line that went out in part goes on out as it comes: nothing held, nothing decoded.
      if (this.#breakOnReturn && this.#line === "") {
        out.push(data);
        return out;
      }
      if (this.#line.length + data.length <= MAX_HELD_LINE) {
        this.#line += data.toString("latin1");
        return out;
      }
      if (this.#line !== "") out.push(Buffer.from(this.#line, "utf8"));
      out.push(data);
      this.#line = "";
      this.#breakOnReturn = true;
      return out;
    }
    if (this.#line !== "") out.push(Buffer.from(this.#line, "utf8"));
    const rest = data.length - lastLineFeed - 1;
    if (rest > MAX_HELD_LINE) {
      out.push(data);
      this.#line = "";
      this.#breakOnReturn = true;
    } else {
      out.push(data.subarray(0, lastLineFeed + 1));
      this.#line = data.toString("latin1", lastLineFeed + 1);
      this.#breakOnReturn = false;
    }
    return out;
  }

  /** The current line as it stands (a prompt waiting for input), for a reader that cannot wait for its end. */
  flush(): string {
    const line = this.#line;
    this.#line = "";
    this.#breakOnReturn = false;
    // A `\r\n` split by a read counts its `\r`: the next text may not take back what this one reported.
    this.#afterReturn = false;
    return line;
  }

  /** The rest, at the end of the output; a sequence still open is dropped. */
  end(): string {
    const line = this.flush();
    this.#state = GROUND;
    this.#returned = false;
    return line;
  }

  /** How many removals there were since the previous call. */
  takeRemoved(): number {
    const removed = this.#removed;
    this.#removed = 0;
    return removed;
  }

  /** Printable text, tabs and line feeds: `text` from `start` to `end`. */
  #print(text: string, start: number, end: number): void {
    const first = text.charCodeAt(start);
    if (this.#afterReturn) {
      this.#afterReturn = false;
      if (first === LF) this.#removed--;
    }
    if (this.#returned && first !== LF) this.#replaceLine();
    // Searched in the run alone: in `text` a search could scan far past it on every call.
    const run = text.slice(start, end);
    const lastLineFeed = run.lastIndexOf("\n");
    if (lastLineFeed === -1 && this.#breakOnReturn && this.#line === "") {
      this.#out += run;
      return;
    }
    if (lastLineFeed === -1) {
      this.#line += run;
    } else {
      this.#out += this.#line + run.slice(0, lastLineFeed + 1);
      this.#line = run.slice(lastLineFeed + 1);
      this.#breakOnReturn = false;
      this.#returned = false;
    }
    if (this.#line.length > MAX_HELD_LINE) {
      this.#out += this.#line;
      this.#line = "";
      this.#breakOnReturn = true;
    }
  }

  #replaceLine(): void {
    if (this.#breakOnReturn) this.#out += "\n";
    this.#line = "";
    this.#breakOnReturn = false;
    this.#returned = false;
  }

  /** A character `nextSpecial` found, outside any sequence. */
  #special(code: number): void {
    this.#afterReturn = false;
    this.#removed++;
    switch (code) {
      case ESC:
        this.#state = ESCAPE;
        return;
      case C1_CSI:
        this.#startCsi();
        return;
      case C1_OSC:
      case C1_DCS:
      case C1_SOS:
      case C1_PM:
      case C1_APC:
        this.#state = CONTROL_STRING;
        return;
      case CR:
        this.#afterReturn = true;
        this.#returned = true;
        return;
      case BS:
        this.#backspace();
        return;
      default:
    }
  }

  #backspace(): void {
    if (this.#returned) return;
    const line = this.#line;
    const last = line.charCodeAt(line.length - 1);
    const pair = last >= 0xdc00 && last <= 0xdfff && line.length > 1;
    this.#line = line.slice(0, pair ? -2 : -1);
  }

  #startCsi(): void {
    this.#state = CSI;
    this.#params = "";
    this.#intermediate = false;
  }

  /** One character inside a sequence; false when it ended the sequence and belongs to the text. */
  #step(code: number): boolean {
    switch (this.#state) {
      case ESCAPE:
        if (code === 0x5b) this.#startCsi();
        else if (code === 0x5d || code === 0x50 || code === 0x58 || code === 0x5e || code === 0x5f)
          this.#state = CONTROL_STRING;
        else if (code >= 0x20 && code <= 0x2f) this.#state = ESCAPE_INTERMEDIATE;
        else return this.#other(code, code >= 0x30 && code <= 0x7e);
        return true;
      case ESCAPE_INTERMEDIATE:
        if (code >= 0x20 && code <= 0x2f) return true;
        return this.#other(code, code >= 0x30 && code <= 0x7e);
      case CSI:
        if (code >= 0x30 && code <= 0x3f) {
          if (this.#params.length < MAX_PARAMS) this.#params += String.fromCharCode(code);
          return true;
        }
        if (code >= 0x20 && code <= 0x2f) {
          this.#intermediate = true;
          return true;
        }
        if (code === DEL) return true;
        if (code === 0x4b && !this.#intermediate) this.#eraseInLine();
        return this.#other(code, code >= 0x40 && code <= 0x7e);
      case CONTROL_STRING:
        if (code === ESC) {
          this.#state = CONTROL_STRING_ESCAPE;
          return true;
        }
        this.#state = GROUND;
        return code !== LF;
      default:
        // After an ESC in a control string: `ESC \` is its ST; any other ESC ends it and starts a sequence.
        if (code === 0x5c) {
          this.#state = GROUND;
          return true;
        }
        this.#state = ESCAPE;
        this.#removed++;
        return false;
    }
  }

  /**
   * A character that does not continue the sequence: `final` ends it; ESC starts another; CAN and SUB
   * cancel it; anything else cancels it and is text again (a control there acts as in the text).
   */
  #other(code: number, final: boolean): boolean {
    if (final || code === CAN || code === SUB) {
      this.#state = GROUND;
      return true;
    }
    if (code === ESC) {
      this.#state = ESCAPE;
      this.#removed++;
      return true;
    }
    this.#state = GROUND;
    return false;
  }

  /** `CSI K` (to the end), `CSI 1K` (to the cursor), `CSI 2K` (all), with the cursor at the line's end or start. */
  #eraseInLine(): void {
    const params = this.#params;
    const whole = params === "2" || (this.#returned ? params === "" || params === "0" : params === "1");
    if (whole) this.#line = "";
  }
}

/** `text` cleaned whole (see TerminalTextFilter), and how many removals it took. */
export function cleanTerminalText(text: string): { text: string; removed: number } {
  const filter = new TerminalTextFilter();
  const cleaned = filter.write(text) + filter.end();
  return { text: cleaned, removed: filter.takeRemoved() };
}
