import type { SandboxRules } from "../types.js";

/** Tells the child it runs sandboxed, so tools can explain a failure instead of retrying it. */
export const SANDBOX_ENV_VAR = "CONCH_SANDBOX";
export const SANDBOX_NETWORK_DISABLED_ENV_VAR = "CONCH_SANDBOX_NETWORK_DISABLED";

/** The variables to add to the child's environment under `backendName` and `rules`. */
export function sandboxEnv(backendName: string, rules: SandboxRules): Record<string, string> {
  const env: Record<string, string> = { [SANDBOX_ENV_VAR]: backendName };
  if (!rules.network) env[SANDBOX_NETWORK_DISABLED_ENV_VAR] = "1";
  return env;
}
