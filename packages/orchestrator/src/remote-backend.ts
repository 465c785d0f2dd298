// Config `remote`: the backend that runs every command on a conch-agent, and what conchd keeps for it in
// its state directory: its binding key pair (the agent is given the public half), and the agent's
// session id, which a conchd that restarts resumes.
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  randomBytes,
} from "node:crypto";
import {
  chmodSync,
  closeSync,
  constants,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { kubernetesSandbox } from "@conch/sandbox-kubernetes";
import { type AgentBackend, type AgentEndpoint, createAgentBackend } from "@conch/sandbox-remote";
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
function bindingKeyPair(
  dir: string,
  configured: string | null,
): {
  readonly privateKey: KeyObject;
  readonly publicKeyPath: string;
} {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const keyPath = configured ?? join(dir, "binding.key");
  const publicKeyPath = join(dir, "binding.pub");
  if (configured !== null) {
    // The operator's key (a Kubernetes Secret): its public half is written beside conchd's state.
    let privateKey: KeyObject;
    try {
      privateKey = createPrivateKey(readFileSync(configured, "utf8"));
    } catch (error) {
      throw new OrchestratorError(
        "INVALID_CONFIG",
        `remote_binding_key: ${configured} is not an Ed25519 private key (PKCS#8 PEM) conchd can read: ${(error as Error).message}`,
      );
    }
    if (privateKey.asymmetricKeyType !== "ed25519") {
      throw new OrchestratorError(
        "INVALID_CONFIG",
        `remote_binding_key: ${configured} is an ${privateKey.asymmetricKeyType} key; expected Ed25519 (openssl genpkey -algorithm ed25519)`,
      );
    }
    writeFileSync(publicKeyPath, createPublicKey(privateKey).export({ type: "spki", format: "pem" }), {
      mode: 0o644,
    });
    return { privateKey, publicKeyPath };
  }
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

/** A remote backend, and what lets it go when conchd stops. */
export interface RemoteBackend {
  readonly backend: AgentBackend;
  /**
   * Called as conchd stops: closes the connection; a Kubernetes claim is no longer extended, and stays
   * (with the workspace's files in its pod) until its shutdown time, for the next conchd to adopt.
   */
  release(): Promise<void>;
}

/**
 * This conchd's id on a cluster (`<state>/remote/owner`, made once): the owner label of its claims. Its
 * own, not derived from the binding key, which every conchd using one warm pool shares.
 */
function ownerId(dir: string): string {
  const path = join(dir, "owner");
  try {
    const text = readFileSync(path, "utf8").trim();
    if (/^[0-9a-f]{16}$/.test(text)) return text;
  } catch {
    // Made below.
  }
  const made = randomBytes(8).toString("hex");
  writeFileSync(path, `${made}\n`, { mode: 0o600 });
  return made;
}

/** Where the workspace's claim is recorded (name and uid): the one claim a restarted conchd adopts. */
function claimRecord(dir: string, cwd: string) {
  const path = join(
    dir,
    `kubernetes-${createHash("sha256").update(cwd).digest("hex").slice(0, 16)}.claim.json`,
  );
  return {
    load(): { name: string; uid: string } | null {
      try {
        const value = JSON.parse(readFileSync(path, "utf8")) as { name?: unknown; uid?: unknown };
        return typeof value.name === "string" && typeof value.uid === "string"
          ? { name: value.name, uid: value.uid }
          : null;
      } catch {
        return null;
      }
    },
    save(claim: { readonly name: string; readonly uid: string } | null): void {
      try {
        if (claim === null) rmSync(path, { force: true });
        else writeFileSync(path, `${JSON.stringify(claim)}\n`, { mode: 0o600 });
      } catch {
        // Not kept: a restart then claims afresh; the old claim ends at its shutdown time.
      }
    },
  };
}

/**
 * The backend for `settings`, resuming the session a conchd before this one had: the agent at
 * `remote_url` or over `remote_command` (engine `agent`), in the workspace's container (`podman`,
 * `docker`), started on first use, or in a pod claimed for the workspace (`kubernetes`).
 */
export function agentBackend(
  settings: RemoteSettings,
  stateDir: string,
  workspace: { readonly cwd: string; readonly network: boolean },
): RemoteBackend {
  const dir = remoteStateDir(stateDir);
  const { privateKey, publicKeyPath } = bindingKeyPair(dir, settings.bindingKey);
  let backend: AgentBackend | null = null;
  // The workspace's processes on the agent: what keeps a claim (and its pod) alive.
  const busy = async (): Promise<boolean> =>
    (await (backend as AgentBackend).host.list()).some((entry) => entry.workspace === workspace.cwd);
  const pod =
    settings.engine === "kubernetes"
      ? kubernetesSandbox({
          ...(settings.kubeconfig === null ? {} : { kubeconfig: settings.kubeconfig }),
          ...(settings.context === null ? {} : { context: settings.context }),
          ...(settings.namespace === null ? {} : { namespace: settings.namespace }),
          warmPool: settings.warmPool,
          owner: ownerId(dir),
          record: claimRecord(dir, workspace.cwd),
          workspace: workspace.cwd,
          claimTtlMs: settings.claimTtlS * 1000,
          busy,
          // The agent's session went with the pod: the next command starts afresh on a new one, and says so.
          onReleased: () =>
            backend?.reset(
              `the pod of this workspace's earlier commands was let go after ${settings.claimTtlS} s with nothing running there (remote_claim_ttl_s), and the files in it with it; this command runs in a new pod`,
            ),
        })
      : null;
  let where: string | readonly string[] | AgentEndpoint | null;
  if (settings.engine === "agent") where = settings.url ?? settings.command;
  else if (pod !== null) where = pod;
  else where = containerEndpoint({ settings, stateDir: dir, publicKeyPath, ...workspace });
  if (where === null) {
    throw new OrchestratorError("INVALID_CONFIG", "remote: expected remote_url or remote_command");
  }
  const created = createAgentBackend({
    endpoint: where,
    // A claimed pod's agent is named by its pod once claimed ("the agent in the pod" until then).
    agentId: pod === null ? settings.agentId : "in the pod",
    bindingKey: privateKey,
    publicKeyPath,
    ...(settings.engine === "agent" ? {} : { name: settings.engine }),
    // Per agent: a claimed pod's agent (named by its pod) is known once the claim is found.
    resumeFor: (agentId) => lastSession(dir, agentId),
    ...(settings.podIsSandbox ? { podIsSandbox: true } : {}),
    onSession: (sessionId, agentId) => {
      try {
        writeFileSync(sessionFile(dir, agentId), `${sessionId}\n`, { mode: 0o600 });
      } catch {
        // Not kept: a restart then starts a new session rather than resuming this one.
      }
    },
  });
  backend = created;
  if (pod !== null) {
    // A command started is the workspace's pod in use: its claim is extended at the next tick, even if
    // the command ended in between.
    const start = created.host.start.bind(created.host);
    created.host.start = (request) => {
      pod.used();
      return start(request);
    };
  }
  return {
    backend: created,
    async release() {
      pod?.close();
      created.close();
    },
  };
}
