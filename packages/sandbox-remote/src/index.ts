// Anything exported here is public API of @conch/sandbox-remote.
export {
  type AgentBackend,
  type AgentBackendOptions,
  type AgentEndpoint,
  type AgentHost,
  createAgentBackend,
  newProcessId,
  sandboxIntent,
  signBinding,
} from "./agent-backend.js";
export { isRemoteError, REMOTE_ERROR_CODES, RemoteError, type RemoteErrorCode } from "./errors.js";
