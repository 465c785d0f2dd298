import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readCorpus } from "@conch/test-config";
import { afterAll, describe, expect, it } from "vitest";
import { appendAllowRuleToFile } from "../src/amend.js";
import type { Decision } from "../src/decision.js";
import { isExecPolicyError } from "../src/errors.js";
import { evaluateExecPolicy } from "../src/evaluate.js";
import { loadExecPolicy } from "../src/load.js";
import { compileNetworkDomains } from "../src/network.js";

interface Case {
  kind: string;
  source: string;
  [field: string]: unknown;
}

// Cases from Codex's execpolicy tests, shared by every package that implements a part of them.
const corpus = readCorpus("codex-execpolicy-cases") as Case[];

// The kinds this package's rules engine answers; the others belong to the approval requirement.
const RULES_KINDS = [
  "policy_check",
  "policy_check_multiple",
  "rule_examples",
  "parse_error",
  "host_executable_merge",
  "network_rules",
  "amend_file",
];

/** Cases where Conch deliberately differs from Codex, by `source`, with the reason. None so far. */
const DIFFERENCES: Readonly<Record<string, string>> = {};

const cases = corpus.filter((c) => RULES_KINDS.includes(c.kind));

function caseTitle(c: Case, index: number): string {
  const reason = DIFFERENCES[c.source];
  return `${index}: ${c.source}${reason === undefined ? "" : ` (differs: ${reason})`}`;
}

function caseIt(c: Case, index: number, body: () => void | Promise<void>): void {
  (c.source in DIFFERENCES ? it.fails : it)(caseTitle(c, index), body);
}

describe("the Codex execpolicy corpus", () => {
  it("holds the cases this package answers", () => {
    expect(corpus).toHaveLength(74);
    const counts = Object.fromEntries(
      RULES_KINDS.map((kind) => [kind, cases.filter((c) => c.kind === kind).length]),
    );
    expect(counts).toEqual({
      policy_check: 13,
      policy_check_multiple: 1,
      rule_examples: 5,
      parse_error: 3,
      host_executable_merge: 1,
      network_rules: 1,
      amend_file: 1,
    });
    for (const source of Object.keys(DIFFERENCES)) expect(cases.map((c) => c.source)).toContain(source);
  });
});

interface Expected {
  decision: Decision;
  matched_rules: unknown[];
}

describe.each(["policy_check", "policy_check_multiple"])("%s", (kind) => {
  cases.forEach((c, index) => {
    if (c.kind !== kind) return;
    caseIt(c, index, () => {
      const policy = loadExecPolicy([{ path: "test.rules", text: c.policy as string }]);
      const options = c.options as { resolve_host_executables?: boolean } | undefined;
      const commands = (kind === "policy_check" ? c.command : c.commands) as string[] | string[][];
      const evaluation = evaluateExecPolicy(policy, commands, {
        fallback: c.heuristics_fallback as Decision,
        hostExecutables: options?.resolve_host_executables === true ? "resolve" : "exact",
      });
      const expected = c.expected as Expected;
      expect(evaluation).toEqual({ decision: expected.decision, matchedRules: expected.matched_rules });
    });
  });
});

describe("rule_examples", () => {
  cases.forEach((c, index) => {
    if (c.kind !== "rule_examples") return;
    const policy = c.policy as string;
    const match = c.match as string[][];
    const notMatch = c.not_match as string[][];
    const withExamples = (m: unknown, n: unknown): string =>
      `${policy.slice(0, -1)}, match = ${JSON.stringify(m)}, not_match = ${JSON.stringify(n)})`;

    caseIt(c, index, () => {
      const loaded = loadExecPolicy([{ path: "example.rules", text: withExamples(match, notMatch) }]);
      for (const example of match) {
        const evaluation = evaluateExecPolicy(loaded, example, { fallback: "forbidden" });
        expect(evaluation.decision).toBe(c.rule_decision);
        expect(evaluation.matchedRules.map((m) => m.type)).toEqual(["prefixRuleMatch"]);
      }
      for (const example of notMatch) {
        const evaluation = evaluateExecPolicy(loaded, example, { fallback: "forbidden" });
        expect(evaluation.matchedRules.map((m) => m.type)).toEqual(["heuristicsRuleMatch"]);
      }
      // The same examples on the wrong side are load errors naming the file, the rule and the example.
      const [first] = match;
      expect(() => loadExecPolicy([{ path: "example.rules", text: withExamples([], [first]) }])).toThrow(
        /^example\.rules:1: expected example to not match rule `\["[a-z0-9]+"\]`: /,
      );
      for (const example of notMatch) {
        expect(() => loadExecPolicy([{ path: "example.rules", text: withExamples([example], []) }])).toThrow(
          `example.rules:1: expected every example to match rule \`${policy.slice("prefix_rule(pattern=".length, -1)}\`; unmatched examples: ${JSON.stringify(example.join(" "))}`,
        );
      }
    });
  });
});

describe("parse_error", () => {
  cases.forEach((c, index) => {
    if (c.kind !== "parse_error") return;
    caseIt(c, index, () => {
      let error: unknown;
      try {
        loadExecPolicy([{ path: "test.rules", text: c.policy as string }]);
      } catch (e) {
        error = e;
      }
      if (!isExecPolicyError(error)) throw new Error(`expected an ExecPolicyError, got ${String(error)}`);
      expect(error.code).toBe("INVALID_RULES");
      expect(error.message).toMatch(/^test\.rules:1: /);
      expect(error.message).toContain((c.expected as { error_contains: string }).error_contains);
    });
  });
});

describe("host_executable_merge", () => {
  cases.forEach((c, index) => {
    if (c.kind !== "host_executable_merge") return;
    caseIt(c, index, () => {
      const files = (c.policy_files as string[]).map((text, i) => ({ path: `${i}.rules`, text }));
      const policy = loadExecPolicy(files);
      expect(Object.fromEntries(policy.hostExecutables)).toEqual(
        (c.expected as { host_executables: unknown }).host_executables,
      );
    });
  });
});

describe("network_rules", () => {
  cases.forEach((c, index) => {
    if (c.kind !== "network_rules") return;
    caseIt(c, index, () => {
      const policy = loadExecPolicy([{ path: "network.rules", text: c.policy as string }]);
      const expected = c.expected as {
        network_rule_count: number;
        allowed_domains: string[];
        denied_domains: string[];
      };
      expect(policy.networkRules).toHaveLength(expected.network_rule_count);
      expect(compileNetworkDomains(policy)).toEqual({
        allowed: expected.allowed_domains,
        denied: expected.denied_domains,
      });
    });
  });
});

describe("amend_file", () => {
  const dirs: string[] = [];
  afterAll(async () => {
    await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  });

  cases.forEach((c, index) => {
    if (c.kind !== "amend_file") return;
    caseIt(c, index, async () => {
      const dir = await mkdtemp(join(tmpdir(), "conch-amend-"));
      dirs.push(dir);
      const path = join(dir, "rules", "default.rules");
      expect(await appendAllowRuleToFile(path, ["python3"])).toBe(true);
      expect(await appendAllowRuleToFile(path, ["python3"])).toBe(false);
      expect(await readFile(path, "utf8")).toBe((c.expected as { file_contents: string }).file_contents);
    });
  });
});
