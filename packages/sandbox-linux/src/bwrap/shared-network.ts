// The network namespace a workspace's commands share when the network is not the host's: nothing in it
// routes out, its loopback is the commands' own (a server one command starts answers another), and the
// host's listeners are out of reach. A small holder process keeps it: `unshare` makes it (with a user
// namespace of its own unless the caller is root), brings its loopback up, and runs a relay of Conch's
// in it, which opens listeners there on request and hands them to this process over an IPC channel. A
// command joins the namespace with `nsenter` before bwrap starts, and reaches the proxy through a
// listener of its own (`listen`).
import { type ChildProcess, spawn } from "node:child_process";
import type { Server } from "node:net";
import { SandboxError } from "@conch/sandbox-core";
import { findProgram } from "./find-program.js";

// The relay: runs in the namespace, as Conch's own code, outside any sandbox. It opens a listener on a
// free loopback port for each request, hands it over (SCM_RIGHTS) and closes its own copy, so only this
// process accepts on it; it exits when this process goes.
const RELAY = `
const net = require("net");
process.on("message", (m) => {
  if (!m || m.t !== "listen") return;
  const server = net.createServer();
  server.on("error", (e) => process.send({ t: "error", id: m.id, message: String(e && e.message) }));
  server.listen(0, "127.0.0.1", () => {
    process.send({ t: "listening", id: m.id, port: server.address().port }, server, () => server.close());
  });
});
process.on("disconnect", () => process.exit(0));
process.send({ t: "ready", pid: process.pid });
`;

// How long the holder may take to start, and a listener to open.
const START_TIMEOUT_MS = 10_000;
const LISTEN_TIMEOUT_MS = 5_000;

const FIX =
  "install util-linux (unshare, nsenter) and iproute2 (ip): `apt-get install util-linux iproute2`, `dnf install util-linux iproute`, `pacman -S util-linux iproute2`";

interface Message {
  readonly t: string;
  readonly id?: number;
  readonly pid?: number;
  readonly port?: number;
  readonly message?: string;
}

/** A workspace's shared network namespace, running; `start` makes one. */
export class SharedNetwork {
  readonly #child: ChildProcess;
  readonly #pid: number;
  readonly #nsenter: string;
  #next = 0;
  readonly #waiting = new Map<
    number,
    { resolve: (server: Server) => void; reject: (error: Error) => void }
  >();
  #gone: Error | null = null;

  private constructor(child: ChildProcess, pid: number, nsenter: string) {
    this.#child = child;
    this.#pid = pid;
    this.#nsenter = nsenter;
    child.on("message", (message: Message, handle: unknown) => this.#answer(message, handle));
    child.on("disconnect", () =>
      this.#fail(new Error("the process holding the shared network namespace exited")),
    );
  }

  /**
   * Starts the holder; throws SANDBOX_UNAVAILABLE, saying why and how to fix it, when it cannot (no
   * unshare, nsenter or ip; no user namespaces). Nothing runs without it.
   */
  static async start(env: Readonly<Record<string, string | undefined>>): Promise<SharedNetwork> {
    const unshare = findProgram("unshare", env);
    const nsenter = findProgram("nsenter", env);
    const ip = findProgram("ip", env);
    const missing = [
      unshare === null ? "unshare" : null,
      nsenter === null ? "nsenter" : null,
      ip === null ? "ip" : null,
    ].filter((name) => name !== null);
    if (unshare === null || nsenter === null || ip === null) {
      throw new SandboxError(
        "SANDBOX_UNAVAILABLE",
        `cannot sandbox: the shared network namespace needs ${missing.join(", ")}, which is not installed; fix: ${FIX}`,
      );
    }
    const root = process.getuid?.() === 0;
    const namespaces = root ? ["--net"] : ["--user", "--map-root-user", "--net"];
    // Started in the background of a shell that exits at once: the holder is no descendant of this
    // process (whose process tree is its commands'), in a session of its own, and still ends with it
    // (its IPC channel closes, and it exits).
    const child = spawn(
      "/bin/sh",
      [
        "-c",
        '"$@" & exit 0',
        "sh",
        unshare,
        ...namespaces,
        "--",
        "/bin/sh",
        "-c",
        '"$0" link set lo up && exec "$1" -e "$2"',
        ip,
        process.execPath,
        RELAY,
      ],
      {
        stdio: ["ignore", "ignore", "pipe", "ipc"],
        // Conch's own code: no extra CA file to read at each start, nothing of the caller's Node options.
        env: { PATH: "/usr/bin:/bin" },
        detached: true,
      },
    );
    let stderr = "";
    child.stderr?.on("data", (data: Buffer) => {
      stderr = (stderr + data.toString()).slice(-2000);
    });
    const ready = await new Promise<Message | Error>((resolve) => {
      const timer = setTimeout(
        () => resolve(new Error(`no answer within ${START_TIMEOUT_MS / 1000} s`)),
        START_TIMEOUT_MS,
      );
      child.once("message", (message: Message) => {
        clearTimeout(timer);
        resolve(message);
      });
      child.once("error", (error) => {
        clearTimeout(timer);
        resolve(error);
      });
      // The shell exits at once; the holder it left in the background answers, or its channel closes.
      child.once("disconnect", () => {
        clearTimeout(timer);
        resolve(new Error(`it exited: ${stderr.trim() || "no output"}`));
      });
    });
    if (ready instanceof Error || ready.t !== "ready" || typeof ready.pid !== "number") {
      if (child.connected) child.disconnect();
      const why = ready instanceof Error ? ready.message : `it said ${JSON.stringify(ready)}`;
      throw new SandboxError(
        "SANDBOX_UNAVAILABLE",
        `cannot sandbox: the shared network namespace did not start (${why}); fix: ${FIX}, and allow user namespaces`,
      );
    }
    // It must not keep Conch alive, and it ends with it (its IPC channel closes).
    child.unref();
    (child.channel as { unref?: () => void } | undefined)?.unref?.();
    child.stderr?.removeAllListeners("data");
    child.stderr?.destroy();
    return new SharedNetwork(child, ready.pid, nsenter);
  }

  /**
   * What starts a program in the namespace: root enters the network namespace only; anyone else its user
   * namespace too (whose root they are there), keeping their own credentials.
   */
  enter(): string[] {
    const ns = `/proc/${this.#pid}/ns`;
    return process.getuid?.() === 0
      ? [this.#nsenter, `--net=${ns}/net`, "--"]
      : [this.#nsenter, `--user=${ns}/user`, `--net=${ns}/net`, "--preserve-credentials", "--"];
  }

  /** A new listener on a free loopback port inside the namespace, accepted by this process. */
  listen(): Promise<Server> {
    if (this.#gone !== null) return Promise.reject(this.#gone);
    const id = ++this.#next;
    return new Promise<Server>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiting.delete(id);
        reject(new Error(`no listener within ${LISTEN_TIMEOUT_MS / 1000} s`));
      }, LISTEN_TIMEOUT_MS);
      this.#waiting.set(id, {
        resolve: (server) => {
          clearTimeout(timer);
          resolve(server);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
      this.#child.send({ t: "listen", id }, (error) => {
        if (error) this.#waiting.get(id)?.reject(error);
      });
    });
  }

  /** Stops the holder: the namespace goes once the last command in it has ended. */
  close(): void {
    if (this.#child.connected) this.#child.disconnect();
  }

  #answer(message: Message, handle: unknown): void {
    const waiter = message.id === undefined ? undefined : this.#waiting.get(message.id);
    if (waiter === undefined || message.id === undefined) return;
    this.#waiting.delete(message.id);
    if (message.t === "listening" && handle !== undefined && typeof (handle as Server).on === "function") {
      waiter.resolve(handle as Server);
    } else {
      waiter.reject(new Error(message.message ?? "the relay sent no listener"));
    }
  }

  #fail(error: Error): void {
    this.#gone = error;
    for (const waiter of this.#waiting.values()) waiter.reject(error);
    this.#waiting.clear();
  }
}
