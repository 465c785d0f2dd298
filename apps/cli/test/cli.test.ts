import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const BIN = fileURLToPath(new URL("../dist/bin.js", import.meta.url));
let dir: string;

let env: NodeJS.ProcessEnv;

beforeAll(() => {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: build the CLI first (pnpm build)`);
  dir = mkdtempSync(join(tmpdir(), "conch-cli-"));
  // No config, rules or state of the machine's user leak in or pile up.
  env = { ...process.env, XDG_CONFIG_HOME: join(dir, ".config"), XDG_STATE_HOME: join(dir, ".state") };
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function conch(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const { status, stdout, stderr } = spawnSync(process.execPath, [BIN, ...args], {
    encoding: "utf8",
    cwd: dir,
    env,
  });
  return { status, stdout, stderr };
}

function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    return !["Z", "X"].includes(stat.charAt(stat.lastIndexOf(")") + 2));
  } catch {
    return false;
  }
}

/** Resolves with everything the child printed once `pattern` appears on its stdout. */
function waitForOutput(child: ChildProcess, pattern: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    let seen = "";
    child.stdout?.on("data", (data: Buffer) => {
      seen += data.toString();
      if (pattern.test(seen)) resolve(seen);
    });
    child.once("exit", () => reject(new Error(`exited before printing ${pattern}: ${seen}`)));
  });
}

describe("conch run", () => {
  it("streams both streams and exits with the command's code", () => {
    const result = conch("run", "--", "sh", "-c", "echo out; echo err >&2; exit 3");
    expect(result).toEqual({ status: 3, stdout: "out\n", stderr: "err\n" });
  });

  it("passes options after the command to the command", () => {
    const result = conch("run", "sh", "-c", "echo $0 $1", "--json", "--cwd");
    expect(result).toEqual({ status: 0, stdout: "--json --cwd\n", stderr: "" });
  });

  it("runs in --cwd", () => {
    // A directory of its own: /var/tmp itself could hold the home (then it is refused as a workspace).
    const other = realpathSync(mkdtempSync(join(tmpdir(), "conch-cwd-")));
    try {
      expect(conch("run", "--cwd", other, "pwd").stdout).toBe(`${other}\n`);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });

  it("refuses / as the workspace of a sandbox that would make it writable", () => {
    const result = conch("run", "--cwd", "/", "pwd");
    expect(result.status).toBe(2);
    expect(result.stderr).toContain("invalid sandbox policy: the writable root / holds the home directory");
  });

  it("exits 124 on timeout and says so", () => {
    const result = conch("run", "--timeout-ms", "300", "--", "sh", "-c", "echo started; sleep 300");
    expect(result).toEqual({
      status: 124,
      stdout: "started\n",
      stderr: "conch: timed out after 300 ms; the command and everything it started were killed\n",
    });
  });

  it("prints the ExecResult as JSON with --json", () => {
    const result = conch("run", "--json", "--", "sh", "-c", "echo hi; exit 4");
    expect(result.status).toBe(4);
    expect(result.stderr).toBe("");
    const parsed = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(parsed).toMatchObject({
      command: ["sh", "-c", "echo hi; exit 4"],
      cwd: dir,
      exit_code: 4,
      stdout: "hi\n",
      output: "hi\n",
      timed_out: false,
      canceled: false,
      stdout_bytes: 3,
      sandbox: "bwrap",
    });
    // One casing: no camelCase key beside its snake_case twin.
    expect(Object.keys(parsed).filter((key) => /[A-Z]/.test(key))).toEqual([]);
    expect(parsed.status).toBe("ok");
  });

  it("streams output live and on Ctrl-C kills the whole tree and exits 130", async () => {
    // The terminal sends SIGINT to its foreground process group: conch's own, never the command's.
    const child = spawn(
      process.execPath,
      // Outside the sandbox, so the pids printed are the host's (under bwrap they are the pid namespace's).
      [
        BIN,
        "run",
        "--sandbox",
        "danger-full-access",
        "--",
        "sh",
        "-c",
        "sleep 300 & echo pid=$!; echo pid=$$; wait",
      ],
      {
        detached: true,
        env,
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    const printed = await waitForOutput(child, /pid=\d+\npid=\d+\n/);
    const pids = [...printed.matchAll(/pid=(\d+)/g)].map((m) => Number(m[1]));
    expect(pids.every(isAlive)).toBe(true);
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    process.kill(-(child.pid as number), "SIGINT");
    expect(await exited).toBe(130);
    expect(pids.filter(isAlive)).toEqual([]);
  });
});

describe("conch run when its own output goes away", () => {
  it("kills the tree and exits 141, quietly, when stdout is closed", async () => {
    const child = spawn(
      process.execPath,
      [BIN, "run", "--sandbox", "danger-full-access", "--", "sh", "-c", "sleep 300 & echo pid=$!; yes"],
      { env, stdio: ["ignore", "pipe", "pipe"] },
    );
    let stderr = "";
    child.stderr?.on("data", (data: Buffer) => {
      stderr += data.toString();
    });
    const printed = await waitForOutput(child, /pid=\d+\n/);
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    child.stdout?.destroy();
    expect(await exited).toBe(141);
    expect(stderr).toBe("");
    const [, pid] = /pid=(\d+)/.exec(printed) ?? [];
    expect(isAlive(Number(pid))).toBe(false);
  });

  it.each([
    ["run --json", ["run", "--json", "--", "sh", "-c", "sleep 0.2"], ""],
    ["exec --json", ["exec", "--json", "sleep 0.2"], ""],
    ["tool call", ["tool", "call", "shell_command", '{"command":"sleep 0.2"}'], ""],
    ["replay", ["replay", "-"], '{"tool":"shell_command","arguments":{"command":"sleep 0.2"}}\n'],
  ])("%s exits 141 without a stack trace when its reader is gone", (_name, args, input) => {
    // `| true`: the reader exits at once, so conch's one write meets a closed pipe.
    const result = spawnSync(
      "bash",
      [
        "-c",
        'printf %s "$1" | "${@:2}" | true; echo "exit ${PIPESTATUS[1]}"',
        "bash",
        input,
        process.execPath,
        BIN,
        ...args,
      ],
      { env, encoding: "utf8" },
    );
    expect(result.stdout).toBe("exit 141\n");
    expect(result.stderr).toBe("");
  });
});

describe("conch exec", () => {
  it("runs the script through the user's shell", () => {
    const result = conch("exec", "echo $0; echo two | tr a-z A-Z");
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^\/\S*sh\nTWO\n$/);
  });

  it("runs a login shell with --login", () => {
    // Unsandboxed: a login profile may complain (to stderr) that it cannot write under a read-only home.
    const result = conch(
      "exec",
      "--sandbox",
      "danger-full-access",
      "--login",
      "--shell",
      "bash",
      "shopt -q login_shell && echo login",
    );
    expect(result).toEqual({ status: 0, stdout: "login\n", stderr: "" });
    expect(conch("exec", "--shell", "bash", "shopt -q login_shell || echo plain").stdout).toBe("plain\n");
  });

  it("rejects more than one script argument", () => {
    expect(conch("exec", "echo", "hi")).toEqual({
      status: 2,
      stdout: "",
      stderr:
        "conch exec: expected one SCRIPT argument, received 2; quote the script\nRun 'conch exec --help' for usage.\n",
    });
  });

  it("reports an unknown shell", () => {
    const result = conch("exec", "--shell", "tcsh", "true");
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/^conch: unsupported shell "tcsh"/);
  });
});

describe("errors and help", () => {
  it.each([
    [["run", "--bogus", "x"], 2, "conch run: unknown option --bogus\nRun 'conch run --help' for usage.\n"],
    [
      ["run", "--timeout-ms", "soon", "true"],
      2,
      "conch run: --timeout-ms: expected a positive integer, received \"soon\"\nRun 'conch run --help' for usage.\n",
    ],
    [["run"], 2, "conch run: missing the command to run\nRun 'conch run --help' for usage.\n"],
    [
      ["frob"],
      2,
      "conch: unknown command \"frob\" (expected one of run, exec, explain, policy, sandbox, tool, replay, trust, pending, approve, deny, console, record, mcp)\nRun 'conch --help' for usage.\n",
    ],
    [["run", "conch-no-such-program"], 127, 'conch: cannot start "conch-no-such-program": no such program\n'],
    [["run", "/etc/passwd"], 126, 'conch: cannot start "/etc/passwd": permission denied\n'],
    [
      ["run", "--cwd", "/no/such/dir", "true"],
      2,
      "conch run: --cwd: no such directory: /no/such/dir\nRun 'conch run --help' for usage.\n",
    ],
    [
      ["run", "--cwd=", "true"],
      2,
      "conch run: --cwd: expected a value, received \"\"\nRun 'conch run --help' for usage.\n",
    ],
  ])("conch %j exits %i with a clear message and no stack trace", (args, status, stderr) => {
    expect(conch(...args)).toEqual({ status, stdout: "", stderr });
  });

  it.each([
    [["run"], 127, "SPAWN_FAILED", 'cannot start "conch-no-such-program": no such program'],
    [["run"], 126, "SPAWN_FAILED", 'cannot start "/etc/passwd": permission denied'],
    [["sandbox"], 127, "SPAWN_FAILED", 'cannot start "conch-no-such-program": no such program'],
  ])(
    "conch %j --json: a program that cannot start still gets a JSON answer (exit %i)",
    (command, status, code, message) => {
      const program = message.includes("passwd") ? "/etc/passwd" : "conch-no-such-program";
      const result = conch(...command, "--json", "--", program);
      expect(result.status).toBe(status);
      expect(JSON.parse(result.stdout)).toEqual({ status: "failed", error_code: code, message });
      expect(result.stderr).toBe(`conch: ${message}\n`);
    },
  );

  it("conch run --json: a command nobody could approve gets a JSON answer saying it was rejected", () => {
    const result = conch(
      "run",
      "--json",
      "--approval",
      "untrusted",
      "--approver",
      "none",
      "--",
      "touch",
      "x",
    );
    expect(result.status).toBe(4);
    expect(JSON.parse(result.stdout)).toMatchObject({ status: "rejected", rejection: "no-approver" });
    expect(JSON.parse(result.stdout).reason).toContain("no one can be asked here");
  });

  it("names --cwd when the current directory was deleted", () => {
    const gone = mkdtempSync(join(dir, "gone-"));
    const { status, stdout, stderr } = spawnSync(
      "sh",
      ["-c", 'cd "$1" && rmdir "$1" && exec "$2" "$3" run true', "sh", gone, process.execPath, BIN],
      { encoding: "utf8", env },
    );
    expect({ status, stdout, stderr }).toEqual({
      status: 2,
      stdout: "",
      stderr:
        "conch run: the current directory no longer exists; pass --cwd DIR\nRun 'conch run --help' for usage.\n",
    });
  });

  it("prints help and the version", () => {
    expect(conch("--help").stdout).toContain("conch run [options] [--] ARGV...");
    expect(conch("run", "--help").stdout).toContain("Usage: conch run [--approval POLICY]");
    expect(conch("exec", "-h").stdout).toContain("--login");
    const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
      version: string;
    };
    expect(conch("--version")).toEqual({ status: 0, stdout: `${manifest.version}\n`, stderr: "" });
  });
});
