// The Kubernetes API calls this package makes, through @kubernetes/client-node 1.x (loaded on first use:
// it costs half a second to load, which nothing else of Conch should pay, and the CLI's bundle leaves it
// out): create, get, list by label, watch, merge-patch and delete of SandboxClaims, and get of
// Sandboxes. Nothing else: no pods, no exec.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { CustomObjectsApi, KubeConfig, Watch } from "@kubernetes/client-node";
import { KubernetesError } from "./errors.js";

type ClientNode = typeof import("@kubernetes/client-node");
let clientNode: ClientNode | null = null;
/** The client, loaded by require (an ES module; Node >= 20.19 loads one so) where this module lies. */
function load(): ClientNode {
  if (clientNode !== null) return clientNode;
  try {
    clientNode = createRequire(import.meta.url)("@kubernetes/client-node") as ClientNode;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "MODULE_NOT_FOUND") throw error;
    throw new KubernetesError(
      "INVALID_REMOTE",
      'remote = "kubernetes" needs @kubernetes/client-node 1.x, which this install of Conch does not have: npm install -g @kubernetes/client-node@~1.4.0 (conchd\'s package, @conch/daemon, brings it)',
    );
  }
  return clientNode;
}

/** agent-sandbox's API (v1beta1, the storage version since v0.5). */
const CLAIMS = { group: "extensions.agents.x-k8s.io", version: "v1beta1", plural: "sandboxclaims" };
const SANDBOXES = { group: "agents.x-k8s.io", version: "v1beta1", plural: "sandboxes" };

const IN_CLUSTER_NAMESPACE = "/var/run/secrets/kubernetes.io/serviceaccount/namespace";

export interface Condition {
  readonly type: string;
  readonly status: string;
  readonly reason?: string;
  readonly message?: string;
}

/** A SandboxClaim, as far as this package reads it. */
export interface Claim {
  readonly metadata: {
    readonly name: string;
    readonly uid?: string;
    readonly resourceVersion?: string;
    readonly creationTimestamp?: string;
    readonly deletionTimestamp?: string;
    readonly labels?: Readonly<Record<string, string>>;
    readonly annotations?: Readonly<Record<string, string>>;
  };
  readonly spec?: { readonly lifecycle?: { readonly shutdownTime?: string } };
  readonly status?: {
    readonly conditions?: readonly Condition[];
    readonly sandbox?: { readonly name?: string; readonly podIPs?: readonly string[] };
  };
}

/** A Sandbox, as far as this package reads it: its pod's addresses and the agent's port. */
export interface Sandbox {
  readonly metadata: { readonly name: string; readonly annotations?: Readonly<Record<string, string>> };
  readonly spec?: {
    readonly podTemplate?: {
      readonly spec?: {
        readonly containers?: readonly {
          readonly name?: string;
          readonly ports?: readonly { readonly name?: string; readonly containerPort?: number }[];
        }[];
      };
    };
  };
  readonly status?: { readonly podIPs?: readonly string[]; readonly conditions?: readonly Condition[] };
}

export interface ClusterOptions {
  /** A kubeconfig file; default: `$KUBECONFIG`, `~/.kube/config`, else the pod's service account. */
  readonly kubeconfig?: string;
  /** A context of that kubeconfig; default: its current one. */
  readonly context?: string;
  /** Default: the context's namespace, else the pod's own, else `default`. */
  readonly namespace?: string;
}

function statusOf(error: unknown): number | null {
  const code = (error as { code?: unknown }).code;
  return typeof code === "number" ? code : null;
}

/** What a failed call says: the API's own message when it sent a Status. */
function describeFailure(error: unknown): string {
  const body = (error as { body?: unknown }).body;
  if (typeof body === "string") {
    try {
      const status = JSON.parse(body) as { message?: unknown };
      if (typeof status.message === "string") return status.message;
    } catch {
      // Not JSON: the text itself.
    }
    if (body !== "") return body.slice(0, 300);
  }
  return (error as Error).message;
}

/** One cluster, one namespace: the calls, each failing with a KubernetesError that says which. */
export class Cluster {
  readonly namespace: string;
  readonly server: string;
  readonly #api: CustomObjectsApi;
  readonly #watch: Watch;
  readonly #client: ClientNode;

  private constructor(client: ClientNode, config: KubeConfig, namespace: string) {
    this.#client = client;
    this.namespace = namespace;
    this.server = config.getCurrentCluster()?.server ?? "(no server)";
    this.#api = config.makeApiClient(client.CustomObjectsApi);
    this.#watch = new client.Watch(config);
  }

  static async connect(options: ClusterOptions): Promise<Cluster> {
    const client = load();
    const config = new client.KubeConfig();
    try {
      if (options.kubeconfig === undefined) config.loadFromDefault();
      else config.loadFromFile(options.kubeconfig);
    } catch (error) {
      throw new KubernetesError(
        "INVALID_REMOTE",
        `remote_kubeconfig: cannot load ${options.kubeconfig ?? "the default kubeconfig"}: ${(error as Error).message}`,
      );
    }
    if (options.context !== undefined) {
      if (config.getContextObject(options.context) === null) {
        throw new KubernetesError(
          "INVALID_REMOTE",
          `remote_context: the kubeconfig has no context ${JSON.stringify(options.context)} (it has ${config.contexts.map((context) => context.name).join(", ") || "none"})`,
        );
      }
      config.setCurrentContext(options.context);
    }
    if (config.getCurrentCluster() === null) {
      throw new KubernetesError(
        "INVALID_REMOTE",
        "remote_kubeconfig: no cluster to talk to: set remote_kubeconfig (and remote_context), or run conchd in a pod with a service account",
      );
    }
    let namespace = options.namespace ?? config.getContextObject(config.getCurrentContext())?.namespace;
    if (namespace === undefined) {
      try {
        namespace = readFileSync(IN_CLUSTER_NAMESPACE, "utf8").trim() || "default";
      } catch {
        namespace = "default";
      }
    }
    return new Cluster(client, config, namespace);
  }

  #fail(what: string, error: unknown): KubernetesError {
    return new KubernetesError(
      "AGENT_UNREACHABLE",
      `Kubernetes at ${this.server} refused to ${what} (namespace ${this.namespace}): ${describeFailure(error)}`,
      { cause: error },
    );
  }

  async createClaim(body: object): Promise<Claim> {
    try {
      return (await this.#api.createNamespacedCustomObject({
        ...CLAIMS,
        namespace: this.namespace,
        body,
      })) as Claim;
    } catch (error) {
      throw this.#fail("create a SandboxClaim", error);
    }
  }

  /** The claim, or null when there is none by that name. */
  async getClaim(name: string): Promise<Claim | null> {
    try {
      return (await this.#api.getNamespacedCustomObject({
        ...CLAIMS,
        namespace: this.namespace,
        name,
      })) as Claim;
    } catch (error) {
      if (statusOf(error) === 404) return null;
      throw this.#fail(`read the SandboxClaim ${name}`, error);
    }
  }

  async listClaims(labelSelector: string): Promise<Claim[]> {
    try {
      const list = (await this.#api.listNamespacedCustomObject({
        ...CLAIMS,
        namespace: this.namespace,
        labelSelector,
      })) as { items?: Claim[] };
      return list.items ?? [];
    } catch (error) {
      throw this.#fail(`list SandboxClaims (${labelSelector})`, error);
    }
  }

  /** Sets the claim's `spec.lifecycle.shutdownTime` (a JSON merge patch). */
  async setShutdownTime(name: string, shutdownTime: string): Promise<void> {
    try {
      await this.#api.patchNamespacedCustomObject(
        { ...CLAIMS, namespace: this.namespace, name, body: { spec: { lifecycle: { shutdownTime } } } },
        this.#client.setHeaderOptions("Content-Type", this.#client.PatchStrategy.MergePatch),
      );
    } catch (error) {
      throw this.#fail(`extend the SandboxClaim ${name}`, error);
    }
  }

  /** Deletes the claim (its Sandbox and pod go with it); true when it was there. */
  async deleteClaim(name: string): Promise<boolean> {
    try {
      await this.#api.deleteNamespacedCustomObject({
        ...CLAIMS,
        namespace: this.namespace,
        name,
        propagationPolicy: "Foreground",
      });
      return true;
    } catch (error) {
      if (statusOf(error) === 404) return false;
      throw this.#fail(`delete the SandboxClaim ${name}`, error);
    }
  }

  async getSandbox(name: string): Promise<Sandbox | null> {
    try {
      return (await this.#api.getNamespacedCustomObject({
        ...SANDBOXES,
        namespace: this.namespace,
        name,
      })) as Sandbox;
    } catch (error) {
      if (statusOf(error) === 404) return null;
      throw this.#fail(`read the Sandbox ${name}`, error);
    }
  }

  /**
   * Resolves at the first change the API reports to claim `name` after `resourceVersion`, when the watch
   * ends, or after `waitMs`: the caller reads the claim again either way.
   */
  async changed(name: string, resourceVersion: string | undefined, waitMs: number): Promise<void> {
    const path = `/apis/${CLAIMS.group}/${CLAIMS.version}/namespaces/${this.namespace}/${CLAIMS.plural}`;
    let finish: () => void = () => {};
    const done = new Promise<void>((resolve) => {
      finish = resolve;
    });
    const timer = setTimeout(() => finish(), waitMs);
    let request: AbortController | null = null;
    try {
      request = await this.#watch.watch(
        path,
        {
          fieldSelector: `metadata.name=${name}`,
          ...(resourceVersion === undefined ? {} : { resourceVersion }),
          allowWatchBookmarks: false,
          timeoutSeconds: Math.max(1, Math.ceil(waitMs / 1000)),
        },
        () => finish(),
        () => finish(),
      );
      await done;
    } catch {
      // A watch that cannot start: the caller reads again after a pause instead.
      await new Promise((resolve) => setTimeout(resolve, Math.min(waitMs, 1000)));
    } finally {
      clearTimeout(timer);
      request?.abort();
    }
  }
}
