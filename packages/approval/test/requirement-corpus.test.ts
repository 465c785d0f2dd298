// Codex's approval-requirement tests (codex-rs/core/src/exec_policy_tests.rs), from the shared corpus.

import { type ExecPolicy, loadExecPolicy, type RuleMatch } from "@conch/exec-policy";
import type { ApprovalPolicy, SandboxMode } from "@conch/protocol";
import { readCorpus } from "@conch/test-config";
import { describe, expect, it } from "vitest";
import { deriveRequestedPrefixRule } from "../src/requirement/amendment.js";
import { approvalRequirement } from "../src/requirement/approval-requirement.js";
import type { ApprovalRequirement } from "../src/requirement/types.js";
import { unmatchedCommandDecision } from "../src/requirement/unmatched-command.js";

interface CorpusCase {
  kind: string;
  source: string;
  policy?: string | null;
  command?: string[];
  approval_policy?: string;
  permission_profile?: string;
  sandbox_permissions?: "use_default" | "require_escalated";
  prefix_rule?: string[] | null;
  used_complex_parsing?: boolean;
  matched_policy_rules?: RuleMatch[];
  expected: Record<string, unknown>;
}

const CASES = readCorpus("codex-execpolicy-cases") as CorpusCase[];

const ofKind = (kind: string): CorpusCase[] => CASES.filter((c) => c.kind === kind);

const NO_GRANULAR = "Conch has no granular approval policy (AskForApproval::Granular)";

/** Every corpus case of these kinds that does not run, and why. */
const DELIBERATELY_SKIPPED: Record<string, string> = {
  "codex-rs/core/src/exec_policy_tests.rs::exec_approval_requirement_rejects_known_safe_escalation_when_granular_sandbox_is_disabled":
    NO_GRANULAR,
  "codex-rs/core/src/exec_policy_tests.rs::mixed_rule_and_sandbox_prompt_prioritizes_rule_for_rejection_decision":
    NO_GRANULAR,
  "codex-rs/core/src/exec_policy_tests.rs::forced_rm_preserves_rule_rejection_when_granular_rules_are_disabled":
    NO_GRANULAR,
  "codex-rs/core/src/exec_policy_tests.rs::unmatched_granular_policy_still_prompts_for_restricted_sandbox_escalation":
    NO_GRANULAR,
};

const isSkipped = (c: CorpusCase): boolean => c.source in DELIBERATELY_SKIPPED;

const SOURCE = "codex-rs/core/src/exec_policy_tests.rs::";
const ALLOW_KEEPS_SANDBOX =
  'Conch\'s allow rule means run without asking, still in the sandbox; only `sandbox = "none"` lifts it';

/** Corpus cases where Conch deliberately decides otherwise than Codex: Conch's requirement, and why. */
const DIFFERENCES: Record<string, { requirement: ApprovalRequirement; reason: string }> = {
  [`${SOURCE}absolute_path_exec_approval_requirement_ignores_disallowed_host_executable_paths`]: {
    requirement: {
      type: "needs-approval",
      reason: "`/opt/homebrew/bin/git status` requires approval by policy",
      proposedRule: null,
      bypassSandbox: false,
    },
    reason:
      "a prompt or forbidden rule holds for its program whatever path names it, a path host_executable() " +
      "does not list too (host_executable() limits which paths an allow rule takes): the `git` prompt rule asks",
  },
  [`${SOURCE}proposed_execpolicy_amendment_is_suppressed_when_policy_matches_allow`]: {
    requirement: { type: "skip", reason: null, proposedRule: null, bypassSandbox: false },
    reason: ALLOW_KEEPS_SANDBOX,
  },
  [`${SOURCE}multi_segment_shell_bypasses_sandbox_when_every_segment_matches_policy_allow`]: {
    requirement: { type: "skip", reason: null, proposedRule: null, bypassSandbox: false },
    reason: ALLOW_KEEPS_SANDBOX,
  },
};

function approvalPolicy(codex: string): ApprovalPolicy {
  if (codex === "untrusted" || codex === "on-request" || codex === "never" || codex === "on-failure")
    return codex;
  throw new Error(`unmapped approval policy ${codex}`);
}

/** Codex's permission profiles as Conch's sandbox policies. */
function sandboxMode(profile: string): SandboxMode {
  if (profile === "disabled(danger-full-access)") return "danger-full-access";
  if (profile === "read-only" || profile === "workspace-write") return profile;
  if (profile.startsWith("external(")) return "external-sandbox";
  throw new Error(`unmapped permission profile ${profile}`);
}

function policyOf(source: string | null | undefined): ExecPolicy {
  return loadExecPolicy(
    source === null || source === undefined ? [] : [{ path: "test.rules", text: source }],
  );
}

/** Codex's `ExecApprovalRequirement` as Conch's requirement. */
function expectedRequirement(expected: Record<string, unknown>): ApprovalRequirement {
  const amendment = (expected.proposed_execpolicy_amendment ?? null) as string[] | null;
  switch (expected.type) {
    case "Forbidden":
      return {
        type: "forbidden",
        reason: expected.reason as string,
        proposedRule: null,
        bypassSandbox: false,
      };
    case "NeedsApproval":
      return {
        type: "needs-approval",
        reason: (expected.reason ?? null) as string | null,
        proposedRule: amendment,
        bypassSandbox: false,
      };
    case "Skip":
      return {
        type: "skip",
        reason: null,
        proposedRule: amendment,
        bypassSandbox: expected.bypass_sandbox as boolean,
      };
    default:
      throw new Error(`unknown requirement ${String(expected.type)}`);
  }
}

describe("the execpolicy corpus", () => {
  it("holds the cases this suite covers", () => {
    expect(ofKind("approval_requirement")).toHaveLength(27);
    expect(ofKind("requested_prefix_rule")).toHaveLength(20);
    expect(ofKind("unmatched_command_decision")).toHaveLength(2);
  });

  it("skips exactly the cases with a granular approval policy", () => {
    const skipped = CASES.filter(isSkipped);
    expect(skipped.map((c) => c.source)).toEqual(Object.keys(DELIBERATELY_SKIPPED));
    expect(skipped.every((c) => c.approval_policy?.startsWith("granular"))).toBe(true);
    const granular = CASES.filter((c) => c.approval_policy?.startsWith("granular"));
    expect(granular.map((c) => c.source)).toEqual(Object.keys(DELIBERATELY_SKIPPED));
  });
});

describe("approval_requirement (Codex create_exec_approval_requirement_for_command)", () => {
  const runnable = ofKind("approval_requirement").filter((c) => !isSkipped(c));

  it("runs 24 cases", () => {
    expect(runnable).toHaveLength(24);
  });

  it("differs from Codex in three cases only, each a Skip that Conch does not grant the same way", () => {
    const differing = runnable.filter((c) => c.source in DIFFERENCES);
    expect(differing.map((c) => c.source)).toEqual(Object.keys(DIFFERENCES));
    expect(differing.map((c) => [c.expected.type, c.expected.bypass_sandbox])).toEqual([
      ["Skip", false],
      ["Skip", true],
      ["Skip", true],
    ]);
  });

  it.each(runnable.map((c) => [c.source.split("::")[1] as string, c] as const))("%s", async (_name, c) => {
    const requirement = await approvalRequirement({
      argv: c.command as string[],
      execPolicy: policyOf(c.policy),
      approvalPolicy: approvalPolicy(c.approval_policy as string),
      sandboxMode: sandboxMode(c.permission_profile as string),
      sandboxPermissions: c.sandbox_permissions as "use_default" | "require_escalated",
      prefixRule: c.prefix_rule ?? null,
    });
    expect(requirement).toEqual(DIFFERENCES[c.source]?.requirement ?? expectedRequirement(c.expected));
  });
});

describe("unmatched_command_decision (Codex render_decision_for_unmatched_command)", () => {
  const runnable = ofKind("unmatched_command_decision").filter((c) => !isSkipped(c));

  it.each(runnable.map((c) => [c.source.split("::")[1] as string, c] as const))("%s", async (_name, c) => {
    const decision = await unmatchedCommandDecision(c.command as string[], {
      approvalPolicy: approvalPolicy(c.approval_policy as string),
      sandboxMode: sandboxMode(c.permission_profile as string),
      sandboxPermissions: c.sandbox_permissions as "use_default" | "require_escalated",
      usedComplexParsing: c.used_complex_parsing as boolean,
    });
    expect(decision).toBe(c.expected.decision);
  });
});

describe("requested_prefix_rule (Codex derive_requested_execpolicy_amendment_from_prefix_rule)", () => {
  // As Codex's test helper: an empty policy, the requested rule (or `echo`) as the only command, and
  // heuristics that allow everything.
  it.each(ofKind("requested_prefix_rule").map((c, i) => [i, JSON.stringify(c.prefix_rule), c] as const))(
    "#%i %s",
    (_i, _rule, c) => {
      const prefixRule = c.prefix_rule ?? null;
      const commands = prefixRule === null ? [["echo"]] : [prefixRule];
      const amendment = deriveRequestedPrefixRule(
        prefixRule,
        c.matched_policy_rules ?? [],
        policyOf(null),
        commands,
        () => "allow",
      );
      expect(amendment).toEqual(c.expected.amendment);
    },
  );
});
