import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import type { Writable } from "node:stream";
import {
  isLikelySandboxDenied,
  resolveSandboxPolicy,
  type SandboxPolicy,
  type SpawnSpec,
} from "@conch/sandbox-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLinuxBackend } from "../src/index.js";

// Real bwrap, real seccomp. Fixtures live under /var/tmp: /tmp is a writable root of workspace-write.
const backend = createLinuxBackend();
const works = process.platform === "linux" && (await backend.available()).available;

function start(spec: SpawnSpec): ChildProcess {
  const [file, ...args] = spec.argv as [string, ...string[]];
  const child = spawn(file, args, {
    cwd: spec.cwd,
    env: spec.env,
    stdio: ["ignore", "pipe", "pipe", ...spec.extraFds.map(() => "pipe" as const)],
  });
  spec.extraFds.forEach((data, i) => {
    (child.stdio[3 + i] as Writable).end(data);
  });
  return child;
}

async function sandboxed(
  policy: SandboxPolicy,
  cwd: string,
  script: string,
  env: Record<string, string> = {},
): Promise<{ code: number | null; output: string }> {
  const rules = resolveSandboxPolicy(policy, { cwd });
  const spec = await backend.transform(
    { argv: ["bash", "-c", script], cwd, env: { PATH: process.env.PATH ?? "", ...env }, extraFds: [] },
    rules,
  );
  const child = start(spec);
  let output = "";
  child.stdout?.on("data", (d: Buffer) => (output += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (output += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  return { code, output };
}

describe.runIf(works)("bwrap backend, workspace-write without network", () => {
  let base: string;
  let ws: string;
  let outside: string;
  let server: Server;
  let port: number;
  let connections = 0;
  const policy: SandboxPolicy = { mode: "workspace-write" };

  beforeAll(async () => {
    base = mkdtempSync("/var/tmp/conch-bwrap-");
    ws = join(base, "ws");
    outside = join(base, "outside");
    mkdirSync(ws);
    mkdirSync(outside);
    writeFileSync(join(outside, "target"), "original");
    execFileSync("git", ["init", "-q", ws]);
    execFileSync("git", [
      "-C",
      ws,
      "-c",
      "user.email=a@b",
      "-c",
      "user.name=a",
      "commit",
      "-q",
      "--allow-empty",
      "-m",
      "x",
    ]);
    server = createServer((socket) => {
      connections++;
      socket.end("hello\n");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    rmSync(base, { recursive: true, force: true });
  });

  it("writes in the workspace and in /tmp", async () => {
    const tmpFile = `/tmp/conch-bwrap-${process.pid}`;
    const result = await sandboxed(policy, ws, `echo ok > inside && echo ok > ${tmpFile} && cat inside`);
    expect(result).toEqual({ code: 0, output: "ok\n" });
    expect(readFileSync(tmpFile, "utf8")).toBe("ok\n");
    rmSync(tmpFile);
  });

  it.each([
    ["a file outside the writable roots", () => `echo x > ${join(outside, "target")}`],
    ["a new file outside", () => `echo x > ${join(outside, "new")}`],
    ["through a symlink in the workspace", () => `ln -s ${outside} link && echo x > link/target`],
    ["by renaming the directory holding the target", () => `mv ${outside} ${join(ws, "moved")}`],
    ["through a hard link", () => `ln ${join(outside, "target")} hard && echo x > hard`],
    ["through /proc/self/root", () => `echo x > /proc/self/root${join(outside, "target")}`],
    [".git/config", () => "echo x >> .git/config"],
    [".git/hooks/pre-commit", () => "echo x > .git/hooks/pre-commit"],
    ["deleting .git/HEAD", () => "rm -f .git/HEAD"],
    ["creating .conch in the cwd", () => "mkdir -p .conch/x"],
  ])("refuses to write %s, leaving the host unchanged", async (_name, script) => {
    const before = readdirSync(outside).sort();
    const result = await sandboxed(policy, ws, script());
    expect(result.code).not.toBe(0);
    expect(result.output).toMatch(
      /Read-only file system|Operation not permitted|Permission denied|Invalid cross-device link/,
    );
    expect(readFileSync(join(outside, "target"), "utf8")).toBe("original");
    expect(readdirSync(outside).sort()).toEqual(before);
    expect(existsSync(join(ws, ".git", "HEAD"))).toBe(true);
    expect(existsSync(join(ws, ".git", "hooks", "pre-commit"))).toBe(false);
  });

  it("protects the real gitdir of a worktree whose .git is a gitdir: pointer", async () => {
    const worktree = join(base, "worktree");
    execFileSync("git", ["-C", ws, "worktree", "add", "-q", worktree]);
    const gitdir = readFileSync(join(worktree, ".git"), "utf8")
      .trim()
      .replace(/^gitdir: /, "");
    const before = readFileSync(join(ws, ".git", "config"), "utf8");
    // The main repository is writable too, so only the protection of its .git stands in the way.
    const both: SandboxPolicy = { mode: "workspace-write", writableRoots: [ws] };
    for (const script of [
      `echo x >> ${join(gitdir, "HEAD")}`,
      "echo x >> .git",
      `echo x >> ${join(ws, ".git", "config")}`,
      "touch ../ws/.git/hooks/x",
    ]) {
      const result = await sandboxed(both, worktree, script);
      expect(result.code, script).not.toBe(0);
      expect(result.output, script).toMatch(/Read-only file system/);
    }
    expect(readFileSync(join(ws, ".git", "config"), "utf8")).toBe(before);
    expect(existsSync(join(ws, ".git", "hooks", "x"))).toBe(false);
    const ok = await sandboxed(
      both,
      worktree,
      `echo fine > work.txt && echo fine > ${join(ws, "main.txt")} && cat work.txt`,
    );
    expect(ok).toEqual({ code: 0, output: "fine\n" });
  });

  it("cannot move the workspace aside to plant a new .git where it was", async () => {
    const nested: SandboxPolicy = { mode: "workspace-write", writableRoots: [base] };
    const before = readFileSync(join(ws, ".git", "config"), "utf8");
    const result = await sandboxed(
      nested,
      ws,
      'cd .. && mv ws ws-old && mkdir -p ws/.git && echo "[core] fsmonitor=x" > ws/.git/config',
    );
    expect(result.code).not.toBe(0);
    expect(result.output).toMatch(/busy/i);
    expect(readFileSync(join(ws, ".git", "config"), "utf8")).toBe(before);
    expect(existsSync(join(base, "ws-old"))).toBe(false);
  });

  it("cannot create a user namespace inside the sandbox", async () => {
    const result = await sandboxed(policy, ws, "unshare -Ur true");
    expect(result.code).not.toBe(0);
  });

  it("says a denied write is a sandbox denial", async () => {
    const result = await sandboxed(policy, ws, `echo x > ${join(outside, "target")}`);
    expect(isLikelySandboxDenied(result.code, result.output)).toBe(true);
  });

  it("runs git status and git log in the repository", async () => {
    const result = await sandboxed(
      policy,
      ws,
      "git status --porcelain > /dev/null && git log --oneline | wc -l",
    );
    expect(result).toEqual({ code: 0, output: "1\n" });
  });

  it("cannot reach a TCP listener on the host's loopback, nor resolve names", async () => {
    const result = await sandboxed(policy, ws, `exec 3<>/dev/tcp/127.0.0.1/${port}`);
    expect(result.code).not.toBe(0);
    expect(result.output).toMatch(/Connection refused|Network is unreachable/);
    expect(connections).toBe(0);
    const dns = await sandboxed(policy, ws, "getent hosts registry.npmjs.org");
    expect(dns.code).not.toBe(0);
  });

  it("reaches the host listener with network access", async () => {
    const result = await sandboxed(
      { mode: "workspace-write", networkAccess: true },
      ws,
      `exec 3<>/dev/tcp/127.0.0.1/${port}; cat <&3`,
    );
    expect(result).toEqual({ code: 0, output: "hello\n" });
  });

  it("marks the child's environment", async () => {
    const result = await sandboxed(policy, ws, 'echo "$CONCH_SANDBOX $CONCH_SANDBOX_NETWORK_DISABLED"');
    expect(result.output).toBe("bwrap 1\n");
  });

  it("reads anywhere but writes nowhere under read-only", async () => {
    const result = await sandboxed(
      { mode: "read-only" },
      ws,
      `cat ${join(outside, "target")} && echo x > inside-ro`,
    );
    expect(result.code).not.toBe(0);
    expect(result.output).toMatch(/^original.*Read-only file system/s);
    expect(existsSync(join(ws, "inside-ro"))).toBe(false);
  });

  it("leaves nothing behind when the sandbox is killed", async () => {
    const token = `conch-left-${process.pid}-${Date.now()}`;
    const rules = resolveSandboxPolicy(policy, { cwd: ws });
    const spec = await backend.transform(
      {
        argv: ["sh", "-c", "setsid sleep 300 & (sleep 301 &) ; echo started; sleep 302"],
        cwd: ws,
        env: { PATH: process.env.PATH ?? "", LEFT_TOKEN: token },
        extraFds: [],
      },
      rules,
    );
    const child = start(spec);
    await new Promise<void>((resolve) => child.stdout?.on("data", () => resolve()));
    child.kill("SIGKILL");
    await new Promise((resolve) => child.on("close", resolve));
    const alive = (): number[] =>
      readdirSync("/proc")
        .filter((name) => /^\d+$/.test(name))
        .filter((pid) => {
          try {
            const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
            if (stat.charAt(stat.lastIndexOf(")") + 2) === "Z") return false;
            return readFileSync(`/proc/${pid}/environ`, "latin1").includes(`LEFT_TOKEN=${token}`);
          } catch {
            return false;
          }
        })
        .map(Number);
    for (let i = 0; i < 50 && alive().length > 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(alive()).toEqual([]);
  });
});
