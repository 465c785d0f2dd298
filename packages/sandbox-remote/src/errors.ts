import { ConchError, type ConchErrorCode, conchErrorGuard } from "@conch/protocol";

export const REMOTE_ERROR_CODES: readonly ["INVALID_REMOTE", "AGENT_UNREACHABLE", "AGENT_LOST"] = [
  "INVALID_REMOTE",
  "AGENT_UNREACHABLE",
  "AGENT_LOST",
] as const satisfies readonly ConchErrorCode[];

export type RemoteErrorCode = (typeof REMOTE_ERROR_CODES)[number];

/**
 * The one error class of @conch/sandbox-remote: a bad remote configuration, an agent that cannot be
 * reached, or one that went away. What the agent refuses to run is sandbox-core's `SANDBOX_UNAVAILABLE`.
 */
export class RemoteError extends ConchError<RemoteErrorCode> {
  override readonly name: "RemoteError" = "RemoteError";
}

/** True for a RemoteError from any copy of this package. */
export const isRemoteError: (value: unknown) => value is RemoteError = conchErrorGuard(
  RemoteError,
  "sandbox-remote",
  REMOTE_ERROR_CODES,
);
