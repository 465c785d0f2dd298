// Whether an interactive shell on a session's terminal is back at its prompt, read from the kernel: the
// terminal's foreground process group is the shell's own again, and the shell is asleep waiting for a
// line (in poll/select or the terminal's read), not running a builtin nor waiting for a command. The
// reads are proc-tree.ts's, which work the same under the sandbox's pid namespace.
import { shellNames } from "@conch/protocol";
import { procStat, procTree, procWchan } from "./proc-tree.js";

/** The shell program names whose prompt can end a call's wait. */
const SHELLS: ReadonlySet<string> = shellNames((shell) => shell.prompts);
// How deep under the session's root the shell is looked for (bwrap, its init, a login shell's -c).
const MAX_DEPTH = 8;

// Where a shell sleeps waiting for a line at its prompt: in poll or select (bash's readline, fish),
// or in the terminal's read (dash, sh, zsh, ksh: wait_woken in n_tty_read). Anywhere else it is busy
// with a command even when the terminal is its own: waiting for a child (wait4, zsh's sigsuspend),
// reading a command substitution's pipe, or passing through a lock as it takes the terminal back.
const READS_TERMINAL =
  /^(?:poll_schedule_timeout|do_select|do_sys_poll|core_sys_select|wait_woken|n_tty_read)/;

/**
 * Whether the shell sleeps waiting for its terminal, read from the kernel function it sleeps in. Where
 * the kernel does not say (unreadable, or `0`), the process groups alone decide.
 */
function readsTerminal(pid: number): boolean {
  const wchan = procWchan(pid);
  if (wchan === null) return true;
  return wchan === "" || wchan === "0" || READS_TERMINAL.test(wchan);
}

/** Whether `name` (a program name or path) is a shell whose prompt this module reads. */
function isShellName(name: string): boolean {
  return SHELLS.has(name.slice(name.lastIndexOf("/") + 1));
}

/**
 * The interactive shell of one session: found under the session's root as the deepest process named
 * like `shell` that leads its own process group (an interactive shell with job control does; a `bash -c`
 * wrapping it does not, unless it is the root), and kept while it lives.
 */
export class ShellPrompt {
  readonly #root: number;
  readonly #name: string;
  #shell: { pid: number; startTime: number } | null = null;

  constructor(root: number, shell: string) {
    this.#root = root;
    this.#name = shell.slice(shell.lastIndexOf("/") + 1);
  }

  /** True when the shell is at its prompt; null when no such shell can be found (then nobody knows). */
  atPrompt(): boolean | null {
    let shell = this.#shell === null ? null : procStat(this.#shell.pid);
    if (shell === null || shell.startTime !== this.#shell?.startTime) {
      this.#shell = this.#find();
      shell = this.#shell === null ? null : procStat(this.#shell.pid);
    }
    if (shell === null) return null;
    return shell.tpgid === shell.pgrp && shell.state === "S" && readsTerminal(this.#shell?.pid ?? 0);
  }

  #find(): { pid: number; startTime: number } | null {
    let found: { pid: number; startTime: number } | null = null;
    for (const info of procTree(this.#root, MAX_DEPTH)) {
      if (info.name === this.#name && info.pgrp === info.pid)
        found = { pid: info.pid, startTime: info.startTime };
    }
    return found;
  }
}

/**
 * The shell `command` runs interactively on a terminal (`bash`, `bash -i`, `zsh -l`, `bash --norc -i`,
 * `fish`: a shell with options only, no script to run), as its program name; null for anything else.
 */
export function interactiveShell(command: string): string | null {
  const [program, ...args] = command.trim().split(/\s+/);
  if (program === undefined || !isShellName(program)) return null;
  const runsScript = args.some(
    (arg) =>
      !arg.startsWith("-") || /^-[A-Za-z]*c/.test(arg) || arg === "--command" || arg.startsWith("--command="),
  );
  return runsScript ? null : program.slice(program.lastIndexOf("/") + 1);
}

const ESC = 0x1b;
const LF = 0x0a;
const BEL = 0x07;
const CAN = 0x18;
const SUB = 0x1a;
// Where a byte falls in the escape sequences a shell writes around its prompt: outside one; after ESC
// (a two-byte sequence, a CSI or a string follows); in a CSI; in an OSC or DCS string (ended by BEL or
// ESC \), or just after an ESC in one.
const Escape = { None: 0, Start: 1, Csi: 2, String: 3, StringEsc: 4 } as const;
type Escape = (typeof Escape)[keyof typeof Escape];

/**
 * The last two characters a terminal's output shows on its last line (its bytes after the last line
 * feed, less escape sequences and control characters), as bytes read as latin1; "" for a line that
 * shows nothing yet. A shell's prompt comes last, and ends the same way each time ("$ ", "# ", "% "):
 * a last line ending otherwise means the prompt, or part of what the shell wrote before it, is still
 * on its way. Fed chunk by chunk, following an escape sequence split between chunks; only the bytes
 * after a chunk's last line feed are looked at.
 */
export class LastLine {
  #ending = "";
  #escape: Escape = Escape.None;

  get ending(): string {
    return this.#ending;
  }

  push(chunk: Uint8Array): void {
    const lineFeed = chunk.lastIndexOf(LF);
    if (lineFeed !== -1) {
      this.#ending = "";
      this.#escape = Escape.None;
    }
    for (let at = lineFeed + 1; at < chunk.length; at++) {
      const byte = chunk[at] as number;
      // ESC starts a sequence anywhere; CAN and SUB cancel one.
      if (byte === ESC) {
        this.#escape = this.#escape === Escape.String ? Escape.StringEsc : Escape.Start;
        continue;
      }
      if (byte === CAN || byte === SUB) {
        this.#escape = Escape.None;
        continue;
      }
      switch (this.#escape) {
        case Escape.None:
          if (byte >= 0x20 && byte !== 0x7f)
            this.#ending = this.#ending.slice(-1) + String.fromCharCode(byte);
          break;
        case Escape.Start:
          // ESC [ opens a CSI; ESC ] and ESC P (and the other string openers) a string; intermediates
          // (0x20-0x2f, as in ESC ( B) wait for the final byte.
          if (byte === 0x5b) this.#escape = Escape.Csi;
          else if (byte === 0x5d || byte === 0x50 || byte === 0x58 || byte === 0x5e || byte === 0x5f)
            this.#escape = Escape.String;
          else if (byte < 0x20 || byte > 0x2f) this.#escape = Escape.None;
          break;
        case Escape.Csi:
          if (byte >= 0x40 && byte <= 0x7e) this.#escape = Escape.None;
          break;
        case Escape.String:
          if (byte === BEL) this.#escape = Escape.None;
          break;
        case Escape.StringEsc:
          this.#escape = byte === 0x5c ? Escape.None : Escape.String;
          break;
      }
    }
  }
}

/** How prompts end, for a shell not yet seen at a prompt it settled at. */
export const PROMPT_ENDINGS: ReadonlySet<string> = new Set(["$ ", "# ", "% ", "> "]);
