// The binding token: conchd signs, with its Ed25519 key, which agent it may drive and until when; the
// agent checks it against conchd's public key (mounted from the template or given on the command line),
// so an agent answers only the conchd it belongs to.
import { createPublicKey, type KeyObject, verify } from "node:crypto";

interface BindingPayload {
  /** The agent's id, as it was started with (`--agent-id`). */
  readonly agent: string;
  /** Expiry, milliseconds since the epoch. */
  readonly exp: number;
}

/**
 * The longest a token may be valid for: conchd makes them for 5 minutes; a token valid longer (one made
 * by whoever stole a key, to keep) is refused. A little more for clocks that differ.
 */
const MAX_BINDING_MS: number = 10 * 60 * 1000;

const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** Why `token` does not bind this agent (`agentId`) to the holder of `publicKey`; null when it does. */
export function bindingRefusal(
  token: unknown,
  publicKey: KeyObject,
  agentId: string,
  now: number = Date.now(),
): string | null {
  if (typeof token !== "string") return "binding: expected a token string";
  const parts = token.split(".");
  // Canonical base64url only: the spare bits of a last character would make another string of the same
  // token, and a token is used once by its string.
  if (
    parts.length !== 2 ||
    !parts.every(
      (part) => BASE64URL.test(part) && Buffer.from(part, "base64url").toString("base64url") === part,
    )
  ) {
    return "binding: expected PAYLOAD.SIGNATURE (base64url each)";
  }
  const [payloadText, signatureText] = parts as [string, string];
  const payload = Buffer.from(payloadText, "base64url");
  if (!verify(null, payload, publicKey, Buffer.from(signatureText, "base64url"))) {
    return "binding: not signed by the conchd this agent belongs to";
  }
  let claims: Partial<BindingPayload>;
  try {
    claims = JSON.parse(payload.toString("utf8")) as Partial<BindingPayload>;
  } catch {
    return "binding: the payload is not JSON";
  }
  if (claims.agent !== agentId)
    return `binding: for agent ${JSON.stringify(claims.agent)}, not ${JSON.stringify(agentId)}`;
  if (typeof claims.exp !== "number" || claims.exp <= now) return "binding: expired";
  if (claims.exp > now + MAX_BINDING_MS) {
    return `binding: valid for longer than ${MAX_BINDING_MS / 60_000} minutes (conchd's are valid 5)`;
  }
  return null;
}

/**
 * The tokens already used, each until it expires: a token opens one connection, so one seen on the
 * wire cannot open another (conchd signs a fresh one for each connection).
 */
export class UsedBindings {
  readonly #used = new Map<string, number>();

  /** True the first time `token` is presented (then remembered until `expires`), false after. */
  first(token: string, expires: number, now: number = Date.now()): boolean {
    for (const [seen, until] of this.#used) if (until <= now) this.#used.delete(seen);
    if (this.#used.has(token)) return false;
    this.#used.set(token, expires);
    return true;
  }
}

/** The expiry a token (already checked by bindingRefusal) carries. */
export function bindingExpiry(token: string): number {
  const [payload] = token.split(".") as [string];
  return (JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as { exp: number }).exp;
}

/** conchd's public key from PEM text. */
export function bindingKey(pem: string): KeyObject {
  const key = createPublicKey(pem);
  if (key.asymmetricKeyType !== "ed25519") {
    throw new TypeError(`binding key: expected an Ed25519 public key, received ${key.asymmetricKeyType}`);
  }
  return key;
}
