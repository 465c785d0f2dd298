// Anything exported here is public API of @conch/protocol/schemas: the zod schema of every wire shape,
// each checked against its interface in the root entry, and their JSON Schema. Needs zod installed.
export { EnvPolicySchema, ExecRequestSchema, ExecResultSchema } from "./exec.js";
export { type JsonSchema, toJsonSchema } from "./json-schema.js";
export { ApprovalPolicySchema, CodexSandboxPolicySchema, ReviewDecisionSchema } from "./policies.js";
export { ToolResultSchema } from "./tool-result.js";
export { ArgvShellSchema } from "./tools/argv.js";
export { BashSchema } from "./tools/bash.js";
export {
  ExecCommandSchema,
  ListSessionsSchema,
  ShellCommandSchema,
  ShellSchema,
  WriteStdinSchema,
} from "./tools/codex.js";
export { TOOL_PROFILES } from "./tools/profiles.js";
export {
  TerminalCloseSchema,
  TerminalListSchema,
  TerminalOpenSchema,
  TerminalReadSchema,
  TerminalSignalSchema,
  TerminalWriteSchema,
} from "./tools/terminal.js";
