// The console's API, same origin, with the session secret the login gave: `Authorization: Bearer` on
// every request, and as a subprotocol on the tab's WebSocket. The secret lives in this page's memory and
// in the tab's sessionStorage (so a reload stays signed in): both are this origin's alone, which is
// scheme, host and port; never in a cookie (a browser sends those to every port of the host) nor in
// localStorage (it outlives the tab).
const STORED = "conch-console-session";
/** The subprotocol the console's WebSocket speaks; the secret goes as `conch-console-auth.SECRET`. */
const WEBSOCKET_PROTOCOL = "conch-console";

let secret: string | null = null;

export class ApiError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

/**
 * The tab's sessionStorage, or null where the browser denies it (storage turned off): the session then
 * lives in memory alone, and a reload needs a new link.
 */
function storage(): Storage | null {
  try {
    return window.sessionStorage;
  } catch {
    return null;
  }
}

/** Whether this tab holds a session (its own, or one kept across a reload). */
export function hasSession(): boolean {
  secret ??= storage()?.getItem(STORED) ?? null;
  return secret !== null;
}

/** Trades a login link's one-time secret for a session of this tab. */
export async function login(linkSecret: string): Promise<void> {
  const answer = await api<{ secret: string }>("POST", "login", { secret: linkSecret });
  secret = answer.secret;
  try {
    storage()?.setItem(STORED, secret);
  } catch {
    // Full or refused: the session lives in memory alone.
  }
}

/** Forgets the session (conchd no longer knows it: restarted, or the session lapsed). */
export function forgetSession(): void {
  secret = null;
  storage()?.removeItem(STORED);
}

function headers(method: "GET" | "POST"): Record<string, string> {
  return {
    ...(secret === null ? {} : { authorization: `Bearer ${secret}` }),
    ...(method === "POST" ? { "content-type": "application/json" } : {}),
  };
}

/** A GET or POST of the API; its JSON answer. */
export async function api<T>(method: "GET" | "POST", path: string, body?: unknown): Promise<T> {
  const response = await fetch(`/console/api/${path}`, {
    method,
    credentials: "omit",
    headers: headers(method),
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const value = (await response.json().catch(() => ({}))) as { error?: string };
  if (!response.ok)
    throw new ApiError(response.status, value.error ?? `${response.status} ${response.statusText}`);
  return value as T;
}

/** A file the API serves (a recording, a spill file), as a Blob. */
export async function apiFile(path: string): Promise<Blob> {
  const response = await fetch(`/console/api/${path}`, { credentials: "omit", headers: headers("GET") });
  if (!response.ok) {
    const value = (await response.json().catch(() => ({}))) as { error?: string };
    throw new ApiError(response.status, value.error ?? `${response.status} ${response.statusText}`);
  }
  return response.blob();
}

/**
 * Saves a file the API serves under `name`. A plain link cannot carry the secret, so the file is fetched
 * and handed to the browser's downloads as a blob, typed as bytes to keep: never shown in this origin.
 */
export async function download(path: string, name: string): Promise<void> {
  const blob = new Blob([await apiFile(path)], { type: "application/octet-stream" });
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** The subprotocols the tab's WebSocket offers: the console's, and the one that carries the secret. */
export function websocketProtocols(): string[] {
  return secret === null
    ? [WEBSOCKET_PROTOCOL]
    : [WEBSOCKET_PROTOCOL, `${WEBSOCKET_PROTOCOL}-auth.${secret}`];
}

/** Base64 (as the server sends raw output) to bytes. */
export function bytesOf(base64: string): Uint8Array {
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
