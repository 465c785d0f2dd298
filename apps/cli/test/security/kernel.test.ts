// Issue 10, items 8, 9 and 10 and the syscall filter, end to end: a tool call through the real CLI, in
// real bwrap, trying what a hostile command would. (sandbox-linux's own tests try every variant one by
// one; these check that the CLI's path gets the same sandbox.)
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { describeWith, itWith } from "@conch/test-config";
import { afterEach, beforeEach, expect, it } from "vitest";
import { BIN, toolCall, type Workspace, workspace } from "./harness.js";

let ws: Workspace;
beforeEach(() => {
  ws = workspace();
});
afterEach(() => ws.cleanup());

describeWith("bwrap", "the kernel surface a sandboxed command sees", () => {
  it("a root caller keeps no capability inside (item 9)", () => {
    const call = toolCall(ws, "shell_command", {
      command: "grep -E '^Cap(Eff|Prm|Amb|Bnd)' /proc/self/status",
    });
    expect(call.text).toContain("CapEff:\t0000000000000000");
    expect(call.text).toContain("CapPrm:\t0000000000000000");
    expect(call.text).toContain("CapBnd:\t0000000000000000");
  });

  it("descriptors the caller inherited do not reach the command (item 10)", async () => {
    const leaked = join(ws.base, "leaked.txt");
    writeFileSync(leaked, "");
    const args = JSON.stringify({
      command: "ls /proc/self/fd | tr '\\n' ' '; echo; echo pwned >&200; echo pwned >&201",
    });
    // The calling shell leaves 200 and 201 open (no close-on-exec), as an IDE or an MCP client might.
    const script = 'exec 200>>"$1" 201>>"$1"; shift; exec "$@"';
    const child = spawn(
      "bash",
      ["-c", script, "bash", leaked, process.execPath, BIN, "tool", "call", "--json", "shell_command", args],
      { cwd: ws.cwd, env: ws.env, stdio: ["ignore", "pipe", "pipe"] },
    );
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    await new Promise((resolve) => child.once("close", resolve));
    const text = (JSON.parse(stdout) as { text: string }).text;
    // 0, 1, 2, and the descriptor `ls` opened to read the directory.
    expect(text).toMatch(/Output:\n0 1 2 3 \n/);
    expect(text).toContain("Bad file descriptor");
    expect(readFileSync(leaked, "utf8")).toBe("");
  });

  itWith("python3", "with network off no unix socket on the host can be reached (item 8)", async () => {
    const stream = join(ws.outside, "stream.sock");
    const dgram = join(ws.outside, "dgram.sock");
    let connections = 0;
    const server: Server = createServer((socket) => {
      connections += 1;
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(stream, resolve));
    // A host datagram socket (docker.sock's kind of neighbour, or journald's), counting what arrives.
    const receiver = spawn("python3", [
      "-c",
      [
        "import socket, sys",
        "s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); s.bind(sys.argv[1]); s.settimeout(0.5)",
        "print('ready', flush=True)",
        "n = 0",
        "while True:",
        "    try: s.recv(64); n += 1",
        "    except socket.timeout:",
        "        if sys.stdin.readline() == '': break",
        "print(n, flush=True)",
      ].join("\n"),
      dgram,
    ]);
    let received = "";
    receiver.stdout.on("data", (chunk: Buffer) => {
      received += chunk.toString();
    });
    await new Promise<void>((resolve) => receiver.stdout.once("data", () => resolve()));
    try {
      const probe = [
        "import socket, array",
        `targets = (${JSON.stringify(stream)}, ${JSON.stringify(dgram)})`,
        "for path in targets:",
        "    for kind in (socket.SOCK_STREAM, socket.SOCK_DGRAM, socket.SOCK_SEQPACKET):",
        "        try:",
        "            s = socket.socket(socket.AF_UNIX, kind); s.connect(path); print('connected', path, kind)",
        "        except OSError as e: print('refused', kind, e.errno)",
        "for kind in range(1, 11):",
        "    try:",
        "        a, b = socket.socketpair(socket.AF_UNIX, kind)",
        "    except OSError as e:",
        "        print('refused pair', kind, e.errno); continue",
        "    for send in (lambda: a.sendto(b'x', targets[1]),",
        "                 lambda: a.sendmsg([b'x'], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array('i', [0]))], 0, targets[1])):",
        "        try: send()",
        "        except OSError as e: print('refused send', kind, e.errno)",
      ].join("\n");
      const call = toolCall(ws, "shell", { command: ["python3", "-c", probe] });
      expect(call.text).not.toContain("connected");
      expect(call.text).toContain("refused pair 2 1");
      expect(call.text).toContain("refused pair 3 1");
    } finally {
      receiver.stdin.end();
      await new Promise((resolve) => receiver.once("close", resolve));
      await new Promise((resolve) => server.close(resolve));
    }
    expect(connections).toBe(0);
    expect(received).toBe("ready\n0\n");
  });

  it("no new namespaces, mounts, keyrings or BPF inside", () => {
    const call = toolCall(ws, "shell_command", {
      command: [
        "unshare -U true && echo userns-ok",
        "unshare -n true && echo netns-ok",
        "mount -t tmpfs none /tmp && echo mount-ok",
        "umount /proc && echo umount-ok",
        "keyctl show @u >/dev/null 2>&1 && echo keyctl-ok",
        "echo done",
      ].join("; "),
    });
    expect(call.text).toContain("done");
    for (const ok of ["userns-ok", "netns-ok", "mount-ok", "umount-ok", "keyctl-ok"])
      expect(call.text).not.toContain(ok);
  });
});
