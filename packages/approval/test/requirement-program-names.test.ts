import type { ExecPolicy } from "@conch/exec-policy";
import { loadExecPolicy } from "@conch/exec-policy";
import type { ApprovalPolicy } from "@conch/protocol";
import { describe, expect, it } from "vitest";
import { approvalRequirement } from "../src/index.js";

// Issue 20 §4: a rule names a program, whatever path names it and whatever runs it. Classification
// only: nothing here runs.

const policy: ExecPolicy = loadExecPolicy([
  {
    path: "names.rules",
    text: [
      'prefix_rule(pattern = ["rm"], decision = "forbidden")',
      'prefix_rule(pattern = ["git", "push"], decision = "forbidden")',
      'prefix_rule(pattern = ["curl"], decision = "prompt")',
      'prefix_rule(pattern = ["npm", "test"], decision = "allow")',
      'prefix_rule(pattern = ["make"], decision = "allow", sandbox = "none")',
      'host_executable(name = "rm", paths = ["/usr/bin/rm"])',
      'host_executable(name = "git", paths = ["/usr/bin/git"])',
      'host_executable(name = "make", paths = ["/usr/bin/make"])',
    ].join("\n"),
  },
]);

async function requirementOf(argv: readonly string[], approvalPolicy: ApprovalPolicy = "on-request") {
  return approvalRequirement({
    argv,
    execPolicy: policy,
    approvalPolicy,
    sandboxMode: "workspace-write",
    sandboxPermissions: "use_default",
  });
}

const script = (text: string): string[] => ["bash", "-lc", text];

describe("a restrictive rule holds for its program by any path", () => {
  const forms = [
    "../../../../usr/bin/rm f",
    "./rm f",
    "bin/rm f",
    "cd /usr/bin; ./rm f",
    "cd /usr && bin/rm f",
    "/bin/rm f",
    "/usr/../bin/./rm f",
    "//usr//bin//rm f",
    "../../../../usr/bin/git push origin main",
    "./git push",
    "/bin/git push",
    "cd /usr/bin && ./git push",
    "x/y/z/rm -rf .",
  ];
  it.each(forms)("bash -lc %j is forbidden under on-request and never", async (line) => {
    for (const approvalPolicy of ["on-request", "never", "untrusted"] as const) {
      expect((await requirementOf(script(line), approvalPolicy)).type, approvalPolicy).toBe("forbidden");
    }
  });

  it.each(
    forms.map((line) => line.split(" ")).filter((argv) => !["cd", "//usr//bin//rm"].includes(argv[0] ?? "")),
  )("the argv %j is forbidden", async (...argv) => {
    expect((await requirementOf(argv)).type).toBe("forbidden");
  });

  it.each([
    ["zsh", "-lc", "./rm f"],
    ["sh", "-c", "bin/rm f"],
    ["/bin/bash", "-c", "../../../usr/bin/rm f"],
  ])("%j: any shell, the same", async (...argv) => {
    expect((await requirementOf(argv)).type).toBe("forbidden");
  });

  it.each([script("./curl -s x"), ["../../usr/bin/curl", "x"], script("cd /usr; bin/curl x")])(
    "a prompt rule asks for %j",
    async (...argv) => {
      const requirement = await requirementOf(argv);
      expect(requirement.type).toBe("needs-approval");
      expect(requirement.reason).toMatch(/requires approval by policy/);
    },
  );

  it("says which rule forbids it", async () => {
    const requirement = await requirementOf(["./rm", "f"]);
    expect(requirement.reason).toBe("`./rm f` rejected: policy forbids commands starting with `rm`");
  });
});

describe("allow rules keep their names", () => {
  it("an allow rule for npm test does not take ./npm test", async () => {
    const bare = await requirementOf(["npm", "test"], "untrusted");
    expect(bare.type).toBe("skip");
    const path = await requirementOf(["./npm", "test"], "untrusted");
    expect(path.type).toBe("needs-approval");
  });

  it("a sandbox = none allow rule lifts the sandbox only for a path host_executable lists", async () => {
    expect((await requirementOf(["/usr/bin/make"])).bypassSandbox).toBe(true);
    expect((await requirementOf(["/bin/make"])).bypassSandbox).toBe(false);
    expect((await requirementOf(["./make"])).bypassSandbox).toBe(false);
  });
});

describe("runners and escapes: a forbidden program behind them is forbidden, what cannot be read asks", () => {
  it.each([
    "npm exec -- rm f",
    "npx rm f",
    "pnpm exec rm f",
    "pnpm dlx rm f",
    "yarn exec 'rm f'",
    "bunx rm f",
    "uvx rm f",
    "uv run rm f",
    "poetry run rm f",
    "pipx run rm f",
    "ssh-agent rm f",
    "dbus-run-session -- rm f",
    "dbus-launch rm f",
    "screen -dm rm f",
    "start-stop-daemon -S -x /bin/rm -- f",
    "daemonize /bin/rm f",
    "toybox rm f",
    "coreutils --coreutils-prog=rm f",
    "/lib64/ld-linux-x86-64.so.2 /bin/rm f",
    "bwrap --bind / / rm f",
    "rg --pre rm x",
    "echo a | split --filter='rm f'",
    "socat - EXEC:'rm f'",
    "nc -e /bin/rm 127.0.0.1 9",
    "fd . -x rm",
    "npx git push",
    "uv run --with x git push",
    "ssh-agent ../../usr/bin/git push",
    "pnpm git push",
  ])("%s is forbidden", async (line) => {
    expect((await requirementOf(script(line))).type).toBe("forbidden");
  });

  it.each([
    "printf '!\\162m f\\n' | ed -s",
    "ed notes < commands",
    "less notes",
    "vi notes",
    "printf '.shell x\\n' | sqlite3",
    "gdb -q -nx < commands",
    "dc < commands",
    "npm exec --weird-option x y",
  ])("%s needs approval while a rule restricts, and is refused under never", async (line) => {
    expect((await requirementOf(script(line))).type).toBe("needs-approval");
    expect((await requirementOf(script(line), "never")).type).toBe("forbidden");
  });

  it.each(["less notes"])("with no restrictive rule, %s runs as before", async (line) => {
    const requirement = await approvalRequirement({
      argv: script(line),
      execPolicy: loadExecPolicy([]),
      approvalPolicy: "on-request",
      sandboxMode: "workspace-write",
      sandboxPermissions: "use_default",
    });
    expect(requirement.type).toBe("skip");
  });
});
