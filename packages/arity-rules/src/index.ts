// Anything exported here is public API of @conch/arity-rules.
export { analyze } from "./analyze/analyze.js";
export { setWasmLocation, type WasmLocation } from "./analyze/wasm-location.js";
export {
  type ArityTable,
  approvalPrefix,
  createArityTable,
  isLiteralToken,
  parseArityToml,
} from "./arity/arity.js";
export {
  ARITY_RULES_ERROR_CODES,
  ArityRulesError,
  type ArityRulesErrorCode,
  isArityRulesError,
} from "./errors.js";
export { type ExternalPathsOptions, externalPaths } from "./paths/external-paths.js";
export {
  DANGEROUS_KINDS,
  DANGEROUS_REASONS,
  type DangerousKind,
  type DangerousMatch,
} from "./safety/danger-table.js";
export { dangerousCommandMatch } from "./safety/dangerous.js";
export { isHarmlessRedirect, isKnownSafeCommand } from "./safety/is-known-safe.js";
export { reachableCommands } from "./safety/reach.js";
export type { SafetyOptions } from "./safety/safety-options.js";
export { type ShellScript, shellScript } from "./safety/shell.js";
export {
  type Reach,
  type ReachedCommand,
  UNREAD_REASONS,
  type UnreadPart,
  type UnreadReason,
} from "./safety/unread.js";
export { type CommandWrapper, DEFAULT_WRAPPERS, NEVER_WRAPPERS } from "./safety/wrappers.js";
export {
  type Analysis,
  OPAQUE_REASONS,
  type OpaquePart,
  type OpaqueReason,
  type Operator,
  type Redirect,
  type SimpleCommand,
} from "./types.js";
