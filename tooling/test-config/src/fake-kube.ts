// A test double of the Kubernetes API for exactly what Conch's Kubernetes backend calls: SandboxClaims
// (create, get, list by label, watch by name, merge patch, delete) and Sandboxes (get), agent-sandbox's
// v1beta1. Bodies are checked against agent-sandbox's own CRD schemas (vendored in data/agent-sandbox/,
// from kubernetes-sigs/agent-sandbox at 2fd412d), strictly: an unknown field is refused, as the API
// server does with fieldValidation=Strict. Its "controller" does what agent-sandbox's does for a claim:
// adopt a ready sandbox of the warm pool (replenishing it) or cold-start one named as the claim, fill in
// `status.sandbox {name, podIPs}` and Ready, honour `lifecycle.shutdownTime` with policy Delete, and
// delete the sandbox with its claim. A pod is whatever the test's `startPod` starts (a podman container
// running conch-agent); only 127.0.0.1 is used. Every request is logged for the tests to check.
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Ajv, type ValidateFunction } from "ajv";
import { load, loadAll } from "js-yaml";

// biome-ignore lint/suspicious/noExplicitAny: the API's JSON objects, read loosely in a test double
type Json = any;

const CLAIMS_PATH =
  /^\/apis\/extensions\.agents\.x-k8s\.io\/v1beta1\/namespaces\/([a-z0-9-]+)\/sandboxclaims(?:\/([a-z0-9.-]+))?$/;
const SANDBOX_PATH =
  /^\/apis\/agents\.x-k8s\.io\/v1beta1\/namespaces\/([a-z0-9-]+)\/sandboxes\/([a-z0-9.-]+)$/;

/** A started pod: where its agent listens. */
export interface FakePod {
  readonly ip: string;
  readonly port: number;
  stop(): Promise<void>;
}

export interface FakeKubeOptions {
  readonly namespace: string;
  /** The warm pools there: name, ready pods kept, and the agent port the template names. */
  readonly pools: readonly { readonly name: string; readonly replicas: number; readonly template: string }[];
  /** Starts the pod of sandbox `name` (its pod has the same name); resolves once it listens. */
  readonly startPod: (name: string) => Promise<FakePod>;
  /** The bearer token every request must carry. */
  readonly token: string;
}

export interface LoggedRequest {
  readonly method: string;
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
  readonly contentType: string | undefined;
  readonly status: number;
}

interface Stored {
  object: Record<string, Json>;
}

interface Watcher {
  readonly name: string;
  readonly after: number;
  readonly res: ServerResponse;
}

export interface FakeKube {
  /** `http://127.0.0.1:PORT` */
  readonly server: string;
  /** A kubeconfig (YAML text) for it: context `fake`, the namespace, the token. */
  readonly kubeconfig: string;
  readonly requests: readonly LoggedRequest[];
  /** Requests it had no route for (a test asserts there are none). */
  readonly unexpected: readonly string[];
  claims(): Record<string, Json>[];
  sandboxes(): Record<string, Json>[];
  /** Pods started so far, by sandbox name (warm and cold). */
  readonly started: readonly string[];
  /** Warm pods ready and unclaimed. */
  warmReady(pool: string): number;
  /** Waits until the pool has `count` ready unclaimed pods. */
  untilWarm(pool: string, count: number, timeoutMs?: number): Promise<void>;
  /** Ends a sandbox's pod as a node loss would: the pod stops, the sandbox and its claim go not ready. */
  losePod(sandbox: string): Promise<void>;
  close(): Promise<void>;
}

function crdValidator(ajv: Ajv, file: string): ValidateFunction {
  const url = new URL(`../data/agent-sandbox/${file}`, import.meta.url);
  const crd = load(readFileSync(url, "utf8")) as {
    spec: { versions: { name: string; schema: { openAPIV3Schema: object } }[] };
  };
  const version = crd.spec.versions.find((entry) => entry.name === "v1beta1");
  if (version === undefined) throw new Error(`${file}: no v1beta1`);
  return ajv.compile(strict(version.schema.openAPIV3Schema));
}

/** The schema with unknown fields refused (fieldValidation=Strict), except where Kubernetes keeps them. */
function strict(schema: Json): Json {
  if (Array.isArray(schema)) return schema.map(strict);
  if (typeof schema !== "object" || schema === null) return schema;
  const out: Record<string, Json> = {};
  for (const [key, value] of Object.entries(schema)) out[key] = strict(value);
  if (
    out.type === "object" &&
    out.properties !== undefined &&
    out["x-kubernetes-preserve-unknown-fields"] !== true
  ) {
    // metadata is the API server's, not the CRD's: apiVersion/kind/metadata stay open at the top.
    out.additionalProperties = false;
  }
  return out;
}

function makeAjv(): Ajv {
  const ajv = new Ajv({ strict: false, allErrors: true });
  ajv.addFormat("date-time", /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/);
  ajv.addFormat("int32", true);
  ajv.addFormat("int64", true);
  ajv.addFormat("byte", true);
  ajv.addFormat("quantity", true);
  return ajv;
}

const CRD_FILES = {
  claim: "extensions.agents.x-k8s.io_sandboxclaims.yaml",
  sandbox: "agents.x-k8s.io_sandboxes.yaml",
  template: "extensions.agents.x-k8s.io_sandboxtemplates.yaml",
  warmPool: "extensions.agents.x-k8s.io_sandboxwarmpools.yaml",
} as const;

/**
 * Validates `object` against agent-sandbox's v1beta1 CRD of `kind` (strict: unknown fields refused);
 * the errors, or an empty list. For manifests a test reads (deploy/kubernetes).
 */
export function validateAgentSandbox(kind: keyof typeof CRD_FILES, object: unknown): string[] {
  const validate = crdValidator(makeAjv(), CRD_FILES[kind]);
  const body = object as Record<string, unknown>;
  const { metadata: _metadata, ...rest } = body;
  if (validate({ ...rest, metadata: {} })) return [];
  return (validate.errors ?? []).map(
    (error) =>
      `${error.instancePath || "/"} ${error.message ?? ""}${error.params ? ` ${JSON.stringify(error.params)}` : ""}`,
  );
}

/** The documents of a YAML file (a manifest), parsed. */
export function yamlDocuments(text: string): Json[] {
  return loadAll(text).filter((document) => document !== null && document !== undefined);
}

function status(res: ServerResponse, code: number, reason: string, message: string): void {
  res.writeHead(code, { "content-type": "application/json" });
  res.end(JSON.stringify({ kind: "Status", apiVersion: "v1", status: "Failure", message, reason, code }));
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => {
      text += chunk;
      if (text.length > 1 << 20) req.destroy(new Error("body over 1 MiB"));
    });
    req.on("end", () => resolve(text));
    req.on("error", reject);
  });
}

function merge(target: Json, patch: Json): Json {
  if (typeof patch !== "object" || patch === null || Array.isArray(patch)) return patch;
  const out = typeof target === "object" && target !== null && !Array.isArray(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else out[key] = merge(out[key], value);
  }
  return out;
}

function matches(labels: Record<string, string> | undefined, selector: string): boolean {
  return selector
    .split(",")
    .filter((term) => term !== "")
    .every((term) => {
      const [key, value] = term.split("=");
      return labels?.[key as string] === value;
    });
}

export async function startFakeKube(options: FakeKubeOptions): Promise<FakeKube> {
  const ajv = makeAjv();
  const validateClaim = crdValidator(ajv, CRD_FILES.claim);
  const claims = new Map<string, Stored>();
  const sandboxes = new Map<
    string,
    { object: Record<string, Json>; pod: FakePod | null; pool: string | null }
  >();
  const watchers = new Set<Watcher>();
  const requests: LoggedRequest[] = [];
  const unexpected: string[] = [];
  const started: string[] = [];
  const pending = new Set<Promise<unknown>>();
  let version = 1;
  let closed = false;
  const now = (): string => new Date().toISOString().replace(/\.\d{3}Z$/, "Z");
  const track = <T>(promise: Promise<T>): Promise<T> => {
    pending.add(promise);
    void promise.finally(() => pending.delete(promise)).catch(() => {});
    return promise;
  };

  const emit = (type: "ADDED" | "MODIFIED" | "DELETED", object: Record<string, Json>): void => {
    for (const watcher of watchers) {
      if (watcher.name !== object.metadata.name) continue;
      if (Number(object.metadata.resourceVersion) <= watcher.after) continue;
      watcher.res.write(`${JSON.stringify({ type, object })}\n`);
    }
  };
  const touch = (stored: Stored, type: "ADDED" | "MODIFIED" = "MODIFIED"): void => {
    stored.object.metadata.resourceVersion = String(++version);
    emit(type, stored.object);
  };
  const setReady = (claim: Stored, ready: boolean, reason: string, message: string, sandbox?: Json): void => {
    claim.object.status = {
      ...(claim.object.status ?? {}),
      conditions: [
        { type: "Ready", status: ready ? "True" : "False", reason, message, lastTransitionTime: now() },
      ],
      ...(sandbox === undefined ? {} : { sandbox }),
    };
    touch(claim);
  };

  const startSandbox = async (name: string, pool: string | null): Promise<void> => {
    const entry = {
      object: {
        apiVersion: "agents.x-k8s.io/v1beta1",
        kind: "Sandbox",
        metadata: {
          name,
          namespace: options.namespace,
          uid: randomBytes(8).toString("hex"),
          annotations: {} as Record<string, string>,
        },
        spec: { podTemplate: { spec: { containers: [{ name: "agent", ports: [] as object[] }] } } },
        status: {
          conditions: [{ type: "Ready", status: "False", reason: "DependenciesNotReady" }],
        } as Record<string, Json>,
      },
      pod: null as FakePod | null,
      pool,
    };
    sandboxes.set(name, entry);
    started.push(name);
    const pod = await options.startPod(name);
    if (closed || !sandboxes.has(name)) {
      await pod.stop();
      return;
    }
    entry.pod = pod;
    entry.object.spec.podTemplate.spec.containers[0]?.ports.push({
      name: "conch-agent",
      containerPort: pod.port,
    });
    entry.object.status = {
      podIPs: [pod.ip],
      conditions: [{ type: "Ready", status: "True", reason: "DependenciesReady" }],
    };
  };

  const replenish = (pool: string): void => {
    const spec = options.pools.find((entry) => entry.name === pool);
    if (spec === undefined || closed) return;
    const warm = [...sandboxes.values()].filter((entry) => entry.pool === pool).length;
    for (let i = warm; i < spec.replicas; i++) {
      track(startSandbox(`${pool}-${randomBytes(3).toString("hex")}`, pool)).catch(() => {});
    }
  };

  const deleteSandbox = async (name: string): Promise<void> => {
    const entry = sandboxes.get(name);
    sandboxes.delete(name);
    await entry?.pod?.stop();
  };

  const reconcile = async (claim: Stored): Promise<void> => {
    const pool = claim.object.spec.warmPoolRef.name as string;
    if (!options.pools.some((entry) => entry.name === pool)) {
      setReady(claim, false, "WarmPoolNotFound", `SandboxWarmPool ${pool} not found`);
      return;
    }
    let chosen = [...sandboxes.entries()].find(([, entry]) => entry.pool === pool && entry.pod !== null);
    if (chosen === undefined) {
      // Cold: a sandbox named as the claim.
      setReady(claim, false, "SandboxNotReady", "the sandbox's pod is starting");
      await startSandbox(claim.object.metadata.name, null);
      const entry = sandboxes.get(claim.object.metadata.name);
      if (entry?.pod === null || entry === undefined) return;
      chosen = [claim.object.metadata.name, entry];
    } else {
      const [name, entry] = chosen;
      entry.pool = null;
      entry.object.metadata.annotations["agents.x-k8s.io/pod-name"] = name;
      replenish(pool);
    }
    const [name, entry] = chosen;
    if (!claims.has(claim.object.metadata.name)) {
      await deleteSandbox(name);
      return;
    }
    setReady(claim, true, "DependenciesReady", "", { name, podIPs: entry.object.status.podIPs });
    claim.object.metadata.annotations = {
      ...(claim.object.metadata.annotations ?? {}),
      "agents.x-k8s.io/sandbox-name": name,
    };
  };

  const removeClaim = async (name: string): Promise<Record<string, Json> | null> => {
    const stored = claims.get(name);
    if (stored === undefined) return null;
    claims.delete(name);
    stored.object.metadata.resourceVersion = String(++version);
    emit("DELETED", stored.object);
    const sandbox = stored.object.status?.sandbox?.name as string | undefined;
    if (sandbox !== undefined) await deleteSandbox(sandbox);
    else if (sandboxes.has(name)) await deleteSandbox(name);
    return stored.object;
  };

  const expiry = setInterval(() => {
    for (const [name, stored] of claims) {
      const at = stored.object.spec?.lifecycle?.shutdownTime;
      if (typeof at === "string" && Date.parse(at) <= Date.now()) track(removeClaim(name)).catch(() => {});
    }
  }, 250);

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<number> => {
    if (req.headers.authorization !== `Bearer ${options.token}`) {
      status(res, 401, "Unauthorized", "Unauthorized");
      return 401;
    }
    const url = new URL(req.url ?? "/", "http://fake");
    const query = Object.fromEntries(url.searchParams);
    const sandboxMatch = SANDBOX_PATH.exec(url.pathname);
    if (sandboxMatch !== null && req.method === "GET") {
      const entry = sandboxes.get(sandboxMatch[2] as string);
      if (sandboxMatch[1] !== options.namespace || entry === undefined) {
        status(res, 404, "NotFound", `sandboxes.agents.x-k8s.io "${sandboxMatch[2]}" not found`);
        return 404;
      }
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(entry.object));
      return 200;
    }
    const match = CLAIMS_PATH.exec(url.pathname);
    if (match === null || match[1] !== options.namespace) {
      unexpected.push(`${req.method} ${req.url}`);
      status(res, 404, "NotFound", "the server could not find the requested resource");
      return 404;
    }
    const name = match[2];
    if (name === undefined && req.method === "POST") {
      let body: Json;
      try {
        body = JSON.parse(await readBody(req));
      } catch {
        status(res, 400, "BadRequest", "the body is not JSON");
        return 400;
      }
      const { metadata, ...rest } = body ?? {};
      if (!validateClaim({ ...rest, metadata: {} })) {
        const why = (validateClaim.errors ?? [])
          .map((error) => `${error.instancePath} ${error.message}`)
          .join("; ");
        status(res, 422, "Invalid", `SandboxClaim.extensions.agents.x-k8s.io is invalid: ${why}`);
        return 422;
      }
      if (body.apiVersion !== "extensions.agents.x-k8s.io/v1beta1" || body.kind !== "SandboxClaim") {
        status(
          res,
          400,
          "BadRequest",
          `expected apiVersion extensions.agents.x-k8s.io/v1beta1, kind SandboxClaim`,
        );
        return 400;
      }
      const claimName = metadata?.name;
      if (typeof claimName !== "string" || !/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(claimName)) {
        status(res, 422, "Invalid", "metadata.name: Invalid value");
        return 422;
      }
      if (claims.has(claimName)) {
        status(
          res,
          409,
          "AlreadyExists",
          `sandboxclaims.extensions.agents.x-k8s.io "${claimName}" already exists`,
        );
        return 409;
      }
      const stored: Stored = {
        object: {
          ...body,
          metadata: {
            ...metadata,
            namespace: options.namespace,
            uid: randomBytes(8).toString("hex"),
            creationTimestamp: now(),
            generation: 1,
          },
        },
      };
      claims.set(claimName, stored);
      touch(stored, "ADDED");
      res.writeHead(201, { "content-type": "application/json" });
      res.end(JSON.stringify(stored.object));
      track(reconcile(stored)).catch(() => {});
      return 201;
    }
    if (name === undefined && req.method === "GET" && query.watch === "true") {
      const field = /^metadata\.name=([a-z0-9.-]+)$/.exec(query.fieldSelector ?? "");
      if (field === null) {
        status(res, 400, "BadRequest", "this fake watches one claim by fieldSelector=metadata.name=NAME");
        return 400;
      }
      const watcher: Watcher = { name: field[1] as string, after: Number(query.resourceVersion ?? 0), res };
      res.writeHead(200, { "content-type": "application/json", "transfer-encoding": "chunked" });
      watchers.add(watcher);
      const current = claims.get(watcher.name);
      if (current !== undefined && Number(current.object.metadata.resourceVersion) > watcher.after) {
        res.write(`${JSON.stringify({ type: "MODIFIED", object: current.object })}\n`);
      }
      const seconds = Math.min(Number(query.timeoutSeconds ?? 30), 60);
      const timer = setTimeout(() => res.end(), seconds * 1000);
      res.on("close", () => {
        clearTimeout(timer);
        watchers.delete(watcher);
      });
      return 200;
    }
    if (name === undefined && req.method === "GET") {
      const items = [...claims.values()]
        .map((stored) => stored.object)
        .filter((object) => matches(object.metadata.labels, query.labelSelector ?? ""));
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          apiVersion: "extensions.agents.x-k8s.io/v1beta1",
          kind: "SandboxClaimList",
          metadata: { resourceVersion: String(version) },
          items,
        }),
      );
      return 200;
    }
    const stored = name === undefined ? undefined : claims.get(name);
    if (name !== undefined && stored === undefined) {
      status(res, 404, "NotFound", `sandboxclaims.extensions.agents.x-k8s.io "${name}" not found`);
      return 404;
    }
    if (stored !== undefined && req.method === "GET") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(stored.object));
      return 200;
    }
    if (stored !== undefined && req.method === "PATCH") {
      if (req.headers["content-type"] !== "application/merge-patch+json") {
        status(
          res,
          415,
          "UnsupportedMediaType",
          `this fake takes merge patches, not ${req.headers["content-type"]}`,
        );
        return 415;
      }
      const patched = merge(stored.object, JSON.parse(await readBody(req)));
      const { metadata: _metadata, status: _status, ...rest } = patched;
      if (!validateClaim({ ...rest, metadata: {} })) {
        status(res, 422, "Invalid", `SandboxClaim is invalid: ${JSON.stringify(validateClaim.errors)}`);
        return 422;
      }
      stored.object = patched;
      touch(stored);
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(stored.object));
      return 200;
    }
    if (stored !== undefined && req.method === "DELETE") {
      const object = await removeClaim(stored.object.metadata.name);
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(object));
      return 200;
    }
    unexpected.push(`${req.method} ${req.url}`);
    status(res, 405, "MethodNotAllowed", "not served by this fake");
    return 405;
  };

  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://fake");
    void handle(req, res)
      .catch((error: unknown) => {
        status(res, 500, "InternalError", (error as Error).message);
        return 500;
      })
      .then((code) =>
        requests.push({
          method: req.method ?? "",
          path: url.pathname,
          query: Object.fromEntries(url.searchParams),
          contentType: req.headers["content-type"],
          status: code,
        }),
      );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  for (const pool of options.pools) replenish(pool.name);
  const origin = `http://127.0.0.1:${port}`;
  const kubeconfig = [
    "apiVersion: v1",
    "kind: Config",
    "clusters:",
    `- name: fake\n  cluster:\n    server: ${origin}\n    insecure-skip-tls-verify: true`,
    "users:",
    `- name: fake\n  user:\n    token: ${options.token}`,
    "contexts:",
    `- name: fake\n  context:\n    cluster: fake\n    user: fake\n    namespace: ${options.namespace}`,
    "current-context: fake",
    "",
  ].join("\n");

  const warmReady = (pool: string): number =>
    [...sandboxes.values()].filter((entry) => entry.pool === pool && entry.pod !== null).length;
  return {
    server: origin,
    kubeconfig,
    requests,
    unexpected,
    started,
    claims: () => [...claims.values()].map((stored) => stored.object),
    sandboxes: () => [...sandboxes.values()].map((entry) => entry.object),
    warmReady,
    async untilWarm(pool, count, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      while (warmReady(pool) < count) {
        if (Date.now() > deadline) throw new Error(`warm pool ${pool}: ${warmReady(pool)} of ${count} ready`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    async losePod(name) {
      const entry = sandboxes.get(name);
      if (entry === undefined) throw new Error(`no sandbox ${name}`);
      await entry.pod?.stop();
      entry.pod = null;
      entry.object.status = {
        conditions: [{ type: "Ready", status: "False", reason: "PodFailed", message: "the pod failed" }],
      };
      for (const stored of claims.values()) {
        if (stored.object.status?.sandbox?.name === name) {
          setReady(stored, false, "SandboxNotReady", "the sandbox's pod failed (PodFailed)", { name });
        }
      }
    },
    async close() {
      closed = true;
      clearInterval(expiry);
      for (const watcher of watchers) watcher.res.end();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.allSettled([...pending]);
      await Promise.allSettled([...sandboxes.keys()].map((name) => deleteSandbox(name)));
    },
  };
}
