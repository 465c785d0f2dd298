import type { ApprovalPolicy, SandboxMode } from "@conch/protocol";

/**
 * What the model is told when the sandbox blocked its command and the approval policy allows no retry
 * outside it. `canEscalate`: the tool has a `sandbox_permissions` field the model can set.
 */
export function denialHint(mode: SandboxMode, approvalPolicy: ApprovalPolicy, canEscalate: boolean): string {
  if (approvalPolicy === "on-request" && canEscalate) {
    return (
      `The sandbox (${mode}) appears to have blocked this command. If it needs to write outside the ` +
      'writable roots or use the network, run it again with sandbox_permissions "require_escalated" ' +
      "and a justification, and the user will be asked."
    );
  }
  if (approvalPolicy === "on-request") {
    return (
      `The sandbox (${mode}) appears to have blocked this command, and this tool cannot ask to run ` +
      "outside it. Change the command to stay within the writable roots."
    );
  }
  return (
    `The sandbox (${mode}) appears to have blocked this command. The approval policy is never, so it ` +
    "cannot run outside the sandbox; change the command to stay within the writable roots."
  );
}
