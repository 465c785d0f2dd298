// Issue 28: conchd with `remote = "podman"`: one container per workspace, made from a root file system
// this test builds (no registry: the host's /usr and this repository bound read-only), no network, the
// agent inside with real bwrap. Commands run in the container, under its sandbox, and say so; conchd
// killed with SIGKILL mid-output and started again finds the same container and the same shell.
import { execFileSync } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describeWith } from "@conch/test-config";
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

// The agent app's bin (built first: turbo.json's test task depends on @conch/agent#build), and the
// repository it runs from (its node_modules), bound read-only into the container.
const AGENT = fileURLToPath(new URL("../../agent/dist/bin.js", import.meta.url));
// apps/agent/dist/bin.js -> the repository's root, whose node_modules the agent's packages resolve in.
const REPO = dirname(dirname(dirname(dirname(AGENT))));
const MARKER = "conch-rootfs-marker";

let workspace: Workspace;
let rootfs: string;
const daemons: Connection[] = [];
const containers = new Set<string>();

function podman(...args: string[]): string {
  return execFileSync("podman", args, { encoding: "utf8", timeout: 60_000 }).trim();
}

/** A root file system with nothing of its own but a marker: the host's /usr comes in read-only. */
function buildRootfs(dir: string): void {
  for (const sub of ["usr", "etc", "tmp", "proc", "dev", "sys", "run", "var/tmp", "root"]) {
    mkdirSync(join(dir, sub), { recursive: true });
  }
  for (const link of ["bin", "lib", "lib64", "sbin"]) symlinkSync(`usr/${link}`, join(dir, link));
  for (const file of ["passwd", "group"]) writeFileSync(join(dir, "etc", file), readFileSync(`/etc/${file}`));
  writeFileSync(join(dir, "etc", MARKER), "made by the test\n");
}

beforeEach(() => {
  workspace = makeWorkspace("/var/tmp");
  rootfs = join(dirname(workspace.cwd), "rootfs");
  buildRootfs(rootfs);
  const remote = join(workspace.env.XDG_STATE_HOME as string, "conch/remote");
  mkdirSync(remote, { recursive: true, mode: 0o700 });
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  writeFileSync(join(remote, "binding.key"), privateKey.export({ type: "pkcs8", format: "pem" }), {
    mode: 0o600,
  });
  writeFileSync(join(remote, "binding.pub"), publicKey.export({ type: "spki", format: "pem" }));
  // Node itself: /usr/bin/node here, or (the Node 24 pass) a directory of its own.
  const nodeHome = dirname(dirname(process.execPath));
  const mounts = ["/usr", REPO, ...(nodeHome === "/usr" ? [] : [nodeHome])];
  const config = join(workspace.env.XDG_CONFIG_HOME as string, "conch");
  mkdirSync(config, { recursive: true });
  writeFileSync(
    join(config, "config.toml"),
    [
      'approval_policy = "never"',
      'remote = "podman"',
      `remote_rootfs = ${JSON.stringify(rootfs)}`,
      `remote_mounts = ${JSON.stringify(mounts)}`,
      `remote_agent_command = ${JSON.stringify([process.execPath, AGENT])}`,
      'remote_agent_id = "pod-test"',
    ].join("\n"),
  );
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
  // Every container made for this test's workspace, found by its label (a failed test's too).
  const made = podman("ps", "-a", "-q", "--filter", `label=conch.workspace=${workspace.cwd}`).split("\n");
  for (const name of [...containers, ...made].filter((entry) => entry !== "")) {
    try {
      podman("rm", "-f", "-t", "0", name);
    } catch {
      // Gone.
    }
  }
  containers.clear();
  workspace.remove();
});

async function conchd(): Promise<Connection> {
  const daemon = await connect("v2 (2025-11-25)", workspace, [], { timeoutMs: 90_000 });
  daemons.push(daemon);
  return daemon;
}

/** The container conchd made for this workspace (by the label it puts on it). */
function ourContainer(): { name: string; id: string; network: string } {
  const line = podman(
    "ps",
    "--filter",
    `label=conch.workspace=${workspace.cwd}`,
    "--format",
    "{{.Names}} {{.ID}}",
  )
    .split("\n")
    .find((entry) => entry !== "");
  const [name, id] = (line ?? "").split(" ") as [string, string];
  containers.add(name);
  return { name, id, network: podman("inspect", "--format", "{{.HostConfig.NetworkMode}}", name) };
}

describeWith(["linux", "bwrap", "pty", "bash", "podman"], "conchd with remote = podman", () => {
  it("runs commands in the workspace's container, without network, under bwrap there", async () => {
    const daemon = await conchd();
    const ran = await daemon.callTool("shell_command", {
      command: `cat /etc/${MARKER}; echo sandbox=$CONCH_SANDBOX; echo made > inside.txt`,
    });
    const container = ourContainer();
    expect(textOf(ran)).toContain("made by the test");
    expect(textOf(ran)).toContain("sandbox=bwrap");
    expect(textOf(ran)).toContain(`Ran on agent pod-test at podman container ${container.name}.`);
    expect(ran.structuredContent).toMatchObject({ sandbox: "podman", exit_code: 0 });
    expect(container.network).toBe("none");
    // The workspace is the host's, bound in: what the command wrote is here; outside it, nothing is.
    expect(readFileSync(join(workspace.cwd, "inside.txt"), "utf8")).toBe("made\n");
    expect(existsSync(join("/etc", MARKER))).toBe(false);
    // The container's own root is read-only to commands too (bwrap binds it so).
    const denied = await daemon.callTool("shell_command", { command: "echo x > /etc/escaped" });
    expect(denied.structuredContent).toMatchObject({ denied: true });
    expect(existsSync(join(rootfs, "etc", "escaped"))).toBe(false);
    expect(existsSync("/etc/escaped")).toBe(false);
  }, 120_000);

  it("keeps the container and the shell through a conchd killed mid-output", async () => {
    const first = await conchd();
    const sessionId = await openShell(first);
    const before = ourContainer();
    await first.callTool("write_stdin", {
      session_id: sessionId,
      chars: "Z=kept; for i in 1 2 3 4 5 6; do echo beat-$i; sleep 0.25; done\n",
      yield_time_ms: 300,
    });
    process.kill(first.pid, "SIGKILL");
    await first.close().catch(() => {});

    const second = await conchd();
    // Polled (nothing typed) until the loop's last line came.
    const text = await typeUntil(second, sessionId, "", "beat-6", 15);
    expect(text).toContain("beat-6");
    // Remote answers settle on quiet output (no prompt to see there): polled until the answer is in.
    expect(await typeUntil(second, sessionId, "echo still-$Z\n", "still-kept")).toContain("still-kept");
    // The same container: found again by its name, not made anew.
    expect(ourContainer().id).toBe(before.id);
  }, 120_000);
});
