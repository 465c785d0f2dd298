import { loadExecPolicy } from "@conch/exec-policy";
import { describe, expect, it } from "vitest";
import { approvalRequirement, explainedApprovalRequirement } from "../src/index.js";
import { renderCommand } from "../src/requirement/render-command.js";

// A rule that forbids a program must hold however the program is reached. Classification only.
const policy = loadExecPolicy([
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
  // Rewritten so that rm is never a literal command name, or run from text.
  ["bash", "-lc", "rm${IFS}f"],
  ["bash", "-lc", "$(echo rm) f"],
  ["bash", "-lc", "`echo rm` f"],
  ["bash", "-lc", "echo rm f | sh"],
  ["bash", "-lc", "echo rm f | bash -s"],
  ["bash", "-lc", 'bash <<<"rm f"'],
  ["bash", "-lc", "sh <<EOF\nrm f\nEOF"],
  ["bash", "-lc", "a=rm; $a f"],
  ["bash", "-lc", "${x:-rm} f"],
  ["bash", "-lc", "{rm,f}"],
  ["bash", "-lc", 'sh -c "$(echo rm) f"'],
  ["bash", "-lc", 'eval "$(echo rm) f"'],
  ["bash", "-lc", "alias x=rm; x f"],
  ["bash", "-lc", "hash -p /bin/rm ls; ls f"],
  ["bash", "-lc", "echo rm f | xargs env"],
  ["bash", "-lc", "echo f | xargs -I{} sh -c 'rm {}'"],
  ["bash", "-lc", "find /bin -name rm -exec {} f \\;"],
  ["bash", "-lc", "git -c alias.x='!rm f' x"],
  // Spelled or run another way.
  ["bash", "-lc", "\\rm f"],
  ["bash", "-lc", "r''m f"],
  ["bash", "-lc", "$'\\x72m' f"],
  ["bash", "-lc", "/bin/rm f"],
  ["bash", "-lc", "busybox rm f"],
  ["bash", "-lc", "builtin rm f"],
  ["bash", "-lc", "nohup rm f"],
  ["bash", "-lc", "setsid rm f"],
  ["bash", "-lc", "stdbuf -o0 rm f"],
  ["bash", "-lc", "flock /tmp/l rm f"],
  ["bash", "-lc", "flock /tmp/l -c 'rm f'"],
  ["bash", "-lc", "script -qc 'rm f' /dev/null"],
  ["bash", "-lc", "unshare -r rm f"],
  ["bash", "-lc", "taskset 1 rm f"],
  ["bash", "-lc", "chrt 1 rm f"],
  ["bash", "-lc", "strace -o log rm f"],
  ["bash", "-lc", "su -c 'rm f'"],
  ["bash", "-lc", "coproc rm f"],
  ["bash", "-lc", "parallel rm ::: f"],
  ["bash", "-lc", "mapfile -C 'rm f' -c 1 < list"],
  ["bash", "-lc", 'f() { rm "$@"; }; f x'],
  ["bash", "-lc", "trap 'rm f' EXIT"],
  ["bash", "-lc", 'sh -c "rm $f"'],
  ["bash", "-lc", "ksh93 -c 'rm f'"],
  ["bash", "-lc", "x='a[$(rm f)]'; echo $((x))"],
  ["bash", "-lc", "git -c core.pager='rm f' log"],
  ["bash", "-lc", "GIT_PAGER='rm f' git log"],
  ["bash", "-lc", "PS4='$(rm f)' SHELLOPTS=xtrace bash -c :"],
  ["env", "BASH_FUNC_x%%=() { :; }", "rm", "f"],
  // Shells whose language the analyser does not read: `exec_command {"shell": "fish"}` gives such argv.
  ["/usr/bin/fish", "-l", "-c", "rm f"],
  ["/home/me/bin/fish", "-c", "x=rm; $x f"],
  ["pwsh", "-NoProfile", "-Command", "rm f"],
  ["bash", "-lc", "nu -c 'rm f'"],
  // Read as zsh reads them: a login shell of zsh wraps every command as `zsh -lc SCRIPT`.
  ["zsh", "-lc", "=rm f"],
  ["/bin/zsh", "-c", "sudo =rm f"],
  ["zsh", "-lc", "repeat 2 rm f"],
  ["/usr/bin/zsh", "-lc", "time repeat 2 rm f"],
  ["zsh", "-lc", "$'r\\m' f"],
  ["zsh", "-lc", "echo a >! f; rm f"],
  ["bash", "-lc", "zsh -c '=rm f'"],
  // Function substitutions (bash 5.3, ksh93, mksh) run their commands.
  ["bash", "-c", "echo ${ rm f; }"],
  ["bash", "-lc", "echo ${| rm f; }"],
  ["bash", "-lc", 'echo "${ rm f; }"'],
];

describe("forbidden rules apply to what really runs", () => {
  for (const argv of FORBIDDEN_RM) {
    it(`${JSON.stringify(argv)} is forbidden under on-request and never`, async () => {
      for (const approvalPolicy of ["on-request", "never"] as const) {
        const requirement = await approvalRequirement({
          argv,
          execPolicy: policy,
          approvalPolicy,
          sandboxMode: "workspace-write",
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
      execPolicy: policy,
      approvalPolicy: "on-request",
      sandboxMode: "workspace-write",
      sandboxPermissions: "use_default",
    });
    expect(requirement.type).toBe("needs-approval");
  });
});

describe("everyday read-only scripts do not ask under untrusted", () => {
  it.each([
    ["ls 2>/dev/null", "skip"],
    ["cat package.json 2>/dev/null || echo missing", "skip"],
    ["ls -la >/dev/null 2>&1 && echo listed", "skip"],
    ["ls 2>/dev/null > listing.txt", "needs-approval"],
    // git runs programs a repository's config names, even for `status`: never unasked under untrusted.
    ["git status >/dev/null 2>&1 && echo clean", "needs-approval"],
  ])("%s → %s", async (script, type) => {
    const requirement = await approvalRequirement({
      argv: ["bash", "-lc", script],
      execPolicy: loadExecPolicy([]),
      approvalPolicy: "untrusted",
      sandboxMode: "workspace-write",
      sandboxPermissions: "use_default",
    });
    expect(requirement.type).toBe(type);
  });
});

// With rules that prompt or forbid, a command line that cannot be read completely needs approval, and
// is refused under never, even when no restricted program is named in it.
const RENDER = (argv: readonly string[]): string => `\`${renderCommand(argv)}\``;
const UNREAD: readonly [readonly string[], string, string][] = [
  [["bash", "-lc", "x=r; ${x}m f"], "a command name known only when the script runs", "${x}m"],
  [["bash", "-lc", "$CMD f"], "a command name known only when the script runs", "$CMD"],
  [["bash", "-lc", "$(cat cmd) f"], "a command name known only when the script runs", "$(cat cmd)"],
  [["bash", "-lc", "/bin/r? f"], "a command name known only when the script runs", "/bin/r?"],
  [["bash", "-lc", "sudo $x f"], "a command name known only when the script runs", "$x"],
  [["bash", "-lc", "ls | xargs -I % % f"], "a command name known only when the script runs", "%"],
  [
    ["bash", "-lc", 'eval "$x"'],
    "shell text or a value run as code, known only when the script runs",
    `eval '"$x"'`,
  ],
  [
    ["bash", "-lc", 'sh -c "echo $x"'],
    "shell text or a value run as code, known only when the script runs",
    '"echo $x"',
  ],
  [["bash", "-lc", "cat cmds | sh"], "a shell reading its commands from input or a file", "sh"],
  [["bash", "-lc", "sh < cmds"], "a shell reading its commands from input or a file", "sh"],
  [["bash", "-lc", "sh build.sh"], "a shell reading its commands from input or a file", "sh build.sh"],
  [["bash", "-lc", "sudo -s"], "a shell reading its commands from input or a file", "sudo -s"],
  [["sh", "build.sh"], "a shell reading its commands from input or a file", "sh build.sh"],
  [["bash", "-lc", "source env.sh"], "a file run with source or .", "source env.sh"],
  [["bash", "-lc", ". ./env.sh"], "a file run with source or .", ". ./env.sh"],
  [
    ["bash", "-lc", "cat cmds | xargs sh -c 'echo $0'"],
    "a command line completed from input",
    "xargs sh -c 'echo $0'",
  ],
  [["bash", "-lc", "alias ll=ls; ll"], "a command name made to run something else", "alias ll=ls"],
  [
    ["bash", "-lc", "enable -f ./x.so ls"],
    "a command name made to run something else",
    "enable -f ./x.so ls",
  ],
  [
    ["git", "--shallow-file", "status", "-c", "alias.st=!touch x", "st"],
    "a git alias or a command git does not provide",
    "alias.st=!touch x",
  ],
  [
    ["bash", "-lc", "BASH_ENV=./x.sh bash -c ls"],
    "a variable naming code for a program to run",
    "BASH_ENV=./x.sh",
  ],
  [
    ["bash", "-lc", "GIT_PAGER=./p.sh git log"],
    "a variable naming code for a program to run",
    "GIT_PAGER=./p.sh",
  ],
  [
    ["git", "-c", "core.pager=./p.sh", "log"],
    "a git setting that may name a program to run",
    "core.pager=./p.sh",
  ],
  [
    ["bash", "-lc", "echo $((n))"],
    "shell text or a value run as code, known only when the script runs",
    "$((n))",
  ],
  [["/usr/bin/fish", "-l", "-c", "ls"], "a shell whose language is not read", "/usr/bin/fish"],
  [["/tmp/anything/fish", "-c", "ls"], "a shell whose language is not read", "/tmp/anything/fish"],
  [["xonsh", "-c", "ls"], "a shell whose language is not read", "xonsh"],
  [["elvish", "-c", "ls"], "a shell whose language is not read", "elvish"],
  [["tcsh", "-c", "ls"], "a shell whose language is not read", "tcsh"],
  [["bash", "-lc", "csh -c ls"], "a shell whose language is not read", "csh"],
];

describe("a command line that cannot be read never passes a restrictive rule", () => {
  for (const [argv, construct, text] of UNREAD) {
    it(`${JSON.stringify(argv)} needs approval, and is refused under never`, async () => {
      const because = `the script could not be read completely (${construct}: \`${text}\`), so the rules cannot tell every command it runs`;
      const input = {
        argv,
        execPolicy: policy,
        sandboxMode: "workspace-write",
        sandboxPermissions: "use_default",
      } as const;
      expect(await approvalRequirement({ ...input, approvalPolicy: "on-request" })).toEqual({
        type: "needs-approval",
        reason: `${RENDER(argv)} requires approval: ${because}`,
        proposedRule: null,
        bypassSandbox: false,
      });
      expect(await explainedApprovalRequirement({ ...input, approvalPolicy: "never" })).toEqual({
        requirement: {
          type: "forbidden",
          reason: `${RENDER(argv)} rejected: ${because}, and AskForApproval is set to Never`,
          proposedRule: null,
          bypassSandbox: false,
        },
        explanation: {
          why: because,
          advice: "Write it so that every command it runs is named literally.",
          notAsked: "the approval policy is never",
        },
      });
    });
  }

  it("asks when a word a rule's pattern needs is known only when it runs", async () => {
    const publish = loadExecPolicy([
      { path: "p.rules", text: 'prefix_rule(pattern = ["npm", "publish"], decision = "forbidden")' },
    ]);
    const argv = ["bash", "-lc", "v=publish; npm $v"];
    const input = {
      argv,
      execPolicy: publish,
      sandboxMode: "workspace-write",
      sandboxPermissions: "use_default",
    } as const;
    expect(await approvalRequirement({ ...input, approvalPolicy: "on-request" })).toEqual({
      type: "needs-approval",
      reason:
        "`bash -lc 'v=publish; npm $v'` requires approval: `npm '$v'` may be a command a rule restricts: " +
        "`$v` is known only when it runs",
      proposedRule: null,
      bypassSandbox: false,
    });
    expect((await approvalRequirement({ ...input, approvalPolicy: "never" })).type).toBe("forbidden");
    // A literal word that differs from the pattern settles it.
    const other = { ...input, argv: ["bash", "-lc", "npm test $v"], approvalPolicy: "on-request" } as const;
    expect((await approvalRequirement(other)).type).toBe("skip");
  });

  it("keeps today's heuristics when no rule prompts or forbids", async () => {
    const allowOnly = loadExecPolicy([
      { path: "p.rules", text: 'prefix_rule(pattern = ["ls"], decision = "allow")' },
    ]);
    for (const rules of [loadExecPolicy([]), allowOnly]) {
      for (const [argv] of UNREAD) {
        const requirement = await approvalRequirement({
          argv,
          execPolicy: rules,
          approvalPolicy: "on-request",
          sandboxMode: "workspace-write",
          sandboxPermissions: "use_default",
        });
        expect(requirement.type, JSON.stringify(argv)).toBe("skip");
        expect(requirement.bypassSandbox).toBe(false);
      }
    }
  });

  it("does not follow an interpreter's code: a different program, which the sandbox holds", async () => {
    const argv = ["bash", "-lc", `python3 -c 'import os; os.system("rm f")'`];
    expect(
      await approvalRequirement({
        argv,
        execPolicy: policy,
        approvalPolicy: "on-request",
        sandboxMode: "workspace-write",
        sandboxPermissions: "use_default",
      }),
    ).toEqual({
      type: "skip",
      reason: null,
      proposedRule: ["python3", "-c", 'import os; os.system("rm f")'],
      bypassSandbox: false,
    });
  });
});
