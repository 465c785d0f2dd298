import { execFileSync } from "node:child_process";
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
import { isLikelySandboxDenied, isSandboxError, type SandboxRules } from "@conch/sandbox-core";
import { describeWith, eventually } from "@conch/test-config";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createLinuxBackend } from "../src/index.js";
import { type Outcome, protectedIn, rules, runSandboxed, start, writableRoots } from "./sandbox-helpers.js";

// Real bwrap, real seccomp. Fixtures live under /var/tmp, outside the private /tmp the rules give.
const backend = createLinuxBackend();

describeWith("bwrap", "bwrap backend, workspace-write without network", () => {
  let base: string;
  let ws: string;
  let outside: string;
  let privateTmp: string;
  let server: Server | undefined;
  let port: number;
  let connections = 0;
  let policy: SandboxRules;
  const sh = (script: string, cwd = ws, sandboxRules = policy): Promise<Outcome> =>
    runSandboxed(backend, sandboxRules, cwd, ["bash", "-c", script]);

  beforeAll(async () => {
    base = mkdtempSync("/var/tmp/conch-bwrap-");
    ws = join(base, "ws");
    outside = join(base, "outside");
    privateTmp = join(base, "private-tmp");
    for (const dir of [ws, outside, privateTmp]) mkdirSync(dir);
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
    policy = rules({
      writableRoots: writableRoots(ws),
      tmp: { kind: "private", source: privateTmp, targets: ["/tmp"] },
    });
    const listening = createServer((socket) => {
      connections++;
      socket.end("hello\n");
    });
    server = listening;
    await new Promise<void>((resolve) => listening.listen(0, "127.0.0.1", resolve));
    port = (listening.address() as { port: number }).port;
  });
  afterAll(async () => {
    rmSync(base, { recursive: true, force: true });
    const listening = server;
    if (listening) await new Promise((resolve) => listening.close(resolve));
  });

  it("writes in the workspace and in the private /tmp, which is not the host's", async () => {
    const name = `conch-bwrap-${process.pid}`;
    const result = await sh(`echo ok > inside && echo ok > /tmp/${name} && cat inside`);
    expect(result).toEqual({ code: 0, output: "ok\n" });
    expect(readFileSync(join(privateTmp, name), "utf8")).toBe("ok\n");
    expect(existsSync(`/tmp/${name}`)).toBe(false);
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
  ])("refuses to write %s, leaving the host unchanged", async (_name, script) => {
    const before = readdirSync(outside).sort();
    const result = await sh(script());
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
    const both = rules({ writableRoots: writableRoots(worktree, ws) });
    for (const script of [
      `echo x >> ${join(gitdir, "HEAD")}`,
      "echo x >> .git",
      `echo x >> ${join(ws, ".git", "config")}`,
      "touch ../ws/.git/hooks/x",
    ]) {
      const result = await sh(script, worktree, both);
      expect(result.code, script).not.toBe(0);
      expect(result.output, script).toMatch(/Read-only file system/);
    }
    expect(readFileSync(join(ws, ".git", "config"), "utf8")).toBe(before);
    expect(existsSync(join(ws, ".git", "hooks", "x"))).toBe(false);
    const ok = await sh(
      `echo fine > work.txt && echo fine > ${join(ws, "main.txt")} && cat work.txt`,
      worktree,
      both,
    );
    expect(ok).toEqual({ code: 0, output: "fine\n" });
    rmSync(join(ws, "main.txt"));
  });

  it("cannot move the workspace aside to plant a new .git where it was", async () => {
    const nested = rules({ writableRoots: [{ root: base, readOnlySubpaths: protectedIn(ws) }] });
    const before = readFileSync(join(ws, ".git", "config"), "utf8");
    const result = await sh(
      'cd .. && mv ws ws-old && mkdir -p ws/.git && echo "[core] fsmonitor=x" > ws/.git/config',
      ws,
      nested,
    );
    expect(result.code).not.toBe(0);
    expect(result.output).toMatch(/busy/i);
    expect(readFileSync(join(ws, ".git", "config"), "utf8")).toBe(before);
    expect(existsSync(join(base, "ws-old"))).toBe(false);
  });

  it("cannot create a user or network namespace inside the sandbox", async () => {
    for (const flags of ["-Ur", "-n"]) {
      const result = await sh(`unshare ${flags} true`);
      expect(result, flags).toEqual({
        code: 1,
        output: "unshare: unshare failed: Operation not permitted\n",
      });
    }
  });

  it("holds no capabilities, even for a root caller", async () => {
    const result = await sh("grep -E '^(Cap|NoNewPrivs|Seccomp)' /proc/self/status");
    expect(result).toEqual({
      code: 0,
      output: [
        "CapInh:\t0000000000000000",
        "CapPrm:\t0000000000000000",
        "CapEff:\t0000000000000000",
        "CapBnd:\t0000000000000000",
        "CapAmb:\t0000000000000000",
        "NoNewPrivs:\t1",
        "Seccomp:\t2",
        "Seccomp_filters:\t1",
        "",
      ].join("\n"),
    });
  });

  it("refuses rules it cannot enforce, and a bwrap or bash the command could replace", async () => {
    const refusal = (sandboxRules: SandboxRules): Promise<unknown> =>
      backend.transform({ argv: ["true"], cwd: ws, env: {}, extraFds: [] }, sandboxRules).then(
        () => "transformed",
        (error: unknown) => (isSandboxError(error) ? [error.code, error.message] : error),
      );
    expect(await refusal({ ...policy, readableRoots: ["/usr"] })).toEqual([
      "SANDBOX_UNAVAILABLE",
      'cannot sandbox: the bwrap backend reads from / less hidden paths, received readable roots ["/usr"]',
    ]);
    const usr = await refusal({ ...policy, writableRoots: [{ root: "/usr", readOnlySubpaths: [] }] });
    expect(usr).toEqual([
      "SANDBOX_UNAVAILABLE",
      expect.stringMatching(
        /^cannot sandbox: \/\S+\/bwrap lies inside the writable root \/usr, where the sandboxed command could replace it$/,
      ),
    ]);
    const hidden = await refusal({ ...policy, hidden: [{ path: "/usr/bin", type: "dir", readable: [] }] });
    expect(hidden).toEqual([
      "SANDBOX_UNAVAILABLE",
      expect.stringMatching(
        /^cannot sandbox: \/\S+\/bash lies in \/usr\/bin, which the sandbox hides or replaces$/,
      ),
    ]);
  });

  it("says a denied write is a sandbox denial", async () => {
    const result = await sh(`echo x > ${join(outside, "target")}`);
    expect(isLikelySandboxDenied(result.code, result.output)).toBe(true);
  });

  it("runs git status and git log in the repository", async () => {
    const result = await sh("git status --porcelain > /dev/null && git log --oneline | wc -l");
    expect(result).toEqual({ code: 0, output: "1\n" });
  });

  it("passes the command's argv byte for byte", async () => {
    const words = ["-n", "--", "", "a b", "$HOME", `"'`, "*", "\\", "-p", "$(id)", "\n"];
    const result = await runSandboxed(backend, policy, ws, ["printf", "[%s]", ...words]);
    expect(result).toEqual({ code: 0, output: words.map((word) => `[${word}]`).join("") });
    const dashed = await runSandboxed(backend, policy, ws, ["-x"]);
    expect(dashed).toEqual({ code: 127, output: "conch: line 1: exec: -x: not found\n" });
  });

  it("cannot reach a TCP listener on the host's loopback, nor resolve names", async () => {
    const result = await sh(`exec 3<>/dev/tcp/127.0.0.1/${port}`);
    expect(result.code).not.toBe(0);
    expect(result.output).toMatch(/Connection refused|Network is unreachable/);
    expect(connections).toBe(0);
    const dns = await sh("getent hosts registry.npmjs.org");
    expect(dns.code).not.toBe(0);
  });

  it("reaches the host listener with network access", async () => {
    const result = await sh(`exec 3<>/dev/tcp/127.0.0.1/${port}; cat <&3`, ws, { ...policy, network: true });
    expect(result).toEqual({ code: 0, output: "hello\n" });
  });

  it("marks the child's environment", async () => {
    const result = await sh('echo "$CONCH_SANDBOX $CONCH_SANDBOX_NETWORK_DISABLED"');
    expect(result.output).toBe("bwrap 1\n");
  });

  it("reads anywhere but writes nowhere under read-only, with an empty /tmp of its own", async () => {
    const readOnly = rules({ mode: "read-only", tmp: { kind: "empty", targets: ["/tmp"] } });
    const scratch = `conch-scratch-${process.pid}`;
    const result = await sh(
      `cat ${join(outside, "target")} && echo x > /tmp/${scratch} && ls -A /tmp && echo x > inside-ro`,
      ws,
      readOnly,
    );
    expect(result.code).not.toBe(0);
    expect(result.output).toMatch(new RegExp(`^original${scratch}\\n.*Read-only file system`, "s"));
    expect(existsSync(join(ws, "inside-ro"))).toBe(false);
    expect(existsSync(`/tmp/${scratch}`)).toBe(false);
  });

  it("leaves nothing behind when the sandbox is killed", async () => {
    const token = `conch-left-${process.pid}-${Date.now()}`;
    const spec = await backend.transform(
      {
        argv: ["sh", "-c", "setsid sleep 300 & (sleep 301 &) ; echo started; sleep 302"],
        cwd: ws,
        env: { PATH: process.env.PATH ?? "", LEFT_TOKEN: token },
        extraFds: [],
      },
      policy,
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
    await eventually("the death of what the command left", () => alive().length === 0).catch(() => {});
    expect(alive()).toEqual([]);
  });
});
