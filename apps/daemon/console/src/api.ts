// The console's API, same origin, with the session cookie the login gave and the CSRF token it returned.
let csrf = "";

export class ApiError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

export function setCsrf(token: string): void {
  csrf = token;
}

export async function api<T>(method: "GET" | "POST", path: string, body?: unknown): Promise<T> {
  const response = await fetch(`/console/api/${path}`, {
    method,
    credentials: "same-origin",
    headers: method === "POST" ? { "content-type": "application/json", "x-conch-csrf": csrf } : {},
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const value = (await response.json().catch(() => ({}))) as { error?: string };
  if (!response.ok)
    throw new ApiError(response.status, value.error ?? `${response.status} ${response.statusText}`);
  return value as T;
}

/** Base64 (as the server sends raw output) to bytes. */
export function bytesOf(base64: string): Uint8Array {
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
