// The approvals queue: every question waiting for a person, from clients that cannot ask one (out of
// band) and from forms in flight, shown with the rows every prompt shows; the first answer wins.
import type { PendingApproval } from "@conch/approval";
import { api } from "./api.js";
import { byId, el } from "./dom.js";

let shown = new Set<string>();
let first = true;

export function showApprovals(list: readonly PendingApproval[]): void {
  byId("approval-count").textContent = String(list.length);
  byId("no-approvals").hidden = list.length > 0;
  const fresh = list.filter((entry) => !shown.has(entry.id));
  shown = new Set(list.map((entry) => entry.id));
  // The cards already on the page stay as they are (a note half typed is not lost).
  const container = byId("approval-list");
  for (const card of [...container.children]) {
    if (!shown.has((card as HTMLElement).dataset.approval ?? "")) card.remove();
  }
  for (const entry of fresh) container.append(card(entry));
  if (!first && fresh.length > 0) notify(fresh);
  first = false;
}

/**
 * The client's name as it gave it (untrusted), on one line: a line break or an invisible character in it
 * is shown as its code point, as every other row's value already is.
 */
function oneLine(text: string): string {
  return text.replace(
    /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}]/gu,
    (char) => `\\u{${(char.codePointAt(0) ?? 0).toString(16).padStart(2, "0")}}`,
  );
}

function card(entry: PendingApproval): HTMLElement {
  const status = el("p", { class: "state", "aria-live": "polite" });
  const answer = async (decision: string, note?: string): Promise<void> => {
    try {
      await api("POST", `approvals/${entry.id}`, note === undefined ? { decision } : { decision, note });
      status.textContent = "answered";
    } catch (error) {
      status.textContent = error instanceof Error ? error.message : String(error);
    }
  };
  const noteId = `note-${entry.id}`;
  const note = el("textarea", { id: noteId, maxlength: "2000" });
  const button = (label: string, decision: string, extra: Record<string, string> = {}): HTMLButtonElement => {
    const element = el("button", { type: "button", ...extra }, label);
    element.onclick = () =>
      void answer(decision, decision === "deny" && note.value.trim() !== "" ? note.value : undefined);
    return element;
  };
  const rows = el("dl", {});
  // A value of several lines (a script, output) is drawn behind a gutter, as every other route shows it:
  // none of its lines can pass for a row of the card. The model's own words are one line already.
  for (const field of entry.fields) {
    const value = field.value.includes("\n")
      ? el("dd", { class: "lines" }, field.value)
      : el("dd", {}, field.value);
    rows.append(el("dt", {}, field.label), value);
  }
  rows.append(el("dt", {}, "client"), el("dd", {}, oneLine(entry.client)));
  if (entry.route === "elicitation") {
    rows.append(
      el("dt", {}, "note"),
      el("dd", {}, "the client's own form asks this too: the first answer counts"),
    );
  }
  return el(
    "article",
    { class: "approval", "data-approval": entry.id, "aria-label": `Approval ${entry.id}` },
    el(
      "h3",
      {},
      entry.network === null
        ? `Approval ${entry.id}`
        : `Approval ${entry.id}: a connection to ${oneLine(entry.network.host)}:${entry.network.port}`,
    ),
    rows,
    el(
      "div",
      { class: "actions" },
      button(entry.network === null ? "Approve once" : "Allow for this command", "approve"),
      button("Allow for session", "approve_session"),
      ...(entry.rule === null
        ? []
        : [button("Always allow", "approve_always", { "aria-describedby": `rule-${entry.id}` })]),
      el("label", { for: noteId }, "Note to the agent (optional)"),
      note,
      button("Deny", "deny", { class: "danger" }),
    ),
    ...(entry.rule === null
      ? []
      : [
          el(
            "p",
            { id: `rule-${entry.id}` },
            `Always allow stores the rule: ${entry.rule}${entry.network === null ? " …" : ""}`,
          ),
        ]),
    status,
  );
}

function notify(fresh: readonly PendingApproval[]): void {
  if (!document.hidden || typeof Notification === "undefined" || Notification.permission !== "granted")
    return;
  for (const entry of fresh) {
    const command = entry.fields.find((field) => field.label === "command")?.value ?? entry.argv.join(" ");
    new Notification("conchd: an approval is waiting", {
      body: `${oneLine(entry.client)}: ${command}`,
      tag: entry.id,
    });
  }
}

export function setUpNotifications(): void {
  const button = byId<HTMLButtonElement>("notifications");
  if (typeof Notification === "undefined") {
    button.hidden = true;
    return;
  }
  const label = (): void => {
    button.textContent =
      Notification.permission === "granted"
        ? "Desktop notifications are on"
        : Notification.permission === "denied"
          ? "Desktop notifications are blocked in this browser"
          : "Notify me of new approvals";
    button.disabled = Notification.permission !== "default";
  };
  label();
  button.onclick = () => void Notification.requestPermission().then(label);
}
