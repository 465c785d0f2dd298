// The claim lifecycle against a fake Kubernetes API (tooling/test-config's fake-kube: agent-sandbox's own
// CRD schemas, strict), through the real @kubernetes/client-node: what it sends is what a cluster gets.
// Pods here are plain listening sockets on 127.0.0.1: what runs in them is the daemon tests' part.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eventually } from "@conch/test-config";
import { type FakeKube, type FakePod, startFakeKube } from "@conch/test-config/fake-kube";
import { afterEach, describe, expect, it } from "vitest";
import {
  isKubernetesError,
  type KubernetesSandbox,
  kubernetesSandbox,
  OWNER_LABEL,
  WORKSPACE_LABEL,
} from "../src/index.js";

const TOKEN = "fake-token-1";

async function listeningPod(): Promise<FakePod> {
  const server: Server = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address() as { port: number };
  return {
    ip: "127.0.0.1",
    port: address.port,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe("kubernetesSandbox against a fake API server", () => {
  let fake: FakeKube | null = null;
  let dir: string | null = null;
  const endpoints: KubernetesSandbox[] = [];

  afterEach(async () => {
    for (const endpoint of endpoints.splice(0)) endpoint.close();
    await fake?.close();
    fake = null;
    if (dir !== null) rmSync(dir, { recursive: true, force: true });
    dir = null;
  });

  async function setup(replicas: number): Promise<{ kubeconfig: string; fake: FakeKube }> {
    fake = await startFakeKube({
      namespace: "conch",
      pools: [{ name: "conch", replicas, template: "conch" }],
      startPod: () => listeningPod(),
      token: TOKEN,
    });
    dir = mkdtempSync(join(tmpdir(), "conch-k8s-"));
    const kubeconfig = join(dir, "kubeconfig");
    writeFileSync(kubeconfig, fake.kubeconfig);
    if (replicas > 0) await fake.untilWarm("conch", replicas);
    return { kubeconfig, fake };
  }

  function open(options: Partial<Parameters<typeof kubernetesSandbox>[0]> & { kubeconfig: string }) {
    const endpoint = kubernetesSandbox({
      warmPool: "conch",
      owner: "ab12cd34",
      workspace: "/w/one",
      ...options,
    });
    endpoints.push(endpoint);
    return endpoint;
  }

  it("claims a warm pod, labels the claim, and sends only the calls a cluster expects", async () => {
    const { kubeconfig, fake } = await setup(1);
    const warm = fake.started[0] as string;
    const endpoint = open({ kubeconfig });
    expect(endpoint.where).toBe("a SandboxClaim on warm pool conch");
    const found = await endpoint.url();
    expect(found.agentId).toBe(warm);
    expect(found.url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+$/);
    const [claim] = fake.claims();
    expect(claim?.metadata.labels[OWNER_LABEL]).toBe("ab12cd34");
    expect(claim?.metadata.labels[WORKSPACE_LABEL]).toMatch(/^[0-9a-f]{16}$/);
    expect(claim?.metadata.annotations["conch.dev/workspace-path"]).toBe("/w/one");
    expect(claim?.spec.warmPoolRef).toEqual({ name: "conch" });
    expect(claim?.spec.lifecycle.shutdownPolicy).toBe("Delete");
    expect(claim?.spec.lifecycle.shutdownTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(endpoint.where).toBe(`SandboxClaim ${claim?.metadata.name} (namespace conch)`);
    // The pool refills behind the adopted pod.
    await fake.untilWarm("conch", 1);

    const calls = fake.requests.map(
      (request) =>
        `${request.method} ${request.path.replace(/\/(sandboxclaims|sandboxes)\/[a-z0-9-]+$/, "/$1/NAME")}`,
    );
    expect(new Set(calls)).toEqual(
      new Set([
        "GET /apis/extensions.agents.x-k8s.io/v1beta1/namespaces/conch/sandboxclaims",
        "POST /apis/extensions.agents.x-k8s.io/v1beta1/namespaces/conch/sandboxclaims",
        "GET /apis/extensions.agents.x-k8s.io/v1beta1/namespaces/conch/sandboxclaims/NAME",
        "GET /apis/agents.x-k8s.io/v1beta1/namespaces/conch/sandboxes/NAME",
        "PATCH /apis/extensions.agents.x-k8s.io/v1beta1/namespaces/conch/sandboxclaims/NAME",
        ...(fake.requests.some((request) => request.query.watch === "true")
          ? ["GET /apis/extensions.agents.x-k8s.io/v1beta1/namespaces/conch/sandboxclaims"]
          : []),
      ]),
    );
    const list = fake.requests.find((request) => request.method === "GET" && request.query.labelSelector);
    expect(list?.query.labelSelector).toBe(
      `${OWNER_LABEL}=ab12cd34,${WORKSPACE_LABEL}=${claim?.metadata.labels[WORKSPACE_LABEL]}`,
    );
    const patch = fake.requests.find((request) => request.method === "PATCH");
    expect(patch?.contentType).toBe("application/merge-patch+json");
    for (const watch of fake.requests.filter((request) => request.query.watch === "true")) {
      expect(watch.query.fieldSelector).toBe(`metadata.name=${claim?.metadata.name}`);
    }
    expect(fake.requests.every((request) => request.status < 400)).toBe(true);
    expect(fake.unexpected).toEqual([]);
  });

  it("cold-starts a sandbox named as the claim when the pool has no pod, waiting on a watch", async () => {
    const { kubeconfig, fake } = await setup(0);
    const found = await open({ kubeconfig }).url();
    const [claim] = fake.claims();
    expect(found.agentId).toBe(claim?.metadata.name);
    expect(fake.requests.some((request) => request.query.watch === "true")).toBe(true);
  });

  it("finds its claim again after a restart by its labels; another workspace or owner gets its own", async () => {
    const { kubeconfig, fake } = await setup(2);
    const first = open({ kubeconfig });
    const before = await first.url();
    first.close();
    const posts = (): number => fake.requests.filter((request) => request.method === "POST").length;
    expect(posts()).toBe(1);
    const again = await open({ kubeconfig }).url();
    expect(again).toEqual(before);
    expect(posts()).toBe(1);
    const other = await open({ kubeconfig, workspace: "/w/two" }).url();
    expect(other.agentId).not.toBe(before.agentId);
    await fake.untilWarm("conch", 1);
    const stranger = await open({ kubeconfig, owner: "ffff0000" }).url();
    expect(stranger.agentId).not.toBe(before.agentId);
    expect(posts()).toBe(3);
  });

  it("adopts after a restart only the claim it recorded: not one planted with its labels, nor another pool's", async () => {
    const { kubeconfig, fake } = await setup(2);
    let saved: { name: string; uid: string } | null = null;
    const record = {
      load: () => saved,
      save: (claim: { name: string; uid: string } | null) => {
        saved = claim === null ? null : { ...claim };
      },
    };
    const first = open({ kubeconfig, record });
    const mine = await first.url();
    first.close();
    const ownClaim = fake.claims()[0];
    expect(saved).toEqual({ name: ownClaim?.metadata.name, uid: ownClaim?.metadata.uid });
    // Someone who may create claims copies its labels and annotation onto a claim of their own, made
    // later (newest first is what labels alone would pick).
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const planted = await fetch(
      `${fake.server}/apis/extensions.agents.x-k8s.io/v1beta1/namespaces/conch/sandboxclaims`,
      {
        method: "POST",
        headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify({
          apiVersion: "extensions.agents.x-k8s.io/v1beta1",
          kind: "SandboxClaim",
          metadata: {
            name: "planted",
            labels: ownClaim?.metadata.labels,
            annotations: ownClaim?.metadata.annotations,
          },
          spec: { warmPoolRef: { name: "conch" } },
        }),
      },
    );
    expect(planted.status).toBe(201);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(
      fake.claims().find((claim) => claim.metadata.name === "planted")?.status?.sandbox?.name,
    ).toBeDefined();
    const again = await open({ kubeconfig, record }).url();
    expect(again).toEqual(mine);
    // Without the record (a state directory lost), nothing is adopted: a new claim is made.
    saved = null;
    const fresh = await open({ kubeconfig, record }).url();
    expect(fresh.agentId).not.toBe(mine.agentId);
    expect(fresh.agentId).not.toBe(
      fake.claims().find((claim) => claim.metadata.name === "planted")?.status?.sandbox?.name,
    );
  });

  it("without a record, adopts only a claim of its own pool and workspace path", async () => {
    const { kubeconfig, fake } = await setup(2);
    const first = open({ kubeconfig });
    const before = await first.url();
    first.close();
    // The config moved to another pool: the old pool's claim is not used for it.
    const other = await open({ kubeconfig, warmPool: "conch-gvisor" })
      .url()
      .catch((error: unknown) => error);
    expect((other as Error).message).toMatch(/WarmPoolNotFound/);
    expect((await open({ kubeconfig }).url()).agentId).toBe(before.agentId);
    expect(fake.claims().filter((claim) => claim.spec.warmPoolRef.name === "conch")).toHaveLength(1);
  });

  it("pushes the shutdown time on while busy, so the claim outlives its first time", async () => {
    const { kubeconfig, fake } = await setup(1);
    const endpoint = open({ kubeconfig, claimTtlMs: 1500, busy: async () => true });
    await endpoint.url();
    const name = endpoint.claimName();
    const first = Date.parse(fake.claims()[0]?.spec.lifecycle.shutdownTime);
    // Past the first shutdown time: the fake deletes an expired claim within 250 ms.
    await eventually("past the first shutdown time", () => Date.now() > first + 2000, { timeoutMs: 10_000 });
    expect(fake.claims().map((claim) => claim.metadata.name)).toEqual([name]);
    expect(Date.parse(fake.claims()[0]?.spec.lifecycle.shutdownTime)).toBeGreaterThan(first);
  });

  it("deletes an idle claim and says so; a claim left alone expires at its shutdown time", async () => {
    const { kubeconfig, fake } = await setup(1);
    let released = 0;
    const idle = open({
      kubeconfig,
      claimTtlMs: 1500,
      busy: async () => false,
      onReleased: () => released++,
    });
    await idle.url();
    await eventually("the idle claim released", () => released === 1, { timeoutMs: 15_000 });
    // Its agent is forgotten first, then the claim is deleted.
    await eventually("the idle claim deleted", () => fake?.claims().length === 0, { timeoutMs: 15_000 });
    expect(idle.claimName()).toBeNull();

    const abandoned = open({ kubeconfig, workspace: "/w/abandoned", claimTtlMs: 1500 });
    await abandoned.url();
    abandoned.close();
    await eventually("the abandoned claim expired", () => fake?.claims().length === 0, { timeoutMs: 15_000 });
  });

  it("says a lost pod once, deletes its claim, then claims afresh", async () => {
    const { kubeconfig, fake } = await setup(1);
    const endpoint = open({ kubeconfig });
    const first = await endpoint.url();
    const claim = endpoint.claimName();
    await fake.losePod(first.agentId);
    const lost = await endpoint.url().catch((error: unknown) => error);
    expect(isKubernetesError(lost) && lost.code).toBe("AGENT_LOST");
    expect((lost as Error).message).toBe(
      `the sandbox pod ${first.agentId} is gone (SandboxClaim ${claim}: Ready=False (SandboxNotReady: the sandbox's pod failed (PodFailed))); its processes ended with it`,
    );
    expect(fake.claims().map((entry) => entry.metadata.name)).not.toContain(claim);
    await fake.untilWarm("conch", 1);
    const next = await endpoint.url();
    expect(next.agentId).not.toBe(first.agentId);
    expect(endpoint.claimName()).not.toBe(claim);
  });

  it("names why a claim gives no sandbox, and deletes it", async () => {
    const { kubeconfig, fake } = await setup(0);
    const error = await open({ kubeconfig, warmPool: "missing" })
      .url()
      .catch((caught: unknown) => caught);
    expect(isKubernetesError(error) && error.code).toBe("AGENT_UNREACHABLE");
    expect((error as Error).message).toMatch(
      /^the SandboxClaim conch-[0-9a-f]{12}-[0-9a-f]{6} \(warm pool missing, namespace conch\) gives no sandbox: Ready=False \(WarmPoolNotFound: SandboxWarmPool missing not found\)$/,
    );
    expect(fake.claims()).toEqual([]);
  });

  it("refuses bad options by field, a missing context by name, and a wrong token with the API's message", async () => {
    const { kubeconfig, fake } = await setup(0);
    expect(() => kubernetesSandbox({ warmPool: "Bad Pool", owner: "o", workspace: "/w" })).toThrow(
      "warmPool: expected a SandboxWarmPool's name (lower case letters, digits, '-', '.'), received \"Bad Pool\"",
    );
    expect(() => kubernetesSandbox({ warmPool: "p", owner: "has space", workspace: "/w" })).toThrow(
      /^owner: expected a label value/,
    );
    expect(() => kubernetesSandbox({ warmPool: "p", owner: "o", workspace: "w" })).toThrow(
      'workspace: expected an absolute path, received "w"',
    );
    expect(() => kubernetesSandbox({ warmPool: "p", owner: "o", workspace: "/w", claimTtlMs: 5 })).toThrow(
      "claimTtlMs: expected whole milliseconds, at least 1000, received 5",
    );
    await expect(open({ kubeconfig, context: "prod" }).url()).rejects.toThrow(
      'remote_context: the kubeconfig has no context "prod" (it has fake)',
    );
    writeFileSync(kubeconfig, fake.kubeconfig.replace(TOKEN, "wrong"));
    await expect(open({ kubeconfig }).url()).rejects.toThrow(
      `Kubernetes at ${fake.server} refused to list SandboxClaims`,
    );
  });

  it("the fake refuses what agent-sandbox's schema refuses (a test that can fail)", async () => {
    const { fake } = await setup(0);
    const post = (spec: object) =>
      fetch(`${fake.server}/apis/extensions.agents.x-k8s.io/v1beta1/namespaces/conch/sandboxclaims`, {
        method: "POST",
        headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify({
          apiVersion: "extensions.agents.x-k8s.io/v1beta1",
          kind: "SandboxClaim",
          metadata: { name: "x" },
          spec,
        }),
      });
    expect((await post({ warmPoolRef: { name: "conch" }, bogus: 1 })).status).toBe(422);
    expect((await post({ sandboxTemplateRef: { name: "conch" } })).status).toBe(422);
    expect(
      (await post({ warmPoolRef: { name: "conch" }, lifecycle: { shutdownPolicy: "Sometimes" } })).status,
    ).toBe(422);
    expect(
      (await post({ warmPoolRef: { name: "conch" }, lifecycle: { shutdownTime: "tomorrow" } })).status,
    ).toBe(422);
    expect((await post({ warmPoolRef: { name: "conch" } })).status).toBe(201);
  });
});
