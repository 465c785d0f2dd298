// The approval steps of the one door, end to end and without running anything: the requirement, the
// session cache, the approver, and the rule that "always allow" stores.

import { type ExecPolicy, loadExecPolicy } from "@conch/exec-policy";
import { REVIEW_DECISIONS, type ReviewDecision } from "@conch/protocol";
import { describe, expect, it } from "vitest";
import { ApprovalCache } from "../src/always-allow/approval-cache.js";
import { allowPrefixRule } from "../src/always-allow/rules-store.js";
import { storablePrefixRule } from "../src/always-allow/storable-prefix-rule.js";
import { type ApprovalRequest, ScriptedApprover } from "../src/approver.js";
import { approvalRequirement } from "../src/requirement/approval-requirement.js";

const CWD = "/work/app";

function request(argv: readonly string[], proposedRule: readonly string[] | null): ApprovalRequest {
  return {
    argv,
    cwd: CWD,
    reason: null,
    proposedRule,
    justification: "needs the network",
    sandboxMode: "workspace-write",
    sandboxPermissions: "require_escalated",
    tty: false,
  };
}

/** What an orchestrator does before running argv: true when it may run. */
async function gate(
  argv: readonly string[],
  state: { execPolicy: ExecPolicy; cache: ApprovalCache; approver: ScriptedApprover },
): Promise<boolean> {
  const requirement = await approvalRequirement({
    argv,
    execPolicy: state.execPolicy,
    approvalPolicy: "on-request",
    sandboxMode: "workspace-write",
    sandboxPermissions: "require_escalated",
  });
  if (requirement.type === "skip") return true;
  if (requirement.type === "forbidden") return false;
  const key = { argv, cwd: CWD, sandboxPermissions: "require_escalated", tty: false } as const;
  if (await state.cache.isApprovedForSession(key)) return true;
  const rule = requirement.proposedRule === null ? null : storablePrefixRule(requirement.proposedRule);
  const decision = await state.approver.request(request(argv, rule));
  await state.cache.record(key, decision);
  if (decision === "approved_always" && rule !== null)
    state.execPolicy = allowPrefixRule(state.execPolicy, rule).rules;
  return decision === "approved" || decision === "approved_for_session" || decision === "approved_always";
}

describe("ScriptedApprover", () => {
  it("answers in order, records every request, and fails clearly when it runs out", async () => {
    const approver = new ScriptedApprover(["approved", "denied"]);
    expect(approver.remaining).toBe(2);
    expect(await approver.request(request(["make"], null))).toBe("approved");
    expect(await approver.request(request(["make", "deploy"], ["make", "deploy"]))).toBe("denied");
    expect(approver.remaining).toBe(0);
    await expect(approver.request(request(["make", "clean"], null))).rejects.toThrow(
      'ScriptedApprover: no decision left for request 3 (["make","clean"] in /work/app); 2 scripted',
    );
    expect(approver.requests.map((r) => r.argv)).toEqual([["make"], ["make", "deploy"], ["make", "clean"]]);
    expect(approver.remaining).toBe(0);
  });

  it("knows every review decision", () => {
    expect(REVIEW_DECISIONS).toEqual([
      "approved",
      "approved_for_session",
      "approved_always",
      "denied",
      "abort",
    ]);
  });
});

describe("the approval steps together", () => {
  it("asks once for a command approved for the session", async () => {
    const state = {
      execPolicy: loadExecPolicy([]),
      cache: new ApprovalCache(),
      approver: new ScriptedApprover(["approved_for_session"]),
    };
    expect(await gate(["cargo", "fetch"], state)).toBe(true);
    expect(await gate(["bash", "-lc", "cargo fetch"], state)).toBe(true);
    expect(state.approver.requests).toEqual([request(["cargo", "fetch"], ["cargo", "fetch"])]);
  });

  it("asks every time for a command approved once or denied", async () => {
    const decisions: ReviewDecision[] = ["approved", "denied", "abort"];
    const state = {
      execPolicy: loadExecPolicy([]),
      cache: new ApprovalCache(),
      approver: new ScriptedApprover(decisions),
    };
    expect(await gate(["cargo", "fetch"], state)).toBe(true);
    expect(await gate(["cargo", "fetch"], state)).toBe(false);
    expect(await gate(["cargo", "fetch"], state)).toBe(false);
    expect(state.approver.requests).toHaveLength(3);
  });

  it("stores the arity prefix for always, and then runs its kind unasked, still in the sandbox", async () => {
    const state = {
      execPolicy: loadExecPolicy([]),
      cache: new ApprovalCache(),
      approver: new ScriptedApprover(["approved_always"]),
    };
    expect(await gate(["cargo", "install", "cargo-insta"], state)).toBe(true);
    expect(state.approver.requests).toEqual([
      request(["cargo", "install", "cargo-insta"], ["cargo", "install"]),
    ]);
    expect(
      await approvalRequirement({
        argv: ["cargo", "install", "ripgrep"],
        execPolicy: state.execPolicy,
        approvalPolicy: "on-request",
        sandboxMode: "workspace-write",
        sandboxPermissions: "require_escalated",
      }),
    ).toEqual({ type: "skip", reason: null, proposedRule: null, bypassSandbox: false });
  });

  it("never offers always for a command whose rule may not be stored", async () => {
    const state = {
      execPolicy: loadExecPolicy([]),
      cache: new ApprovalCache(),
      approver: new ScriptedApprover(["approved"]),
    };
    expect(await gate(["python3", "-c", "import os"], state)).toBe(true);
    expect(state.approver.requests).toEqual([request(["python3", "-c", "import os"], null)]);
  });
});
