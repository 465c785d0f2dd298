import { describe, expect, it } from "vitest";
import {
  dangerousCommandMatch,
  isKnownSafeCommand,
  reachableCommands,
  type UnreadPart,
} from "../src/index.js";
import { awkRunsCommands, sedRunsCommands } from "../src/safety/sed-awk.js";

// Options that give a program a command to run. Classification only: nothing here runs.

const part = (reason: UnreadPart["reason"], text: string): UnreadPart => ({ reason, text });
const reached = async (argv: string[]): Promise<string[][]> =>
  (await reachableCommands(argv)).commands.map((command) => command.argv);

describe("git options and subcommands that take a command", () => {
  it.each<[string[], string]>([
    [["git", "rebase", "--exec", "rm -f victim", "main"], "git rebase --exec 'rm -f victim'"],
    [["git", "rebase", "--exec=rm -f victim", "main"], "git rebase '--exec=rm -f victim'"],
    [["git", "rebase", "--ex", "rm -f victim"], "git rebase --ex 'rm -f victim'"],
    [["git", "rebase", "-x", "rm -f victim", "main"], "git rebase -x 'rm -f victim'"],
    [["git", "rebase", "-ix", "rm -f victim"], "git rebase -ix 'rm -f victim'"],
    [["git", "rebase", "-xrm -f victim"], "git rebase '-xrm -f victim'"],
    [["git", "ls-remote", "--upload-pack=rm -f victim", "."], "git ls-remote '--upload-pack=rm -f victim'"],
    [["git", "ls-remote", "--upl", "rm -f victim", "."], "git ls-remote --upl 'rm -f victim'"],
    [["git", "ls-remote", "-u", "rm -f victim", "."], "git ls-remote -u 'rm -f victim'"],
    [["git", "ls-remote", "--exec=rm -f victim", "."], "git ls-remote '--exec=rm -f victim'"],
    [["git", "fetch", "--upload-pack", "rm -f victim", "."], "git fetch --upload-pack 'rm -f victim'"],
    [["git", "pull", "--upload-pack=rm -f victim", "."], "git pull '--upload-pack=rm -f victim'"],
    [["git", "clone", "--upload-pack=rm -f victim", ".", "x"], "git clone '--upload-pack=rm -f victim'"],
    [["git", "clone", "-u", "rm -f victim", ".", "x"], "git clone -u 'rm -f victim'"],
    [["git", "push", "--receive-pack=rm -f victim", "."], "git push '--receive-pack=rm -f victim'"],
    [["git", "push", "--exec=rm -f victim", "."], "git push '--exec=rm -f victim'"],
    [["git", "fetch-pack", "--exec=rm -f victim", "."], "git fetch-pack '--exec=rm -f victim'"],
    [["git", "send-pack", "--receive-pack=rm -f victim", "."], "git send-pack '--receive-pack=rm -f victim'"],
    [["git", "archive", "--remote=.", "--exec=rm -f victim", "HEAD"], "git archive '--exec=rm -f victim'"],
    [["git", "submodule", "foreach", "rm -f victim"], "git submodule foreach 'rm -f victim'"],
    [["git", "submodule", "foreach", "--recursive", "rm -f victim"], "git submodule foreach 'rm -f victim'"],
    [
      ["git", "filter-branch", "--tree-filter", "rm -f victim"],
      "git filter-branch --tree-filter 'rm -f victim'",
    ],
    [["git", "filter-branch", "--env-filter=rm -f victim"], "git filter-branch '--env-filter=rm -f victim'"],
    [
      ["git", "filter-branch", "--index-filter", "rm -f victim"],
      "git filter-branch --index-filter 'rm -f victim'",
    ],
    [
      ["git", "filter-branch", "--msg-filter", "rm -f victim"],
      "git filter-branch --msg-filter 'rm -f victim'",
    ],
    [
      ["git", "filter-branch", "--commit-filter", "rm -f victim"],
      "git filter-branch --commit-filter 'rm -f victim'",
    ],
    [
      ["git", "send-email", "--sendmail-cmd=rm -f victim", "x"],
      "git send-email '--sendmail-cmd=rm -f victim'",
    ],
    [["git", "send-email", "--to-cmd=rm -f victim", "x"], "git send-email '--to-cmd=rm -f victim'"],
    [["git", "-C", "sub", "rebase", "--exec", "rm -f victim"], "git rebase --exec 'rm -f victim'"],
    [["/usr/lib/git-core/git-rebase", "--exec", "rm -f victim"], "git rebase --exec 'rm -f victim'"],
  ])("%j is unread, and the command in it is reached and searched", async (argv, text) => {
    const reach = await reachableCommands(argv);
    expect(reach.unread).toContainEqual(part("command-option", text));
    expect(reach.commands.at(-1)?.argv).toEqual(["rm", "-f", "victim"]);
    expect((await dangerousCommandMatch(argv))?.kind).toBe("forced-rm");
  });

  it("reads difftool -x and bisect run as the commands they run", async () => {
    for (const argv of [
      ["git", "difftool", "-y", "-x", "rm -f victim", "a.txt"],
      ["git", "difftool", "--extcmd=rm -f victim"],
      ["git", "difftool", "--ext", "rm -f victim"],
      ["git", "bisect", "run", "rm", "-f", "victim"],
    ]) {
      const reach = await reachableCommands(argv);
      expect(reach.unread, JSON.stringify(argv)).toEqual([]);
      expect(reach.commands.at(-1)?.argv, JSON.stringify(argv)).toEqual(["rm", "-f", "victim"]);
    }
    expect((await dangerousCommandMatch(["git", "bisect", "run", "git", "reset", "--hard"]))?.kind).toBe(
      "git-reset-hard",
    );
    expect((await dangerousCommandMatch(["git", "rebase", "-x", "git push -f", "main"]))?.kind).toBe(
      "git-push-force",
    );
    expect(
      await reached(["git", "for-each-repo", "--config=maintenance.repo", "reset", "--hard"]),
    ).toContainEqual(["git", "reset", "--hard"]);
  });

  it.each<[string[], UnreadPart[]]>([
    [["git", "rebase", "-s", "evil", "main"], [part("command-option", "git rebase -s evil")]],
    [["git", "merge", "--strategy=evil", "x"], [part("command-option", "git merge --strategy=evil")]],
    [["git", "grep", "-Orm", "x"], [part("command-option", "git grep -Orm")]],
    [
      ["git", "grep", "--open-files-in-pager=rm", "x"],
      [part("command-option", "git grep --open-files-in-pager=rm")],
    ],
    [["git", "clone", "--template=./t", ".", "x"], [part("command-option", "git clone --template=./t")]],
    [["git", "hook", "run", "pre-commit"], [part("command-option", "git hook run")]],
    [["git", "clone", "-c", "core.fsmonitor=rm f", ".", "x"], [part("git-config", "core.fsmonitor=rm f")]],
    [["git", "config", "core.pager", "rm f"], [part("git-config", "core.pager=rm f")]],
    [["git", "config", "set", "core.fsmonitor", "./x"], [part("git-config", "core.fsmonitor=./x")]],
    [
      ["git", "config", "--local", "--add", "diff.external", "./x"],
      [part("git-config", "diff.external=./x")],
    ],
    [
      ["git", "rebase", "--exec", "$cmd"],
      [part("command-option", "git rebase --exec '$cmd'"), part("dynamic-command-name", "$cmd")],
    ],
    [
      ["bash", "-lc", 'git rebase --exec "$cmd" main'],
      [
        part("command-option", `git rebase --exec '"$cmd"'`),
        part("dynamic-script", `git rebase --exec '"$cmd"'`),
      ],
    ],
  ])("%j is unread", async (argv, expected) => {
    expect((await reachableCommands(argv)).unread).toEqual(expected);
  });

  it.each([
    ["git", "rebase", "-s", "ours", "main"],
    ["git", "merge", "-s", "recursive", "x"],
    ["git", "cherry-pick", "-x", "HEAD"],
    ["git", "log", "--oneline"],
    ["git", "clone", "--config=user.name=me", ".", "x"],
    ["git", "config", "user.name", "me"],
    ["git", "config", "--get", "core.pager"],
    ["git", "config", "core.pager"],
    ["git", "rebase", "-i", "main"],
    ["git", "fetch", "origin"],
  ])("%j is read completely", async (...argv) => {
    expect((await reachableCommands(argv)).unread).toEqual([]);
  });

  it("never counts a git command known safe", async () => {
    expect(await isKnownSafeCommand(["git", "difftool", "-x", "cat", "a"])).toBe(false);
  });
});

describe("programs that run a command given in an option", () => {
  it.each<[string[], string]>([
    [
      ["tar", "-xf", "a.tar", "--checkpoint=1", "--checkpoint-action=exec=rm -f victim"],
      "tar '--checkpoint-action=exec=rm -f victim'",
    ],
    [["tar", "-xf", "a.tar", "--checkpoint-a=exec=rm -f victim"], "tar '--checkpoint-a=exec=rm -f victim'"],
    [["tar", "-xf", "a.tar", "--to-command=rm -f victim"], "tar '--to-command=rm -f victim'"],
    [["tar", "-xf", "a.tar", "--to-c", "rm -f victim"], "tar --to-c 'rm -f victim'"],
    [["tar", "-I", "rm -f victim", "-xf", "a.tar"], "tar -I 'rm -f victim'"],
    [
      ["tar", "-cf", "x.tar", "--use-compress-program=rm -f victim", "."],
      "tar '--use-compress-program=rm -f victim'",
    ],
    [["tar", "-cf", "x.tar", "--rsh-command=rm -f victim", "h:/x"], "tar '--rsh-command=rm -f victim'"],
    [["tar", "-cf", "x.tar", "-F", "rm -f victim", "."], "tar -F 'rm -f victim'"],
    [["tar", "cfI", "x.tar", "rm -f victim", "."], "tar cfI 'rm -f victim'"],
    [["ssh", "-o", "ProxyCommand=rm -f victim", "host"], "ssh -o 'ProxyCommand=rm -f victim'"],
    [["ssh", "-oProxyCommand=rm -f victim", "host"], "ssh '-oProxyCommand=rm -f victim'"],
    [["ssh", "-o", "proxycommand rm -f victim", "host"], "ssh -o 'proxycommand rm -f victim'"],
    [["ssh", "-vo", "LocalCommand=rm -f victim", "host"], "ssh -vo 'LocalCommand=rm -f victim'"],
    [["ssh", "-o", "KnownHostsCommand=rm -f victim", "host"], "ssh -o 'KnownHostsCommand=rm -f victim'"],
    [["scp", "-o", "ProxyCommand=rm -f victim", "a", "h:b"], "scp -o 'ProxyCommand=rm -f victim'"],
    [["sftp", "-S", "rm -f victim", "h"], "sftp -S 'rm -f victim'"],
    [["rsync", "-e", "rm -f victim", "a", "h:b"], "rsync -e 'rm -f victim'"],
    [["rsync", "-avze", "rm -f victim", "a", "h:b"], "rsync -avze 'rm -f victim'"],
    [["rsync", "--rsh=rm -f victim", "a", "h:b"], "rsync '--rsh=rm -f victim'"],
    [["man", "-P", "rm -f victim", "ls"], "man -P 'rm -f victim'"],
    [["man", "--pager=rm -f victim", "ls"], "man '--pager=rm -f victim'"],
    [["zip", "-T", "-TT", "rm -f victim", "x.zip", "f"], "zip -TT 'rm -f victim'"],
    [["zip", "--unzip-command", "rm -f victim", "x.zip", "f"], "zip --unzip-command 'rm -f victim'"],
    [["sort", "--compress-program=rm -f victim", "f"], "sort '--compress-program=rm -f victim'"],
    [["npx", "-c", "rm -f victim"], "npx -c 'rm -f victim'"],
    [["npm", "exec", "--call=rm -f victim"], "npm '--call=rm -f victim'"],
    [["nix-shell", "--run", "rm -f victim"], "nix-shell --run 'rm -f victim'"],
    [["perf", "stat", "--pre", "rm -f victim", "ls"], "perf --pre 'rm -f victim'"],
    [["valgrind", "--db-command=rm -f victim", "ls"], "valgrind '--db-command=rm -f victim'"],
  ])("%j is unread, and its command is reached and searched", async (argv, text) => {
    const reach = await reachableCommands(argv);
    expect(reach.unread).toContainEqual(part("command-option", text));
    expect(reach.commands.map((command) => command.argv)).toContainEqual(["rm", "-f", "victim"]);
    expect((await dangerousCommandMatch(argv))?.kind).toBe("forced-rm");
    expect(
      (await dangerousCommandMatch(["bash", "-lc", `timeout 5 ${argv.map((w) => `'${w}'`).join(" ")}`]))
        ?.kind,
    ).toBe("forced-rm");
  });

  it.each<[string[], string]>([
    [["rsync", "--rsync-path=sudo rsync", "a", "h:b"], "rsync '--rsync-path=sudo rsync'"],
    [["ssh", "-o", "RemoteCommand=rm f", "host"], "ssh -o 'RemoteCommand=rm f'"],
    [["ssh", "-F", "./config", "host"], "ssh -F ./config"],
    [["man", "-Hfirefox", "ls"], "man -Hfirefox"],
    [["man", "-C", "./man.conf", "ls"], "man -C ./man.conf"],
    [["vim", "-c", "!rm f", "x"], "vim -c '!rm f'"],
    [["vim", "+!rm f", "x"], "vim '+!rm f'"],
    [["vi", "--cmd", "!rm f", "x"], "vi --cmd '!rm f'"],
    [["nvim", "-S", "session.vim"], "nvim -S session.vim"],
    [["vim", "-u", "./vimrc", "x"], "vim -u ./vimrc"],
    [["ex", "x"], "ex"],
    [["gdb", "-ex", "shell rm f", "-batch"], "gdb -ex 'shell rm f'"],
    [["gdb", "--eval-command=shell rm f"], "gdb '--eval-command=shell rm f'"],
    [["gdb", "-x", "cmds"], "gdb -x cmds"],
    [["gdb", "-iex", "shell rm f"], "gdb -iex 'shell rm f'"],
    [["lldb", "-o", "platform shell rm f"], "lldb -o 'platform shell rm f'"],
    [["less", "+!rm f", "x"], "less '+!rm f'"],
    [["emacs", "--batch", "--eval", '(shell-command "rm f")'], `emacs --eval '(shell-command "rm f")'`],
    [["sed", "-n", "1e rm f", "x"], "sed '1e rm f'"],
    [["sed", "s/x/rm f/e", "x"], "sed 's/x/rm f/e'"],
    [["sed", "-e", "s/a/b/", "-e", "1e rm f", "x"], "sed -e '1e rm f'"],
    [["sed", "--expression=:a;e rm f", "x"], "sed '--expression=:a;e rm f'"],
    [["sed", "-f", "script.sed", "x"], "sed -f script.sed"],
    [["awk", 'BEGIN { system("rm f") }'], `awk 'BEGIN { system("rm f") }'`],
    [["awk", '{ print | "rm f" }', "x"], `awk '{ print | "rm f" }'`],
    [["gawk", 'BEGIN { "rm f" | getline x }'], `gawk 'BEGIN { "rm f" | getline x }'`],
    [["awk", "-f", "prog.awk", "x"], "awk -f prog.awk"],
    [["sqlite3", "x.db", ".shell rm f"], "sqlite3 '.shell rm f'"],
    [["tmux", "new-session", "-d", "rm f"], "tmux new-session"],
    [["wget", "--use-askpass=./askpass", "https://example.invalid"], "wget --use-askpass=./askpass"],
    [["at", "now"], "at"],
  ])("%j is unread", async (argv, text) => {
    expect((await reachableCommands(argv)).unread).toContainEqual(part("command-option", text));
  });

  it("reads gdb --args and nix develop -c as the commands they run", async () => {
    expect((await reached(["gdb", "-batch", "--args", "rm", "-f", "victim"])).at(-1)).toEqual([
      "rm",
      "-f",
      "victim",
    ]);
    expect((await reached(["nix", "develop", "-c", "rm", "-f", "victim"])).at(-1)).toEqual([
      "rm",
      "-f",
      "victim",
    ]);
  });

  it.each([
    ["tar", "-xzf", "a.tar.gz"],
    ["tar", "--checkpoint=10", "--checkpoint-action=dot", "-xf", "a.tar"],
    ["rsync", "-av", "--delete", "a/", "b/"],
    ["man", "ls"],
    ["sort", "-k2", "-t,", "x"],
    ["sed", "-n", "1p", "x"],
    ["sed", "-i", "s/a/b/g; /x/d; y/abc/xyz/; s|a|b|w out", "x"],
    ["sed", ":a;N;$!ba;s/\\n/ /g", "x"],
    ["sed", "--sandbox", "1e rm f", "x"],
    ["awk", "/a|b/ { print $1 || $2 }", "x"],
    ["awk", "-F,", "-v", "n=1", '{ print $n, "a|b" } # x | y', "x"],
    ["gawk", "--sandbox", 'BEGIN { system("rm f") }'],
    ["sqlite3", "x.db", "select 1"],
  ])("%j is read completely", async (...argv) => {
    expect((await reachableCommands(argv)).unread).toEqual([]);
  });

  it("keeps sed -n Np known safe", async () => {
    expect(await isKnownSafeCommand(["sed", "-n", "1p", "x"])).toBe(true);
    expect(await isKnownSafeCommand(["bash", "-lc", "sed -n 1,5p x | head"])).toBe(true);
  });
});

describe("the scanners", () => {
  it.each([
    ["1e rm f", true],
    ["e", true],
    ["$!e", true],
    ["/x/e rm f", true],
    ["s/a/b/e", true],
    ["s/a/b/ge", true],
    ["s|a|b|3e", true],
    ["1{e rm f\n}", true],
    [":a;e rm f", true],
    ["s/a/b/;e", true],
    ["K", true],
    ["s/a/b/g", false],
    ["1,5p", false],
    ["/start/,/end/d", false],
    ["a text; e rm f", false],
    ["w out.txt;e", false],
    ["y/abc/xyz/", false],
    ["s/e/E/g", false],
    ["1~2p;$q", false],
    ["# e comment\np", false],
  ])("sedRunsCommands(%j) is %s", (script, runs) => {
    expect(sedRunsCommands(script)).toBe(runs);
  });

  it.each([
    ['BEGIN { system("x") }', true],
    ['{ print | "x" }', true],
    ['{ print |& "x" }', true],
    ['BEGIN { "x" | getline }', true],
    ['@load "x"', true],
    ["{ print $1 }", false],
    ["/a|b/ { print }", false],
    ["$1 ~ /a|b/", false],
    ['{ print "a|b" }', false],
    ["{ x = a || b }", false],
    ["{ print a / b | c }", true],
    ["# system\n{ print }", false],
  ])("awkRunsCommands(%j) is %s", (program, runs) => {
    expect(awkRunsCommands(program)).toBe(runs);
  });
});
