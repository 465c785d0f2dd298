import { describe, expect, it } from "vitest";
import {
  dangerousCommandMatch,
  isKnownSafeCommand,
  reachableCommands,
  type UnreadPart,
} from "../src/index.js";
import { MODELLED_BUILTINS } from "../src/safety/builtins.js";

// Builtins run inside the shell: those that run text or evaluate subscripts must leave a command line
// unread, and what they run must be reached. Classification only: nothing here runs.

const script = (text: string): string[] => ["bash", "-lc", text];
const part = (reason: UnreadPart["reason"], text: string): UnreadPart => ({ reason, text });
const unreadOf = async (text: string): Promise<UnreadPart[]> =>
  (await reachableCommands(script(text))).unread;
const reachedOf = async (text: string): Promise<string[][]> =>
  (await reachableCommands(script(text))).commands.map((command) => command.argv);

describe("builtins that run text", () => {
  it.each([
    ["compgen -C 'rm -f victim' x", "compgen -C 'rm -f victim' x"],
    ["complete -C 'rm -f victim' x", "complete -C 'rm -f victim' x"],
    ["compgen -W '$(rm -f victim)' x", "compgen -W '$(rm -f victim)' x"],
    ["compgen -A file -C 'rm -f victim' x", "compgen -A file -C 'rm -f victim' x"],
    ["bind -x '\"\\C-x\": rm -f victim'", "bind -x '\"\\C-x\": rm -f victim'"],
    ["fc -e 'rm -f victim ' -1", "fc -e 'rm -f victim ' -1"],
    ["history -s 'rm -f victim'", "history -s 'rm -f victim'"],
  ])("%s is unmodelled, and what it runs is reached", async (text, shown) => {
    expect(await unreadOf(text)).toEqual([part("unmodelled-builtin", shown)]);
    expect((await reachedOf(text)).some((argv) => argv[0] === "rm" && argv[1] === "-f")).toBe(true);
    expect((await dangerousCommandMatch(script(text)))?.kind).toBe("forced-rm");
  });

  it.each([
    "history -s x; fc -s",
    "fc -s rm",
    "compgen -F f x",
    "complete -F f x",
    "compopt -o default x",
    "bind -f ./inputrc",
    "zmodload zsh/system",
    "autoload -U x; x",
    "emulate sh -c 'rm f'",
    "sched +0 'rm f'",
    "print -z 'rm f'",
    "r",
    "hist -s",
    "alarm 1 'rm f'",
    "setopt aliases",
    "integer x=1",
    "float x=1",
    "nameref r=x",
    "vared x",
    "zle -N x",
  ])("%s is a builtin the analyser does not model", async (text) => {
    expect((await unreadOf(text)).map((unread) => unread.reason)).toContain("unmodelled-builtin");
    expect(await isKnownSafeCommand(script(text))).toBe(false);
  });

  it("looks through jobs -x (and zsh's precommand modifiers) as runners", async () => {
    for (const text of ["jobs -x rm -f victim", "jobs -lx -- rm -f victim", "noglob rm -f victim"]) {
      expect((await reachedOf(text)).at(-1), text).toEqual(["rm", "-f", "victim"]);
      expect(await unreadOf(text), text).toEqual([]);
      expect((await dangerousCommandMatch(script(text)))?.kind, text).toBe("forced-rm");
    }
    expect((await dangerousCommandMatch(script("jobs -x git reset --hard")))?.kind).toBe("git-reset-hard");
    expect((await dangerousCommandMatch(script("jobs -x git push --force")))?.kind).toBe("git-push-force");
    expect((await dangerousCommandMatch(script("compgen -C 'git clean -fdx' x")))?.kind).toBe(
      "git-clean-force",
    );
    // A job spec is replaced by a process group id: the program is known only when it runs.
    expect(await unreadOf("jobs -x %1 f")).toEqual([part("dynamic-command-name", "%1")]);
    expect(await unreadOf("jobs -l")).toEqual([]);
    expect((await reachedOf("perf stat -e cycles rm -f victim")).at(-1)).toEqual(["rm", "-f", "victim"]);
  });
});

describe("builtins that evaluate a subscript in a name", () => {
  it.each([
    "test -v 'a[$(rm -f victim)]'",
    "[ -v 'a[$(rm -f victim)]' ]",
    "[[ -v 'a[$(rm -f victim)]' ]]",
    "[[ -R 'a[$(rm -f victim)]' ]]",
    "printf -v 'a[$(rm -f victim)]' x",
    "declare 'a[$(rm -f victim)]=1'",
    "typeset 'a[$(rm -f victim)]=1'",
    "export 'a[$(rm -f victim)]=1'",
    "readonly 'a[$(rm -f victim)]=1'",
    "f() { local 'a[$(rm -f victim)]=1'; }; f",
    "read 'a[$(rm -f victim)]' <<< 1",
    "read -r -a 'a[$(rm -f victim)]' <<< 1",
    "mapfile 'a[$(rm -f victim)]' < /dev/null",
    "readarray -t 'a[$(rm -f victim)]' < /dev/null",
    "wait -p 'a[$(rm -f victim)]' -n",
    "getopts ab 'a[$(rm -f victim)]'",
    "unset 'a[$(rm -f victim)]'",
    "unset -v 'a[`rm -f victim`]'",
    "let 'x=a[$(rm -f victim)]'",
    "declare -i x='a[$(rm -f victim)]'",
    "a['$(rm -f victim)']=1",
    "declare -i x; x='a[$(rm -f victim)]'",
    "RANDOM='a[$(rm -f victim)]'",
    "[[ 'a[$(rm -f victim)]' -eq 1 ]]",
    // `{NAME}>file` assigns the descriptor to NAME, subscript and all, whatever the command.
    ": {a['$(rm -f victim)']}>/dev/null",
    "ls {a['$(rm -f victim)']}>/dev/null",
  ])("%s is not read, and the substitution is reached", async (text) => {
    expect((await unreadOf(text)).length).toBeGreaterThan(0);
    expect(await reachedOf(text)).toContainEqual(["rm", "-f", "victim"]);
    expect((await dangerousCommandMatch(script(text)))?.kind).toBe("forced-rm");
  });

  it.each<[string, UnreadPart[]]>([
    ["test -v 'a[$(rm f)]'", [part("evaluated-text", "a[$(rm f)]")]],
    ["test -v 'a[i]'", [part("evaluated-text", "a[i]")]],
    ['test -v "$name"', [part("evaluated-text", '"$name"')]],
    ["[[ -v a[x] ]]", [part("evaluated-text", "a[x]")]],
    ['read -r -- "$name"', [part("evaluated-text", '"$name"')]],
    ['unset -v -- "$name"', [part("evaluated-text", '"$name"')]],
    ['declare -- "$n"=1', [part("evaluated-text", '"$n"=1')]],
    // A word that is not literal where an option may be may become one (`-p NAME`, `-v NAME`).
    ['read "$name"', [part("unmodelled-builtin", `read '"$name"'`)]],
    ['declare "$n"=1', [part("unmodelled-builtin", `declare '"$n"=1'`)]],
    ["wait $pid", [part("unmodelled-builtin", "wait '$pid'")]],
    ["declare 'x=($(rm f))'", [part("evaluated-text", "x=($(rm f))")]],
    ["declare -a x=$y", [part("unmodelled-builtin", "declare -a 'x=$y'")]],
    ["local x=$1", [part("unmodelled-builtin", "local 'x=$1'")]],
    ["declare -n r=x", [part("unmodelled-builtin", "declare -n r=x")]],
    ["local -I x", [part("unmodelled-builtin", "local -I x")]],
    ["printf -v x %s y", [part("unmodelled-builtin", "printf -v x %s y")]],
    ['printf "$format" x', [part("unmodelled-builtin", `printf '"$format"' x`)]],
    ["read RANDOM", [part("evaluated-text", "RANDOM")]],
    ["getopts ab OPTIND", [part("evaluated-text", "OPTIND")]],
    ["OPTIND=$x", [part("evaluated-text", "OPTIND=$x")]],
    ["a[i]=1", [part("evaluated-text", "a[i]=1")]],
    ["a=([k]=v)", [part("evaluated-text", "a=([k]=v)")]],
    ["exit x", [part("evaluated-text", "x")]],
    ["set -k; ls", [part("unmodelled-builtin", "set -k")]],
    ["set -H", [part("unmodelled-builtin", "set -H")]],
    ["set -o posix", [part("unmodelled-builtin", "set -o posix")]],
    ["set -o history", [part("unmodelled-builtin", "set -o history")]],
    ["shopt -s extdebug", [part("unmodelled-builtin", "shopt -s extdebug")]],
    ["shopt -s compat31", [part("unmodelled-builtin", "shopt -s compat31")]],
    ["jobs -Z", [part("unmodelled-builtin", "jobs -Z")]],
  ])("%s leaves %j", async (text, expected) => {
    expect(await unreadOf(text)).toEqual(expected);
  });

  it.each([
    "x='a[$(rm f)]'; echo ${!x}",
    "echo ${!x:-y}",
    "echo ${!a[0]}",
    "y=abc; echo ${y:x}",
    "echo ${y: -1:n}",
    "echo ${a[@]:i}",
    "echo ${#a[i]}",
    "echo ${x:-${a[i]}}",
    "echo ${x:-$((n))}",
    "for f in ${a[i]}; do :; done",
    "case ${a[i]} in x) ;; esac",
  ])("%s evaluates a value: dynamic-script", async (text) => {
    expect((await unreadOf(text)).map((unread) => unread.reason)).toEqual(["dynamic-script"]);
  });

  it.each([
    "echo ${!prefix*} ${!prefix@} ${!a[@]} ${#a[@]} ${a[0]} ${x:-y} ${x: -1} ${x:1:2} ${x/a/b}",
    "[[ -v x ]] && test -v y && [ -v 'a[1]' ]",
    "unset x 'a[1]' 'a[@]'",
    "read -r line; read -ra words; mapfile -t lines < f; readarray arr < f",
    "printf '%s\\n' a b; printf -- '%d' 5; printf '%(%F)T' 1; printf \"%s\" \"$x\"",
    "export A=1 B=$x C; readonly D=1; declare -r E=2; declare -a arr; declare -A map; declare -x F=1",
    "f() { local x=1 y; }; f",
    "set -euo pipefail; set -x; set +e; set -- a b",
    "shopt -s nullglob globstar; shopt -q extglob",
    "cd /tmp && pwd && pushd . && popd && dirs",
    "exit 1; return 0; shift 2; exit $?",
    "getopts ab opt; wait -n; wait 12; kill %1; umask 022; ulimit -n 1024",
    "type ls; hash -r; command -v ls; true; false; :; echo hi",
    "a[1]=2; RANDOM=5; x='y'; x=(a b)",
    "jobs -l; disown -a; times; caller; help cd",
  ])("reads %s completely", async (text) => {
    expect(await unreadOf(text)).toEqual([]);
  });

  it("marks what the shell runs itself, not what it looks up on PATH", async () => {
    const reach = await reachableCommands(script("echo hi; command printf x; env echo hi; ls; exec cat"));
    expect(reach.commands.map((command) => [command.argv.join(" "), command.builtin === true])).toEqual([
      ["bash -lc echo hi; command printf x; env echo hi; ls; exec cat", false],
      ["echo hi", true],
      ["command printf x", true],
      ["printf x", true],
      ["env echo hi", false],
      ["echo hi", false],
      ["ls", false],
      ["exec cat", true],
      ["cat", false],
    ]);
    // A command line run directly is not in a shell: `echo` there is /usr/bin/echo.
    expect((await reachableCommands(["echo", "hi"])).commands).toEqual([{ argv: ["echo", "hi"] }]);
  });
});

describe("PATH set on the command line", () => {
  it.each<[string[], string]>([
    [script("PATH=./bin:$PATH ls"), "PATH=./bin:$PATH"],
    [script("export PATH=./bin:$PATH; ls"), "PATH=./bin:$PATH"],
    [script("declare -x PATH=/x; ls"), "PATH=/x"],
    [script("PATH+=:./bin; ls"), "PATH+=:./bin"],
    [["env", "PATH=./bin", "ls"], "PATH=./bin"],
    [script("read PATH < f; ls"), "PATH"],
  ])("%j sets PATH", async (argv, text) => {
    expect((await reachableCommands(argv)).unread).toEqual([part("program-path", text)]);
  });
});

describe("the modelled builtins", () => {
  it("are exactly the ones the README lists", () => {
    expect([...MODELLED_BUILTINS].sort()).toEqual(
      [
        ".",
        ":",
        "[",
        "[[",
        "alias",
        "bg",
        "break",
        "builtin",
        "caller",
        "cd",
        "command",
        "continue",
        "coproc",
        "declare",
        "dirs",
        "disown",
        "echo",
        "enable",
        "eval",
        "exec",
        "exit",
        "export",
        "false",
        "fg",
        "getopts",
        "hash",
        "help",
        "jobs",
        "kill",
        "let",
        "local",
        "logout",
        "mapfile",
        "nocorrect",
        "noglob",
        "popd",
        "printf",
        "pushd",
        "pwd",
        "read",
        "readarray",
        "readonly",
        "return",
        "set",
        "shift",
        "shopt",
        "source",
        "suspend",
        "test",
        "time",
        "times",
        "trap",
        "true",
        "type",
        "typeset",
        "ulimit",
        "umask",
        "unalias",
        "unset",
        "wait",
        "whence",
        "where",
        "which",
      ].sort(),
    );
  });

  it("keep the known-safe builtins known safe", async () => {
    for (const text of ["cd /tmp && ls", "echo hi", "pwd", "true && false", "which ls"]) {
      expect(await isKnownSafeCommand(script(text)), text).toBe(true);
    }
  });
});
