// The Seatbelt backend for real: /usr/bin/sandbox-exec with the generated profile, each case of the Linux
// security suite attempted and checked on the host. Runs only on macOS (the `seatbelt` need); on Linux
// it is skipped and says so. Not yet run by this project's CI: there is no macOS runner (README).
import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSandboxRegistry, type PreparedSandbox, prepareSandbox } from "@conch/sandbox-core";
import { describeWith } from "@conch/test-config";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createSeatbeltBackend, probeSeatbelt } from "../src/backend.js";

describeWith(["seatbelt", "bash", "git", "python3"], "the Seatbelt backend, for real", () => {
  let base: string;
  let home: string;
  let ws: string;
  let state: string;
  let sandbox: PreparedSandbox;

  beforeAll(async () => {
    base = realpathSync(mkdtempSync(join(tmpdir(), "conch-seatbelt-")));
    home = join(base, "home");
    ws = join(base, "ws");
    state = join(home, ".local", "state", "conch");
    mkdirSync(join(home, ".ssh"), { recursive: true });
    writeFileSync(join(home, ".ssh", "id_rsa"), "SECRET-KEY\n");
    mkdirSync(join(state, "tmp", "w"), { recursive: true });
    mkdirSync(ws);
    writeFileSync(join(ws, "README"), "hello\n");
    spawnSync("git", ["init", "-q", ws]);
    sandbox = await prepareSandbox(
      { mode: "workspace-write" },
      ws,
      createSandboxRegistry([createSeatbeltBackend()]),
      {
        env: { ...process.env, HOME: home },
        tmpDir: join(state, "tmp", "w"),
        denyRead: [state],
        allowRead: [],
        protect: [state],
      },
    );
  });

  afterAll(() => {
    if (base !== undefined) rmSync(base, { recursive: true, force: true });
  });

  async function run(script: string, proxyPort?: number): Promise<{ status: number | null; out: string }> {
    const hook = sandbox.spawnHook(proxyPort === undefined ? {} : { proxyPort });
    if (hook === null) throw new Error("no sandbox");
    const spec = await hook({
      argv: ["/bin/bash", "-c", script],
      cwd: ws,
      env: { PATH: "/usr/bin:/bin", HOME: home },
      extraFds: [],
    });
    const ran = spawnSync(spec.argv[0] as string, spec.argv.slice(1), {
      cwd: spec.cwd,
      env: spec.env,
      encoding: "utf8",
      timeout: 30_000,
    });
    return { status: ran.status, out: `${ran.stdout}${ran.stderr}` };
  }

  it("probe: sandbox-exec works here", () => {
    expect(probeSeatbelt()).toEqual({ available: true });
  });

  it("writes in the workspace; not outside it, not the host's /tmp", async () => {
    expect((await run("echo ok > inside && cat inside")).out).toContain("ok");
    const outside = join(home, "outside");
    expect((await run(`echo x > '${outside}'`)).status).not.toBe(0);
    expect(existsSync(outside)).toBe(false);
    const hostTmp = join("/private/tmp", `conch-seatbelt-${process.pid}`);
    expect((await run(`echo x > '${hostTmp}'`)).status).not.toBe(0);
    expect(existsSync(hostTmp)).toBe(false);
  });

  it("the workspace's own /tmp is TMPDIR and writable", async () => {
    const ran = await run('echo t > "$TMPDIR/t" && cat "$TMPDIR/t" && echo "$TMPDIR"');
    expect(ran.out).toContain(join(state, "tmp", "w"));
    expect(readFileSync(join(state, "tmp", "w", "t"), "utf8")).toBe("t\n");
  });

  it(".git/config and hooks stay read-only; .git cannot be moved aside; .conch cannot be created", async () => {
    const before = readFileSync(join(ws, ".git", "config"), "utf8");
    await run(
      "echo '[core] pager = evil' >> .git/config; echo evil > .git/hooks/pre-commit; mv .git .git-aside; mkdir .conch",
    );
    expect(readFileSync(join(ws, ".git", "config"), "utf8")).toBe(before);
    expect(existsSync(join(ws, ".git", "hooks", "pre-commit"))).toBe(false);
    expect(existsSync(join(ws, ".git-aside"))).toBe(false);
    expect(existsSync(join(ws, ".conch"))).toBe(false);
  });

  it("in another case: .CONCH, .Agents, .GIT/config and .git/HOOKS stay as they are", async () => {
    const before = readFileSync(join(ws, ".git", "config"), "utf8");
    await run(
      "mkdir .CONCH; mkdir -p .Agents/x; echo evil >> .GIT/config; echo evil > .git/HOOKS/pre-commit",
    );
    expect(existsSync(join(ws, ".conch"))).toBe(false);
    expect(existsSync(join(ws, ".agents"))).toBe(false);
    expect(readFileSync(join(ws, ".git", "config"), "utf8")).toBe(before);
    expect(existsSync(join(ws, ".git", "hooks", "pre-commit"))).toBe(false);
  });

  it("another terminal of the person's cannot be read or written", async () => {
    const ran = await run(
      'for t in /dev/ttys*; do head -c 1 "$t" </dev/null && echo "read $t"; done; echo done',
    );
    expect(ran.out).not.toMatch(/^read \/dev\/ttys/m);
  });

  it("the keychain is out of reach (no SecurityServer, no keychain files)", async () => {
    const ran = await run("security find-generic-password -s conch-test-none -w; ls ~/Library/Keychains");
    expect(ran.out).not.toContain("login.keychain");
  });

  it("git's own work: a commit", async () => {
    const ran = await run(
      "git add README && git -c user.name=t -c user.email=t@t commit -qm one && git log --oneline",
    );
    expect(ran.out).toContain("one");
  });

  it("hidden: ~/.ssh is unreadable (also as ~/.SSH), a hard link or a move does not bring it into view", async () => {
    expect((await run(`cat '${home}/.ssh/id_rsa'`)).out).not.toContain("SECRET-KEY");
    expect((await run(`cat '${home}/.SSH/id_rsa'`)).out).not.toContain("SECRET-KEY");
    expect((await run(`ls '${home}/.ssh'`)).out).not.toContain("id_rsa");
    await run(
      `ln '${home}/.ssh/id_rsa' leak1; mv '${home}/.ssh' '${ws}/ssh'; cp '${home}/.ssh/id_rsa' leak2`,
    );
    for (const name of ["leak1", "ssh", "leak2"]) expect(existsSync(join(ws, name))).toBe(false);
    expect(existsSync(join(home, ".ssh", "id_rsa"))).toBe(true);
  });

  it("no network: a direct connection, a DNS query, a unix socket all fail", async () => {
    const server: Server = createServer((socket) => socket.end("HOST-LISTENER\n"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
    const port = (server.address() as { port: number }).port;
    const socketPath = join(base, "s.sock");
    const unix: Server = createServer((socket) => socket.end("UNIX\n"));
    await new Promise<void>((resolve) => unix.listen(socketPath, () => resolve()));
    try {
      const py = (code: string) => run(`python3 -c '${code}'`);
      expect(
        (await py(`import socket; s=socket.create_connection(("127.0.0.1", ${port}), 3); print(s.recv(64))`))
          .out,
      ).not.toContain("HOST-LISTENER");
      expect((await py('import socket; print(socket.getaddrinfo("example.com", 443))')).status).not.toBe(0);
      expect(
        (
          await py(
            `import socket; s=socket.socket(socket.AF_UNIX); s.connect("${socketPath}"); print(s.recv(64))`,
          )
        ).out,
      ).not.toContain("UNIX");
      expect(
        (await py('import socket; s=socket.socket(socket.AF_UNIX); s.connect("/var/run/docker.sock")'))
          .status,
      ).not.toBe(0);
    } finally {
      server.close();
      unix.close();
    }
  });

  it("network on: the IP network, but still no unix socket", async () => {
    const socketPath = join(base, "on.sock");
    const unix: Server = createServer((socket) => socket.end("UNIX\n"));
    await new Promise<void>((resolve) => unix.listen(socketPath, () => resolve()));
    const online = await prepareSandbox(
      { mode: "workspace-write", networkAccess: true },
      ws,
      createSandboxRegistry([createSeatbeltBackend()]),
      {
        env: { ...process.env, HOME: home },
        tmpDir: join(state, "tmp", "w"),
        denyRead: [state],
        protect: [state],
      },
    );
    try {
      const hook = online.spawnHook();
      if (hook === null) throw new Error("no sandbox");
      const code = `import socket; s=socket.socket(socket.AF_UNIX); s.connect("${socketPath}"); print(s.recv(64))`;
      const spec = await hook({
        argv: ["/usr/bin/python3", "-c", code],
        cwd: ws,
        env: { PATH: "/usr/bin:/bin", HOME: home },
        extraFds: [],
      });
      const ran = spawnSync(spec.argv[0] as string, spec.argv.slice(1), {
        env: spec.env,
        encoding: "utf8",
        timeout: 30_000,
      });
      expect(`${ran.stdout}${ran.stderr}`).not.toContain("UNIX");
    } finally {
      unix.close();
    }
  });

  it("allowlist: only the command's own proxy port is reachable", async () => {
    const backend = createSeatbeltBackend();
    const own = await backend.listenInside();
    own.on("connection", (socket) => socket.end("PROXY\n"));
    const other = await backend.listenInside();
    other.on("connection", (socket) => socket.end("OTHER\n"));
    const portOf = (server: Server) => (server.address() as { port: number }).port;
    try {
      const connect = (port: number) =>
        `python3 -c 'import socket; s=socket.create_connection(("127.0.0.1", ${port}), 3); print(s.recv(64))'`;
      expect((await run(connect(portOf(own)), portOf(own))).out).toContain("PROXY");
      expect((await run(connect(portOf(other)), portOf(own))).out).not.toContain("OTHER");
    } finally {
      own.close();
      other.close();
    }
  });

  it("a terminal session: the profile with the PTY rules runs an interactive shell", async () => {
    const hook = sandbox.spawnHook({ tty: true });
    if (hook === null) throw new Error("no sandbox");
    const spec = await hook({
      argv: ["/bin/bash", "-c", "test -w /dev/tty && echo tty-ok; read line; echo got-$line; stty size"],
      cwd: ws,
      env: { PATH: "/usr/bin:/bin" },
      extraFds: [],
    });
    // script(1) gives it a terminal made outside the sandbox, as node-pty does: reading and writing it
    // and its ioctls (stty) must work.
    const ran = spawnSync("/usr/bin/script", ["-q", "/dev/null", ...spec.argv], {
      env: spec.env,
      cwd: ws,
      input: "hello\n",
      encoding: "utf8",
      timeout: 30_000,
    });
    expect(ran.stdout).toContain("tty-ok");
    expect(ran.stdout).toContain("got-hello");
  });
});
