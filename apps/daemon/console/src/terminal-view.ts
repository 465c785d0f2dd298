// One session's terminal in the page: rendered by xterm.js from the raw PTY stream (a pipe session as
// plain text), following it live, with its scrollback. Typing reaches the session only while the person
// has taken it over; resizing the page never resizes the agent's terminal unless the person asks.
import { FitAddon } from "@xterm/addon-fit";
import { Terminal } from "@xterm/xterm";
import { api, bytesOf } from "./api.js";
import { byId } from "./dom.js";

interface Init {
  readonly id: number;
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
  readonly #events: EventSource;
  #terminal: Terminal | null = null;
  readonly #fit = new FitAddon();
  readonly #decoder = new TextDecoder();
  #tty = true;
  #taken = false;
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
    this.#events = new EventSource(`/console/api/sessions/${id}/stream`);
    this.#events.addEventListener("init", (event) => this.#init(JSON.parse(event.data) as Init));
    this.#events.addEventListener("output", (event) =>
      this.#write(bytesOf((JSON.parse(event.data) as { data: string }).data)),
    );
    this.#events.addEventListener("resized", (event) => {
      const { cols, rows } = JSON.parse(event.data) as { cols: number; rows: number };
      this.#terminal?.resize(cols, rows);
    });
    this.#events.addEventListener("reset", (event) => {
      const { skipped, data } = JSON.parse(event.data) as { skipped: number; data: string };
      if (this.#terminal !== null) {
        this.#terminal.reset();
        this.#terminal.write(
          `\x1b[2m[console: ${skipped} bytes shown too fast to draw were skipped]\x1b[0m\r\n`,
        );
      } else {
        byId("pipe-output").textContent = "";
      }
      this.#write(bytesOf(data));
    });
    this.#events.addEventListener("exited", (event) => {
      this.#state(`exited with code ${(JSON.parse(event.data) as { exitCode: number }).exitCode}`);
    });
    this.#events.addEventListener("removed", () => {
      this.#state("closed");
      this.#events.close();
    });
    this.#events.onerror = () => {
      if (this.#events.readyState === EventSource.CLOSED) this.#state("disconnected");
    };
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
    this.#events.close();
    for (const cleanup of this.#cleanup) cleanup();
    this.#terminal?.dispose();
    this.#terminal = null;
    byId("terminal").replaceChildren();
    byId("terminal").classList.remove("taken");
    byId("pipe-output").textContent = "";
    byId("terminal-panel").hidden = true;
  }

  #state(text: string): void {
    byId("terminal-state").textContent = text;
  }

  #init(init: Init): void {
    this.#tty = init.tty;
    this.#state(init.running ? "running" : `exited with code ${init.exitCode ?? "?"}`);
    byId("take-over").hidden = !init.tty;
    byId("fit").hidden = !init.tty;
    byId("pipe-output").hidden = init.tty;
    byId("terminal").hidden = !init.tty;
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
