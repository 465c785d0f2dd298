// Anything exported here is public API of @conch/protocol.
export {
  CONCH_ERROR_BRAND,
  CONCH_ERROR_CODES,
  type ConchErrorCode,
  type ConchErrorLike,
  isConchError,
} from "./errors.js";
export {
  ENV_INHERIT_POLICIES,
  type EnvInheritPolicy,
  type EnvPolicy,
  EnvPolicySchema,
  type ExecRequest,
  ExecRequestSchema,
  type ExecResult,
  ExecResultSchema,
} from "./exec.js";
export { type JsonSchema, toJsonSchema } from "./json-schema.js";
