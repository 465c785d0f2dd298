// Recorded PTY sessions (asciicast v2): listed, played back with xterm.js at their own pace (pauses over
// a second shortened to one), and offered for download.
import type { RecordingInfo } from "@conch/orchestrator";
import { Terminal } from "@xterm/xterm";
import { apiFile, download } from "./api.js";
import { byId, el, size, time } from "./dom.js";

const MAX_PAUSE_S = 1;
let player: { terminal: Terminal; timer: number | null } | null = null;

export function showRecordings(list: readonly RecordingInfo[]): void {
  byId("no-recordings").hidden = list.length > 0;
  byId("recording-rows").replaceChildren(
    ...list.map((recording) => {
      const play = el(
        "button",
        { type: "button", "aria-label": `Play the recording of session ${recording.sessionId}` },
        "Play",
      );
      play.onclick = () => void playRecording(recording);
      const save = el(
        "button",
        { type: "button", "aria-label": `Download the recording of session ${recording.sessionId}` },
        "Download",
      );
      save.onclick = () =>
        void download(`recordings/${encodeURIComponent(recording.name)}`, recording.name).catch(
          (error: unknown) => {
            save.textContent = `Download (${error instanceof Error ? error.message : String(error)})`;
          },
        );
      return el(
        "tr",
        {},
        el("td", {}, String(recording.sessionId)),
        el("td", {}, time(recording.startedAt)),
        el("td", {}, size(recording.bytes)),
        el("td", { class: "code" }, recording.command),
        el("td", {}, play, " ", save),
      );
    }),
  );
}

function stop(): void {
  if (player === null) return;
  if (player.timer !== null) clearTimeout(player.timer);
  player.terminal.dispose();
  player = null;
  byId("player").replaceChildren();
}

async function playRecording(recording: RecordingInfo): Promise<void> {
  stop();
  const state = byId("player-state");
  byId("player-panel").hidden = false;
  byId("player-title").textContent = `Recording of session ${recording.sessionId}`;
  let text: string;
  try {
    text = await (await apiFile(`recordings/${encodeURIComponent(recording.name)}`)).text();
  } catch (error) {
    state.textContent = `cannot load it (${error instanceof Error ? error.message : String(error)})`;
    return;
  }
  const [head, ...lines] = text.split("\n").filter((line) => line !== "");
  const header = JSON.parse(head ?? "{}") as { width?: number; height?: number };
  const events = lines.map((line) => JSON.parse(line) as [number, string, string]);
  const terminal = new Terminal({
    cols: header.width ?? 80,
    rows: header.height ?? 24,
    disableStdin: true,
    fontSize: 13,
  });
  terminal.open(byId("player"));
  const current = { terminal, timer: null as number | null };
  player = current;
  let index = 0;
  let paused = false;
  const step = (): void => {
    current.timer = null;
    if (player !== current || paused) return;
    const event = events[index];
    if (event === undefined) {
      state.textContent = "finished";
      return;
    }
    const [at, kind, data] = event;
    if (kind === "o") terminal.write(data);
    else if (kind === "r") {
      const [cols, rows] = data.split("x").map(Number);
      if (cols !== undefined && rows !== undefined) terminal.resize(cols, rows);
    }
    index++;
    const next = events[index];
    const wait = next === undefined ? 0 : Math.min(MAX_PAUSE_S, Math.max(0, next[0] - at));
    current.timer = window.setTimeout(step, wait * 1000);
  };
  state.textContent = "playing";
  const toggle = byId<HTMLButtonElement>("player-toggle");
  toggle.textContent = "Pause";
  toggle.onclick = () => {
    paused = !paused;
    toggle.textContent = paused ? "Play" : "Pause";
    state.textContent = paused ? "paused" : "playing";
    if (!paused && current.timer === null) step();
  };
  byId("player-restart").onclick = () => {
    index = 0;
    terminal.reset();
    if (current.timer !== null) clearTimeout(current.timer);
    paused = false;
    toggle.textContent = "Pause";
    state.textContent = "playing";
    step();
  };
  byId("player-close").onclick = () => {
    stop();
    byId("player-panel").hidden = true;
  };
  step();
}
