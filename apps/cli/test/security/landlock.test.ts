// Conch where bubblewrap cannot make its namespaces: the real `conch` binary run inside `bwrap
// --unshare-user --disable-userns` (user.max_user_namespaces=0 there, as on a hardened host or in a
// container), where `sandbox_backend = "auto"` falls back to Landlock. Each promise is attempted by a
// real command and checked on the host; run as root and, by test-unprivileged.mjs, as uid 65534.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { describeWith } from "@conch/test-config";
import { afterEach, beforeEach, expect, it } from "vitest";
import { BIN, userConfig, type Workspace, workspace } from "./harness.js";

let ws: Workspace;
beforeEach(() => {
  ws = workspace();
  mkdirSync(join(ws.home, ".ssh"), { recursive: true });
  writeFileSync(join(ws.home, ".ssh", "id_rsa"), "PRIVATE KEY");
  writeFileSync(join(ws.outside, "keep.txt"), "host file");
  execFileSync("git", ["init", "-q", ws.cwd]);
});
afterEach(() => ws.cleanup());

/** `conch ARGS` where no user namespace can be made (bwrap's --disable-userns around it). */
function conchWithoutUserns(args: readonly string[]): {
  status: number | null;
  stdout: string;
  stderr: string;
} {
  const run = spawnSync(
    "bwrap",
    [
      "--dev-bind",
      "/",
      "/",
      "--unshare-user",
      "--disable-userns",
      "--die-with-parent",
      "--",
      process.execPath,
      BIN,
      ...args,
    ],
    { cwd: ws.cwd, env: ws.env, encoding: "utf8", timeout: 60_000 },
  );
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

function shell(command: string): { text: string; result: Record<string, unknown> } {
  const run = conchWithoutUserns([
    "tool",
    "call",
    "--approver",
    "deny",
    "--json",
    "shell_command",
    JSON.stringify({ command }),
  ]);
  if (run.stdout === "") throw new Error(`conch printed nothing (exit ${run.status}): ${run.stderr}`);
  return JSON.parse(run.stdout) as { text: string; result: Record<string, unknown> };
}

describeWith(
  ["linux", "bwrap", "landlock", "git", "python3"],
  "without user namespaces: the Landlock fallback",
  () => {
    it("conch sandbox --check names the cause, the fix, and what Landlock does and does not do", () => {
      const run = conchWithoutUserns(["sandbox", "--check"]);
      expect(run.status).toBe(0);
      expect(run.stdout).toMatch(
        /conch sandbox: bwrap cannot run here: .*no more user namespaces may be made here.*\(fix: /,
      );
      expect(run.stdout).toContain(
        'conch sandbox: landlock runs commands here (sandbox_backend = "auto", as the fallback)',
      );
      expect(run.stdout).toMatch(/Landlock ABI \d+: writes only in the writable roots/);
      expect(run.stdout).toContain("no private /tmp");
      expect(run.stdout).toContain("conch sandbox: landlock works here (Landlock and seccomp)");
    });

    it("a tool call runs under Landlock and says so; writes land only in the workspace", () => {
      mkdirSync(join(ws.cwd, "src"));
      const call = shell(
        [
          "echo $CONCH_SANDBOX",
          "echo ok > src/a.txt && mkdir -p src/deep && echo wrote-src",
          `echo x > ${ws.outside}/new.txt || echo denied-outside`,
          `mv ${ws.outside}/keep.txt ${ws.outside}/moved.txt || echo denied-move`,
          `echo x > ${ws.home}/.bashrc || echo denied-home`,
          "echo x > /tmp/conch-landlock-host.txt || echo denied-tmp",
          "exit 1",
        ].join("; "),
      );
      expect(call.result.sandbox).toBe("landlock");
      expect(call.text).toContain("landlock\n");
      expect(call.text).toContain("wrote-src");
      expect(call.text).toContain("denied-outside");
      expect(call.text).toContain("denied-move");
      expect(call.text).toContain("denied-home");
      expect(call.text).toContain("denied-tmp");
      // Said as what they were: writes to read-only places, not reads.
      expect(call.text).toMatch(
        /read-only in the sandbox: only .* and \$TMPDIR \(not \/tmp, under the Landlock sandbox\) are writable/,
      );
      expect(call.text).not.toContain("not readable in the sandbox");
      expect(readFileSync(join(ws.cwd, "src", "a.txt"), "utf8")).toBe("ok\n");
      expect(readdirSync(ws.outside)).toEqual(["keep.txt"]);
      expect(existsSync(join(ws.home, ".bashrc"))).toBe(false);
      expect(existsSync("/tmp/conch-landlock-host.txt")).toBe(false);
    });

    it("a new entry at the top of a workspace that holds .git is refused, and the model is told why", () => {
      const call = shell("echo made > made.txt");
      expect(call.text).toContain("made.txt: Permission denied");
      expect(call.text).toContain(
        "under the Landlock sandbox (this host cannot run bwrap) nothing can be made",
      );
      expect(existsSync(join(ws.cwd, "made.txt"))).toBe(false);
    });

    it("keeps .git's hooks and config read-only, and ~/.ssh unreadable", () => {
      const before = readFileSync(join(ws.cwd, ".git", "config"), "utf8");
      const call = shell(
        [
          "echo 'touch /var/tmp/pwned' > .git/hooks/post-checkout || echo denied-hook",
          "git config core.fsmonitor 'touch /var/tmp/pwned' || echo denied-config",
          `cat ${ws.home}/.ssh/id_rsa || echo denied-key`,
        ].join("; "),
      );
      expect(call.text).toContain("denied-hook");
      expect(call.text).toContain("denied-config");
      expect(call.text).toContain("denied-key");
      expect(call.text).not.toContain("PRIVATE KEY");
      expect(readFileSync(join(ws.cwd, ".git", "config"), "utf8")).toBe(before);
      expect(existsSync(join(ws.cwd, ".git", "hooks", "post-checkout"))).toBe(false);
    });

    it("reaches no server on this host's loopback", async () => {
      const server = createServer((socket) => socket.end("SECRET FROM THE HOST\n"));
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      const port = (server.address() as { port: number }).port;
      try {
        const call = shell(
          `python3 -c 'import socket; print(socket.create_connection(("127.0.0.1", ${port}), 2).recv(99))' 2>&1 | tail -1`,
        );
        expect(call.text).not.toContain("SECRET FROM THE HOST");
        expect(call.text).toMatch(/PermissionError|Operation not permitted/);
      } finally {
        server.close();
      }
    });

    it('sandbox_backend = "bwrap" refuses rather than fall back, with the cause', () => {
      userConfig(ws, ['sandbox_backend = "bwrap"']);
      const run = conchWithoutUserns(["run", "--", "true"]);
      expect(run.status).toBe(3);
      expect(run.stderr).toContain("no more user namespaces may be made here");
    });
  },
);
