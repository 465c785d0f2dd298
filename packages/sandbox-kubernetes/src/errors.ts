import { ConchError, type ConchErrorCode, conchErrorGuard } from "@conch/protocol";

export const KUBERNETES_ERROR_CODES: readonly ["INVALID_REMOTE", "AGENT_UNREACHABLE", "AGENT_LOST"] = [
  "INVALID_REMOTE",
  "AGENT_UNREACHABLE",
  "AGENT_LOST",
] as const satisfies readonly ConchErrorCode[];

export type KubernetesErrorCode = (typeof KUBERNETES_ERROR_CODES)[number];

/**
 * The one error class of @conch/sandbox-kubernetes: bad options (`INVALID_REMOTE`), a cluster or claim
 * that does not give a sandbox (`AGENT_UNREACHABLE`), a sandbox pod that went away (`AGENT_LOST`).
 */
export class KubernetesError extends ConchError<KubernetesErrorCode> {
  override readonly name: "KubernetesError" = "KubernetesError";
}

/** True for a KubernetesError from any copy of this package. */
export const isKubernetesError: (value: unknown) => value is KubernetesError = conchErrorGuard(
  KubernetesError,
  "sandbox-kubernetes",
  KUBERNETES_ERROR_CODES,
);
