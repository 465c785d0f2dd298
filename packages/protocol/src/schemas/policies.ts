import { isAbsolute } from "node:path";
import { z } from "zod";
import {
  APPROVAL_POLICIES,
  type CodexSandboxPolicy,
  NETWORK_ACCESS_MODES,
  REVIEW_DECISIONS,
} from "../policies.js";

// Schemas of Codex's `SandboxPolicy`, `AskForApproval` and `ReviewDecision` (codex-rs/protocol), so
// config files and MCP clients written for Codex work unchanged. Codex tags `SandboxPolicy` with `type` in
// kebab-case and names its fields in snake_case; fields Codex defaults with `#[serde(default)]` are
// `.default()`s here.

const absolutePath = z.string().refine(isAbsolute, { message: "Expected an absolute path" });

export const CodexSandboxPolicySchema = z
  .discriminatedUnion("type", [
    z.strictObject({
      type: z.literal("read-only").describe("Read the whole disk, write nothing, no network."),
    }),
    z.strictObject({
      type: z
        .literal("workspace-write")
        .describe("Read the whole disk; write only the working directory, temp dirs and `writable_roots`."),
      writable_roots: z
        .array(absolutePath)
        .default([])
        .describe("Absolute paths writable in addition to the working directory and temp dirs."),
      network_access: z.boolean().default(false).describe("Allow outbound network access (default false)."),
      exclude_tmpdir_env_var: z
        .boolean()
        .default(false)
        .describe("Do not make `$TMPDIR` writable (default false)."),
      exclude_slash_tmp: z.boolean().default(false).describe("Do not make `/tmp` writable (default false)."),
    }),
    z.strictObject({
      type: z
        .literal("danger-full-access")
        .describe("No sandbox at all. Use only inside a disposable machine."),
    }),
    z.strictObject({
      type: z
        .literal("external-sandbox")
        .describe(
          "Conch already runs inside a sandbox it does not manage: full disk access, no inner sandbox.",
        ),
      network_access: z
        .enum(NETWORK_ACCESS_MODES)
        .default("restricted")
        .describe("Whether the outer sandbox allows outbound network access (default `restricted`)."),
    }),
  ])
  .describe(
    "What a command may touch: the disk it may write and whether it may use the network.",
  ) satisfies z.ZodType<CodexSandboxPolicy>;

export const ApprovalPolicySchema = z
  .enum(APPROVAL_POLICIES)
  .describe(
    "When the user is asked: `untrusted` for anything not known safe, `on-failure` before an unsandboxed retry of a sandbox denial, `on-request` when the model asks for `require_escalated`, `never` (what would need asking is rejected).",
  );

export const ReviewDecisionSchema = z
  .enum(REVIEW_DECISIONS)
  .describe(
    "The user's answer: `approved` (this once), `approved_for_session` (this command until the session ends), `approved_always` (store a prefix rule), `denied` (the model is told and may continue), `abort` (stop the turn).",
  );
