// Issue 29: conchd with `remote = "kubernetes"`, against a fake Kubernetes API (@conch/test-config's
// fake-kube: agent-sandbox's CRD schemas, its claim controller's behaviour, a warm pool) whose pods are
// real podman containers from a root file system this test builds, each running conch-agent on
// 127.0.0.1 (host network; no other address is used). conchd reaches the agent in the pod directly
// (never pods/exec), finds its claim again by label after a SIGKILL, ends sessions whose pod is lost
// with a clear text, deletes its claim when it stops with nothing left there, and runs commands with the
// pod as the only sandbox only when the operator says so. The one part not run against a real cluster:
// the API server (see deploy/kubernetes/README.md for the suite that runs against one).
import { execFile } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer, connect as tcpConnect } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describeWith, eventually } from "@conch/test-config";
import { type FakeKube, type FakePod, startFakeKube } from "@conch/test-config/fake-kube";
import { afterEach, beforeEach, expect, it } from "vitest";
import {
  type Connection,
  connect,
  makeWorkspace,
  openShell,
  textOf,
  typeUntil,
  type Workspace,
} from "./harness.js";

const run = promisify(execFile);
const AGENT = fileURLToPath(new URL("../../agent/dist/bin.js", import.meta.url));
// The conch CLI (built first: turbo.json's test task depends on @conch/cli#build).
const CONCH = fileURLToPath(new URL("../../cli/dist/bin.js", import.meta.url));
const REPO = dirname(dirname(dirname(dirname(AGENT))));
const TOKEN = "conch-fake-kube-token";
const LABEL = "conch.test-k8s";

let workspace: Workspace;
let root: string;
let rootfs: string;
let fake: FakeKube;
/**
 * How the next pods are made: `bwrap` (as the Conch template asks: a user of its own, no capabilities, a
 * read-only root, /proc unmasked, no runtime seccomp), `bare` (the same user, but neither bwrap nor
 * Landlock can run), `bare-root` (that, as root).
 */
let podKind: "bwrap" | "bare" | "bare-root" = "bwrap";
const daemons: Connection[] = [];

function buildRootfs(dir: string): void {
  for (const sub of ["usr", "etc", "tmp", "proc", "dev", "sys", "run", "var/tmp", "root"]) {
    mkdirSync(join(dir, sub), { recursive: true });
  }
  for (const link of ["bin", "lib", "lib64", "sbin"]) symlinkSync(`usr/${link}`, join(dir, link));
  for (const file of ["passwd", "group"]) writeFileSync(join(dir, "etc", file), readFileSync(`/etc/${file}`));
  writeFileSync(join(dir, "etc", "conch-pod-marker"), "inside a pod\n");
}

function hardLimit(name: string): number {
  const line = readFileSync("/proc/self/limits", "utf8")
    .split("\n")
    .find((text) => text.startsWith(name));
  return Number(line?.slice(name.length).trim().split(/\s+/)[1]);
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function listening(port: number, deadline: number): Promise<void> {
  for (;;) {
    const up = await new Promise<boolean>((resolve) => {
      const socket = tcpConnect(port, "127.0.0.1");
      socket.once("connect", () => {
        socket.destroy();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
    });
    if (up) return;
    if (Date.now() > deadline) throw new Error(`the pod's agent never listened on ${port}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A writable directory of pod `name`'s own (an emptyDir). */
function podDir(name: string, which: string): string {
  const dir = join(root, "pods", name, which);
  mkdirSync(dir, { recursive: true });
  chmodSync(dir, 0o1777);
  return dir;
}

/** A "pod": a podman container running conch-agent, as the Conch SandboxTemplate's container would. */
async function startPod(name: string): Promise<FakePod> {
  const port = await freePort();
  const container = `conch-k8s-test-${name}`;
  const nodeHome = dirname(dirname(process.execPath));
  const mounts = ["/usr", REPO, ...(nodeHome === "/usr" ? [] : [nodeHome])];
  const processes = Math.min(
    hardLimit("Max processes"),
    Number(readFileSync("/proc/sys/kernel/pid_max", "utf8")),
  );
  const files = hardLimit("Max open files");
  const security = [
    ...(podKind === "bwrap"
      ? ["--security-opt", "unmask=ALL", "--security-opt", "seccomp=unconfined"]
      : // Neither bwrap (a masked /proc) nor Landlock (refused, as under a runtime without it).
        ["--security-opt", `seccomp=${join(root, "no-landlock.json")}`]),
    ...(podKind === "bare-root"
      ? []
      : [
          "--user",
          "65534:65534",
          "--cap-drop",
          "ALL",
          "--read-only",
          // The template's emptyDir volumes for HOME and /tmp (podman's own tmpfs here stay root's).
          "-v",
          `${podDir(name, "home")}:/home/agent`,
          "-v",
          `${podDir(name, "tmp")}:/tmp`,
          "-e",
          "HOME=/home/agent",
        ]),
  ];
  await run(
    "podman",
    [
      "run",
      "-d",
      "--name",
      container,
      "--label",
      `${LABEL}=${workspace.cwd}`,
      "--network",
      "host",
      ...security,
      "--security-opt",
      "label=disable",
      "--ulimit",
      `nofile=${files}:${files}`,
      "--ulimit",
      `nproc=${processes}:${processes}`,
      ...mounts.flatMap((mount) => ["-v", `${mount}:${mount}:ro`]),
      "-v",
      `${join(root, "keys", "binding.pub")}:/run/conch-key/binding.pub:ro`,
      "-v",
      `${workspace.cwd}:${workspace.cwd}`,
      "--rootfs",
      rootfs,
      process.execPath,
      AGENT,
      "--listen",
      `ws://127.0.0.1:${port}`,
      "--agent-id",
      name,
      "--binding-key",
      "/run/conch-key/binding.pub",
    ],
    { timeout: 60_000 },
  );
  await listening(port, Date.now() + 30_000);
  return {
    ip: "127.0.0.1",
    port,
    stop: async () => {
      await run("podman", ["rm", "-f", "-t", "0", container], { timeout: 60_000 }).catch(() => {});
    },
  };
}

/** A fake API server (a new one) whose pods are made as `kind` says, its warm pool of one. */
async function podsOf(kind: typeof podKind): Promise<void> {
  podKind = kind;
  // The previous one's (a test's own, or the last test's, closed already: closing again is harmless).
  await (fake as FakeKube | undefined)?.close();
  fake = await startFakeKube({
    namespace: "conch",
    pools: [{ name: "conch", replicas: 1, template: "conch" }],
    startPod,
    token: TOKEN,
  });
}

function writeConfig(extra: readonly string[] = []): void {
  const kubeconfig = join(root, "kubeconfig");
  writeFileSync(kubeconfig, fake.kubeconfig);
  const config = join(workspace.env.XDG_CONFIG_HOME as string, "conch");
  mkdirSync(config, { recursive: true });
  writeFileSync(
    join(config, "config.toml"),
    [
      'approval_policy = "never"',
      'remote = "kubernetes"',
      `remote_kubeconfig = ${JSON.stringify(kubeconfig)}`,
      'remote_warm_pool = "conch"',
      `remote_binding_key = ${JSON.stringify(join(root, "keys", "binding.key"))}`,
      ...extra,
    ].join("\n"),
  );
}

beforeEach(async () => {
  workspace = makeWorkspace("/var/tmp");
  root = dirname(workspace.cwd);
  // The pod's agent is not root (the template's runAsUser): the workspace volume is its.
  chownSync(workspace.cwd, 65534, 65534);
  rootfs = join(root, "rootfs");
  buildRootfs(rootfs);
  mkdirSync(join(root, "keys"), { mode: 0o700 });
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  writeFileSync(join(root, "keys", "binding.key"), privateKey.export({ type: "pkcs8", format: "pem" }), {
    mode: 0o600,
  });
  writeFileSync(join(root, "keys", "binding.pub"), publicKey.export({ type: "spki", format: "pem" }));
  writeFileSync(
    join(root, "no-landlock.json"),
    JSON.stringify({
      defaultAction: "SCMP_ACT_ALLOW",
      syscalls: [
        {
          names: ["landlock_create_ruleset", "landlock_add_rule", "landlock_restrict_self"],
          action: "SCMP_ACT_ERRNO",
          errnoRet: 38,
        },
      ],
    }),
  );
  await podsOf("bwrap");
  writeConfig();
});

afterEach(async () => {
  for (const daemon of daemons.splice(0)) {
    await daemon.close().catch(() => {});
    try {
      process.kill(daemon.pid, "SIGKILL");
    } catch {
      // Gone.
    }
  }
  await fake.close();
  // Every container of this test (a failed one's too), by its label.
  const { stdout } = await run("podman", ["ps", "-a", "-q", "--filter", `label=${LABEL}=${workspace.cwd}`]);
  for (const id of stdout.split("\n").filter((line) => line !== "")) {
    await run("podman", ["rm", "-f", "-t", "0", id]).catch(() => {});
  }
  workspace.remove();
});

async function conchd(): Promise<Connection> {
  const daemon = await connect("v2 (2025-11-25)", workspace, [], { timeoutMs: 90_000 });
  daemons.push(daemon);
  return daemon;
}

function onlyClaim(): { name: string; sandbox: string } {
  const claims = fake.claims();
  expect(claims).toHaveLength(1);
  return { name: claims[0]?.metadata.name, sandbox: claims[0]?.status?.sandbox?.name };
}

describeWith(
  ["linux", "bwrap", "pty", "bash", "podman"],
  "conchd with remote = kubernetes (fake API, podman pods)",
  () => {
    it("claims a warm pod, runs commands there under bwrap, and keeps the claim for the next conchd", async () => {
      await fake.untilWarm("conch", 1);
      const warm = fake.started[0] as string;
      const daemon = await conchd();
      const ran = await daemon.callTool("shell_command", {
        command: "cat /etc/conch-pod-marker; echo sandbox=$CONCH_SANDBOX; echo made > from-pod.txt",
      });
      const claim = onlyClaim();
      expect(claim.sandbox).toBe(warm);
      expect(textOf(ran)).toContain("inside a pod");
      expect(textOf(ran)).toContain("sandbox=bwrap");
      expect(textOf(ran)).toContain(`Ran on agent ${warm} at SandboxClaim ${claim.name} (namespace conch).`);
      expect(ran.structuredContent).toMatchObject({ sandbox: "kubernetes", exit_code: 0 });
      expect(readFileSync(join(workspace.cwd, "from-pod.txt"), "utf8")).toBe("made\n");
      expect(existsSync("/etc/conch-pod-marker")).toBe(false);
      // Outside the workspace, the pod's sandbox refuses the write.
      const denied = await daemon.callTool("shell_command", { command: "echo x > /etc/escaped" });
      expect(denied.structuredContent).toMatchObject({ denied: true });
      expect(existsSync(join(rootfs, "etc", "escaped"))).toBe(false);
      // Only the claim and sandbox calls: never a pod, never exec.
      expect(fake.unexpected).toEqual([]);
      expect(fake.requests.every((request) => /\/(sandboxclaims|sandboxes)(\/|$)/.test(request.path))).toBe(
        true,
      );
      // A graceful stop keeps the claim (the pod holds the workspace's files) until its shutdown time: the
      // next conchd adopts it, and no other claim is made.
      await daemon.close();
      daemons.splice(0);
      expect(onlyClaim()).toEqual(claim);
      const next = await conchd();
      expect(textOf(await next.callTool("shell_command", { command: "cat from-pod.txt" }))).toContain("made");
      expect(onlyClaim()).toEqual(claim);
      expect(fake.requests.filter((request) => request.method === "POST")).toHaveLength(1);
    }, 180_000);

    it("conch sandbox --check claims a pod, says where and what it enforces, and keeps the claim", async () => {
      await fake.untilWarm("conch", 1);
      // Not spawnSync: the fake API answers from this process.
      const { stdout } = await run(process.execPath, [CONCH, "sandbox", "--check"], {
        cwd: workspace.cwd,
        env: workspace.env,
        timeout: 90_000,
      });
      expect(stdout).toMatch(
        /conch sandbox: commands run on the agent conch-[0-9a-f]{6} at SandboxClaim conch-[0-9a-f]{12}-[0-9a-f]{6} \(namespace conch\) \(remote = "kubernetes" in the user config\); none run here/,
      );
      expect(stdout).toMatch(
        /the agent conch-[0-9a-f]{6} at SandboxClaim conch-[0-9a-f]{12}-[0-9a-f]{6} \(namespace conch\) answers this conchd and has pty, bwrap/,
      );
      // The CLI's bundle found @kubernetes/client-node and claimed; the claim stays for the next command.
      expect(fake.claims()).toHaveLength(1);
      expect(fake.requests.filter((request) => request.method === "DELETE")).toHaveLength(0);
    }, 180_000);

    it("finds its claim again by label after a SIGKILL, and the same shell", async () => {
      const first = await conchd();
      const sessionId = await openShell(first);
      const claim = onlyClaim();
      await first.callTool("write_stdin", {
        session_id: sessionId,
        chars: "Z=kept; for i in 1 2 3 4 5 6; do echo beat-$i; sleep 0.25; done\n",
        yield_time_ms: 300,
      });
      process.kill(first.pid, "SIGKILL");
      await first.close().catch(() => {});
      daemons.splice(0);

      const second = await conchd();
      // Polled (nothing typed) until the loop's last line came.
      const text = await typeUntil(second, sessionId, "", "beat-6", 15);
      expect(text).toContain("beat-6");
      expect(await typeUntil(second, sessionId, "echo still-$Z\n", "still-kept")).toContain("still-kept");
      expect(onlyClaim()).toEqual(claim);
      expect(fake.requests.filter((request) => request.method === "POST")).toHaveLength(1);
      // A session lives there: a graceful stop keeps the claim for the next conchd.
      await second.close();
      daemons.splice(0);
      expect(fake.claims().map((entry) => entry.metadata.name)).toEqual([claim.name]);
    }, 180_000);

    it("ends a session whose pod is lost with a clear text, and claims afresh for the next command", async () => {
      const daemon = await conchd();
      const sessionId = await openShell(daemon);
      const claim = onlyClaim();
      await fake.losePod(claim.sandbox);
      const text = await typeUntil(daemon, sessionId, "", "session has ended");
      expect(text).toContain(
        `the sandbox pod ${claim.sandbox} is gone (SandboxClaim ${claim.name}: Ready=False`,
      );
      expect(text).toContain("its processes ended with it");
      expect(fake.claims().map((entry) => entry.metadata.name)).not.toContain(claim.name);
      const next = await daemon.callTool("shell_command", { command: "echo again" });
      expect(textOf(next)).toContain("again");
      expect(onlyClaim().name).not.toBe(claim.name);
    }, 180_000);

    it("lets an idle claim go, and the next command says it runs in a new pod", async () => {
      writeConfig(["remote_claim_ttl_s = 2"]);
      const daemon = await conchd();
      await daemon.callTool("shell_command", { command: "true" });
      const first = onlyClaim();
      await eventually("the idle claim let go", () => fake.claims().length === 0, { timeoutMs: 60_000 });
      await fake.untilWarm("conch", 1);
      const next = await daemon.callTool("shell_command", { command: "echo again" });
      expect(textOf(next)).toContain("again");
      expect(textOf(next)).toContain(
        "the pod of this workspace's earlier commands was let go after 2 s with nothing running there (remote_claim_ttl_s), and the files in it with it; this command runs in a new pod",
      );
      expect(onlyClaim().name).not.toBe(first.name);
    }, 180_000);

    it("runs nothing where the pod can sandbox nothing, unless the pod is the sandbox by choice", async () => {
      await podsOf("bare");
      writeConfig();
      const refused = await conchd();
      const denied = await refused.callTool("shell_command", { command: "echo ran > ran.txt" });
      expect(textOf(denied)).toContain("can sandbox nothing there (neither bwrap nor Landlock works)");
      expect(textOf(denied)).toContain("remote_pod_is_sandbox = true");
      expect(existsSync(join(workspace.cwd, "ran.txt"))).toBe(false);
      await refused.close();
      daemons.splice(0);

      writeConfig(["remote_pod_is_sandbox = true"]);
      const allowed = await conchd();
      const ran = await allowed.callTool("shell_command", {
        command: "echo ran > ran.txt; echo sandbox=${CONCH_SANDBOX:-none}",
      });
      expect(textOf(ran)).toContain("sandbox=none");
      expect(ran.structuredContent).toMatchObject({ sandbox: "pod", exit_code: 0 });
      expect(textOf(ran)).toMatch(
        /Ran on agent \S+ at SandboxClaim \S+ \(namespace conch\); the pod is the sandbox: neither bwrap nor Landlock can run there, so commands run without a sandbox of their own \(config remote_pod_is_sandbox\)\./,
      );
      expect(readFileSync(join(workspace.cwd, "ran.txt"), "utf8")).toBe("ran\n");
      // A session's every result says it, not only its start's.
      const shell = await openShell(allowed);
      const typed = await allowed.callTool("write_stdin", {
        session_id: shell,
        chars: "echo hi\n",
        yield_time_ms: 1000,
      });
      expect(textOf(typed)).toContain(
        "The pod is the sandbox: neither bwrap nor Landlock can run there, so commands run without a sandbox of their own (config remote_pod_is_sandbox).",
      );
    }, 180_000);

    it("does not make the pod the sandbox for an agent that runs as root there", async () => {
      await podsOf("bare-root");
      writeConfig(["remote_pod_is_sandbox = true"]);
      const daemon = await conchd();
      const refused = await daemon.callTool("shell_command", { command: "echo ran > ran.txt" });
      expect(textOf(refused)).toContain(
        "the pod is the sandbox only for an agent that does not run as root there",
      );
      expect(existsSync(join(workspace.cwd, "ran.txt"))).toBe(false);
    }, 180_000);
  },
);
