// Config `remote`: the backend that runs every command on a conch-agent, and what conchd keeps for it in
// its state directory: its binding key pair (the agent is given the public half), and the agent's
// session id, which a conchd that restarts resumes.
import { createPrivateKey, generateKeyPairSync, type KeyObject } from "node:crypto";
import {
  chmodSync,
  closeSync,
  constants,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { type AgentBackend, createAgentBackend } from "@conch/sandbox-remote";
import type { RemoteSettings } from "./config/merge-config.js";
import { OrchestratorError } from "./errors.js";
import { containerEndpoint } from "./remote-container.js";

/** Where conchd keeps what its remote backend needs: `<state dir>/remote`. */
export function remoteStateDir(stateDir: string): string {
  return join(stateDir, "remote");
}

/**
 * conchd's Ed25519 key for binding agents, made on first use: `binding.key` (0600, PKCS#8 PEM) and
 * `binding.pub` beside it, the file an agent is started with (`--binding-key`).
 */
function bindingKeyPair(dir: string): {
  readonly privateKey: KeyObject;
  readonly publicKeyPath: string;
} {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const keyPath = join(dir, "binding.key");
  const publicKeyPath = join(dir, "binding.pub");
  try {
    const fd = openSync(keyPath, constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      return { privateKey: createPrivateKey(readFileSync(fd, "utf8")), publicKeyPath };
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") {
      throw new OrchestratorError(
        "INVALID_CONFIG",
        `remote: conchd's binding key ${keyPath} cannot be read: ${(error as Error).message}`,
      );
    }
  }
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  writeFileSync(publicKeyPath, publicKey.export({ type: "spki", format: "pem" }), { mode: 0o644 });
  // Written aside and renamed, so no reader sees half a key.
  const partial = `${keyPath}.${process.pid}.tmp`;
  writeFileSync(partial, privateKey.export({ type: "pkcs8", format: "pem" }), { mode: 0o600, flag: "wx" });
  chmodSync(partial, 0o600);
  renameSync(partial, keyPath);
  return { privateKey, publicKeyPath };
}

function sessionFile(dir: string, agentId: string): string {
  return join(dir, `${encodeURIComponent(agentId)}.session`);
}

/** The agent session this conchd last had with `agentId` (to resume), or undefined. */
function lastSession(dir: string, agentId: string): string | undefined {
  try {
    const text = readFileSync(sessionFile(dir, agentId), "utf8").trim();
    return /^[\w-]{1,128}$/.test(text) ? text : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The backend for `settings`, resuming the session a conchd before this one had: the agent at
 * `remote_url` or over `remote_command` (engine `agent`), or in the workspace's container (`podman`,
 * `docker`), started on first use.
 */
export function agentBackend(
  settings: RemoteSettings,
  stateDir: string,
  workspace: { readonly cwd: string; readonly network: boolean },
): AgentBackend {
  const dir = remoteStateDir(stateDir);
  const { privateKey, publicKeyPath } = bindingKeyPair(dir);
  const where =
    settings.engine === "agent"
      ? (settings.url ?? settings.command)
      : containerEndpoint({ settings, stateDir: dir, publicKeyPath, ...workspace });
  if (where === null) {
    throw new OrchestratorError("INVALID_CONFIG", "remote: expected remote_url or remote_command");
  }
  const resume = lastSession(dir, settings.agentId);
  return createAgentBackend({
    endpoint: where,
    agentId: settings.agentId,
    bindingKey: privateKey,
    publicKeyPath,
    ...(settings.engine === "agent" ? {} : { name: settings.engine }),
    ...(resume === undefined ? {} : { resumeSessionId: resume }),
    onSession: (sessionId) => {
      try {
        writeFileSync(sessionFile(dir, settings.agentId), `${sessionId}\n`, { mode: 0o600 });
      } catch {
        // Not kept: a restart then starts a new session rather than resuming this one.
      }
    },
  });
}
