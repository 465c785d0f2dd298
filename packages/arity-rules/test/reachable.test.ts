import { describe, expect, it } from "vitest";
import {
  type Reach,
  type ReachedCommand,
  reachableCommands,
  UNREAD_REASONS,
  type UnreadPart,
} from "../src/index.js";

// Classification only: nothing here runs.

const script = (text: string): string[] => ["bash", "-lc", text];
const part = (reason: UnreadPart["reason"], text: string): UnreadPart => ({ reason, text });
const command = (argv: string[], ...dynamic: number[]): ReachedCommand =>
  dynamic.length === 0 ? { argv } : { argv, dynamic };
const builtin = (argv: string[], ...dynamic: number[]): ReachedCommand => ({
  ...command(argv, ...dynamic),
  builtin: true,
});

describe("reachableCommands", () => {
  it.each<[string[], Reach]>([
    [
      ["timeout", "5", "rm", "x"],
      { commands: [command(["timeout", "5", "rm", "x"]), command(["rm", "x"])], unread: [] },
    ],
    [
      ["sudo", "-u", "root", "env", "A=1", "rm", "x"],
      {
        commands: [
          command(["sudo", "-u", "root", "env", "A=1", "rm", "x"]),
          command(["env", "A=1", "rm", "x"]),
          command(["rm", "x"]),
        ],
        unread: [],
      },
    ],
    [
      script("echo $(rm x) && find . -exec rm {} +"),
      {
        commands: [
          command(script("echo $(rm x) && find . -exec rm {} +")),
          builtin(["echo", "$(rm x)"], 1),
          command(["find", ".", "-exec", "rm", "{}", "+"]),
          command(["rm", "{}"]),
          command(["rm", "x"]),
        ],
        unread: [],
      },
    ],
    [
      script("eval 'git push' ; trap 'rm y' EXIT"),
      {
        commands: [
          command(script("eval 'git push' ; trap 'rm y' EXIT")),
          builtin(["eval", "git push"]),
          command(["git", "push"]),
          builtin(["trap", "rm y", "EXIT"]),
          command(["rm", "y"]),
        ],
        unread: [],
      },
    ],
    [
      script("timeout 5 sudo npm $verb"),
      {
        commands: [
          command(script("timeout 5 sudo npm $verb")),
          command(["timeout", "5", "sudo", "npm", "$verb"], 4),
          command(["sudo", "npm", "$verb"], 2),
          command(["npm", "$verb"], 1),
        ],
        unread: [],
      },
    ],
  ])("%j reaches %j", async (argv, expected) => {
    expect(await reachableCommands(argv)).toEqual(expected);
  });

  // Programs that run their operands as a command, each in front of `rm f`.
  it.each([
    "command rm f",
    "builtin rm f",
    "exec rm f",
    "env rm f",
    "nice rm f",
    "nohup rm f",
    "timeout 1 rm f",
    "sudo rm f",
    "busybox rm f",
    "setsid rm f",
    "stdbuf -o0 rm f",
    "flock /tmp/lock rm f",
    "flock -w 5 /tmp/lock rm f",
    "unshare -r rm f",
    "taskset 1 rm f",
    "taskset -c 0,1 rm f",
    "chrt 1 rm f",
    "chrt -T 5 -b 0 rm f",
    "strace -f -o out rm f",
    "coproc rm f",
    "runuser -u bob rm f",
    "nsenter -t 1 rm f",
    "fakeroot rm f",
  ])("looks through %s", async (text) => {
    const reach = await reachableCommands(script(text));
    expect(reach.commands.at(-1)).toEqual(command(["rm", "f"]));
    expect(reach.unread).toEqual([]);
  });

  it.each([
    ["script -c 'rm f'", ["sh", "-c", "rm f"]],
    ["su -c 'rm f'", ["sh", "-c", "rm f"]],
    ["su root --command='rm f'", ["sh", "-c", "rm f"]],
    ["runuser bob -c 'rm f'", ["sh", "-c", "rm f"]],
    ["flock /tmp/lock -c 'rm f'", ["sh", "-c", "rm f"]],
    ["sg wheel 'rm f'", ["sh", "-c", "rm f"]],
  ])("reads the shell command of %s", async (text, shell) => {
    expect((await reachableCommands(script(text))).commands.slice(-2)).toEqual([
      command(shell),
      command(["rm", "f"]),
    ]);
  });

  it("reads a mapfile callback, and git's global options away", async () => {
    expect((await reachableCommands(script("mapfile -C 'rm f' -c 1 < x"))).commands.slice(1)).toEqual([
      builtin(["mapfile", "-C", "rm f", "-c", "1"]),
      command(["rm", "f"]),
    ]);
    expect(await reachableCommands(["git", "-C", ".", "--no-pager", "push", "origin"])).toEqual({
      commands: [
        command(["git", "-C", ".", "--no-pager", "push", "origin"]),
        command(["git", "push", "origin"]),
      ],
      unread: [],
    });
    expect(await reachableCommands(["/usr/lib/git-core/git-push", "origin"])).toEqual({
      commands: [command(["git", "push", "origin"])],
      unread: [],
    });
  });
});

describe("reachableCommands: what cannot be read", () => {
  it("knows every reason", () => {
    expect(UNREAD_REASONS).toEqual([
      "parse-error",
      "unsupported-syntax",
      "too-large",
      "too-deep",
      "dynamic-command-name",
      "dynamic-script",
      "shell-input",
      "unread-shell",
      "source",
      "input-command",
      "alias",
      "git-alias",
      "git-config",
      "command-variable",
      "unmodelled-builtin",
      "evaluated-text",
      "command-option",
      "program-path",
      "zsh-syntax",
      "command-input",
    ]);
  });

  const covered = new Set<string>();
  const cases: [string[], UnreadPart[]][] = [
    [script("rm${IFS}f"), [part("dynamic-command-name", "rm${IFS}f")]],
    [script("ed -s notes"), [part("command-input", "ed -s notes")]],
    [script("$(echo rm) f"), [part("dynamic-command-name", "$(echo rm)")]],
    [script("a=rm; $a f"), [part("dynamic-command-name", "$a")]],
    [script("${x:-rm} f"), [part("dynamic-command-name", "${x:-rm}")]],
    [script("sudo $x f"), [part("dynamic-command-name", "$x")]],
    [script("find /bin -name rm -exec {} f \\;"), [part("dynamic-command-name", "{}")]],
    [script("ls | xargs -I % % f"), [part("dynamic-command-name", "%")]],
    [script("{rm,f}"), [part("parse-error", "{rm,f}")]],
    // tree-sitter reads `r m f`, and `r` is zsh's builtin that reruns history.
    [script("r\\\nm f"), [part("unsupported-syntax", "r\\\nm"), part("unmodelled-builtin", "r m f")]],
    [script("echo rm f | sh"), [part("shell-input", "sh")]],
    [script('bash <<<"rm f"'), [part("shell-input", "bash")]],
    [script("bash -s < x.sh"), [part("shell-input", "bash -s")]],
    [script("sh script.sh"), [part("shell-input", "sh script.sh")]],
    [script("sudo -s"), [part("shell-input", "sudo -s")]],
    [script("su"), [part("shell-input", "su")]],
    [script("script -q /dev/null"), [part("shell-input", "script -q /dev/null")]],
    [script("busybox ash"), [part("shell-input", "busybox ash")]],
    [script('eval "$x"'), [part("dynamic-script", `eval '"$x"'`), part("dynamic-command-name", "$x")]],
    [script('eval "echo $x"'), [part("dynamic-script", `eval '"echo $x"'`)]],
    [script('sh -c "echo $x"'), [part("dynamic-script", '"echo $x"')]],
    [
      script('trap "$cleanup" EXIT'),
      [part("dynamic-script", `trap '"$cleanup"' EXIT`), part("dynamic-command-name", "$cleanup")],
    ],
    [script("source x.sh"), [part("source", "source x.sh")]],
    [script(". ./env.sh"), [part("source", ". ./env.sh")]],
    [script("echo rm f | xargs env"), [part("input-command", "xargs env")]],
    [script("ls | xargs sh -c 'rm \"$1\"' _"), [part("input-command", `xargs sh -c 'rm "$1"' _`)]],
    [script("parallel rm ::: f"), [part("input-command", "parallel rm ::: f")]],
    [script("alias ls=rm; ls f"), [part("alias", "alias ls=rm")]],
    [script("hash -p /bin/rm ls; ls f"), [part("alias", "hash -p /bin/rm ls")]],
    [script("enable -f ./x.so rm"), [part("alias", "enable -f ./x.so rm")]],
    [
      script("git -c alias.st='!touch x' st"),
      [part("git-alias", "alias.st=!touch x"), part("git-alias", "git st")],
    ],
    [
      ["git", "--config-env", "alias.x=EVIL", "x"],
      [part("git-alias", "alias.x=EVIL"), part("git-alias", "git x")],
    ],
    [["git", "lfs", "pull"], [part("git-alias", "git lfs")]],
    [["git", "--exec-path=./x", "submodule", "update"], [part("git-alias", "git submodule")]],
    [script("BASH_ENV=x.sh bash -c ls"), [part("command-variable", "BASH_ENV=x.sh")]],
    [script("export BASH_ENV=x.sh; bash -c ls"), [part("command-variable", "BASH_ENV=x.sh")]],
    [
      ["env", "BASH_FUNC_ls%%=() { rm f; }", "bash", "-c", "ls"],
      [part("command-variable", "BASH_FUNC_ls%%=() { rm f; }")],
    ],
    [["/usr/bin/fish", "-l", "-c", "rm f"], [part("unread-shell", "/usr/bin/fish")]],
    [["/usr/bin/fish"], [part("unread-shell", "/usr/bin/fish")]],
    [["pwsh", "-NoProfile", "-Command", "rm f"], [part("unread-shell", "pwsh")]],
    [
      ["C:\\Windows\\System32\\cmd.exe", "/c", "del f"],
      [part("unread-shell", "C:\\Windows\\System32\\cmd.exe")],
    ],
    [script("nu -c 'rm f'"), [part("unread-shell", "nu")]],
    [script("GIT_PAGER='rm f' git log"), [part("command-variable", "GIT_PAGER='rm f'")]],
    [["env", "LD_PRELOAD=./x.so", "ls"], [part("command-variable", "LD_PRELOAD=./x.so")]],
    [["git", "-c", "core.pager=rm f", "log"], [part("git-config", "core.pager=rm f")]],
    [["git", "-c", "Diff.External=x", "diff"], [part("git-config", "Diff.External=x")]],
    [["git", "--config-env=credential.helper=H", "fetch"], [part("git-config", "credential.helper=H")]],
    [["git", "-c", "include.path=../x", "status"], [part("git-config", "include.path=../x")]],
    [script("x='a[$(rm f)]'; echo $((x + 1))"), [part("dynamic-script", "$((x + 1))")]],
    [script("echo $[x]"), [part("dynamic-script", "$[x]")]],
    [script("echo ${a[i]}"), [part("dynamic-script", "${a[i]}")]],
    [script("echo ${a[$i]}"), [part("dynamic-script", "${a[$i]}")]],
    [script("echo ${x@P}"), [part("dynamic-script", "${x@P}")]],
    [script("[[ x -eq 1 ]]"), [part("dynamic-script", "'[[' x -eq 1 ']]'")]],
    [script("let n=x+1"), [part("dynamic-script", "let n=x+1")]],
    [
      script("declare -i n=x"),
      [part("dynamic-script", "declare -i n=x"), part("unmodelled-builtin", "declare -i n=x")],
    ],
    // An integer attribute makes every later assignment arithmetic, whatever its value now.
    [script("declare -i n=5"), [part("unmodelled-builtin", "declare -i n=5")]],
    [script("for ((; x < 3; )); do :; done"), [part("dynamic-script", "for ((; x < 3; )); do :; done")]],
    [script("(( x > 1 ))"), [part("unsupported-syntax", "(( x > 1 ))")]],
    [script("tcsh -c 'rm f'"), [part("unread-shell", "tcsh")]],
    [script("compgen -C 'rm f' x"), [part("unmodelled-builtin", "compgen -C 'rm f' x")]],
    [script("test -v 'a[$(rm f)]'"), [part("evaluated-text", "a[$(rm f)]")]],
    [["tar", "-xf", "a.tar", "--to-command=rm f"], [part("command-option", "tar '--to-command=rm f'")]],
    [script("PATH=./bin:$PATH ls"), [part("program-path", "PATH=./bin:$PATH")]],
    [["zsh", "-lc", "repeat 2 rm f"], [part("zsh-syntax", "repeat")]],
  ];

  for (const [argv, expected] of cases) {
    it(`${JSON.stringify(argv)} is not read completely`, async () => {
      for (const { reason } of expected) covered.add(reason);
      expect((await reachableCommands(argv)).unread).toEqual(expected);
    });
  }

  it("covers every reason a command line can give", () => {
    // too-large and too-deep are covered below; unsupported-syntax above.
    expect(UNREAD_REASONS.filter((reason) => !covered.has(reason))).toEqual(["too-large", "too-deep"]);
  });

  it("gives up on scripts nested past its depth, and says so", async () => {
    let nested = "rm f";
    for (let level = 0; level < 20; level += 1) nested = `echo $(${nested})`;
    const reach = await reachableCommands(script(nested));
    expect(reach.unread.map((unreadPart) => unreadPart.reason)).toEqual(["too-deep"]);
  });

  it("lists at most 16 runners one by one, and says when there are more", { timeout: 10_000 }, async () => {
    const runners = Array.from({ length: 20_000 }, (_, index) => (index % 2 === 0 ? "nice" : "nohup"));
    const reach = await reachableCommands([...runners, "rm", "x"]);
    expect(reach.commands).toEqual([command(["rm", "x"])]);
    expect(reach.unread.map((unreadPart) => unreadPart.reason)).toEqual(["too-deep"]);
    const sixteen = await reachableCommands([...runners.slice(0, 16), "rm", "x"]);
    expect(sixteen.commands).toHaveLength(17);
    expect(sixteen.unread).toEqual([]);
  });

  it("gives up past its analysis budget, and says so", async () => {
    const long = `echo ${"x".repeat(60_000)}`;
    const reach = await reachableCommands(script(Array<string>(20).fill(`sh -c '${long}'`).join("; ")));
    expect(reach.unread.map((unreadPart) => unreadPart.reason)).toContain("too-large");
  });

  it.each([
    "ls -la",
    "echo $HOME",
    "cat *.txt",
    "find . -exec sh -c 'echo \"$1\"' _ {} \\;",
    "ls | xargs echo",
    "xargs rm < list",
    "git status && git -C sub log -p",
    "git submodule update",
    "bash --version",
    "command -v rm",
    "alias",
    "hash",
    'f() { rm "$@"; }; f x',
    "$'\\x72m' f",
    "r''m f",
    "\\rm f",
    "timeout 1 bash -c 'rm f'",
    "ENV=prod make",
    "echo $((1 + 0x1f + 16#ff)) ${a[1]} ${a[@]} ${#a[*]}",
    "for ((i = 0; i < 3; i++)); do echo $i; done",
    "[[ 1 -eq 1 && $x == y ]]",
    "let i=1+2",
    "git -c color.ui=always -c user.name=me -c core.quotePath=off log",
  ])("reads %s completely", async (text) => {
    expect((await reachableCommands(script(text))).unread).toEqual([]);
  });
});
