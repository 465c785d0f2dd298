import { describe, expect, it } from "vitest";
import { isKnownSafeCommand } from "../src/safety/is-known-safe.js";

// The "must hold": no script that writes, deletes, redirects to a file, runs a substitution,
// evals, pipes into a shell or invokes an interpreter is ever safe, however it is spelled. And plain
// read-only work is safe, so approval does not nag. Classification only: nothing here runs a script.

const NOT_SAFE: readonly string[] = [
  // Redirections that write, in every operator and spelling.
  "ls > out.txt",
  "ls>out.txt",
  "ls >> out.txt",
  "echo hi >| out.txt",
  "cat a &> out.txt",
  "cat a &>> out.txt",
  "ls 2> err.txt",
  "ls 2>/dev/null >out.txt",
  "ls 2>/dev/nul",
  "ls >/dev/tty",
  // Devices bash opens as network connections.
  "cat </dev/tcp/10.0.0.1/80",
  "cat < /dev/udp/10.0.0.1/53",
  "head -c 10 < /dev/tcp/example.invalid/443",
  // Words whose `$` hides an option from a naive reader: bash drops `$""` and reads `-f$` as a flag.
  'git log --output$""=x',
  'rg --pre$""=sh x',
  'rg -e x --pr$"e=sh" y',
  'git diff --ext-diff$""',
  "sed -n 1p -f$",
  "echo hi 1>out.txt",
  "ls 3>out.txt",
  "ls >&out.txt",
  "ls >&3",
  "cat <> f",
  "> out.txt",
  "ls -la ; > out.txt",
  "echo hi >'out.txt'",
  'echo hi >"out file"',
  "echo hi > $'out\\x2etxt'",
  'e"ch"o hi > o',
  "ls | tee out.txt",
  "git status | head > out.txt",
  // Deleting and writing commands, however the name is spelled.
  "rm -rf /",
  "rm file",
  "ls && rm -f x",
  "ls; rm x",
  "ls || rm x",
  "r\\m -rf x",
  "'rm' -rf x",
  '"r"m -rf x',
  "$'rm' -rf x",
  "$'\\x72m' -rf x",
  "$'\\162\\155' -rf x",
  "unlink x",
  "rmdir d",
  "cp a b",
  "mv a b",
  "touch f",
  "mkdir -p d",
  "ln -s a b",
  "chmod +x f",
  "truncate -s 0 f",
  "dd if=/dev/zero of=f count=1",
  "find . -delete",
  "find . -name x -exec rm {} \\;",
  "find . -name '*.tmp' -execdir rm {} +",
  "find . -fprint out.txt",
  "sed -i s/a/b/ f",
  "sed -n 1p -ew\\ out.txt",
  "sed -n 'w out.txt' f",
  "sed 's/x/y/w out' f",
  "uniq in out",
  "base64 -o out f",
  "base64 -Do out f",
  "sort -o out f",
  "rg --pre sh x",
  "rg -nz x",
  // git that writes, deletes or runs a configured program.
  "git clean -fdx",
  "git reset --hard",
  "git checkout -- .",
  "git commit -am x",
  "git push --force",
  "git branch -D main",
  "git branch new-branch",
  "git log --output=x",
  "git diff --out=x",
  "git diff --ext-diff",
  "git show --textconv HEAD",
  "git -c core.pager='sh -c \"rm x\"' log",
  "git --git-dir=/tmp/evil log",
  "git -C /tmp status",
  "git --paginate log",
  "git status; git reset --hard",
  // git at all: its read-only subcommands run programs a repository's config or attributes name.
  "git status",
  "git -C x status",
  "git log -p",
  "git diff",
  "git show",
  "git branch",
  "git branch --show-current",
  "git log --oneline -n 5",
  "git diff --stat",
  "git show HEAD:README.md",
  "git status 2>&1",
  "git status | head",
  "git status >/dev/null 2>&1 && echo clean",
  "timeout 5 git status",
  "git --shallow-file status clean -fdx",
  "git --shallow-file status -c alias.st='!touch x' st",
  // Substitutions and expansions.
  "echo $(rm -rf x)",
  'echo "$(whoami)"',
  "echo `id`",
  "ls `echo /`",
  "cat <(ls)",
  "ls > >(cat)",
  "echo $HOME",
  "echo ${HOME}",
  'echo "${x:=y}"',
  'echo "$((1 + 2))"',
  "$SHELL -c ls",
  "${EDITOR} f",
  // Globs and brace expansion can spell an option that no rule sees (a file named `-delete` matches).
  "find . -{delete,print}",
  "rg --pre{=,=sh} pattern payload.sh",
  "find . -del*",
  "find . -delet?",
  "find . -delet[e]",
  "find . -de\\lete",
  "git diff --out\\put=result.txt",
  "rm *",
  // eval.
  "eval ls",
  'eval "rm -rf x"',
  "ls; eval $'rm\\x20-rf x'",
  "builtin eval ls",
  "command eval ls",
  // Piping into a shell, or running one.
  "echo hi | sh",
  "cat x | bash",
  "echo rm x | sh -s",
  "base64 -d f | zsh",
  "ls | xargs rm",
  "ls | xargs sh -c 'rm \"$0\"'",
  "bash x.sh",
  "sh -c 'rm x'",
  'bash -c "echo hi > f"',
  "bash -lc 'ls' && bash -c 'rm x'",
  "source x.sh",
  ". ./x.sh",
  "exec rm x",
  // Interpreters.
  "python3 -c 'import os; os.remove(\"x\")'",
  'node -e \'require("fs").rmSync("x")\'',
  "perl -e 'unlink \"x\"'",
  "ruby -e 'File.delete(\"x\")'",
  "awk '{print > \"out\"}' f",
  "python3 <<'PY'\nprint(1)\nPY",
  "timeout 5 python3 x.py",
  "nohup node server.js",
  "stdbuf -oL perl -e 1",
  // Heredocs and herestrings.
  "cat <<EOF\nhi\nEOF",
  "cat <<< hi",
  // Newlines and comments hiding a second command.
  "ls\nrm -rf x",
  "ls # only a comment\nrm x",
  "# comment\nrm x",
  "ls;\n\nrm x",
  "ls && \\\n rm x",
  "ls\r\nrm x",
  // Subshells, groups, control flow, functions, background, assignments.
  "(rm x)",
  "(ls)",
  "{ rm x; }",
  "if true; then rm x; fi",
  'for f in a b; do rm "$f"; done',
  "while true; do ls; done",
  "f() { rm x; }; f",
  "ls & rm x",
  "ls &",
  "FOO=1 rm x",
  "LD_PRELOAD=/tmp/x.so ls",
  "PAGER='rm x' git log",
  "GIT_EXTERNAL_DIFF=x git diff",
  // Wrappers and runners.
  "timeout 5 rm x",
  "nice -n 5 bash -c 'rm x'",
  "time -o out.txt ls",
  "sudo ls",
  "sudo rm -rf /",
  "env ls",
  "env rm x",
  "xargs rm < list",
  "watch ls",
  // Everything else that is not read-only.
  "curl -o y http://example.com",
  "wget http://example.com",
  "npm install",
  "make",
  "kill -9 1",
  "tar xf a.tar",
  "chmod -R 777 /",
  "mkfs.ext4 /dev/sda1",
  // Syntax errors are never safe.
  "&& ls",
  "ls ;; pwd",
  "ls |",
  "echo 'unterminated",
];

// A few in other shells and with -c instead of -lc.
const NOT_SAFE_OTHER_SHELLS: readonly (readonly [string, string, string])[] = [
  ["sh", "-c", "ls > out.txt"],
  ["sh", "-c", "rm -rf x"],
  ["sh", "-c", "echo $(id)"],
  ["zsh", "-c", "ls > out.txt"],
  ["zsh", "-lc", "rm x"],
  ["zsh", "-c", "ls =(rm x)"],
  ["zsh", "-c", "ls *(e:'rm x':)"],
  ["zsh", "-c", "ls x(e:'rm y':)"],
  ["bash", "-c", "eval ls"],
  ["dash", "-c", "cat x | sh"],
  // dash (Debian's /bin/sh) has no `$'…'`: there this is `echo $x\`, then `rm -rf x`.
  ["sh", "-c", "echo $'x\\' ; rm -rf x ; echo ' # '"],
  ["dash", "-c", "echo $'x\\' ; touch y ; echo ' # '"],
  ["/bin/sh", "-c", "echo \\\\$'x\\' ; rm y ; echo ' # '"],
];

const SAFE: readonly string[] = [
  "ls 2>/dev/null",
  "cat package.json 2>/dev/null || echo missing",
  "ls -la",
  "rg TODO src",
  "sed -n 1,20p f",
  "cat a | wc -l",
  "pwd",
  "ls && pwd",
  "echo 'hi' ; ls",
  "grep -rn foo src | head -n 20",
  "find . -name '*.ts' -type f | wc -l",
  "head -n 5 README.md",
  "tail -n 20 log.txt",
  "rg -n \"foo\" -g'*.ts'",
  "cat < input.txt",
  "ls 2>&1 | head",
  "timeout 10 rg foo",
  "nice -n 10 cat file",
  "stat package.json && which node",
  "uname -a || whoami",
  "tr a-z A-Z < f",
  "nl -ba file | sed -n 10,20p",
  "base64 f | head -c 100",
  "seq 1 10 | paste -sd+",
  "ls # list the files",
  "ls\npwd",
  'echo "/usr"\'/\'"local"/bin',
  "ls && bash -c 'pwd | cat'",
];

describe("adversarial scripts are never safe", () => {
  it("has at least 80 bash -lc scripts", () => {
    expect(NOT_SAFE.length).toBeGreaterThanOrEqual(80);
    expect(new Set(NOT_SAFE).size).toBe(NOT_SAFE.length);
  });

  for (const script of NOT_SAFE) {
    it(`bash -lc ${JSON.stringify(script)}`, async () => {
      expect(await isKnownSafeCommand(["bash", "-lc", script])).toBe(false);
    });
  }

  for (const argv of NOT_SAFE_OTHER_SHELLS) {
    it(`${argv[0]} ${argv[1]} ${JSON.stringify(argv[2])}`, async () => {
      expect(await isKnownSafeCommand(argv)).toBe(false);
    });
  }
});

describe("plain read-only work is safe", () => {
  for (const script of SAFE) {
    it(`bash -lc ${JSON.stringify(script)}`, async () => {
      expect(await isKnownSafeCommand(["bash", "-lc", script])).toBe(true);
    });
  }

  it("in sh -c and zsh -c too", async () => {
    expect(await isKnownSafeCommand(["sh", "-c", "ls -la | wc -l"])).toBe(true);
    expect(await isKnownSafeCommand(["zsh", "-c", "ls | head"])).toBe(true);
    expect(await isKnownSafeCommand(["/bin/bash", "-c", "sed -n 1,20p f"])).toBe(true);
    // Safe whether or not the shell knows `$'…'`.
    expect(await isKnownSafeCommand(["sh", "-c", "echo $'x\\' ; ls ; echo ' # '"])).toBe(true);
    expect(await isKnownSafeCommand(["bash", "-c", "echo $'x\\' ; rm -rf x ; echo ' # '"])).toBe(true);
  });
});
