// The audit log's recent entries (decisions, runs, input, closed sessions), newest first, filterable by
// client, session and decision, following the log live. A run links to its session and to its spill file
// (downloaded: a plain link cannot carry the session secret).
import type { AuditEntry } from "@conch/orchestrator";
import { download } from "./api.js";
import { byId, el, time } from "./dom.js";
import { knownSession } from "./sessions.js";
import { openSession } from "./terminal-view.js";

const MAX_ENTRIES = 2000;
let entries: AuditEntry[] = [];

export function setAudit(list: readonly AuditEntry[]): void {
  entries = list.slice(-MAX_ENTRIES);
  render();
}

export function addAudit(entry: AuditEntry): void {
  entries.push(entry);
  if (entries.length > MAX_ENTRIES) entries = entries.slice(-MAX_ENTRIES);
  render();
}

export function setUpAuditFilters(): void {
  for (const id of ["filter-client", "filter-session", "filter-decision"]) byId(id).oninput = render;
  byId<HTMLFormElement>("audit-filters").onsubmit = (event) => event.preventDefault();
}

const text = (value: unknown): string =>
  typeof value === "string" ? value : value == null ? "" : String(value);

function what(entry: AuditEntry): string {
  if (entry.type === "input") {
    const by = entry.by === "person" ? "person typed" : "model typed";
    return entry.signal !== undefined ? `${by} signal ${text(entry.signal)}` : `${by}: ${text(entry.text)}`;
  }
  if (entry.type === "network") {
    const bytes =
      entry.decision === "allowed" ? `, ${text(entry.bytesOut)} B out, ${text(entry.bytesIn)} B in` : "";
    return `network ${text(entry.host)}:${text(entry.port)} (${text(entry.protocol)}): ${text(entry.reason)}${bytes}`;
  }
  if (entry.type === "session-closed")
    return `${text(entry.command)} (${text(entry.reason)}${entry.by === undefined ? "" : ` by ${text(entry.by)}`})`;
  return Array.isArray(entry.argv) ? entry.argv.map(text).join(" ") : text(entry.script);
}

/** Where a run ran: its sandbox, or plainly outside one (an escalated run must not look sandboxed). */
function ranIn(entry: AuditEntry): string {
  if (entry.type !== "execution") return "";
  const sandbox = text(entry.sandbox);
  return sandbox === "none" ? "outside the sandbox" : `sandbox (${sandbox})`;
}

function options(select: HTMLSelectElement, values: Iterable<string>): void {
  const current = select.value;
  const wanted = ["", ...[...new Set(values)].sort()];
  if ([...select.options].map((option) => option.value).join("\0") === wanted.join("\0")) return;
  select.replaceChildren(...wanted.map((value) => el("option", { value }, value === "" ? "all" : value)));
  select.value = wanted.includes(current) ? current : "";
}

function spillButton(path: string): HTMLElement {
  const button = el("button", { type: "button" }, "full output");
  const name = `${path.split("/").at(-1) ?? "output"}.txt`;
  button.onclick = () =>
    void download(`spill?path=${encodeURIComponent(path)}`, name).catch((error: unknown) => {
      button.textContent = `full output (${error instanceof Error ? error.message : String(error)})`;
    });
  return button;
}

function render(): void {
  const client = byId<HTMLSelectElement>("filter-client");
  const decision = byId<HTMLSelectElement>("filter-decision");
  options(
    client,
    entries.map((entry) => text(entry.client)).filter((value) => value !== ""),
  );
  options(
    decision,
    entries.map((entry) => text(entry.decision)).filter((value) => value !== ""),
  );
  const session = byId<HTMLInputElement>("filter-session").value.trim();
  const shown = entries.filter(
    (entry) =>
      (client.value === "" || entry.client === client.value) &&
      (decision.value === "" || entry.decision === decision.value) &&
      (session === "" || String(entry.sessionId ?? "") === session),
  );
  byId("audit-rows").replaceChildren(
    ...shown
      .slice(-500)
      .reverse()
      .map((entry) => {
        const id = typeof entry.sessionId === "number" ? entry.sessionId : null;
        const sessionCell = el("td", {});
        if (id !== null && knownSession(id) !== undefined) {
          const link = el("button", { type: "button", "aria-label": `Open session ${id}` }, String(id));
          link.onclick = () => openSession(id, `Session ${id}`);
          sessionCell.append(link);
        } else if (id !== null) {
          sessionCell.append(String(id));
        }
        const spill = typeof entry.spill === "string" ? spillButton(entry.spill) : "";
        const exit = entry.type === "execution" ? text(entry.exitCode) : "";
        const decided =
          entry.decision === undefined ? "" : `${text(entry.decision)} (${text(entry.decidedBy)})`;
        return el(
          "tr",
          {},
          el("td", {}, time(Date.parse(text(entry.time)))),
          el("td", {}, text(entry.type)),
          el("td", {}, text(entry.tool)),
          el("td", {}, text(entry.client)),
          sessionCell,
          el("td", { class: "code" }, what(entry)),
          el("td", {}, decided),
          el("td", {}, ranIn(entry)),
          el("td", {}, exit),
          el("td", {}, spill),
        );
      }),
  );
}
