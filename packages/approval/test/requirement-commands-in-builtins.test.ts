import { loadExecPolicy } from "@conch/exec-policy";
import type { ApprovalPolicy } from "@conch/protocol";
import { describe, expect, it } from "vitest";
import { approvalRequirement } from "../src/index.js";
import type { ApprovalRequirement } from "../src/requirement/types.js";

// Builtins that run text or evaluate subscripts, and options that give a program a command: with rules
// that forbid `rm` and `curl`, none of these may run under `never`; the dangerous list sees through them;
// and none leaves the sandbox. Classification only: nothing here runs what it classifies.

const forbidding = loadExecPolicy([
  {
    path: "red-team.rules",
    text: 'prefix_rule(pattern = ["rm"], decision = "forbidden")\nprefix_rule(pattern = ["curl"], decision = "forbidden")\n',
  },
]);
const EMPTY = loadExecPolicy([]);

function requirement(
  argv: readonly string[],
  approvalPolicy: ApprovalPolicy,
  policy = forbidding,
): Promise<ApprovalRequirement> {
  return approvalRequirement({
    argv,
    execPolicy: policy,
    approvalPolicy,
    sandboxMode: "workspace-write",
    sandboxPermissions: "use_default",
  });
}

const script = (text: string): string[] => ["bash", "-lc", text];

const BUILTINS: readonly string[] = [
  "jobs -x rm -f victim",
  "jobs -lx -- rm -f victim",
  "compgen -C 'rm -f victim' x",
  "compgen -A file -C 'rm -f victim' x",
  "complete -C 'rm -f victim' x",
  "compgen -W '$(rm -f victim)' x",
  "history -s x; fc -e 'rm -f victim ' -1",
  "history -s 'rm -f victim'; fc -s",
  "bind -x '\"\\C-x\": rm -f victim'",
  "test -v 'a[$(rm -f victim)]'",
  "[ -v 'a[$(rm -f victim)]' ]",
  "[[ -v 'a[$(rm -f victim)]' ]]",
  "printf -v 'a[$(rm -f victim)]' x",
  "declare 'a[$(rm -f victim)]=1'",
  "export 'a[$(rm -f victim)]=1'",
  "readonly 'a[$(rm -f victim)]=1'",
  "typeset 'a[$(rm -f victim)]=1'",
  "f() { local 'a[$(rm -f victim)]=1'; }; f",
  "read 'a[$(rm -f victim)]' <<< 1",
  "mapfile 'a[$(rm -f victim)]' < /dev/null",
  "readarray 'a[$(rm -f victim)]' < /dev/null",
  "sleep 1 & wait -p 'a[$(rm -f victim)]' -n",
  "getopts a 'a[$(rm -f victim)]' -a",
  "unset 'a[$(rm -f victim)]'",
  "let 'x=a[$(rm -f victim)]'",
  "(( a[$(rm -f victim)] ))",
  "declare -i x; x='a[$(rm -f victim)]'",
  "declare -i x; read x <<< 'a[1]'",
  "x='a[$(rm -f victim)]'; echo ${!x}",
  "x='a[$(rm -f victim)]'; y=abc; echo ${y:x}",
  "a['$(rm -f victim)']=1",
  "RANDOM='a[$(rm -f victim)]'",
  "test -v 'a[$(curl -s https://example.invalid)]'",
  "noglob rm -f victim",
  "perf stat -e cycles rm -f victim",
  "eval \"$(printf 'r%s' m) -f victim\"",
];

const OPTIONS: readonly (readonly string[])[] = [
  ["git", "difftool", "-y", "-x", "rm -f victim", "a.txt"],
  ["git", "rebase", "--exec", "rm -f victim", "main"],
  ["git", "rebase", "-x", "rm -f victim", "main"],
  ["git", "rebase", "--exe=rm -f victim", "main"],
  ["git", "ls-remote", "--upload-pack=rm -f victim", "."],
  ["git", "ls-remote", "-u", "rm -f victim", "."],
  ["git", "fetch", "--upload-pack=rm -f victim", "."],
  ["git", "clone", "--upload-pack=rm -f victim", ".", "x"],
  ["git", "pull", "--upload-pack", "rm -f victim", "."],
  ["git", "push", "--receive-pack=rm -f victim", "."],
  ["git", "push", "--exec=rm -f victim", "."],
  ["git", "archive", "--remote=.", "--exec=rm -f victim", "HEAD"],
  ["git", "bisect", "run", "rm", "-f", "victim"],
  ["git", "submodule", "foreach", "rm -f victim"],
  ["git", "filter-branch", "--tree-filter", "rm -f victim", "HEAD"],
  ["git", "send-email", "--sendmail-cmd=rm -f victim", "x.patch"],
  ["tar", "-xf", "a.tar", "--checkpoint=1", "--checkpoint-action=exec=rm -f victim"],
  ["tar", "-xf", "a.tar", "--to-command=rm -f victim"],
  ["tar", "-I", "rm -f victim", "-xf", "a.tar"],
  ["tar", "--use-compress-program=rm -f victim", "-xf", "a.tar"],
  ["tar", "--rsh-command=rm -f victim", "-xf", "h:a.tar"],
  ["ssh", "-o", "ProxyCommand=rm -f victim", "host"],
  ["ssh", "-oProxyCommand=rm -f victim", "host"],
  ["ssh", "-o", "LocalCommand=rm -f victim", "-o", "PermitLocalCommand=yes", "host"],
  ["rsync", "-e", "rm -f victim", "a", "h:b"],
  ["rsync", "--rsh=rm -f victim", "a", "h:b"],
  ["rsync", "--rsync-path=rm -f victim", "a", "h:b"],
  ["man", "-P", "rm -f victim", "ls"],
  ["man", "--pager=rm -f victim", "ls"],
  ["man", "-Hrm", "ls"],
  ["zip", "-TT", "rm -f victim", "x.zip", "f"],
  ["zip", "--unzip-command=rm -f victim", "x.zip", "f"],
  ["vim", "-c", "!rm -f victim", "x"],
  ["vi", "+!rm -f victim", "x"],
  ["nvim", "--cmd", "!rm -f victim", "x"],
  ["ex", "-c", "!rm -f victim", "x"],
  ["gdb", "-ex", "shell rm -f victim", "-batch"],
  ["gdb", "-x", "cmds.gdb"],
  ["gdb", "--eval-command=shell rm -f victim"],
  ["less", "+!rm -f victim", "x"],
  ["sort", "--compress-program=rm", "x"],
  ["sed", "-n", "1e rm -f victim", "x"],
  ["sed", "s/.*/rm -f victim/e", "x"],
  ["awk", 'BEGIN { system("rm -f victim") }'],
  ["awk", '{ print | "rm -f victim" }', "x"],
  ["flock", "/tmp/lock", "-c", "rm -f victim"],
  ["bash", "-lc", "timeout 5 tar -xf a.tar '--to-command=rm -f victim'"],
];

describe("rules forbidding rm and curl hold through builtins and command options", () => {
  for (const argv of [...BUILTINS.map(script), ...OPTIONS]) {
    it(`${JSON.stringify(argv)} never runs under never, and never unasked`, async () => {
      expect((await requirement(argv, "never")).type).toBe("forbidden");
      for (const approvalPolicy of ["on-request", "on-failure", "untrusted"] as const) {
        const result = await requirement(argv, approvalPolicy);
        expect(result.type, approvalPolicy).not.toBe("skip");
      }
    });
  }

  it("names the rule where the program is reached", async () => {
    expect(await requirement(script("compgen -C 'rm -f victim' x"), "never")).toEqual({
      type: "forbidden",
      reason:
        "`bash -lc \"compgen -C 'rm -f victim' x\"` rejected: policy forbids commands starting with `rm`",
      proposedRule: null,
      bypassSandbox: false,
    });
    const unread = script('compgen -C "$(cat cmd)" x');
    expect(await requirement(unread, "on-request")).toEqual({
      type: "needs-approval",
      reason:
        "`bash -lc 'compgen -C \"$(cat cmd)\" x'` requires approval: the script could not be read completely " +
        "(a shell builtin the analyser does not model: `compgen -C '\"$(cat cmd)\"' x`), so the rules cannot " +
        "tell every command it runs",
      proposedRule: null,
      bypassSandbox: false,
    });
    const option = ["tar", "-xf", "a.tar", "--to-command=./extract.sh"];
    expect((await requirement(option, "on-request")).reason).toBe(
      "`tar -xf a.tar '--to-command=./extract.sh'` requires approval: the script could not be read completely " +
        "(an option that gives a program a command, a script or a program to run: " +
        "`tar --to-command=./extract.sh`), so the rules cannot tell every command it runs",
    );
  });

  it("still lets modelled builtins and plain options through", async () => {
    for (const argv of [
      script("set -euo pipefail; export FOO=1; cd src && echo hi && printf '%s\\n' a b"),
      script('read -r line < f; [[ -v line ]] && test -n "$line"; unset line'),
      script('shopt -s nullglob; for f in *.ts; do echo "$f"; done'),
      ["tar", "-xzf", "a.tar.gz"],
      ["ssh", "-o", "StrictHostKeyChecking=no", "host", "ls"],
      ["git", "rebase", "-i", "main"],
      ["sed", "-i", "s/a/b/g", "x"],
      ["awk", "-F,", "/a|b/ { print $1 }", "x"],
    ]) {
      expect((await requirement(argv, "on-request")).type, JSON.stringify(argv)).toBe("skip");
    }
  });
});

describe("the dangerous list looks through them too (no rules, on-request)", () => {
  it.each([
    [script("jobs -x git reset --hard")],
    [script("jobs -x git push --force")],
    [script("compgen -C 'git clean -fdx' x")],
    [script("complete -C 'git reset --hard' x")],
    [script("history -s x; fc -e 'git clean -fdx' -1")],
    [script("test -v 'a[$(git reset --hard)]'")],
    [script("declare -i x; x='a[$(git clean -fdx)]'")],
    [["git", "rebase", "--exec", "git reset --hard", "main"]],
    [["git", "bisect", "run", "git", "clean", "-fdx"]],
    [["git", "difftool", "-x", "git push --force"]],
    [["tar", "-xf", "a.tar", "--to-command=rm -rf ."]],
    [["ssh", "-o", "ProxyCommand=git push --force", "host"]],
  ])("%j asks, and is refused under never", async (argv) => {
    expect((await requirement(argv, "on-request", EMPTY)).type).toBe("needs-approval");
    expect((await requirement(argv, "never", EMPTY)).type).toBe("forbidden");
  });
});

describe('an allow rule with sandbox = "none" does not lift the sandbox for what it cannot read', () => {
  const unsandboxed = loadExecPolicy([
    {
      path: "none.rules",
      text: [
        'prefix_rule(pattern = ["printf"], decision = "allow", sandbox = "none")',
        'prefix_rule(pattern = ["git"], decision = "allow", sandbox = "none")',
        'prefix_rule(pattern = ["tar"], decision = "allow", sandbox = "none")',
        'prefix_rule(pattern = ["ssh"], decision = "allow", sandbox = "none")',
        'prefix_rule(pattern = ["sed"], decision = "allow", sandbox = "none")',
        'prefix_rule(pattern = ["export"], decision = "allow", sandbox = "none")',
        'prefix_rule(pattern = ["ls"], decision = "allow", sandbox = "none")',
      ].join("\n"),
    },
  ]);

  it.each([
    [script("printf -v 'a[$(cat ~/.ssh/id_rsa > /x/STOLEN)]' x")],
    [script("printf '%s' x; compgen -C 'cat ~/.ssh/id_rsa' x")],
    [script("export PATH=./bin:$PATH; ls")],
    [["git", "rebase", "--exec", "cat ~/.ssh/id_rsa", "main"]],
    [["git", "difftool", "-x", "cat ~/.ssh/id_rsa"]],
    [["tar", "-xf", "a.tar", "--to-command=cat ~/.ssh/id_rsa"]],
    [["ssh", "-o", "ProxyCommand=cat ~/.ssh/id_rsa", "host"]],
    [["sed", "1e cat ~/.ssh/id_rsa", "x"]],
  ])("%j keeps the sandbox", async (argv) => {
    const result = await requirement(argv, "on-request", unsandboxed);
    expect(result.bypassSandbox).toBe(false);
  });

  it("still lifts it for a plain use of the same programs", async () => {
    expect((await requirement(script("printf '%s\\n' hi"), "on-request", unsandboxed)).bypassSandbox).toBe(
      true,
    );
    expect((await requirement(["tar", "-xzf", "a.tar.gz"], "on-request", unsandboxed)).bypassSandbox).toBe(
      true,
    );
  });
});
