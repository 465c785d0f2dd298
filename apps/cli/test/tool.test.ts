// conch tool list|call, and conch run/exec through the orchestrator. Commands that write do so in a temp
// directory created here; the user's config and state are replaced by temp ones.
import { spawn, spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ToolResultSchema } from "@conch/protocol/schemas";
import { resolveShell } from "@conch/shell-detect";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

// The bash tool takes the system's bash before one found on PATH.
const SYSTEM_BASH = ["/bin/bash", "/usr/bin/bash", "/usr/local/bin/bash", "/opt/homebrew/bin/bash"];
const bashPath = SYSTEM_BASH.find((path) => existsSync(path)) ?? resolveShell("bash").path;

const BIN = fileURLToPath(new URL("../dist/bin.js", import.meta.url));
let dir: string;
let outside: string;
let env: NodeJS.ProcessEnv;

beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "conch-tool-")));
  outside = mkdtempSync("/var/tmp/conch-tool-outside-");
  env = { ...process.env, XDG_CONFIG_HOME: join(dir, ".config"), XDG_STATE_HOME: join(dir, ".state") };
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

function conch(args: string[], input = ""): { status: number | null; stdout: string; stderr: string } {
  const { status, stdout, stderr } = spawnSync(process.execPath, [BIN, ...args], {
    encoding: "utf8",
    cwd: dir,
    env,
    input,
  });
  return { status, stdout, stderr };
}

describe("conch tool list", () => {
  it("lists each profile's tools with their JSON Schemas", () => {
    const names = (["codex", "bash", "argv", "terminal"] as const).map((profile) => {
      const result = conch(["tool", "list", "--profile", profile, "--json"]);
      expect(result.status).toBe(0);
      const parsed = JSON.parse(result.stdout) as {
        profile: string;
        tools: { name: string; description: string; input_schema: Record<string, unknown> }[];
      };
      expect(parsed.profile).toBe(profile);
      for (const tool of parsed.tools) {
        expect(tool.input_schema).toMatchObject({ type: "object", additionalProperties: false });
        expect(tool.description.length).toBeGreaterThan(20);
      }
      return parsed.tools.map((tool) => tool.name);
    });
    expect(names).toEqual([
      ["shell_command", "exec_command", "write_stdin", "shell", "list_sessions"],
      ["bash"],
      ["shell"],
      [
        "terminal_open",
        "terminal_write",
        "terminal_read",
        "terminal_signal",
        "terminal_close",
        "terminal_list",
      ],
    ]);
    const human = conch(["tool", "list"]);
    expect(human.stdout).toMatch(/^profile codex: 5 tools\n\nshell_command\n {2}Runs a shell command/);
    expect(human.stdout).toContain('  "properties": {');
  });

  it("names a bad profile", () => {
    expect(conch(["tool", "list", "--profile", "zsh"])).toEqual({
      status: 2,
      stdout: "",
      stderr:
        "conch tool list: --profile: expected one of codex, bash, terminal, argv, received \"zsh\"\nRun 'conch tool list --help' for usage.\n",
    });
  });
});

describe("conch tool call", () => {
  it("names --cwd and exits 2 when it is not a directory, as every command does", () => {
    for (const command of [
      ["tool", "call", "shell_command", "{}"],
      ["run", "true"],
      ["replay", "-"],
    ]) {
      const [first, second] = command;
      const name = first === "tool" ? `tool ${second}` : first;
      expect(
        conch([
          ...command.slice(0, first === "tool" ? 2 : 1),
          "--cwd",
          "/no/such/dir",
          ...command.slice(first === "tool" ? 2 : 1),
        ]),
      ).toEqual({
        status: 2,
        stdout: "",
        stderr: `conch ${name}: --cwd: no such directory: /no/such/dir\nRun 'conch ${name} --help' for usage.\n`,
      });
    }
  });

  it("exits 130 after Ctrl-C, with the text of what the call got to, and kills what it started", async () => {
    const child = spawn(
      process.execPath,
      [BIN, "tool", "call", "shell_command", '{"command":"echo started; touch started; sleep 300"}'],
      {
        cwd: dir,
        env,
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    // Ctrl-C once the command runs (its marker is there), not after a guessed delay.
    for (let waited = 0; !existsSync(join(dir, "started")) && waited < 30_000; waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(existsSync(join(dir, "started"))).toBe(true);
    child.kill("SIGINT");
    const code = await new Promise((resolve) => child.once("exit", resolve));
    expect(code).toBe(130);
    expect(stdout).toMatch(/^Exit code: 130\n/);
    expect(stdout).toContain("started\n");
  });

  it("says on stderr when the audit log cannot be written", () => {
    // A directory where the log file should be: every append fails.
    mkdirSync(join(dir, ".state", "conch", "audit.jsonl"), { recursive: true });
    const result = conch(["tool", "call", "shell_command", '{"command":"echo ran","login":false}']);
    expect(result.stdout).toContain("ran\n");
    expect(result.stderr).toMatch(
      /^conch: warning: the audit log \S+audit\.jsonl cannot be written \(.*\); commands are not being recorded\n/,
    );
  });

  it("prints exactly the model's text, or with --json the structured result too", () => {
    const text = conch([
      "tool",
      "call",
      "shell_command",
      '{"command":"echo hi; echo err >&2","login":false}',
    ]);
    expect(text.status).toBe(0);
    expect(text.stdout).toMatch(/^Exit code: 0\nWall time: \d+\.\d seconds\nOutput:\nhi\nerr\n\n$/);
    const json = conch(["tool", "call", "--json", "shell", '{"command":["sh","-c","exit 3"]}']);
    expect(json.status).toBe(0);
    const parsed = JSON.parse(json.stdout) as { tool: string; text: string; result: Record<string, unknown> };
    expect(parsed.tool).toBe("shell");
    expect(parsed.text).toMatch(/^Exit code: 3\n/);
    expect(parsed.result).toMatchObject({
      tool: "shell",
      status: "ok",
      exit_code: 3,
      timed_out: false,
      denied: false,
      truncated: false,
      spill_path: null,
      sandbox: "bwrap",
    });
    // The same contract an MCP tool's outputSchema promises.
    expect(ToolResultSchema.parse(parsed.result)).toEqual(parsed.result);
  });

  it("bad arguments exit 2 with the field named; a timeout says so in the text", () => {
    expect(conch(["tool", "call", "shell_command", '{"command":"ls","timeout":5}'])).toEqual({
      status: 2,
      stdout:
        'shell_command: invalid arguments: arguments: unknown field "timeout" (expected only: command, workdir, timeout_ms, login, sandbox_permissions, justification, prefix_rule, wait_for_approval_ms)\n',
      stderr: "",
    });
    const timedOut = conch([
      "tool",
      "call",
      "shell_command",
      '{"command":"echo started; sleep 30","timeout_ms":300,"login":false}',
    ]);
    expect(timedOut.stdout).toMatch(
      /^Exit code: 124\nWall time: \d+\.\d seconds\nOutput:\ncommand timed out after \d+ milliseconds\nstarted\n\n$/,
    );
  });

  it("deny rejects without running; tty reads the answer from stdin and shows why", () => {
    const denied = conch([
      "tool",
      "call",
      "--approval",
      "untrusted",
      "--approver",
      "deny",
      "shell_command",
      '{"command":"touch x"}',
    ]);
    expect(denied).toEqual({
      status: 4,
      stdout:
        "refused: conch runs with --approver deny, which refuses whatever needs a yes without asking anyone; the command did not run\n",
      stderr: "",
    });
    expect(existsSync(join(dir, "x"))).toBe(false);

    const asked = conch(
      [
        "tool",
        "call",
        "--approval",
        "untrusted",
        "--approver",
        "tty",
        "bash",
        '{"command":"touch x","description":"Create the file x"}',
        "--profile",
        "bash",
      ],
      "maybe\ny\n",
    );
    expect(asked.status, asked.stderr).toBe(0);
    expect(asked.stdout).toMatch(/^Exit code: 0\n/);
    expect(existsSync(join(dir, "x"))).toBe(true);
    expect(asked.stderr).toBe(
      [
        "",
        "conch: approve this command?",
        `  shell:    ${bashPath} -lc`,
        "  command:  touch x",
        "  purpose:  Create the file x",
        `  cwd:      ${dir}`,
        "  sandbox:  workspace-write",
        "  why:      `touch x` is not known to be read-only, and under the approval policy untrusted only commands known to be read-only run unasked",
        "  [y] yes  [s] yes, and don't ask again this session",
        "  [a] always: run `touch ...` unasked from now on",
        "  [n] no",
        "answer [y/s/a/n]: conch: answer one of y/s/a/n",
        "answer [y/s/a/n]: ",
      ].join("\n"),
    );
  });

  it("always stores the arity prefix rule, and the next call runs unasked", () => {
    const first = conch(
      ["tool", "call", "--approval", "untrusted", "--approver", "tty", "shell", '{"command":["touch","a"]}'],
      "a\n",
    );
    expect(first.status, first.stderr).toBe(0);
    const rules = readFileSync(join(dir, ".config", "conch", "rules", "default.rules"), "utf8");
    expect(rules).toContain('prefix_rule(pattern=["touch"], decision="allow")');
    const second = conch([
      "tool",
      "call",
      "--approval",
      "untrusted",
      "--approver",
      "deny",
      "shell",
      '{"command":["touch","b"]}',
    ]);
    expect(second.status, second.stdout).toBe(0);
    expect(existsSync(join(dir, "b"))).toBe(true);
  });

  it("a session started by one call ends with it, so the call returns", () => {
    const started = Date.now();
    const result = conch([
      "tool",
      "call",
      "exec_command",
      '{"cmd":"sleep 60","login":false,"yield_time_ms":300}',
    ]);
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/Process running with session ID \d+\n/);
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  it("end of input answers no", () => {
    const result = conch([
      "tool",
      "call",
      "--approval",
      "untrusted",
      "--approver",
      "tty",
      "shell",
      '{"command":["touch","c"]}',
    ]);
    expect(result.status).toBe(4);
    expect(result.stderr).toContain("conch: no answer (end of input): not approved\n");
    expect(existsSync(join(dir, "c"))).toBe(false);
  });

  it("on-failure: a sandbox denial asks, and yes runs it outside the sandbox", () => {
    const target = join(outside, "f");
    const result = conch(
      [
        "tool",
        "call",
        "--approval",
        "on-failure",
        "--approver",
        "tty",
        "shell_command",
        JSON.stringify({ command: `echo ok > ${target}`, login: false }),
      ],
      "y\n",
    );
    expect(result.status, result.stderr).toBe(0);
    expect(result.stderr).toContain("  sandbox:  none: it would run outside the sandbox\n");
    expect(result.stderr).toContain(
      "  why:      it failed in the sandbox (workspace-write), apparently blocked by it; run it again outside the sandbox?\n",
    );
    expect(result.stderr).toMatch(/ {2}output:\n {4}\| .*Read-only file system\n/);
    expect(readFileSync(target, "utf8")).toBe("ok\n");
  });
});

describe("conch run and exec through the orchestrator", () => {
  it("a rule in the user's rules dir forbids before anything runs; a bad config is named", () => {
    mkdirSync(join(dir, ".config", "conch", "rules"), { recursive: true });
    writeFileSync(
      join(dir, ".config", "conch", "rules", "deny.rules"),
      'prefix_rule(pattern=["touch"], decision="forbidden", justification="touching is off")\n',
    );
    expect(conch(["run", "--approval", "never", "--", "touch", "x"])).toEqual({
      status: 4,
      stdout: "",
      stderr:
        "conch: `touch x` rejected: touching is off\n" +
        `Why: \`touch x\` matches a rule (${join(dir, ".config", "conch", "rules", "deny.rules")}:1) that forbids \`touch\`.\n` +
        "No one was asked: what a rule forbids cannot be approved. Do the task without `touch`, or tell the " +
        "user that a rule forbids it.\n",
    });
    expect(conch(["exec", "--approver", "approve", "echo a; touch x"]).status).toBe(4);
    expect(existsSync(join(dir, "x"))).toBe(false);

    writeFileSync(join(dir, ".config", "conch", "config.toml"), 'approval_policy = "sometimes"\n');
    const bad = conch(["run", "true"]);
    expect(bad).toEqual({
      status: 2,
      stdout: "",
      stderr: `conch: ${join(dir, ".config", "conch", "config.toml")}:1: approval_policy: expected one of "untrusted", "on-failure", "on-request", "never", received "sometimes"\n`,
    });
  });

  it("runs sandboxed by default and tells how to escalate when the sandbox denies", () => {
    const target = join(outside, "f");
    const result = conch(["run", "--", "sh", "-c", `echo ok > ${target}`]);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain("Read-only file system");
    expect(result.stderr).toContain(
      "conch: the sandbox (workspace-write) appears to have blocked this command; to run it outside the sandbox, " +
        "pass --sandbox danger-full-access, or --approval on-failure to be asked first\n",
    );
    expect(existsSync(target)).toBe(false);
    const json = JSON.parse(conch(["run", "--json", "--", "true"]).stdout) as Record<string, unknown>;
    expect(json).toMatchObject({
      status: "ok",
      exit_code: 0,
      sandbox: "bwrap",
      denied: false,
      escalated: false,
    });
    // One casing, no key twice: every key is snake_case.
    expect(Object.keys(json).filter((key) => /[A-Z]/.test(key))).toEqual([]);
    const outsideSandbox = conch([
      "run",
      "--sandbox",
      "danger-full-access",
      "--",
      "sh",
      "-c",
      `echo ok > ${target}`,
    ]);
    expect(outsideSandbox.status).toBe(0);
    expect(readFileSync(target, "utf8")).toBe("ok\n");
  });

  it("under untrusted, ls runs unasked and touch is refused without an approver", () => {
    expect(conch(["run", "--approval", "untrusted", "ls"]).status).toBe(0);
    expect(conch(["run", "--approval", "untrusted", "touch", "y"])).toEqual({
      status: 4,
      stdout: "",
      stderr:
        "conch: this command needs approval, and no one can be asked here; the command did not run (to allow " +
        "it, run conch with --approver approve (or approve-session), or at a terminal with --approver tty, or " +
        "with another --approval policy)\nWhy: `touch y` is not known to be read-only, and under the approval " +
        "policy untrusted only commands known to be read-only run unasked.\nUse read-only commands only, or " +
        "tell the user what you need to run and why.\n",
    });
    expect(existsSync(join(dir, "y"))).toBe(false);
  });

  it("names a bad policy option", () => {
    expect(conch(["run", "--approval", "always", "true"]).stderr).toBe(
      "conch run: --approval: expected one of untrusted, on-failure, on-request, never, received \"always\"\nRun 'conch run --help' for usage.\n",
    );
  });

  it("asks on a real terminal by default", () => {
    // `script` gives conch a pseudo-terminal as stdin; "y" typed there answers the prompt.
    const command = `${process.execPath} ${BIN} run --approval untrusted -- touch z`;
    const result = spawnSync("script", ["-qec", command, "/dev/null"], {
      cwd: dir,
      env,
      input: "y\n",
      encoding: "utf8",
    });
    expect(result.stdout).toContain("conch: approve this command?");
    expect(result.status).toBe(0);
    expect(existsSync(join(dir, "z"))).toBe(true);
  });
});
