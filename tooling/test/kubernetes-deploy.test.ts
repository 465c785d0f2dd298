// deploy/kubernetes: the manifests a person applies to a cluster with agent-sandbox. Checked here against
// agent-sandbox's own CRD schemas (v1beta1, strict: an unknown or misspelt field fails), against each
// other (the names one manifest gives and another uses), against what conchd needs (RBAC with no pods and
// no exec; the agent's port and id as conchd reads them) and against Conch's own config loader. What no
// test here can do is apply them to a real cluster: the gated suite for that is in README.md.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../packages/orchestrator/dist/index.js";
import { validateAgentSandbox, yamlDocuments } from "../test-config/src/fake-kube.js";

const DEPLOY = new URL("../../deploy/kubernetes/", import.meta.url).pathname;
// biome-ignore lint/suspicious/noExplicitAny: parsed YAML, read loosely
type Doc = any;

function documents(file: string): Doc[] {
  return yamlDocuments(readFileSync(join(DEPLOY, file), "utf8"));
}

const kustomization = documents("kustomization.yaml")[0];
const all: Doc[] = (kustomization.resources as string[]).flatMap((file) => documents(file));
const one = (kind: string): Doc => {
  const found = all.filter((doc) => doc.kind === kind);
  expect(found, kind).toHaveLength(1);
  return found[0];
};

describe("deploy/kubernetes", () => {
  it("lists every manifest in its kustomization, in one namespace", () => {
    expect(kustomization.namespace).toBe("conch");
    expect(one("Namespace").metadata.name).toBe("conch");
    expect(all.map((doc) => doc.kind).sort()).toEqual(
      [
        "ConfigMap",
        "Deployment",
        "Namespace",
        "NetworkPolicy",
        "PersistentVolumeClaim",
        "Role",
        "RoleBinding",
        "SandboxTemplate",
        "SandboxWarmPool",
        "Service",
        "ServiceAccount",
      ].sort(),
    );
  });

  it("has a SandboxTemplate and a SandboxWarmPool that agent-sandbox's CRDs accept (and a typo that they refuse)", () => {
    const template = one("SandboxTemplate");
    const pool = one("SandboxWarmPool");
    expect(template.apiVersion).toBe("extensions.agents.x-k8s.io/v1beta1");
    expect(pool.apiVersion).toBe("extensions.agents.x-k8s.io/v1beta1");
    expect(validateAgentSandbox("template", template)).toEqual([]);
    expect(validateAgentSandbox("warmPool", pool)).toEqual([]);
    const typo = structuredClone(template);
    typo.spec.podTemplate.spec.containers[0].securityContext.procMonut = "Unmasked";
    expect(validateAgentSandbox("template", typo)).not.toEqual([]);
    expect(validateAgentSandbox("warmPool", { ...pool, spec: { replicas: 2 } })).not.toEqual([]);
  });

  it("gives the agent what conchd reads: the named port, the pod's name as its id, conchd's public key", () => {
    const template = one("SandboxTemplate");
    const pod = template.spec.podTemplate.spec;
    expect(pod.automountServiceAccountToken).toBe(false);
    const [agent] = pod.containers;
    expect(agent.ports).toEqual([{ name: "conch-agent", containerPort: 7077 }]);
    expect(agent.args).toEqual([
      "--listen",
      "ws://0.0.0.0:7077",
      "--agent-id",
      "$(POD_NAME)",
      "--binding-key",
      "/etc/conch/binding/binding.pub",
    ]);
    expect(agent.env).toContainEqual({
      name: "POD_NAME",
      valueFrom: { fieldRef: { fieldPath: "metadata.name" } },
    });
    const keyMount = agent.volumeMounts.find((mount: Doc) => mount.mountPath === "/etc/conch/binding");
    const keyVolume = pod.volumes.find((volume: Doc) => volume.name === keyMount.name);
    expect(keyVolume.configMap.name).toBe("conch-binding-pub");
    // No per-claim env: a claim with env cannot adopt a warm pod.
    expect(template.spec.envVarsInjectionPolicy ?? "Disallowed").toBe("Disallowed");
    // The workspace conchd names (its own working directory) exists in the pod.
    expect(agent.volumeMounts.map((mount: Doc) => mount.mountPath)).toContain(
      one("Deployment").spec.template.spec.containers[0].workingDir,
    );
  });

  it("admits only conchd to the agent and lets the pod reach nothing (network = off)", () => {
    const policy = one("SandboxTemplate").spec.networkPolicy;
    const conchdLabels = one("Deployment").spec.template.metadata.labels;
    expect(one("SandboxTemplate").spec.networkPolicyManagement).toBe("Managed");
    expect(policy.egress).toEqual([]);
    expect(policy.ingress).toHaveLength(1);
    const [rule] = policy.ingress;
    expect(rule.from).toEqual([
      {
        namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": kustomization.namespace } },
        podSelector: { matchLabels: conchdLabels },
      },
    ]);
    expect(rule.ports).toEqual([{ protocol: "TCP", port: 7077 }]);
  });

  it("runs the agent as a user of its own, without capabilities, on a read-only root", () => {
    const pod = one("SandboxTemplate").spec.podTemplate.spec;
    expect(pod.securityContext).toMatchObject({ runAsUser: 10001, runAsNonRoot: true });
    expect(pod.containers[0].securityContext).toMatchObject({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ["ALL"] },
    });
    // What a read-only root leaves writable: the workspace, HOME and /tmp, each a volume.
    expect(pod.containers[0].volumeMounts.map((mount: Doc) => mount.mountPath).sort()).toEqual(
      ["/etc/conch/binding", "/home/agent", "/tmp", "/workspace"].sort(),
    );
    // conchd itself: nothing in the cluster reaches it (port-forward does).
    const conchdPolicy = one("NetworkPolicy");
    expect(conchdPolicy.spec).toEqual({
      podSelector: { matchLabels: one("Deployment").spec.template.metadata.labels },
      policyTypes: ["Ingress"],
      ingress: [],
    });
  });

  it("lets conchd claim sandboxes and nothing else: no pods, no exec", () => {
    const role = one("Role");
    expect(role.rules).toEqual([
      {
        apiGroups: ["extensions.agents.x-k8s.io"],
        resources: ["sandboxclaims"],
        verbs: ["create", "get", "list", "watch", "patch", "delete"],
      },
      { apiGroups: ["agents.x-k8s.io"], resources: ["sandboxes"], verbs: ["get"] },
    ]);
    expect(JSON.stringify(all)).not.toMatch(/pods\/exec|"pods"|ClusterRole"/);
    const binding = one("RoleBinding");
    expect(binding.subjects).toEqual([{ kind: "ServiceAccount", name: "conchd" }]);
    expect(one("Deployment").spec.template.spec.serviceAccountName).toBe("conchd");
  });

  it("gives conchd a config Conch loads, naming the warm pool and the key the manifests provide", async () => {
    const text = one("ConfigMap").data["config.toml"];
    const home = mkdtempSync(join(tmpdir(), "conch-deploy-"));
    try {
      mkdirSync(join(home, ".config", "conch"), { recursive: true });
      writeFileSync(join(home, ".config", "conch", "config.toml"), text);
      const config = await loadConfig({ cwd: home, home, env: { HOME: home } });
      expect(config.remote).toMatchObject({
        engine: "kubernetes",
        warmPool: one("SandboxWarmPool").metadata.name,
        bindingKey: "/etc/conch/binding/binding.key",
        podIsSandbox: false,
      });
      expect(config.network).toBe("off");
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
    expect(one("SandboxWarmPool").spec.sandboxTemplateRef.name).toBe(one("SandboxTemplate").metadata.name);
    const deployment = one("Deployment").spec.template.spec;
    const keyVolume = deployment.volumes.find((volume: Doc) => volume.secret !== undefined);
    expect(keyVolume.secret.secretName).toBe("conch-binding");
    expect(deployment.containers[0].volumeMounts).toContainEqual({
      name: keyVolume.name,
      mountPath: "/etc/conch/binding",
      readOnly: true,
    });
  });
});
