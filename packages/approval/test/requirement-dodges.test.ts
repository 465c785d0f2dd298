import { describe, expect, it } from "vitest";
import { approvalRequirement, loadPolicy } from "../src/index.js";

// A rule that forbids a program must hold however the program is reached. Classification only.
const policy = loadPolicy([
  {
    path: "dodge.rules",
    text: 'prefix_rule(pattern = ["rm"], decision = "forbidden")\nprefix_rule(pattern = ["git", "push"], decision = "prompt")\n',
  },
]);

const FORBIDDEN_RM: readonly (readonly string[])[] = [
  ["bash", "-lc", "command rm x"],
  ["bash", "-lc", "timeout 5 rm x"],
  ["bash", "-lc", "nice rm x"],
  ["bash", "-lc", "env rm x"],
  ["bash", "-lc", "sudo rm x"],
  ["bash", "-lc", "exec rm x"],
  ["bash", "-lc", "ls | xargs rm"],
  ["bash", "-lc", "find . -exec rm {} +"],
  ["bash", "-lc", "echo $(rm x)"],
  ["bash", "-lc", "x=$(rm x)"],
  ["bash", "-lc", "cat <(rm x)"],
  ["bash", "-lc", "echo `rm x`"],
  ["bash", "-lc", "eval 'rm x'"],
  ["bash", "-lc", "trap 'rm x' EXIT"],
  ["bash", "-ec", "rm x"],
  ["bash", "-lc", "sh -c 'timeout 1 rm x'"],
  ["timeout", "5", "rm", "x"],
  ["sudo", "rm", "x"],
  ["/usr/local/bin/rm", "x"],
  // Scripts the analyser cannot read: the rule applies if the program appears anywhere.
  ["bash", "-lc", "cat <<EOF; rm x\nhello\nEOF"],
  ["bash", "-lc", "true; r\\\nm x"],
  ["bash", "-lc", "if then rm x fi"],
];

describe("forbidden rules apply to what really runs", () => {
  for (const argv of FORBIDDEN_RM) {
    it(`${JSON.stringify(argv)} is forbidden under on-request and never`, async () => {
      for (const approvalPolicy of ["on-request", "never"] as const) {
        const requirement = await approvalRequirement({
          argv,
          policy,
          approvalPolicy,
          sandboxPolicy: "workspace-write",
          sandboxPermissions: "use_default",
        });
        expect(requirement.type, approvalPolicy).toBe("forbidden");
      }
    });
  }

  it.each([
    [["bash", "-lc", "timeout 5 git push"]],
    [["bash", "-lc", "git status && echo $(git push origin)"]],
  ])("a prompt rule asks for %j", async (argv) => {
    const requirement = await approvalRequirement({
      argv,
      policy,
      approvalPolicy: "on-request",
      sandboxPolicy: "workspace-write",
      sandboxPermissions: "use_default",
    });
    expect(requirement.type).toBe("needs-approval");
  });
});

describe("everyday read-only scripts do not ask under untrusted", () => {
  it.each([
    ["ls 2>/dev/null", "skip"],
    ["cat package.json 2>/dev/null || echo missing", "skip"],
    ["git status >/dev/null 2>&1 && echo clean", "skip"],
    ["ls 2>/dev/null > listing.txt", "needs-approval"],
  ])("%s → %s", async (script, type) => {
    const requirement = await approvalRequirement({
      argv: ["bash", "-lc", script],
      policy: loadPolicy([]),
      approvalPolicy: "untrusted",
      sandboxPolicy: "workspace-write",
      sandboxPermissions: "use_default",
    });
    expect(requirement.type).toBe(type);
  });
});
