// Issue 29, against a real cluster: runs only when CONCH_K8S_CONTEXT names a kubeconfig context of a
// cluster with agent-sandbox installed and deploy/kubernetes applied (deploy/kubernetes/README.md, "The
// real-cluster suite"). No machine of this project's CI has one: there, this suite is skipped with that
// reason. It claims a pod from the warm pool, reaches its agent (through `kubectl port-forward`, since
// the pods' addresses are the cluster's, not this machine's), runs a command under the agent's sandbox,
// checks the claim's labels and shutdown time, loses the pod, and deletes the claim.
//
//   CONCH_K8S_CONTEXT=kind-conch CONCH_K8S_BINDING_KEY=./binding.key \
//     npx vitest run test/kubernetes-cluster.test.ts        (in apps/daemon)
//
// CONCH_K8S_NAMESPACE (default conch), CONCH_K8S_WARM_POOL (default conch), CONCH_K8S_BINDING_KEY: the
// private key whose public half is the ConfigMap conch-binding-pub.
import { execFile, spawn } from "node:child_process";
import { createPrivateKey } from "node:crypto";
import { readFileSync } from "node:fs";
import { promisify } from "node:util";
import { isKubernetesError, kubernetesSandbox } from "@conch/sandbox-kubernetes";
import { createAgentBackend, sandboxIntent } from "@conch/sandbox-remote";
import { describeWith } from "@conch/test-config";
import { expect, it } from "vitest";

const run = promisify(execFile);
const context = process.env.CONCH_K8S_CONTEXT ?? "";
const namespace = process.env.CONCH_K8S_NAMESPACE ?? "conch";
const warmPool = process.env.CONCH_K8S_WARM_POOL ?? "conch";

async function kubectl(...args: string[]): Promise<string> {
  const { stdout } = await run("kubectl", ["--context", context, "-n", namespace, ...args], {
    timeout: 120_000,
  });
  return stdout;
}

/** `kubectl port-forward pod/NAME :7077`: the local port, and how to stop it. */
async function forward(pod: string): Promise<{ port: number; stop: () => void }> {
  const child = spawn(
    "kubectl",
    ["--context", context, "-n", namespace, "port-forward", `pod/${pod}`, ":7077"],
    {
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("kubectl port-forward did not start in 60 s")), 60_000);
    let text = "";
    child.stdout.on("data", (chunk: Buffer) => {
      text += chunk.toString();
      const match = /Forwarding from 127\.0\.0\.1:(\d+)/.exec(text);
      if (match !== null) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
    child.once("exit", (code) => reject(new Error(`kubectl port-forward exited ${code}`)));
  });
  return { port, stop: () => child.kill("SIGTERM") };
}

describeWith(["kubernetes"], "a real cluster with agent-sandbox (CONCH_K8S_CONTEXT)", () => {
  it("claims a warm pod, runs a command under its agent's sandbox, extends, loses and deletes the claim", async () => {
    const kubeconfigContext = { context };
    const sandbox = kubernetesSandbox({
      ...kubeconfigContext,
      namespace,
      warmPool,
      owner: "conch-e2e",
      workspace: "/workspace",
      claimTtlMs: 120_000,
    });
    try {
      const { url, agentId } = await sandbox.url();
      expect(url).toMatch(/^ws:\/\/\S+:7077$/);
      const claim = JSON.parse(
        await kubectl("get", "sandboxclaim", sandbox.claimName() as string, "-o", "json"),
      );
      expect(claim.metadata.labels["conch.dev/owner"]).toBe("conch-e2e");
      expect(claim.spec.warmPoolRef.name).toBe(warmPool);
      expect(Date.parse(claim.spec.lifecycle.shutdownTime)).toBeGreaterThan(Date.now());

      const tunnel = await forward(agentId);
      const backend = createAgentBackend({
        endpoint: `ws://127.0.0.1:${tunnel.port}`,
        agentId,
        bindingKey: createPrivateKey(readFileSync(process.env.CONCH_K8S_BINDING_KEY as string, "utf8")),
      });
      try {
        const capabilities = await backend.host.capabilities();
        expect(capabilities.bwrap || capabilities.landlock).toBe(true);
        const rules = {
          mode: "workspace-write" as const,
          readableRoots: ["/"],
          writableRoots: [{ root: "/workspace", readOnlySubpaths: [] }],
          tmp: { kind: "empty" as const, targets: ["/tmp"] },
          hidden: [],
          network: false,
        };
        expect(sandboxIntent(rules, "/workspace").workspace).toBe("/workspace");
        const process = await backend.host.start({
          id: `e2e-${Date.now()}`,
          spec: {
            argv: ["bash", "-c", "echo sandbox=$CONCH_SANDBOX; touch /etc/escaped 2>&1 || echo refused"],
            cwd: "/workspace",
            env: {},
            extraFds: [],
          },
          rules,
          workspace: "/workspace",
          tty: false,
        });
        let text = "";
        let next = 1;
        for (let round = 0; round < 20; round++) {
          const read = await process.read(next, { waitMs: 5000 });
          for (const chunk of read.chunks) text += chunk.data.toString();
          next = read.nextSeq;
          if (read.exit !== null) break;
        }
        expect(text).toMatch(/sandbox=(bwrap|landlock)/);
        expect(text).toContain("refused");
      } finally {
        backend.close();
        tunnel.stop();
      }

      // The pod goes: the claim is said lost (once the cluster tells), and deleted.
      await kubectl("delete", "pod", agentId, "--wait=true");
      const lost = await sandbox.unreachable(new Error("the pod stopped answering"));
      expect(isKubernetesError(lost) && lost.code).toBe("AGENT_LOST");
    } finally {
      await sandbox.release().catch(() => {});
      sandbox.close();
    }
  }, 600_000);
});
