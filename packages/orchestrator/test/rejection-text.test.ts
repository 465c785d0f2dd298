// What the model reads when its command did not run (issue 15): why (the part of the script, the rule
// and where it is written, the danger, the policy), whether a person was asked, and what it can do
// instead. Real tree-sitter, real bwrap; nothing the approval refuses reaches exec-core.
import { existsSync } from "node:fs";
import { mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type ApprovalRequest,
  type Approver,
  ESCALATION_EXPLANATION,
  ScriptedApprover,
} from "@conch/approval";
import { type ExecRequest, run } from "@conch/exec-core";
import { loadExecPolicyFiles } from "@conch/exec-policy";
import { APPROVAL_POLICIES, type ApprovalPolicy } from "@conch/protocol";
import type { SandboxPolicy } from "@conch/sandbox-core";
import { describeWith } from "@conch/test-config";
import { afterEach, beforeEach, expect, it } from "vitest";
import { ToolOrchestrator } from "../src/orchestrator/tool-orchestrator.js";
import type { ToolOrchestratorOptions } from "../src/orchestrator/types.js";
import type { ToolSet } from "../src/tools/tool-set.js";
import { bwrapSandbox } from "./bwrap-sandbox.js";
import { checkedToolSet } from "./checked-tool-set.js";

let work: string;
let outside: string;
let spawned: ExecRequest[];

beforeEach(async () => {
  work = await realpath(await mkdtemp(join(tmpdir(), "conch-rejections-")));
  // Outside every writable root of workspace-write.
  outside = await mkdtemp("/var/tmp/conch-rejections-outside-");
  spawned = [];
});
afterEach(async () => {
  await rm(work, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

const HINT = "to allow it, HINT";
const BASH = { type: "bash", path: "/bin/bash" } as const;

async function tools(
  approvalPolicy: ApprovalPolicy,
  approver: Approver | null,
  extra: Partial<ToolOrchestratorOptions> = {},
): Promise<ToolSet> {
  const policy: SandboxPolicy = { mode: "workspace-write" };
  const orchestrator = new ToolOrchestrator({
    cwd: work,
    approvalPolicy,
    sandbox: policy,
    sessionSandbox: bwrapSandbox(policy, work),
    approver,
    noApproverHint: HINT,
    execute: (request, options) => {
      spawned.push(request);
      return run(request, options);
    },
    ...extra,
  });
  return checkedToolSet({ profile: "codex", orchestrator, shell: BASH });
}

const NO_APPROVER = `this command needs approval, and no one can be asked here; the command did not run (${HINT})`;
const RM_WHY =
  "Why: `rm -rf build` is dangerous: rm with -f/--force deletes without asking and cannot be undone.";
const RM_ADVICE = "Drop -f/--force and name each path to delete, or tell the user what should be deleted.";

describeWith("bwrap", "rejection texts", () => {
  it("a forbidden rule: the rule's file and line, the part it matched, nobody asked, in every policy", async () => {
    const rulesFile = join(work, "team.rules");
    await writeFile(
      rulesFile,
      '# the team\nprefix_rule(pattern = ["touch"], decision = "forbidden", justification = "no touching")\n',
    );
    const rules = await loadExecPolicyFiles([rulesFile]);
    for (const policy of APPROVAL_POLICIES) {
      const approver = new ScriptedApprover([]);
      const set = await tools(policy, approver, { rules });
      const result = await set.call("shell_command", { command: "echo a && touch z", login: false });
      expect(result.text, policy).toBe(
        "`/bin/bash -c 'echo a && touch z'` rejected: no touching\n" +
          `Why: \`touch z\` matches a rule (${rulesFile}:2) that forbids \`touch\`.\n` +
          "No one was asked: what a rule forbids cannot be approved. Do the task without `touch`, or tell " +
          "the user that a rule forbids it.",
      );
      expect(result.result).toMatchObject({ status: "rejected", rejection: "forbidden" });
      expect(approver.requests).toEqual([]);
    }
    expect(spawned).toEqual([]);
    expect(existsSync(join(work, "z"))).toBe(false);
  });

  it("rm -rf under never: refused, the danger named, nobody asked, what to do instead", async () => {
    const set = await tools("never", null);
    const result = await set.call("shell_command", { command: "cd out; rm -rf build", login: false });
    expect(result.text).toBe(
      "`/bin/bash -c 'cd out; rm -rf build'` rejected: rm -f style commands are not permitted. Use a safer " +
        `approach\n${RM_WHY}\nNo one was asked: the approval policy is never. ${RM_ADVICE}`,
    );
    expect(result.result).toMatchObject({ status: "rejected", rejection: "forbidden" });
    expect(spawned).toEqual([]);
  });

  it("rm -rf under untrusted, on-failure and on-request, where nobody can be asked", async () => {
    for (const policy of ["untrusted", "on-failure", "on-request"] as const) {
      const set = await tools(policy, null);
      const result = await set.call("shell", { command: ["rm", "-rf", "build"] });
      expect(result.text, policy).toBe(`${NO_APPROVER}\n${RM_WHY}\n${RM_ADVICE}`);
      expect(result.result).toMatchObject({ status: "rejected", rejection: "no-approver" });
    }
    expect(spawned).toEqual([]);
  });

  it("a person's no stays Codex's words, with their note, and says why it was asked; the person was shown why", async () => {
    const approver = new ScriptedApprover(["denied"]);
    const set = await tools("on-request", approver);
    const result = await set.call("shell", { command: ["rm", "-rf", "build"] });
    expect(result.text).toBe(
      "rejected by user\nIt was asked because `rm -rf build` is dangerous: rm with -f/--force deletes without asking and cannot be undone.",
    );
    expect(result.result).toMatchObject({ status: "rejected", rejection: "denied-by-user" });
    expect(approver.requests[0]?.explanation?.why).toBe(RM_WHY.slice("Why: ".length, -1));

    const withNote = await tools("on-request", {
      request: async () => ({ decision: "denied", reason: "rejected by user: clean with make clean" }),
    });
    expect((await withNote.call("shell", { command: ["rm", "-rf", "build"] })).text).toBe(
      "rejected by user: clean with make clean\nIt was asked because `rm -rf build` is dangerous: rm with -f/--force deletes without asking and cannot be undone.",
    );
    expect(spawned).toEqual([]);
  });

  it("untrusted, nobody to ask: the first part not known to be read-only", async () => {
    const set = await tools("untrusted", null);
    const result = await set.call("shell_command", { command: "ls && touch y", login: false });
    expect(result.text).toBe(
      `${NO_APPROVER}\nWhy: \`touch y\` is not known to be read-only, and under the approval policy ` +
        "untrusted only commands known to be read-only run unasked.\nUse read-only commands only, or tell " +
        "the user what you need to run and why.",
    );
    expect(spawned).toEqual([]);
  });

  it("on-request: an escalation is asked about; without anyone to ask, how to stay in the sandbox", async () => {
    const args = {
      command: `touch ${join(outside, "e")}`,
      login: false,
      sandbox_permissions: "require_escalated",
      justification: "Create e outside the workspace?",
    };
    const nobody = await (await tools("on-request", null)).call("shell_command", args);
    expect(nobody.text).toBe(
      `${NO_APPROVER}\nWhy: the command asks to run outside the sandbox (sandbox_permissions: ` +
        '"require_escalated"), which only a person can allow.\nRun it again without sandbox_permissions ' +
        '"require_escalated" to run it in the sandbox, or tell the user why it must run outside.',
    );
    expect(nobody.result).toMatchObject({ status: "rejected", rejection: "no-approver" });

    const approver = new ScriptedApprover(["denied"]);
    const refused = await (await tools("on-request", approver)).call("shell_command", args);
    expect(refused.text).toBe(
      'rejected by user\nIt was asked because the command asks to run outside the sandbox (sandbox_permissions: "require_escalated"), which only a person can allow.',
    );
    expect(approver.requests[0]).toMatchObject({
      justification: "Create e outside the workspace?",
      explanation: ESCALATION_EXPLANATION,
    });
    expect(spawned).toEqual([]);
    expect(existsSync(join(outside, "e"))).toBe(false);
  });

  it("on-failure: a denied command whose retry nobody can approve says to stay in the writable roots", async () => {
    const set = await tools("on-failure", null);
    const result = await set.call("shell_command", { command: `echo hi > ${outside}/f`, login: false });
    expect(result.text).toBe(
      `${NO_APPROVER}\nWhy: the sandbox (workspace-write) appears to have blocked it, and running it again ` +
        "outside the sandbox needs a person's yes.\nChange the command to stay within the writable roots, " +
        "or tell the user what it needs.",
    );
    expect(spawned).toHaveLength(1);
    expect(existsSync(join(outside, "f"))).toBe(false);
  });

  it("an escalation under a policy that never grants one keeps Codex's text, which says what to do", async () => {
    const set = await tools("untrusted", new ScriptedApprover([]));
    const result = await set.call("shell_command", {
      command: "touch y",
      login: false,
      sandbox_permissions: "require_escalated",
      justification: "Touch y?",
    });
    expect(result.text).toBe(
      "approval policy is untrusted; reject command — you should not ask for escalated permissions if the " +
        'approval policy is untrusted. Run it again with sandbox_permissions "use_default".',
    );
  });

  it("the person asked is shown what decided it; the model reads it while an answer is pending", async () => {
    const asked: ApprovalRequest[] = [];
    const set = await tools("untrusted", {
      request: async (request) => {
        asked.push(request);
        return { decision: "abort", outcome: "pending", reason: `pending: ${request.explanation?.why}` };
      },
    });
    const result = await set.call("shell_command", { command: "mkdir d", login: false });
    expect(result.text).toBe(
      "pending: `mkdir d` is not known to be read-only, and under the approval policy untrusted only " +
        "commands known to be read-only run unasked",
    );
    expect(asked).toHaveLength(1);
  });
});
