// Config `remote = "podman"` or `"docker"`: one container per workspace on this host, made from an image
// or (podman) a root file system built locally, the agent inside listening on a unix socket in a
// directory of conchd's state that is bound into the container. Started on first use; found again by
// its name (and its labels) when conchd restarts, so its processes are too. No network unless the
// config gives commands the host's network.
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type AgentEndpoint, RemoteError } from "@conch/sandbox-remote";
import type { RemoteSettings } from "./config/merge-config.js";

/** Where the agent's socket is inside the container, and its binding key. */
const SOCKET_DIR = "/run/conch";
const KEY_PATH = "/run/conch-key/binding.pub";
const START_TIMEOUT_MS = 30_000;

export interface ContainerOptions {
  readonly settings: RemoteSettings;
  /** `<state dir>/remote`: the socket directories live under it. */
  readonly stateDir: string;
  /** The binding key's public half on the host (bound read-only into the container). */
  readonly publicKeyPath: string;
  /** The workspace: bound read-write at the same path, and the container's working directory. */
  readonly cwd: string;
  /** Whether commands have the host's network (config `network = "on"`); none otherwise. */
  readonly network: boolean;
}

function run(
  engine: string,
  args: readonly string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      engine,
      [...args],
      { timeout: START_TIMEOUT_MS, maxBuffer: 1024 * 1024 },
      (error, stdout, stderr) => {
        const code =
          error === null
            ? 0
            : typeof (error as { code?: unknown }).code === "number"
              ? (error as { code: number }).code
              : 127;
        resolve({ code, stdout: String(stdout), stderr: String(stderr) || (error?.message ?? "") });
      },
    );
  });
}

/** This process's hard limit of `name` in /proc/self/limits ("Max open files"), or null. */
function hardLimit(name: string): number | null {
  try {
    const line = readFileSync("/proc/self/limits", "utf8")
      .split("\n")
      .find((text) => text.startsWith(name));
    const hard = line?.slice(name.length).trim().split(/\s+/)[1];
    return hard === undefined || !/^\d+$/.test(hard) ? null : Number(hard);
  } catch {
    return null;
  }
}

function pidMax(): number | null {
  try {
    const value = Number(readFileSync("/proc/sys/kernel/pid_max", "utf8").trim());
    return Number.isSafeInteger(value) && value > 0 ? value : null;
  } catch {
    return null;
  }
}

/** The container's name for this workspace: the agent id and a digest of the workspace's path. */
function containerName(agentId: string, cwd: string): string {
  const safe = agentId.replace(/[^a-zA-Z0-9_.-]/g, "_").slice(0, 40);
  return `conch-${safe}-${createHash("sha256").update(cwd).digest("hex").slice(0, 12)}`;
}

/** `engine run` arguments for the workspace's container (`detach`: as a daemon of its own). */
function containerArgs(options: ContainerOptions, name: string, socketDir: string): string[] {
  const { settings, cwd, network, publicKeyPath } = options;
  const podman = settings.engine === "podman";
  const args = [
    "run",
    "-d",
    "--name",
    name,
    "--label",
    "conch.agent=" + settings.agentId,
    "--label",
    `conch.workspace=${cwd}`,
    "--label",
    `conch.network=${network ? "on" : "none"}`,
    // No network unless commands have the host's (the allowlist proxy is conchd's, not the container's).
    ...(network ? [] : ["--network", "none"]),
    // bwrap inside needs /proc unmasked and its namespace calls; its own seccomp filter still applies
    // to every command.
    "--security-opt",
    podman ? "unmask=ALL" : "systempaths=unconfined",
    "--security-opt",
    "seccomp=unconfined",
    "--security-opt",
    podman ? "label=disable" : "apparmor=unconfined",
  ];
  // The engine's default open-files limit (1048576) may exceed what this process may set, and runc then
  // fails to start the container: this process's own hard limit instead.
  const files = hardLimit("Max open files");
  if (files !== null) args.push("--ulimit", `nofile=${files}:${files}`);
  // And processes: given one limit, podman sets the other to the host's, which runc could not set here
  // above the kernel's pid_max (measured: 32768 started, 65536 did not); the lower of the two.
  const processes = hardLimit("Max processes");
  if (processes !== null) {
    const cap = Math.min(processes, pidMax() ?? processes);
    args.push("--ulimit", `nproc=${cap}:${cap}`);
  }
  for (const mount of settings.mounts) args.push("-v", `${mount}:${mount}:ro`);
  args.push(
    "-v",
    `${socketDir}:${SOCKET_DIR}`,
    "-v",
    `${publicKeyPath}:${KEY_PATH}:ro`,
    "-v",
    `${cwd}:${cwd}`,
    "-w",
    cwd,
  );
  // podman takes a root file system in the image's place (`--rootfs DIR`).
  if (settings.rootfs !== null) args.push("--rootfs", settings.rootfs);
  else args.push(settings.image as string);
  args.push(
    ...settings.agentCommand,
    "--listen",
    `unix:${SOCKET_DIR}/agent.sock`,
    "--agent-id",
    settings.agentId,
    "--binding-key",
    KEY_PATH,
  );
  return args;
}

/**
 * The agent of the workspace's container: found running (a conchd before this one started it), or
 * started; `url()` resolves once its socket is there.
 */
export function containerEndpoint(options: ContainerOptions): AgentEndpoint {
  const { settings, stateDir, cwd, network } = options;
  const engine = settings.engine;
  const name = containerName(settings.agentId, cwd);
  const socketDir = join(stateDir, "containers", name);
  const socket = join(socketDir, "agent.sock");
  const fail = (what: string, detail: string): never => {
    throw new RemoteError("AGENT_UNREACHABLE", `the ${engine} container ${name} ${what}: ${detail.trim()}`);
  };
  return {
    where: `${engine} container ${name}`,
    async url() {
      const inspect = await run(engine, [
        "inspect",
        "--format",
        '{{.State.Running}} {{index .Config.Labels "conch.network"}}',
        name,
      ]);
      const [running, labelled] = inspect.stdout.trim().split(" ");
      const wanted = network ? "on" : "none";
      if (inspect.code === 0 && running === "true" && labelled === wanted && existsSync(socket)) {
        return `unix:${socket}`;
      }
      if (inspect.code === 0) {
        // Stopped, or made for another network: its processes are gone with it; a new one is made.
        await run(engine, ["rm", "-f", name]);
      } else if (/command not found|ENOENT|executable file not found/i.test(inspect.stderr)) {
        fail(`cannot be made: ${engine} is not installed`, `install it (apt-get install ${engine})`);
      }
      mkdirSync(socketDir, { recursive: true, mode: 0o700 });
      const started = await run(engine, containerArgs(options, name, socketDir));
      if (started.code !== 0) fail("did not start", started.stderr);
      const deadline = Date.now() + START_TIMEOUT_MS;
      while (!existsSync(socket)) {
        if (Date.now() > deadline) {
          const logs = await run(engine, ["logs", name]);
          fail("its agent never listened", `${logs.stdout}${logs.stderr}`);
        }
        const state = await run(engine, ["inspect", "--format", "{{.State.Running}}", name]);
        if (state.stdout.trim() !== "true") {
          const logs = await run(engine, ["logs", name]);
          fail("its agent exited", `${logs.stdout}${logs.stderr}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      return `unix:${socket}`;
    },
  };
}
