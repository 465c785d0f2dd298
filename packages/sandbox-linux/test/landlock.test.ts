// The Landlock backend for real: the committed helper, the kernel's Landlock and the seccomp program,
// each promise attempted by a real command and checked on the host afterwards. Run as root and, by
// tooling/scripts/test-unprivileged.mjs, as uid 65534.
import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import type { SandboxRules } from "@conch/sandbox-core";
import { describeWith } from "@conch/test-config";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createLandlockBackend, createLinuxBackends } from "../src/index.js";
import { grantsExcept } from "../src/landlock/grants.js";
import { type Outcome, rules, runSandboxed, writableRoots } from "./sandbox-helpers.js";

const backend = createLandlockBackend();

describeWith(["linux", "landlock", "bash", "git", "python3"], "the Landlock backend, for real", () => {
  let base: string;
  let home: string;
  let ws: string;
  let tmp: string;
  let outside: string;
  let workspace: SandboxRules;
  const sh = (script: string, sandboxRules = workspace, cwd = ws): Promise<Outcome> =>
    runSandboxed(backend, sandboxRules, cwd, ["bash", "-c", script], { HOME: home });

  beforeAll(() => {
    base = mkdtempSync("/var/tmp/conch-landlock-");
    home = join(base, "home");
    ws = join(home, "ws");
    tmp = join(base, "state", "tmp");
    outside = join(base, "outside");
    for (const dir of [ws, tmp, outside, join(home, ".ssh")]) mkdirSync(dir, { recursive: true });
    writeFileSync(join(home, ".ssh", "id_rsa"), "PRIVATE KEY");
    writeFileSync(join(home, "notes.txt"), "readable");
    writeFileSync(join(outside, "keep.txt"), "host file");
    writeFileSync(join(ws, "README"), "workspace");
    execFileSync("git", ["init", "-q", ws]);
    workspace = rules({
      writableRoots: writableRoots(ws),
      hidden: [{ path: join(home, ".ssh"), type: "dir", readable: [] }],
      tmp: { kind: "private", source: tmp, targets: ["/tmp"] },
    });
  });
  afterAll(() => {
    rmSync(base, { recursive: true, force: true });
  });

  it("is available on this kernel, and auto picks bwrap where bwrap works", async () => {
    expect(await backend.available()).toEqual({ available: true });
    const [bwrap, fallback] = createLinuxBackends("auto");
    expect(bwrap?.name).toBe("bwrap");
    expect(fallback?.name).toBe("landlock");
    if ((await bwrap?.available())?.available === true) {
      const refused = await fallback?.available();
      expect(refused).toMatchObject({
        available: false,
        reason: expect.stringContaining("bubblewrap works here"),
      });
    }
  });

  it("writes only in the writable roots: a file in a subdirectory yes; outside, /tmp and the home no", async () => {
    mkdirSync(join(ws, "src"), { recursive: true });
    const ran = await sh(
      [
        "echo built > src/out.txt && echo ok-sub",
        `echo x > ${outside}/new.txt || echo denied-outside`,
        `echo x >> ${outside}/keep.txt || echo denied-append`,
        `rm -f ${outside}/keep.txt; test -e ${outside}/keep.txt && echo kept`,
        "echo x > /tmp/host-tmp.txt || echo denied-tmp",
        `echo x > ${home}/planted || echo denied-home`,
        'echo t > "$TMPDIR/t.txt" && echo ok-tmpdir',
      ].join("; "),
    );
    expect(ran.output).toContain("ok-sub");
    expect(ran.output).toContain("denied-outside");
    expect(ran.output).toContain("denied-append");
    expect(ran.output).toContain("kept");
    expect(ran.output).toContain("denied-tmp");
    expect(ran.output).toContain("denied-home");
    expect(ran.output).toContain("ok-tmpdir");
    // On the host: only what the roots allow changed.
    expect(readFileSync(join(ws, "src", "out.txt"), "utf8")).toBe("built\n");
    expect(readdirSync(outside)).toEqual(["keep.txt"]);
    expect(readFileSync(join(outside, "keep.txt"), "utf8")).toBe("host file");
    expect(existsSync(join(home, "planted"))).toBe(false);
    expect(existsSync("/tmp/host-tmp.txt")).toBe(false);
    expect(readFileSync(join(tmp, "t.txt"), "utf8")).toBe("t\n");
  });

  it("keeps .git read-only: hooks, config and a rename of .git itself fail; the cost is said", async () => {
    const before = readFileSync(join(ws, ".git", "config"), "utf8");
    const ran = await sh(
      [
        "echo 'touch /tmp/pwned' > .git/hooks/pre-commit || echo denied-hook",
        "echo '[core] fsmonitor = touch x' >> .git/config || echo denied-config",
        "mv .git .git-old || echo denied-rename",
        "echo new > top-level.txt || echo denied-top-level",
        "echo edit >> README && echo ok-edit",
        "cat .git/HEAD",
      ].join("; "),
    );
    expect(ran.output).toContain("denied-hook");
    expect(ran.output).toContain("denied-config");
    expect(ran.output).toContain("denied-rename");
    // The cost of granting siblings: nothing new at the top of a root that holds .git.
    expect(ran.output).toContain("denied-top-level");
    expect(ran.output).toContain("ok-edit");
    expect(ran.output).toContain("ref: refs/heads/");
    expect(readFileSync(join(ws, ".git", "config"), "utf8")).toBe(before);
    expect(existsSync(join(ws, ".git", "hooks", "pre-commit"))).toBe(false);
    expect(existsSync(join(ws, ".git-old"))).toBe(false);
  });

  it("hides what is hidden: ~/.ssh cannot be read, listed or copied; the rest of the home can", async () => {
    const ran = await sh(
      [
        `cat ${home}/.ssh/id_rsa || echo denied-read`,
        `ls ${home}/.ssh || echo denied-list`,
        `cp -r ${home}/.ssh ${ws}/stolen || echo denied-copy`,
        `cat ${home}/notes.txt`,
      ].join("; "),
    );
    expect(ran.output).not.toContain("PRIVATE KEY");
    expect(ran.output).toContain("denied-read");
    expect(ran.output).toContain("denied-list");
    expect(ran.output).toContain("readable");
    expect(existsSync(join(ws, "stolen", "id_rsa"))).toBe(false);
  });

  it("has no network: IP and unix sockets are refused, a loopback server here is not reached", async () => {
    const server = createServer((socket) => socket.end("SECRET FROM THE HOST\n"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as { port: number }).port;
    try {
      const ran = await sh(
        [
          `python3 -c 'import socket; s=socket.create_connection(("127.0.0.1", ${port}), 2); print(s.recv(100))' 2>&1 | tail -1`,
          "python3 -c 'import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM)' 2>&1 | tail -1",
          "python3 -c 'import socket; socket.socket(socket.AF_UNIX)' 2>&1 | tail -1",
          `(exec 3<>/dev/tcp/127.0.0.1/${port} && cat <&3) || echo denied-devtcp`,
        ].join("; "),
      );
      expect(ran.output).not.toContain("SECRET FROM THE HOST");
      expect(ran.output.match(/PermissionError|Operation not permitted/g)?.length).toBeGreaterThanOrEqual(3);
      expect(ran.output).toContain("denied-devtcp");
    } finally {
      server.close();
    }
  });

  it("refuses what a sandbox refuses: new privileges, namespaces, ptrace", async () => {
    const ran = await sh(
      [
        "grep NoNewPrivs /proc/self/status",
        "unshare -U true || echo denied-unshare",
        "python3 -c 'import ctypes; print(\"ptrace\", ctypes.CDLL(None).ptrace(16, 1, 0, 0))'",
      ].join("; "),
    );
    expect(ran.output).toMatch(/NoNewPrivs:\s+1/);
    expect(ran.output).toContain("denied-unshare");
    expect(ran.output).toContain("ptrace -1");
  });

  it("follows no symbolic link to a grant: a link to / in a root, or beside a protected path, grants nothing", async () => {
    mkdirSync(join(ws, "src", "evil", ".git", "hooks"), { recursive: true });
    symlinkSync("/", join(ws, "rootlink"));
    symlinkSync("/", join(ws, "src", "evil", "pwn"));
    const deeper = rules({
      writableRoots: [{ root: ws, readOnlySubpaths: [join(ws, ".git"), join(ws, "src", "evil", ".git")] }],
      hidden: [{ path: join(home, ".ssh"), type: "dir", readable: [] }],
      tmp: { kind: "private", source: tmp, targets: ["/tmp"] },
    });
    const ran = await sh(
      [
        `cat rootlink${home}/.ssh/id_rsa || echo denied-read-1`,
        `cat src/evil/pwn${home}/.ssh/id_rsa || echo denied-read-2`,
        `echo x >> rootlink${outside}/keep.txt || echo denied-write-1`,
        `echo x >> src/evil/pwn${outside}/keep.txt || echo denied-write-2`,
        "echo y > src/evil/pwn/var/tmp/conch-landlock-planted || echo denied-write-3",
      ].join("; "),
      deeper,
    );
    expect(ran.output).not.toContain("PRIVATE KEY");
    for (const mark of [
      "denied-read-1",
      "denied-read-2",
      "denied-write-1",
      "denied-write-2",
      "denied-write-3",
    ]) {
      expect(ran.output).toContain(mark);
    }
    expect(readFileSync(join(outside, "keep.txt"), "utf8")).toBe("host file");
    expect(existsSync("/var/tmp/conch-landlock-planted")).toBe(false);
  });

  it("a hidden path reached through a link in the home (~/.aws -> dotfiles/aws) stays hidden", async () => {
    mkdirSync(join(home, "dotfiles", "aws"), { recursive: true });
    writeFileSync(join(home, "dotfiles", "aws", "credentials"), "AWSKEY");
    symlinkSync("dotfiles/aws", join(home, ".aws"));
    const hiding = rules({
      writableRoots: writableRoots(ws),
      hidden: [
        { path: join(home, ".ssh"), type: "dir", readable: [] },
        { path: join(home, "dotfiles", "aws"), type: "dir", readable: [] },
      ],
      tmp: { kind: "private", source: tmp, targets: ["/tmp"] },
    });
    const ran = await sh(`cat ${home}/.aws/credentials || echo denied-aws`, hiding);
    expect(ran.output).not.toContain("AWSKEY");
    expect(ran.output).toContain("denied-aws");
  });

  it("leaves other processes alone: no prlimit, renice or scheduling of another pid; its own limits are its own", async () => {
    const ran = await sh(
      [
        "prlimit --pid $PPID --nofile=0:0 && echo prlimit-worked || echo denied-prlimit",
        "renice -n 5 -p $PPID >/dev/null 2>&1 && echo renice-worked || echo denied-renice",
        "python3 -c 'import os; os.sched_setaffinity(os.getppid(), {0})' 2>/dev/null && echo affinity-worked || echo denied-affinity",
        "ulimit -n 100 && echo own-limit",
      ].join("; "),
    );
    expect(ran.output).toContain("denied-prlimit");
    expect(ran.output).toContain("denied-renice");
    expect(ran.output).toContain("denied-affinity");
    expect(ran.output).toContain("own-limit");
  });

  it("holds no capability, changes no owner or attribute, and sets no setuid bit", async () => {
    writeFileSync(join(ws, "src", "tool.sh"), "#!/bin/sh\necho tool\n");
    const root = process.getuid?.() === 0;
    const ran = await sh(
      [
        "grep CapEff /proc/self/status",
        "chmod u+s src/tool.sh && echo setuid-worked || echo denied-setuid",
        "chmod g+s src/tool.sh && echo setgid-worked || echo denied-setgid",
        "chmod +x src/tool.sh && echo chmod-x-worked || echo denied-chmod-x",
        'python3 -c \'import os; os.setxattr("src/tool.sh", "user.x", b"1")\' 2>/dev/null && echo xattr-worked || echo denied-xattr',
        "chown 65534 src/tool.sh 2>/dev/null && echo chown-worked || echo denied-chown",
      ].join("; "),
    );
    expect(ran.output).toMatch(/CapEff:\s+0000000000000000/);
    expect(ran.output).toContain("denied-setuid");
    expect(ran.output).toContain("denied-setgid");
    expect(ran.output).toContain("denied-xattr");
    expect(ran.output).toContain("denied-chown");
    // A root caller owns the host's files, and Landlock does not cover a file's mode: no chmod at all.
    expect(ran.output).toContain(root ? "denied-chmod-x" : "chmod-x-worked");
    expect(statSync(join(ws, "src", "tool.sh")).mode & 0o6000).toBe(0);
  });

  it("fails closed: a helper that cannot apply its rules runs nothing", async () => {
    const spec = await backend.transform(
      {
        argv: ["bash", "-c", `echo ran > ${outside}/ran.txt`],
        cwd: ws,
        env: { PATH: process.env.PATH ?? "" },
        extraFds: [],
      },
      workspace,
    );
    // The same command with the seccomp program cut short: the helper stops before exec.
    const { start } = await import("./sandbox-helpers.js");
    const child = start({ ...spec, extraFds: spec.extraFds.map((filter) => filter.slice(0, 5)) });
    let stderr = "";
    child.stderr?.on("data", (data: Buffer) => {
      stderr += data.toString();
    });
    const code = await new Promise<number | null>((done) => child.on("close", done));
    expect(code).toBe(125);
    expect(stderr).toContain("conch-sandbox-helper: the seccomp program is empty or not whole instructions");
    expect(existsSync(join(outside, "ran.txt"))).toBe(false);
  });

  it("grants siblings rather than the parent, and nothing for an excluded root", () => {
    const root = mkdtempSync(join(base, "grants-"));
    for (const name of ["a", "b", ".git"]) mkdirSync(join(root, name));
    mkdirSync(join(root, "a", "secret"));
    mkdirSync(join(root, "a", "open"));
    expect(grantsExcept(root, [join(root, ".git"), join(root, "a", "secret")])).toEqual([
      join(root, "a", "open"),
      join(root, "b"),
    ]);
    expect(grantsExcept(root, [root])).toEqual([]);
    expect(grantsExcept(root, ["/elsewhere"])).toEqual([root]);
  });
});
