import { readCorpus } from "@conch/test-config";
import { describe, expect, it } from "vitest";
import { DANGEROUS_REASONS } from "../src/safety/danger-table.js";
import { dangerousCommandMatch } from "../src/safety/dangerous.js";
import { isKnownSafeCommand } from "../src/safety/is-known-safe.js";

// Codex's own test cases for is_known_safe_command and dangerous_command_match, collected in the shared
// corpus (vendored in @conch/test-config). Classification only: nothing here runs a command.
interface CorpusCase {
  check: "is_known_safe_command" | "dangerous_command_match";
  argv: string[];
  platform: "any" | "linux" | "non-linux" | "windows" | "non-windows";
  safe?: boolean;
  dangerous?: "ForcedRm" | "Other" | null;
  source: string;
  note?: string;
}

const CASES = readCorpus("codex-safety-cases") as CorpusCase[];

const PLATFORM_MATCHES: Record<CorpusCase["platform"], boolean> = {
  any: true,
  linux: process.platform === "linux",
  "non-linux": process.platform !== "linux",
  windows: process.platform === "win32",
  "non-windows": process.platform !== "win32",
};

const POWERSHELL =
  "PowerShell script (or a Windows .exe path): Conch analyses bash only; a Windows argv is not known safe here";
const NOT_LINUX = "numfmt/tac are safe only in the GNU versions; this case is for other platforms";
const LINUX_ONLY = "numfmt/tac are safe only in the GNU versions; this case is for Linux";

// Every case this run does not check, with the reason. Asserted to be exactly the cases skipped.
const SKIPPED: ReadonlyMap<number, string> = new Map([
  ...(process.platform === "linux" ? [[6, NOT_LINUX] as const] : [[7, LINUX_ONLY] as const]),
  ...Array.from({ length: 30 }, (_, offset) => [77 + offset, POWERSHELL] as const),
]);

// Cases where Conch deliberately gives another answer than Codex, with the reason. Every other stricter
// Conch rule (see src/safety) agrees with each corpus verdict.
const GIT_NEVER_SAFE =
  "Conch never counts git as known safe: `git status`, `diff`, `show` and `branch` run programs a " +
  "repository's config or attributes name (core.fsmonitor, diff.external, textconv, pager), and the " +
  "agent can write such a repository (Codex's later versions drop git from the list too)";
const DIFFERENCES: ReadonlyMap<number, { expected: boolean | string | null; reason: string }> = new Map(
  [1, 2, 16, 17, 48].map((index) => [index, { expected: false, reason: GIT_NEVER_SAFE }] as const),
);

function label(index: number, testCase: CorpusCase): string {
  return `#${index} ${testCase.check} ${JSON.stringify(testCase.argv)}`;
}

describe("Codex safety corpus", () => {
  it("has the 122 cases this test was written against", () => {
    expect(CASES).toHaveLength(122);
  });

  it("skips exactly the listed cases, each for its listed reason", () => {
    const skipped = CASES.flatMap((testCase, index) =>
      PLATFORM_MATCHES[testCase.platform] && testCase.platform !== "windows" ? [] : [index],
    );
    expect(skipped).toEqual([...SKIPPED.keys()].sort((a, b) => a - b));
    for (const index of skipped) {
      const platform = (CASES[index] as CorpusCase).platform;
      expect(SKIPPED.get(index)).toBe(
        platform === "windows" ? POWERSHELL : platform === "linux" ? LINUX_ONLY : NOT_LINUX,
      );
    }
  });

  it("differs from Codex exactly where Codex says git is safe", () => {
    const differing = [...DIFFERENCES.keys()];
    expect(differing.map((index) => (CASES[index] as CorpusCase).argv)).toEqual([
      ["git", "status"],
      ["git", "branch", "--show-current"],
      ["git", "diff", "-p"],
      ["git", "show", "-p", "HEAD"],
      ["bash", "-lc", "git status"],
    ]);
    expect(differing.every((index) => (CASES[index] as CorpusCase).safe === true)).toBe(true);
  });

  CASES.forEach((testCase, index) => {
    if (SKIPPED.has(index)) return;
    const difference = DIFFERENCES.get(index);
    if (testCase.check === "is_known_safe_command") {
      it(`${label(index, testCase)} is ${testCase.safe === true ? "safe" : "not safe"}`, async () => {
        const expected = difference === undefined ? testCase.safe : difference.expected;
        expect(await isKnownSafeCommand(testCase.argv)).toBe(expected);
      });
    } else {
      it(`${label(index, testCase)} matches ${String(testCase.dangerous)}`, async () => {
        const match = await dangerousCommandMatch(testCase.argv);
        if (testCase.dangerous === "ForcedRm") {
          expect(match?.kind).toBe("forced-rm");
          expect(match?.reason).toBe(DANGEROUS_REASONS["forced-rm"]);
        } else {
          expect(match).toBeNull();
        }
      });
    }
  });
});
