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

/** Why `token` does not bind this agent (`agentId`) to the holder of `publicKey`; null when it does. */
export function bindingRefusal(
  token: unknown,
  publicKey: KeyObject,
  agentId: string,
  now: number = Date.now(),
): string | null {
  if (typeof token !== "string") return "binding: expected a token string";
  const parts = token.split(".");
  if (parts.length !== 2) return "binding: expected PAYLOAD.SIGNATURE (base64url each)";
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
  return null;
}

/** conchd's public key from PEM text. */
export function bindingKey(pem: string): KeyObject {
  const key = createPublicKey(pem);
  if (key.asymmetricKeyType !== "ed25519") {
    throw new TypeError(`binding key: expected an Ed25519 public key, received ${key.asymmetricKeyType}`);
  }
  return key;
}
