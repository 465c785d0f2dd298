import { describe, expect, it, vi } from "vitest";
import { isExecPolicyError } from "../src/errors.js";
import { checkExecPolicy, evaluateExecPolicy } from "../src/evaluate.js";
import { withPrefixRule } from "../src/exec-policy.js";
import { loadExecPolicy } from "../src/load.js";
import type { PrefixRuleMatch } from "../src/types.js";

const policyOf = (text: string) => loadExecPolicy([{ path: "test.rules", text }]);

function prefixMatch(
  matchedPrefix: string[],
  decision: PrefixRuleMatch["decision"],
  resolvedProgram: string | null = null,
  justification: string | null = null,
): PrefixRuleMatch {
  return { type: "prefixRuleMatch", matchedPrefix, decision, resolvedProgram, justification };
}

describe("evaluateExecPolicy", () => {
  const policy = policyOf(`
prefix_rule(pattern = ["git"], decision = "prompt")
prefix_rule(pattern = ["git", "commit"], decision = "forbidden", justification = "Commit yourself.")
prefix_rule(pattern = ["npm", ["i", "install"], ["--legacy-peer-deps", "--no-save"]])
`);

  it("reports every matching rule in rule order and takes the strictest decision", () => {
    expect(evaluateExecPolicy(policy, ["git", "commit", "-m", "x"], { fallback: "allow" })).toEqual({
      decision: "forbidden",
      matchedRules: [
        prefixMatch(["git"], "prompt"),
        prefixMatch(["git", "commit"], "forbidden", null, "Commit yourself."),
      ],
    });
  });

  it("matches alternatives position by position and needs the whole pattern", () => {
    const allow = { fallback: "prompt" } as const;
    expect(evaluateExecPolicy(policy, ["npm", "i", "--no-save", "x"], allow).matchedRules).toEqual([
      prefixMatch(["npm", "i", "--no-save"], "allow"),
    ]);
    expect(evaluateExecPolicy(policy, ["npm", "install"], allow).matchedRules).toEqual([
      { type: "heuristicsRuleMatch", command: ["npm", "install"], decision: "prompt" },
    ]);
    expect(evaluateExecPolicy(policy, ["npm", "ci", "--no-save"], allow).decision).toBe("prompt");
  });

  it("asks the fallback about each unmatched command only", () => {
    const fallback = vi.fn((command: readonly string[]) => (command[0] === "rm" ? "forbidden" : "allow"));
    const evaluation = evaluateExecPolicy(policy, [["ls"], ["git", "status"], ["rm", "-rf", "x"]], {
      fallback,
    });
    expect(fallback.mock.calls).toEqual([[["ls"]], [["rm", "-rf", "x"]]]);
    expect(evaluation).toEqual({
      decision: "forbidden",
      matchedRules: [
        { type: "heuristicsRuleMatch", command: ["ls"], decision: "allow" },
        prefixMatch(["git"], "prompt"),
        { type: "heuristicsRuleMatch", command: ["rm", "-rf", "x"], decision: "forbidden" },
      ],
    });
  });

  it("treats an empty argv as one command that no rule matches", () => {
    expect(evaluateExecPolicy(policy, [], { fallback: "prompt" })).toEqual({
      decision: "prompt",
      matchedRules: [{ type: "heuristicsRuleMatch", command: [], decision: "prompt" }],
    });
    expect(evaluateExecPolicy(policy, [[]], { fallback: "allow" }).matchedRules).toHaveLength(1);
  });
});

describe("host executables", () => {
  const listed = policyOf(`
prefix_rule(pattern = ["git", "status"], decision = "allow")
prefix_rule(pattern = ["git", "push"], decision = "forbidden")
host_executable(name = "git", paths = ["/usr/bin/git"])
`);

  it("resolves a listed absolute path to the basename's rules, normalising it", () => {
    for (const program of ["/usr/bin/git", "/usr/bin/../bin/git", "//usr/bin//git"]) {
      expect(evaluateExecPolicy(listed, [program, "status"], { fallback: "prompt" }).matchedRules).toEqual([
        prefixMatch(["git", "status"], "allow", "/usr/bin/git"),
      ]);
    }
  });

  it("does not resolve unlisted, relative or bare paths, nor in exact mode", () => {
    const heuristics = (command: string[]) => ({ type: "heuristicsRuleMatch", command, decision: "prompt" });
    for (const command of [
      ["/opt/homebrew/bin/git", "status"],
      ["./git", "status"],
      ["bin/git", "status"],
    ]) {
      expect(evaluateExecPolicy(listed, command, { fallback: "prompt" }).matchedRules).toEqual([
        heuristics(command),
      ]);
    }
    expect(
      evaluateExecPolicy(listed, ["/usr/bin/git", "status"], { fallback: "prompt", hostExecutables: "exact" })
        .matchedRules,
    ).toEqual([heuristics(["/usr/bin/git", "status"])]);
    // With no host_executable() for the name, any absolute path resolves (Codex's documented default).
    expect(
      evaluateExecPolicy(policyOf('prefix_rule(pattern = ["git"])'), ["/tmp/x/git", "log"], {
        fallback: "prompt",
      }).matchedRules,
    ).toEqual([prefixMatch(["git"], "allow", "/tmp/x/git")]);
  });

  it("restrictive mode applies prompt and forbidden basename rules to any spelling of the program", () => {
    const restrictive = { fallback: "allow", hostExecutables: "restrictive" } as const;
    expect(evaluateExecPolicy(listed, ["/opt/evil/git", "push"], restrictive)).toEqual({
      decision: "forbidden",
      matchedRules: [prefixMatch(["git", "push"], "forbidden", "/opt/evil/git")],
    });
    expect(evaluateExecPolicy(listed, ["./git", "push"], restrictive).matchedRules).toEqual([
      prefixMatch(["git", "push"], "forbidden"),
    ]);
    // Basename allow rules never apply in this mode; exact ones keep their meaning, once each.
    expect(evaluateExecPolicy(listed, ["/usr/bin/git", "status"], restrictive).matchedRules).toEqual([
      { type: "heuristicsRuleMatch", command: ["/usr/bin/git", "status"], decision: "allow" },
    ]);
    expect(evaluateExecPolicy(listed, ["git", "push"], restrictive).matchedRules).toEqual([
      prefixMatch(["git", "push"], "forbidden"),
    ]);
    expect(evaluateExecPolicy(listed, ["git", "status"], restrictive).matchedRules).toEqual([
      prefixMatch(["git", "status"], "allow"),
    ]);
  });
});

describe("checkExecPolicy", () => {
  const policy = policyOf(`
prefix_rule(pattern = ["git", "status"])
prefix_rule(pattern = ["git"], decision = "prompt", justification = "Ask about git.")
`);

  it("prints what `codex execpolicy check` prints", () => {
    expect(JSON.stringify(checkExecPolicy(policy, ["git", "status"]))).toBe(
      '{"matchedRules":[{"prefixRuleMatch":{"matchedPrefix":["git","status"],"decision":"allow"}},' +
        '{"prefixRuleMatch":{"matchedPrefix":["git"],"decision":"prompt","justification":"Ask about git."}}],' +
        '"decision":"prompt"}',
    );
    expect(JSON.stringify(checkExecPolicy(policy, ["/usr/bin/git", "status"]))).toBe(
      '{"matchedRules":[{"prefixRuleMatch":{"matchedPrefix":["git","status"],"decision":"allow","resolvedProgram":"/usr/bin/git"}},' +
        '{"prefixRuleMatch":{"matchedPrefix":["git"],"decision":"prompt","resolvedProgram":"/usr/bin/git","justification":"Ask about git."}}],' +
        '"decision":"prompt"}',
    );
  });

  it("reports no match as an empty list without a decision", () => {
    expect(JSON.stringify(checkExecPolicy(policy, ["ls"]))).toBe('{"matchedRules":[]}');
    expect(
      JSON.stringify(checkExecPolicy(policy, ["/usr/bin/git", "status"], { hostExecutables: "exact" })),
    ).toBe('{"matchedRules":[]}');
  });
});

describe("withPrefixRule", () => {
  it("returns a policy with one more literal rule and leaves the original alone", () => {
    const policy = policyOf('prefix_rule(pattern = ["ls"], decision = "forbidden")');
    const amended = withPrefixRule(policy, ["ls", "-l"], "prompt");
    expect(amended.rulesByProgram.get("ls")).toEqual([
      {
        program: "ls",
        rest: [],
        decision: "forbidden",
        justification: null,
        source: { path: "test.rules", line: 1 },
      },
      { program: "ls", rest: ["-l"], decision: "prompt", justification: null },
    ]);
    expect(policy.rulesByProgram.get("ls")).toHaveLength(1);
    expect(evaluateExecPolicy(amended, ["ls", "-l", "x"], { fallback: "allow" }).decision).toBe("forbidden");
  });

  it("rejects an empty prefix as Codex does", () => {
    let error: unknown;
    try {
      withPrefixRule(policyOf(""), [], "allow");
    } catch (e) {
      error = e;
    }
    expect(isExecPolicyError(error)).toBe(true);
    expect((error as Error).message).toBe("invalid pattern element: prefix cannot be empty");
  });
});
