// Issue 12: one sandbox registry, an explicit object each runtime makes, and one prepareSandbox that the
// runtime and `conch sandbox` call. With real bwrap: what prepareSandbox returns is what a spawn needs.
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, realpath, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import { ScriptedApprover } from "@conch/approval";
import { run } from "@conch/exec-core";
import { createSandboxRegistry, isSandboxError, prepareSandbox, SandboxError } from "@conch/sandbox-core";
import { createLinuxBackend } from "@conch/sandbox-linux";
import { describeWith } from "@conch/test-config";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createRuntime } from "../src/create-runtime.js";
import { sessionSandbox } from "../src/orchestrator/session-sandbox.js";
import { ToolOrchestrator } from "../src/orchestrator/tool-orchestrator.js";
import type { CommandRequest } from "../src/orchestrator/types.js";

let root: string;
let work: string;
let env: Record<string, string>;

beforeEach(async () => {
  // Not under /tmp: the sandbox replaces /tmp with its own, so a write there could not show a denial.
  root = await realpath(await mkdtemp("/var/tmp/conch-registry-"));
  work = join(root, "work");
  await mkdir(work);
  const home = join(root, "home");
  await mkdir(home);
  env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_STATE_HOME: join(home, ".state"),
  };
});
afterEach(() => rm(root, { recursive: true, force: true }));

function request(argv: readonly string[]): CommandRequest {
  return { tool: "test", argv, cwd: work, maxOutputTokens: 1000 };
}

describe("the runtime's sandbox registry", () => {
  it("is the runtime's own: what one runtime registers, another never sees", async () => {
    const first = await createRuntime({ cwd: work, env, sandbox: "danger-full-access" });
    const second = await createRuntime({ cwd: work, env, sandbox: "danger-full-access" });
    try {
      expect(first.sandboxRegistry).not.toBe(second.sandboxRegistry);
      first.sandboxRegistry.register({
        name: "zones",
        platform: "sunos",
        available: async () => ({ available: true }),
        transform: async (spec) => spec,
      });
      expect(first.sandboxRegistry.select({ mode: "read-only" }, "sunos")?.name).toBe("zones");
      expect(() => second.sandboxRegistry.select({ mode: "read-only" }, "sunos")).toThrow(
        "no sandbox backend for platform sunos: policy read-only cannot be enforced here; use danger-full-access or external-sandbox to run without Conch's sandbox",
      );
      const none = await first.sandbox();
      expect([none.name, none.backend, none.spawnHook()]).toEqual(["none", null, null]);
    } finally {
      await first.close();
      await second.close();
    }
  });

  it("fails closed when bwrap cannot run, naming the fix, and never offers to run unsandboxed", async () => {
    const missing = join(root, "no-such-bwrap");
    const registry = createSandboxRegistry([createLinuxBackend({ bwrap: missing })]);
    const error = await prepareSandbox({ mode: "workspace-write" }, work, registry, {
      platform: "linux",
    }).catch((e: unknown) => e);
    expect(isSandboxError(error) && error.code).toBe("SANDBOX_UNAVAILABLE");
    expect((error as Error).message).toBe(
      `the sandbox (bwrap) cannot run here: ${missing} --version did not answer as bubblewrap: spawn ${missing} ENOENT; fix: ` +
        "install bubblewrap from your distribution: `apt-get install bubblewrap` (Debian, Ubuntu), `dnf install bubblewrap` (Fedora), `pacman -S bubblewrap` (Arch)",
    );
  });
});

describe("the orchestrator's sandbox", () => {
  it("is none without a session sandbox: a sandboxed mode fails closed, nothing runs outside it", async () => {
    const marker = join(work, "ran");
    const orchestrator = new ToolOrchestrator({
      cwd: work,
      approvalPolicy: "never",
      sandbox: { mode: "read-only" },
    });
    expect(await orchestrator.run(request(["touch", marker]))).toEqual({
      status: "rejected",
      kind: "sandbox-unavailable",
      reason:
        `no sandbox backend for platform ${process.platform}: policy read-only cannot be enforced here; ` +
        "use danger-full-access or external-sandbox to run without Conch's sandbox. The command did not run.",
      decidedBy: "policy",
    });
    expect(existsSync(marker)).toBe(false);
  });

  it("with a remote backend preferred, starts the command through its host, never here", async () => {
    const marker = join(work, "remote-marker");
    const asked: unknown[] = [];
    const registry = createSandboxRegistry([
      {
        name: "agent",
        platform: process.platform,
        available: async () => ({ available: true }),
        host: {
          where: "agent t1 at unix:/nowhere",
          start: async (request) => {
            asked.push({ argv: request.spec.argv, tty: request.tty, mode: request.rules.mode });
            throw new SandboxError(
              "SANDBOX_UNAVAILABLE",
              "the agent cannot sandbox this command (nothing ran)",
            );
          },
          attach: async () => null,
          list: async () => [],
        },
      },
      createLinuxBackend(),
    ]);
    const orchestrator = new ToolOrchestrator({
      cwd: work,
      approvalPolicy: "never",
      sandbox: { mode: "workspace-write" },
      sessionSandbox: sessionSandbox({ mode: "workspace-write" }, work, registry, { env }),
    });
    const outcome = await orchestrator.run(request(["touch", marker]));
    expect(outcome.status === "failed" && [outcome.code, outcome.message]).toEqual([
      "SANDBOX_UNAVAILABLE",
      "the agent cannot sandbox this command (nothing ran)",
    ]);
    expect(asked).toEqual([{ argv: ["touch", marker], tty: false, mode: "workspace-write" }]);
    expect(existsSync(marker)).toBe(false);
  });

  it("refuses a session sandbox prepared for another mode than its policy", async () => {
    const marker = join(work, "ran");
    const orchestrator = new ToolOrchestrator({
      cwd: work,
      approvalPolicy: "never",
      sandbox: { mode: "workspace-write" },
      sessionSandbox: sessionSandbox({ mode: "danger-full-access" }, work, createSandboxRegistry(), {}),
    });
    const outcome = await orchestrator.run(request(["touch", marker]));
    expect(outcome.status === "failed" && [outcome.code, outcome.message]).toEqual([
      "INVALID_REQUEST",
      'sessionSandbox: expected a sandbox prepared for the mode workspace-write (as the orchestrator\'s), received "danger-full-access"',
    ]);
    expect(existsSync(marker)).toBe(false);
  });

  it("refuses a session sandbox prepared for another cwd", async () => {
    const other = await mkdtemp(join(root, "other-"));
    const marker = join(other, "ran");
    const orchestrator = new ToolOrchestrator({
      cwd: work,
      approvalPolicy: "never",
      sandbox: { mode: "danger-full-access" },
      sessionSandbox: sessionSandbox({ mode: "danger-full-access" }, other, createSandboxRegistry(), {}),
    });
    const outcome = await orchestrator.run(request(["touch", marker]));
    expect(outcome.status === "failed" && outcome.code).toBe("INVALID_REQUEST");
    expect(outcome.status === "failed" && outcome.message).toContain(
      "expected a sandbox prepared for the cwd",
    );
    expect(existsSync(marker)).toBe(false);
  });
});

describeWith("bwrap", "the runtime's prepared sandbox", () => {
  it("is the orchestrator's too: the workspace is resolved once, and a root replaced since then runs nothing", async () => {
    const runtime = await createRuntime({ cwd: work, env });
    try {
      await runtime.sandbox();
      await rename(work, join(root, "moved"));
      await mkdir(work);
      const marker = join(work, "ran");
      const outcome = await runtime.orchestrator.run(request(["touch", marker]));
      expect(outcome.status === "failed" && [outcome.code, outcome.message]).toEqual([
        "WRITABLE_ROOT_CHANGED",
        `the sandbox's writable root ${work} is not the directory the session started with (it is now another directory); ` +
          "nothing ran. Start a new session to use the directory that is there now.",
      ]);
      expect(existsSync(marker)).toBe(false);
    } finally {
      await runtime.close();
    }
  });

  it("is pinned before a first command that runs outside it: its swap of the workspace chooses nothing", async () => {
    const target = await mkdtemp(join(root, "target-"));
    const runtime = await createRuntime({ cwd: work, env, approver: new ScriptedApprover(["approved"]) });
    try {
      // A person approved running this one outside the sandbox; it moves the workspace aside.
      const swap = await runtime.orchestrator.run({
        ...request(["sh", "-c", `mv ${work} ${work}.old && ln -s ${target} ${work}`]),
        sandboxPermissions: "require_escalated",
        justification: "test",
      });
      expect(swap.status === "ran" && swap.exitCode).toBe(0);
      const marker = join(target, "written-by-sandboxed");
      const outcome = await runtime.orchestrator.run({ ...request(["touch", marker]), cwd: target });
      expect(outcome.status === "failed" && outcome.code).toBe("WRITABLE_ROOT_CHANGED");
      expect(existsSync(marker)).toBe(false);
    } finally {
      await runtime.close();
    }
  });

  it("is bwrap, prepared once per session, and what it returns runs a command in the sandbox", async () => {
    const runtime = await createRuntime({ cwd: work, env });
    try {
      const sandbox = await runtime.sandbox();
      expect(await runtime.sandbox()).toBe(sandbox);
      expect([sandbox.name, sandbox.workspace.mode, sandbox.workspace.cwd]).toEqual([
        "bwrap",
        "workspace-write",
        work,
      ]);
      const outside = join(root, "outside.txt");
      const prepare = sandbox.spawnHook();
      expect(prepare).not.toBe(null);
      const result = await run(
        {
          argv: ["sh", "-c", `echo in > inside.txt; echo out > ${outside}; echo "sandbox=$CONCH_SANDBOX"`],
          cwd: work,
        },
        prepare === null ? {} : { prepare },
      );
      expect(result.exitCode).toBe(0);
      expect(result.output).toContain("Read-only file system");
      expect(result.output).toContain("sandbox=bwrap");
      expect(await readFile(join(work, "inside.txt"), "utf8")).toBe("in\n");
      expect(existsSync(outside)).toBe(false);
    } finally {
      await runtime.close();
    }
  });
});
