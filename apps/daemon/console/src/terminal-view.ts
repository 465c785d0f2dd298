// One session's terminal in the page: rendered by xterm.js from the raw PTY stream (a pipe session as
// plain text), following it live, with its scrollback. Typing reaches the session only while the person
// has taken it over; resizing the page never resizes the agent's terminal unless the person asks.
import { FitAddon } from "@xterm/addon-fit";
import { Terminal } from "@xterm/xterm";
import { api, bytesOf } from "./api.js";
import { byId } from "./dom.js";
import { type TerminalMessage, unwatchTerminal, watchTerminal } from "./live.js";

interface Init extends TerminalMessage {
  readonly tty: boolean;
  readonly cols: number;
  readonly rows: number;
  readonly running: boolean;
  readonly exitCode: number | null;
  readonly data: string;
}

let open: TerminalView | null = null;

/** The text in the open terminal's buffer (what it holds, scrollback included), for a look from outside. */
export function openTerminalText(): string {
  return open?.text() ?? "";
}

export function openSession(id: number, title: string): void {
  open?.close();
  open = new TerminalView(id, title);
}

export function openSessionId(): number | null {
  return open?.id ?? null;
}

function closeSessionView(): void {
  open?.close();
  open = null;
}

class TerminalView {
  readonly id: number;
  #terminal: Terminal | null = null;
  readonly #fit = new FitAddon();
  readonly #decoder = new TextDecoder();
  #tty = true;
  #taken = false;
  /** Bytes the daemon did not send this tab because it could not take them in time. */
  #skipped = 0;
  // Keystrokes typed while one POST is out go together in the next, in order.
  #typed = "";
  #sending = false;
  readonly #cleanup: (() => void)[] = [];

  constructor(id: number, title: string) {
    this.id = id;
    byId("terminal-panel").hidden = false;
    byId("terminal-title").textContent = title;
    this.#state("connecting…");
    this.#setTaken(false);
    watchTerminal(id, (message) => this.#on(message));
    const on = (id: string, handler: () => void): void => {
      const button = byId<HTMLButtonElement>(id);
      button.onclick = handler;
      this.#cleanup.push(() => {
        button.onclick = null;
      });
    };
    on("take-over", () => this.#setTaken(!this.#taken));
    on("interrupt", () => void this.#post("interrupt"));
    on("kill", () => void this.#post("kill"));
    on("fit", () => {
      const size = this.#fit.proposeDimensions();
      if (size !== undefined) void this.#post("resize", { cols: size.cols, rows: size.rows });
    });
    on("close-terminal", () => closeSessionView());
  }

  text(): string {
    const terminal = this.#terminal;
    if (terminal === null) return byId("pipe-output").textContent ?? "";
    const buffer = terminal.buffer.active;
    const lines: string[] = [];
    for (let i = 0; i < buffer.length; i++) lines.push(buffer.getLine(i)?.translateToString(true) ?? "");
    return lines.join("\n");
  }

  close(): void {
    unwatchTerminal();
    for (const cleanup of this.#cleanup) cleanup();
    this.#terminal?.dispose();
    this.#terminal = null;
    byId("terminal").replaceChildren();
    byId("terminal").classList.remove("taken");
    byId("pipe-output").textContent = "";
    byId("terminal-panel").hidden = true;
  }

  #on(message: TerminalMessage): void {
    switch (message.event) {
      case "init":
        this.#init(message as Init);
        return;
      case "output":
        this.#write(bytesOf(message.data as string));
        return;
      case "resized":
        this.#terminal?.resize(message.cols as number, message.rows as number);
        return;
      case "reset": {
        // The tab could not take the output as fast as it came: it redraws from the latest scrollback.
        this.#skipped += message.skipped as number;
        if (this.#terminal !== null) this.#terminal.reset();
        else byId("pipe-output").textContent = "";
        this.#write(bytesOf(message.data as string));
        this.#terminal?.write(
          "\r\n\x1b[2m[console: output came too fast to draw; showing the latest]\x1b[0m\r\n",
        );
        this.#showSkipped();
        return;
      }
      case "exited":
        this.#state(`exited with code ${message.exitCode as number}`);
        return;
      case "removed":
        this.#state("closed");
        return;
    }
  }

  #state(text: string): void {
    byId("terminal-state").textContent = text;
    this.#showSkipped();
  }

  #showSkipped(): void {
    byId("terminal-skipped").textContent =
      this.#skipped === 0 ? "" : `${this.#skipped} bytes came too fast to draw and were skipped`;
  }

  #init(init: Init): void {
    this.#tty = init.tty;
    this.#state(init.running ? "running" : `exited with code ${init.exitCode ?? "?"}`);
    byId("take-over").hidden = !init.tty;
    byId("fit").hidden = !init.tty;
    byId("pipe-output").hidden = init.tty;
    byId("terminal").hidden = !init.tty;
    // Sent again after a reconnect: the scrollback starts over.
    this.#terminal?.reset();
    if (!init.tty) byId("pipe-output").textContent = "";
    if (init.tty && this.#terminal === null) {
      const terminal = new Terminal({
        cols: init.cols,
        rows: init.rows,
        scrollback: 5000,
        disableStdin: true,
        cursorBlink: false,
        fontSize: 13,
        screenReaderMode: false,
      });
      terminal.loadAddon(this.#fit);
      terminal.open(byId("terminal"));
      terminal.onData((data) => {
        if (!this.#taken) return;
        this.#typed += data;
        void this.#sendTyped();
      });
      this.#terminal = terminal;
    }
    this.#write(bytesOf(init.data));
  }

  #write(bytes: Uint8Array): void {
    if (this.#tty) {
      this.#terminal?.write(bytes);
      return;
    }
    const pre = byId("pipe-output");
    pre.append(this.#decoder.decode(bytes, { stream: true }));
    pre.scrollTop = pre.scrollHeight;
  }

  #setTaken(taken: boolean): void {
    this.#taken = taken;
    const button = byId("take-over");
    button.setAttribute("aria-pressed", String(taken));
    button.textContent = taken ? "Stop taking over" : "Take over";
    byId("terminal").classList.toggle("taken", taken);
    if (this.#terminal !== null) {
      this.#terminal.options.disableStdin = !taken;
      if (taken) this.#terminal.focus();
    }
  }

  /** One POST at a time, so keystrokes never overtake each other; what piles up meanwhile goes next. */
  async #sendTyped(): Promise<void> {
    if (this.#sending) return;
    this.#sending = true;
    while (this.#typed !== "") {
      const data = this.#typed;
      this.#typed = "";
      await this.#post("input", { data });
    }
    this.#sending = false;
  }

  async #post(action: string, body: unknown = {}): Promise<void> {
    try {
      await api("POST", `sessions/${this.id}/${action}`, body);
    } catch (error) {
      this.#state(error instanceof Error ? error.message : String(error));
    }
  }
}
