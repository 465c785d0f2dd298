// The console page: signs in with the one-time secret in the address (then removes it from the address
// bar and history), or with the session this tab kept across a reload; loads the daemon's state and
// follows it live.
import type { PendingApproval } from "@conch/approval";
import type { AuditEntry, RecordingInfo } from "@conch/orchestrator";
import { ApiError, api, forgetSession, hasSession, login } from "./api.js";
import { setUpNotifications, showApprovals } from "./approvals.js";
import { addAudit, setAudit, setUpAuditFilters } from "./audit.js";
import { byId } from "./dom.js";
import { connect, on } from "./live.js";
import { stampStyleNonce } from "./nonce.js";
import { showRecordings } from "./recordings.js";
import { type ListedSession, showSessions } from "./sessions.js";
import { openTerminalText } from "./terminal-view.js";

interface State {
  readonly daemon: {
    readonly pid: number;
    readonly version: string;
    readonly cwd: string;
    readonly profile: string;
    readonly approvalPolicy: string;
    readonly sandbox: string;
  };
  readonly sessions: readonly ListedSession[];
  readonly approvals: readonly PendingApproval[];
  readonly audit: readonly AuditEntry[];
  readonly recordings: readonly RecordingInfo[];
}

const TABS = ["sessions", "approvals", "audit", "recordings"] as const;

function showTab(name: string): void {
  for (const tab of TABS) {
    byId(tab).hidden = tab !== name;
    document.querySelector(`[data-tab="${tab}"]`)?.setAttribute("aria-pressed", String(tab === name));
  }
}

async function signIn(): Promise<void> {
  const match = /^#login=([A-Za-z0-9_-]+)$/.exec(location.hash);
  if (match === null) return;
  // Out of the address bar and the history before anything else: the secret works once anyway.
  history.replaceState(null, "", location.pathname);
  await login(match[1] as string);
}

/** Shows how to sign in; a session conchd refused is forgotten, and nothing is followed any more. */
function signedOut(): void {
  forgetSession();
  byId("login").hidden = false;
}

function follow(): void {
  on("sessions", (data) => showSessions(data as ListedSession[]));
  on("approvals", (data) => showApprovals(data as PendingApproval[]));
  on("audit", (data) => addAudit(data as AuditEntry));
  on("recordings", (data) => showRecordings(data as RecordingInfo[]));
  // Dropped (conchd restarted, or the login lapsed): the state is read again once it is back.
  let first = true;
  on("hello", () => {
    if (first) {
      first = false;
      return;
    }
    void api<State>("GET", "state").then(
      (state) => {
        showSessions(state.sessions);
        showApprovals(state.approvals);
        setAudit(state.audit);
        showRecordings(state.recordings);
      },
      (error: unknown) => {
        if (error instanceof ApiError && error.status === 401) signedOut();
      },
    );
  });
  connect(async () => {
    byId("daemon").dataset.connection = "lost";
    // Dropped for good when conchd no longer knows the session (it restarted): the tab then says so.
    try {
      await api("GET", "state");
      return true;
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 401)) return true;
      signedOut();
      return false;
    }
  });
}

async function start(): Promise<void> {
  try {
    await signIn();
    if (!hasSession()) {
      byId("login").hidden = false;
      return;
    }
    const state = await api<State>("GET", "state");
    const { daemon } = state;
    byId("daemon").textContent =
      `pid ${daemon.pid} · ${daemon.cwd} · ${daemon.profile} tools · approval ${daemon.approvalPolicy} · sandbox ${daemon.sandbox}`;
    byId("tabs").hidden = false;
    for (const button of document.querySelectorAll<HTMLButtonElement>("[data-tab]")) {
      button.onclick = () => showTab(button.dataset.tab ?? "sessions");
    }
    setUpAuditFilters();
    setUpNotifications();
    showSessions(state.sessions);
    showApprovals(state.approvals);
    setAudit(state.audit);
    showRecordings(state.recordings);
    showTab("sessions");
    follow();
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) {
      signedOut();
      return;
    }
    byId("login").hidden = false;
    byId("login")
      .querySelector("p")
      ?.replaceChildren(
        `The console could not load: ${error instanceof Error ? error.message : String(error)}`,
      );
  }
}

// What the open terminal holds, for anyone looking from outside the page (a test, a person in devtools).
Object.assign(window, { conchConsole: { terminalText: openTerminalText } });

stampStyleNonce();
void start();
