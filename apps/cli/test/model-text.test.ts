// What `conch tool call` gives a model when its command did not run, failed for want of network, or
// came with arguments that do not go together (issue 15), exactly as a model reads it. Commands that
// would write do so in a temp directory; the user's config and state are replaced by temp ones.
import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describeWith } from "@conch/test-config";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

// What a refusal under --approver deny says: nobody was asked.
const APPROVER_DENY =
  "refused: conch runs with --approver deny, which refuses whatever needs a yes without asking anyone; the command did not run";
const BIN = fileURLToPath(new URL("../dist/bin.js", import.meta.url));
let dir: string;
let env: NodeJS.ProcessEnv;

beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "conch-model-text-")));
  env = {
    ...process.env,
    XDG_CONFIG_HOME: join(dir, ".config"),
    XDG_STATE_HOME: join(dir, ".state"),
    SHELL: "/bin/bash",
  };
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function conch(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const { status, stdout, stderr } = spawnSync(process.execPath, [BIN, ...args], {
    encoding: "utf8",
    cwd: dir,
    env,
    input: "",
  });
  return { status, stdout, stderr };
}

/** `conch tool call [options] TOOL ARGS`: the model's text is stdout. */
function call(options: string[], tool: string, args: Record<string, unknown>) {
  return conch(["tool", "call", ...options, tool, JSON.stringify(args)]);
}

const NO_APPROVER =
  "this command needs approval, and no one can be asked here; the command did not run (to allow it, run " +
  "conch with --approver approve (or approve-session), or at a terminal with --approver tty, or with another " +
  "--approval policy)";
const RM_WHY =
  "Why: `rm -rf build` is dangerous: rm with -f/--force deletes without asking and cannot be undone.";
const RM_ADVICE = "Drop -f/--force and name each path to delete, or tell the user what should be deleted.";

describeWith("bwrap", "conch tool call: why a command did not run", () => {
  it("a forbidden rule names its file and line, the part it matched, and that nobody was asked", () => {
    const rules = join(dir, ".config", "conch", "rules", "team.toml");
    mkdirSync(join(dir, ".config", "conch", "rules"), { recursive: true });
    writeFileSync(rules, '# team\n\n[[rule]]\npattern = ["touch"]\ndecision = "forbidden"\n');
    expect(call([], "shell_command", { command: "mkdir -p d && touch d/x", login: false })).toEqual({
      status: 4,
      stdout:
        "`/bin/bash -c 'mkdir -p d && touch d/x'` rejected: policy forbids commands starting with `touch`\n" +
        `Why: \`touch d/x\` matches a rule (${rules}:3) that forbids \`touch\`.\n` +
        "No one was asked: what a rule forbids cannot be approved. Do the task without `touch`, or tell the " +
        "user that a rule forbids it.\n",
      stderr: "",
    });
    expect(existsSync(join(dir, "d"))).toBe(false);
  });

  it("rm -rf: refused under never; under untrusted and on-request nobody can be asked (--approver none)", () => {
    const rm = { command: ["rm", "-rf", "build"] };
    expect(call(["--approval", "never"], "shell", rm)).toEqual({
      status: 4,
      stdout:
        "`rm -rf build` rejected: rm -f style commands are not permitted. Use a safer approach\n" +
        `${RM_WHY}\nNo one was asked: the approval policy is never. ${RM_ADVICE}\n`,
      stderr: "",
    });
    for (const policy of ["untrusted", "on-request"]) {
      expect(call(["--approval", policy, "--approver", "none"], "shell", rm), policy).toEqual({
        status: 4,
        stdout: `${NO_APPROVER}\n${RM_WHY}\n${RM_ADVICE}\n`,
        stderr: "",
      });
    }
  });

  it("--approver deny is no person's no: it says nobody was asked", () => {
    expect(
      call(["--approval", "on-request", "--approver", "deny"], "shell", { command: ["rm", "-rf", "b"] }),
    ).toEqual({ status: 4, stdout: `${APPROVER_DENY}\n`, stderr: "" });
  });

  it("an escalation under on-request asks; with nobody to ask, how to stay in the sandbox", () => {
    const args = {
      command: "touch /var/tmp/conch-never-made",
      login: false,
      sandbox_permissions: "require_escalated",
      justification: "Create a file outside the workspace?",
    };
    expect(call(["--approval", "on-request", "--approver", "none"], "shell_command", args)).toEqual({
      status: 4,
      stdout:
        `${NO_APPROVER}\nWhy: the command asks to run outside the sandbox (sandbox_permissions: ` +
        '"require_escalated"), which only a person can allow.\nRun it again without sandbox_permissions ' +
        '"require_escalated" to run it in the sandbox, or tell the user why it must run outside.\n',
      stderr: "",
    });
    expect(call(["--approval", "on-request", "--approver", "deny"], "shell_command", args).stdout).toBe(
      `${APPROVER_DENY}\n`,
    );
    expect(existsSync("/var/tmp/conch-never-made")).toBe(false);
  });
});

const CONNECT = `${JSON.stringify(process.execPath)} -e 'require("net").connect(1, "127.0.0.1").on("error", (e) => { console.error(e.message); process.exit(1); })'`;

describeWith("bwrap", "conch tool call: a failure for want of network", () => {
  it("is explained in one line in the sandbox, and not at all under danger-full-access", () => {
    const sandboxed = call([], "shell_command", { command: CONNECT, login: false });
    expect(sandboxed.status).toBe(0);
    expect(sandboxed.stdout.replace(/Wall time: [\d.]+ seconds/, "Wall time: T seconds")).toBe(
      "Exit code: 1\nWall time: T seconds\nOutput:\nconnect ECONNREFUSED 127.0.0.1:1\n" +
        "[The sandbox (workspace-write) has no network, so connections and name lookups fail. This workspace's " +
        "commands share one network namespace: a server one command or session starts is reachable from the " +
        "others at 127.0.0.1; the host's own servers are not. To use the network, run the command " +
        'again with sandbox_permissions "require_escalated" and a justification, and the user will be asked; ' +
        "or the user can allow it for every command with network_access = true in ~/.config/conch/config.toml.]\n",
    );
    const open = call(["--sandbox", "danger-full-access"], "shell_command", {
      command: CONNECT,
      login: false,
    });
    expect(open.stdout).toMatch(
      /^Exit code: 1\nWall time: [\d.]+ seconds\nOutput:\nconnect ECONNREFUSED 127\.0\.0\.1:1\n\n$/,
    );
  });
});

describe("conch tool call: escalation arguments", () => {
  it("require_escalated without a justification is invalid, naming justification, for each tool", () => {
    for (const [tool, args] of [
      ["shell_command", { command: "ls" }],
      ["exec_command", { cmd: "ls" }],
      ["shell", { command: ["ls"] }],
    ] as const) {
      expect(call([], tool, { ...args, sandbox_permissions: "require_escalated" }), tool).toEqual({
        status: 2,
        stdout:
          `${tool}: invalid arguments: justification: required with sandbox_permissions "require_escalated": ` +
          "one short question, shown to the user, that says why the command must run outside the sandbox\n",
        stderr: "",
      });
    }
  });

  it("a justification without escalation runs, noted as unused in the text and the result", () => {
    const result = call(["--json", "--sandbox", "danger-full-access"], "shell", {
      command: ["echo", "hi"],
      justification: "Say hi?",
    });
    const parsed = JSON.parse(result.stdout) as { text: string; result: Record<string, unknown> };
    expect(parsed.text).toMatch(
      /^Exit code: 0\nWall time: [\d.]+ seconds\nOutput:\nhi\n\[Note: justification is only read with sandbox_permissions: "require_escalated"; it was not used\.\]$/,
    );
    expect(parsed.result).toMatchObject({ status: "ok", unused_arguments: ["justification"] });
  });
});

describeWith(["linux", "bwrap"], "a one-shot's background processes", () => {
  for (const sandbox of ["workspace-write", "danger-full-access"]) {
    it(`are stopped and said, not lost without a word (--sandbox ${sandbox})`, () => {
      const run = conch([
        "tool",
        "call",
        "--sandbox",
        sandbox,
        "--approval",
        "never",
        "--json",
        "shell_command",
        JSON.stringify({ command: "sleep 293 & nohup sleep 294 >/dev/null 2>&1 & echo started" }),
      ]);
      const { text } = JSON.parse(run.stdout) as { text: string };
      expect(text).toContain("started");
      // Named as each was when stopped (a fork not yet exec'd is still bash).
      expect(text).toMatch(
        /\[Conch stopped 2 processes this command left running \((sleep|bash|nohup)( \u00d72|, (sleep|bash|nohup))\): a one-shot command cannot leave processes behind; start a server or a background job with exec_command, which keeps it running in a session\.\]/,
      );
      // Nothing of theirs runs on the host.
      const left = readdirSync("/proc")
        .filter((entry) => /^\d+$/.test(entry))
        .filter((pid) => {
          try {
            return /^sleep\0(293|294)\0$/.test(readFileSync(`/proc/${pid}/cmdline`, "latin1"));
          } catch {
            return false;
          }
        });
      expect(left).toEqual([]);
    });
  }
});
