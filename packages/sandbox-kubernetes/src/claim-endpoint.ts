// One workspace's sandbox on Kubernetes: a SandboxClaim on a Conch warm pool (agent-sandbox adopts a
// ready pod when the pool has one, else starts one), waited for, its pod's conch-agent reached directly
// (ws://POD_IP:PORT; no pods/exec, whose dropped stream could not be resumed). The claim carries a
// shutdown time that is pushed on while the workspace is in use and let go when idle; labels name its
// owner (conchd's own id) and the workspace, and a conchd that restarts adopts the claim it recorded.
import { createHash, randomBytes } from "node:crypto";
import { type Claim, Cluster, type ClusterOptions, type Condition, type Sandbox } from "./cluster.js";
import { KubernetesError } from "./errors.js";

/** Labels on every claim: whose it is (its owner's id) and for which workspace (a digest of its path). */
export const OWNER_LABEL = "conch.dev/owner";
export const WORKSPACE_LABEL = "conch.dev/workspace";
const WORKSPACE_ANNOTATION = "conch.dev/workspace-path";
/** The container port the agent listens on, by name in the template; else `agentPort`. */
export const AGENT_PORT_NAME = "conch-agent";
const DEFAULT_AGENT_PORT = 7077;
const DEFAULT_CLAIM_TTL_MS = 15 * 60_000;
const DEFAULT_READY_TIMEOUT_MS = 5 * 60_000;
/** How long a pod that stopped answering is given for the cluster to say it is gone. */
const LOSS_WAIT_MS = 15_000;
/** Ready=False reasons after which a claim never gives a sandbox (agent-sandbox's Python client's list). */
const TERMINAL_REASONS = new Set([
  "TemplateNotFound",
  "WarmPoolNotFound",
  "InvalidMetadata",
  "EnvVarsInjectionRejected",
  "VolumeClaimTemplatesError",
  "ClaimExpired",
  "SandboxExpired",
]);

export interface KubernetesSandboxOptions extends ClusterOptions {
  /** The SandboxWarmPool claims are made on (it names the SandboxTemplate). */
  readonly warmPool: string;
  /** Who owns the claims (a label value: letters, digits, `-_.`, at most 63). */
  readonly owner: string;
  /** The workspace (absolute): one claim per workspace. */
  readonly workspace: string;
  /** How long a claim outlives the last extension (default 15 minutes). */
  readonly claimTtlMs?: number;
  /** How long a claim may take to become ready (default 5 minutes: a cold start may pull an image). */
  readonly readyTimeoutMs?: number;
  /** The agent's port when the template's container names none `conch-agent` (default 7077). */
  readonly agentPort?: number;
  /**
   * Whether the workspace has processes on the agent (running, or with output not yet read): the claim is
   * extended while it does (or something was `used()` since the last check), and deleted once it has been
   * idle for `claimTtlMs`. Default: always.
   */
  readonly busy?: () => Promise<boolean>;
  /** Called when an idle claim was deleted: the agent's session went with its pod. */
  readonly onReleased?: () => void;
  /**
   * Where the claim this owner made is kept (its name and uid), so that only that claim is ever adopted
   * after a restart: labels alone can be copied by anyone who may create claims in the namespace. Without
   * it, a claim with the owner's labels, warm pool and workspace is adopted.
   */
  readonly record?: {
    load(): { readonly name: string; readonly uid: string } | null;
    save(claim: { readonly name: string; readonly uid: string } | null): void;
  };
}

/** Where a claimed sandbox's agent listens, and its id (the pod's name). */
interface Address {
  readonly namespace: string;
  readonly claim: string;
  readonly sandbox: string;
  readonly pod: string;
  readonly url: string;
}

export interface KubernetesSandbox {
  /** Names it in results: the pod and claim once known. */
  readonly where: string;
  /** The agent's address and id: the workspace's claim, found or made, once ready. */
  url(): Promise<{ readonly url: string; readonly agentId: string }>;
  /**
   * What to say when the address `url` gave did not answer: the pod's loss (once the cluster tells, within
   * a few seconds), else `error` itself.
   */
  unreachable(error: Error): Promise<Error>;
  /** The claim held now, or null. */
  claimName(): string | null;
  /** Deletes the claim now (its sandbox and pod go with it). */
  release(): Promise<void>;
  /** Stops extending the claim; it stays until its shutdown time, for a conchd that starts after. */
  close(): void;
  /** Something ran there now (a command started): the claim counts as busy at the next extension. */
  used(): void;
}

function labelValue(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 16);
}

/** RFC 3339 without fractions, as agent-sandbox's clients write it. */
function timestamp(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}

function condition(claim: Claim, type: string): Condition | undefined {
  return claim.status?.conditions?.find((entry) => entry.type === type);
}

function said(entry: Condition | undefined): string {
  if (entry === undefined) return "no Ready condition yet";
  return `Ready=${entry.status}${entry.reason === undefined ? "" : ` (${entry.reason}${entry.message ? `: ${entry.message}` : ""})`}`;
}

function isReady(claim: Claim): boolean {
  return (
    condition(claim, "Ready")?.status === "True" &&
    typeof claim.status?.sandbox?.name === "string" &&
    claim.metadata.deletionTimestamp === undefined
  );
}

function podUrl(claim: Claim, sandbox: Sandbox | null, fallbackPort: number): string | null {
  const addresses = claim.status?.sandbox?.podIPs ?? sandbox?.status?.podIPs ?? [];
  const ip = addresses.find((address) => !address.includes(":")) ?? addresses[0];
  if (ip === undefined) return null;
  let port = fallbackPort;
  for (const container of sandbox?.spec?.podTemplate?.spec?.containers ?? []) {
    const named = container.ports?.find((entry) => entry.name === AGENT_PORT_NAME);
    if (named?.containerPort !== undefined) port = named.containerPort;
  }
  return ip.includes(":") ? `ws://[${ip}]:${port}` : `ws://${ip}:${port}`;
}

function checkOptions(options: KubernetesSandboxOptions): void {
  const bad = (field: string, expected: string, value: unknown): never => {
    throw new KubernetesError(
      "INVALID_REMOTE",
      `${field}: expected ${expected}, received ${JSON.stringify(value)}`,
    );
  };
  if (
    typeof options.warmPool !== "string" ||
    !/^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/.test(options.warmPool)
  ) {
    bad("warmPool", "a SandboxWarmPool's name (lower case letters, digits, '-', '.')", options.warmPool);
  }
  if (
    typeof options.owner !== "string" ||
    !/^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/.test(options.owner)
  ) {
    bad("owner", "a label value (letters, digits, '-', '_', '.'; at most 63)", options.owner);
  }
  if (typeof options.workspace !== "string" || !options.workspace.startsWith("/")) {
    bad("workspace", "an absolute path", options.workspace);
  }
  for (const field of ["claimTtlMs", "readyTimeoutMs"] as const) {
    const value = options[field];
    if (value !== undefined && !(Number.isSafeInteger(value) && value >= 1000)) {
      bad(field, "whole milliseconds, at least 1000", value);
    }
  }
  const port = options.agentPort;
  if (port !== undefined && !(Number.isSafeInteger(port) && port > 0 && port < 65536)) {
    bad("agentPort", "a port (1-65535)", port);
  }
}

/** The workspace's sandbox on the cluster `options` name, claimed when first needed. */
export function kubernetesSandbox(options: KubernetesSandboxOptions): KubernetesSandbox {
  checkOptions(options);
  const ttl = options.claimTtlMs ?? DEFAULT_CLAIM_TTL_MS;
  /** How often the claim is extended (or let go): a third of its time, at most a minute. */
  const tick = Math.max(300, Math.min(Math.floor(ttl / 3), 60_000));
  const workspaceLabel = labelValue(options.workspace);
  const selector = `${OWNER_LABEL}=${options.owner},${WORKSPACE_LABEL}=${workspaceLabel}`;
  let cluster: Promise<Cluster> | null = null;
  let address: Address | null = null;
  let resolving: Promise<Address> | null = null;
  let timer: NodeJS.Timeout | null = null;
  let lastBusy = Date.now();
  let usedSince = false;
  let failedChecks = 0;
  let closed = false;

  const connect = (): Promise<Cluster> => {
    cluster ??= Cluster.connect(options).catch((error: unknown) => {
      cluster = null;
      throw error;
    });
    return cluster;
  };
  const where = (): string =>
    address === null
      ? `a SandboxClaim on warm pool ${options.warmPool}`
      : `SandboxClaim ${address.claim} (namespace ${address.namespace})`;

  const create = async (api: Cluster): Promise<Claim> => {
    const name = `conch-${workspaceLabel.slice(0, 12)}-${randomBytes(3).toString("hex")}`;
    const made = await api.createClaim({
      apiVersion: "extensions.agents.x-k8s.io/v1beta1",
      kind: "SandboxClaim",
      metadata: {
        name,
        labels: {
          [OWNER_LABEL]: options.owner,
          [WORKSPACE_LABEL]: workspaceLabel,
          "app.kubernetes.io/managed-by": "conchd",
        },
        annotations: { [WORKSPACE_ANNOTATION]: options.workspace },
      },
      // No env and no volume claim templates: either would force a cold start, never a warm pod.
      spec: {
        warmPoolRef: { name: options.warmPool },
        lifecycle: { shutdownTime: shutdownAt(), shutdownPolicy: "Delete" },
      },
    });
    if (typeof made.metadata.uid === "string") options.record?.save({ name, uid: made.metadata.uid });
    return made;
  };

  /** The newest live claim of this conchd and workspace (one a conchd before this one made), or null. */
  const find = async (api: Cluster): Promise<Claim | null> => {
    const recorded = options.record?.load() ?? null;
    if (options.record !== undefined && recorded === null) return null;
    const claims = (await api.listClaims(selector)).filter(
      (claim) =>
        claim.metadata.deletionTimestamp === undefined &&
        !TERMINAL_REASONS.has(condition(claim, "Ready")?.reason ?? "") &&
        // Only a claim of this pool (the config may have moved to another) for this very workspace, and,
        // with a record, the very claim this owner made.
        (claim as { spec?: { warmPoolRef?: { name?: string } } }).spec?.warmPoolRef?.name ===
          options.warmPool &&
        claim.metadata.annotations?.[WORKSPACE_ANNOTATION] === options.workspace &&
        (recorded === null || (claim.metadata.name === recorded.name && claim.metadata.uid === recorded.uid)),
    );
    claims.sort((a, b) =>
      (b.metadata.creationTimestamp ?? "").localeCompare(a.metadata.creationTimestamp ?? ""),
    );
    return claims[0] ?? null;
  };

  const untilReady = async (api: Cluster, first: Claim): Promise<Claim> => {
    const name = first.metadata.name;
    const timeout = options.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS;
    const deadline = Date.now() + timeout;
    let claim: Claim | null = first;
    for (;;) {
      if (claim === null) {
        throw new KubernetesError(
          "AGENT_UNREACHABLE",
          `the SandboxClaim ${name} was deleted while conchd waited for it`,
        );
      }
      if (isReady(claim)) return claim;
      const ready = condition(claim, "Ready");
      if (ready?.status === "False" && TERMINAL_REASONS.has(ready.reason ?? "")) {
        options.record?.save(null);
        await api.deleteClaim(name).catch(() => false);
        throw new KubernetesError(
          "AGENT_UNREACHABLE",
          `the SandboxClaim ${name} (warm pool ${options.warmPool}, namespace ${api.namespace}) gives no sandbox: ${said(ready)}`,
        );
      }
      const left = deadline - Date.now();
      if (left <= 0) {
        options.record?.save(null);
        await api.deleteClaim(name).catch(() => false);
        throw new KubernetesError(
          "AGENT_UNREACHABLE",
          `the SandboxClaim ${name} was not ready within ${Math.round(timeout / 1000)} s (${said(ready)}); it was deleted. See \`kubectl describe sandboxwarmpool ${options.warmPool} -n ${api.namespace}\` and the pool's pods`,
        );
      }
      await api.changed(name, claim.metadata.resourceVersion, Math.min(left, 30_000));
      claim = await api.getClaim(name);
    }
  };

  /** The shutdown time of a claim extended now: its time, and two ticks the cluster waits beyond conchd. */
  const shutdownAt = (): string => timestamp(Date.now() + ttl + 2 * tick);

  const extend = async (): Promise<void> => {
    const held = address;
    if (held === null || closed) return;
    let busy = usedSince;
    usedSince = false;
    if (!busy) {
      try {
        busy = (await options.busy?.()) ?? true;
        failedChecks = 0;
      } catch {
        // An agent that does not answer keeps its claim a few ticks (a restart), not for ever.
        busy = ++failedChecks < 3;
      }
    }
    const api = await connect();
    // Another claim, or none, since this tick began: nothing of this one is decided here.
    if (address !== held || closed) return;
    if (busy || usedSince) {
      lastBusy = Date.now();
      await api.setShutdownTime(held.claim, shutdownAt());
    } else if (Date.now() - lastBusy >= ttl) {
      // Let go after its idle time, while the cluster still waits two ticks: it never deletes the claim
      // under a command started meanwhile. From the check above to onReleased nothing waits.
      address = null;
      options.record?.save(null);
      // Its agent is forgotten first: no command starts there while the claim goes.
      options.onReleased?.();
      await api.deleteClaim(held.claim);
    }
  };

  const startTimer = (): void => {
    if (timer !== null || closed) return;
    let running = false;
    timer = setInterval(() => {
      // One at a time; a failed extension is tried again at the next tick (the claim's time covers two).
      if (running) return;
      running = true;
      extend()
        .catch(() => {})
        .finally(() => {
          running = false;
        });
    }, tick);
    timer.unref();
  };

  /** Why the pod at `held` is gone (and its claim deleted, the address forgotten), or null while it is there. */
  const goneFrom = async (api: Cluster, held: Address): Promise<KubernetesError | null> => {
    const claim = await api.getClaim(held.claim);
    let why: string | null = null;
    if (claim === null) why = `its SandboxClaim ${held.claim} was deleted`;
    else if (claim.metadata.deletionTimestamp !== undefined)
      why = `its SandboxClaim ${held.claim} is being deleted`;
    else if (!isReady(claim)) why = `SandboxClaim ${held.claim}: ${said(condition(claim, "Ready"))}`;
    else {
      const sandbox = await api.getSandbox(claim.status?.sandbox?.name as string);
      const url = podUrl(claim, sandbox, options.agentPort ?? DEFAULT_AGENT_PORT);
      if (claim.status?.sandbox?.name !== held.sandbox || url !== held.url) {
        why = `SandboxClaim ${held.claim} now has sandbox ${claim.status?.sandbox?.name} at ${url}`;
      }
    }
    if (why === null) return null;
    if (address === held) address = null;
    if (options.record?.load()?.name === held.claim) options.record.save(null);
    // Its processes are gone: the claim is of no more use, and the next call claims a ready pod.
    if (claim !== null) await api.deleteClaim(held.claim).catch(() => false);
    return new KubernetesError(
      "AGENT_LOST",
      `the sandbox pod ${held.pod} is gone (${why}); its processes ended with it`,
    );
  };

  const resolve = async (): Promise<Address> => {
    const api = await connect();
    const held = address;
    if (held !== null) {
      // Connecting again: the same pod, or its processes are gone with it (said once; the next call
      // claims afresh).
      const lost = await goneFrom(api, held);
      if (lost !== null) throw lost;
      return held;
    }
    let claim = await find(api);
    claim ??= await create(api);
    claim = await untilReady(api, claim);
    const sandboxName = claim.status?.sandbox?.name as string;
    const sandbox = await api.getSandbox(sandboxName);
    const url = podUrl(claim, sandbox, options.agentPort ?? DEFAULT_AGENT_PORT);
    if (url === null) {
      throw new KubernetesError(
        "AGENT_UNREACHABLE",
        `the SandboxClaim ${claim.metadata.name} is ready but its sandbox ${sandboxName} has no pod address yet`,
      );
    }
    const pod = sandbox?.metadata.annotations?.["agents.x-k8s.io/pod-name"] ?? sandboxName;
    // The pod's name is the agent's id, in the binding token and in every result: a DNS label, nothing else.
    if (!/^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/.test(pod)) {
      throw new KubernetesError(
        "AGENT_UNREACHABLE",
        `the SandboxClaim ${claim.metadata.name} names a pod that is no Kubernetes name: ${JSON.stringify(pod.slice(0, 80))}`,
      );
    }
    address = { namespace: api.namespace, claim: claim.metadata.name, sandbox: sandboxName, pod, url };
    lastBusy = Date.now();
    // Pushed on at once: a claim found again may be close to its end.
    await api.setShutdownTime(address.claim, shutdownAt());
    startTimer();
    return address;
  };

  return {
    get where() {
      return where();
    },
    async url() {
      if (closed) throw new KubernetesError("AGENT_LOST", "the Kubernetes sandbox was closed");
      resolving ??= resolve().finally(() => {
        resolving = null;
      });
      const found = await resolving;
      return { url: found.url, agentId: found.pod };
    },
    async unreachable(error) {
      // The pod did not answer: gone (the cluster says so within a few seconds), or a passing fault.
      const held = address;
      if (held === null) return error;
      const api = await connect();
      const deadline = Date.now() + LOSS_WAIT_MS;
      for (;;) {
        const lost = await goneFrom(api, held).catch(() => null);
        if (lost !== null) return lost;
        const left = deadline - Date.now();
        if (left <= 0) return error;
        await new Promise((resolve) => setTimeout(resolve, Math.min(left, 500)));
      }
    },
    claimName: () => address?.claim ?? null,
    async release() {
      const held = address;
      address = null;
      if (timer !== null) clearInterval(timer);
      timer = null;
      if (held === null) return;
      options.record?.save(null);
      await (await connect()).deleteClaim(held.claim);
    },
    used() {
      usedSince = true;
    },
    close() {
      closed = true;
      if (timer !== null) clearInterval(timer);
      timer = null;
    },
  };
}
