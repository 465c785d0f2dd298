import { mkdirSync, readFileSync, rmSync, statSync, utimesSync } from "node:fs";
import { dirname, join } from "node:path";
import { expect, it } from "vitest";
import {
  type CaptureShellSnapshotResult,
  captureShellSnapshot,
  isSnapshotCurrent,
  type Shell,
  type ShellSnapshot,
  snapshotExecArgs,
} from "../src/index.js";
import { describeWithShell, PINNED, policyKeep, run, type TempHome, useTempHome } from "./helpers.js";
import { TRICKY_SCRIPTS } from "./tricky-scripts.js";

// What zsh users have: the environment in ~/.zshenv and ~/.zprofile, everything else in ~/.zshrc
// (read only by interactive shells), noise and a slow init included.
const ZSHENV = `export FROM_ZSHENV=1\necho zshenv-says-hello\n`;
const ZPROFILE = `export FROM_ZPROFILE=1\necho zprofile-complains >&2\n`;
const ZSHRC = `echo zshrc-says-hello
echo "pyenv: cannot rehash: $HOME/.pyenv/shims isn't writable" >&2
sleep 0.3
export FROM_ZSHRC='it'"'"'s "quoted" $NOT_EXPANDED
and a second line'
greet() { echo "hello, $1"; }
alias hi='echo alias works'
alias -g UPPER='| tr a-z A-Z'
setopt extendedglob
`;

function expectOk(result: CaptureShellSnapshotResult): ShellSnapshot {
  if (!result.ok) throw new Error(`capture failed: ${result.reason}`);
  return result.snapshot;
}

describeWithShell("shell snapshots of zsh", "zsh", (zsh: Shell) => {
  const tempHome = useTempHome();

  async function capture(
    files: Record<string, string>,
    keep: (name: string, value: string) => boolean = () => true,
  ): Promise<{ home: TempHome; result: CaptureShellSnapshotResult }> {
    const home = tempHome();
    for (const [name, text] of Object.entries(files)) {
      mkdirSync(dirname(join(home.home, name)), { recursive: true });
      home.write(name, text);
    }
    return { home, result: await captureShellSnapshot(zsh, { dir: home.dir, env: home.env, keep }) };
  }

  const PROFILE = { ".zshenv": ZSHENV, ".zprofile": ZPROFILE, ".zshrc": ZSHRC };

  it("carries what every startup file set up, and none of their output", async () => {
    const { home, result } = await capture(PROFILE);
    const snapshot = expectOk(result);
    const script =
      'hi\ngreet world\necho lower UPPER\nprint -r -- "$FROM_ZSHRC"\necho $FROM_ZSHENV $FROM_ZPROFILE';
    expect(run(snapshotExecArgs(snapshot, script), home.env)).toEqual({
      stdout: `alias works\nhello, world\nLOWER\nit's "quoted" $NOT_EXPANDED\nand a second line\n1 1\n`,
      stderr: "",
      status: 0,
    });
    // With stdin a pipe, which Node makes a socket, as well as /dev/null.
    const argv = snapshotExecArgs(snapshot, "[[ -o extendedglob ]] && echo extendedglob $FROM_ZSHENV");
    expect(run(argv, home.env, undefined, "pipe").stdout).toBe("extendedglob 1\n");
    // A plain zsh -c reads ~/.zshenv, noise and all, and nothing else; the snapshot reads no startup file.
    expect(run([zsh.path, "-c", "whence greet hi || echo none"], home.env).stdout).toBe(
      "zshenv-says-hello\nnone\n",
    );
  });

  it("lists the startup files zsh reads, from ZDOTDIR too", async () => {
    const { home, result } = await capture({
      ".zshenv": 'export ZDOTDIR="$HOME/.config/zsh"\n',
      ".config/zsh/.zshrc": "export FROM_ZDOTDIR=1\nalias hi='echo from zdotdir'\n",
    });
    const snapshot = expectOk(result);
    expect(snapshot.path).toMatch(new RegExp(`^${home.dir}/zsh-[0-9a-f]{16}/\\.zshenv$`));
    const sources = Object.fromEntries(snapshot.sources.map(({ path, mtimeMs }) => [path, mtimeMs]));
    const zshrc = join(home.home, ".config/zsh/.zshrc");
    expect(sources[zshrc]).toBe(statSync(zshrc).mtimeMs);
    expect(sources[join(home.home, ".zshenv")]).toBe(statSync(join(home.home, ".zshenv")).mtimeMs);
    expect(sources[join(home.home, ".zshrc")]).toBeNull();
    expect(Object.keys(sources)).toEqual(expect.arrayContaining(["/etc/zsh/zshenv", "/etc/zsh/zshrc"]));
    const ran = run(snapshotExecArgs(snapshot, 'hi; echo "$FROM_ZDOTDIR $ZDOTDIR"'), home.env);
    expect(ran.stdout).toBe(`from zdotdir\n1 ${home.home}/.config/zsh\n`);
  });

  it("drops the variables keep rejects and leaves the pinned ones alone", async () => {
    const { home, result } = await capture(
      {
        ".zshrc": "export OPENAI_API_KEY=sk-not-for-models KEPT=yes TERM=xterm-256color PAGER=less CONCH=0\n",
      },
      policyKeep,
    );
    const snapshot = expectOk(result);
    const pins = { TERM: "dumb", PAGER: "cat", CONCH: "1" };
    const ran = run(snapshotExecArgs(snapshot, 'echo "${OPENAI_API_KEY-unset} $KEPT $TERM $PAGER $CONCH"'), {
      ...home.env,
      ...pins,
    });
    expect(ran.stdout).toBe("unset yes dumb cat 1\n");
    expect(PINNED).toEqual(expect.arrayContaining(Object.keys(pins)));
    expect(readFileSync(snapshot.path, "utf8")).not.toContain("sk-not-for-models");
  });

  it.each(TRICKY_SCRIPTS)("runs %j exactly as zsh -c does", async (script) => {
    const { home, result } = await capture({ ".zshrc": "export PROFILE_RAN=1\n" });
    const snapshot = expectOk(result);
    const plain = run([zsh.path, "-c", script], home.env, home.home);
    expect(run(snapshotExecArgs(snapshot, script), home.env, home.home)).toEqual(plain);
  });

  it("still runs the command, quietly, when the snapshot is gone", async () => {
    const { home, result } = await capture(PROFILE);
    const snapshot = expectOk(result);
    rmSync(dirname(snapshot.path), { recursive: true });
    expect(
      run(snapshotExecArgs(snapshot, 'echo "ran ${FROM_ZSHRC-without the snapshot}"'), home.env),
    ).toEqual({
      stdout: "ran without the snapshot\n",
      stderr: "",
      status: 0,
    });
  });

  it("becomes stale when ~/.zshrc changes", async () => {
    const home = tempHome();
    const zshrc = home.write(".zshrc", ZSHRC);
    const seen = new Date("2025-01-02T03:04:05Z");
    utimesSync(zshrc, seen, seen);
    const snapshot = expectOk(
      await captureShellSnapshot(zsh, { dir: home.dir, env: home.env, keep: () => true }),
    );
    expect(isSnapshotCurrent(snapshot)).toBe(true);
    utimesSync(zshrc, seen, new Date(seen.getTime() + 1000));
    expect(isSnapshotCurrent(snapshot)).toBe(false);
  });

  it("leaves the user's history file alone", async () => {
    const history = ": 1700000000:0;ls\n";
    const { home, result } = await capture({
      ".zsh_history": history,
      ".zshrc":
        "HISTFILE=$HOME/.zsh_history\nSAVEHIST=100\nHISTSIZE=100\nsetopt extendedhistory\nprint -s injected\n",
    });
    expectOk(result);
    expect(readFileSync(join(home.home, ".zsh_history"), "utf8")).toBe(history);
  });

  it("reports the history file ~/.zshrc or ZDOTDIR's .zshrc names, and none without HISTFILE", async () => {
    const own = await capture({ ".zshrc": 'HISTFILE="$HOME/.local/state/zsh/history"\nSAVEHIST=100\n' });
    expect(expectOk(own.result).historyFile).toBe(join(own.home.home, ".local/state/zsh/history"));
    const zdotdir = await capture({
      ".zshenv": 'export ZDOTDIR="$HOME/.config/zsh"\n',
      ".config/zsh/.zshrc": 'HISTFILE="$ZDOTDIR/.histfile"\n',
    });
    expect(expectOk(zdotdir.result).historyFile).toBe(join(zdotdir.home.home, ".config/zsh/.histfile"));
    // zsh keeps no history file unless told to.
    expect(expectOk((await capture({})).result).historyFile).toBeNull();
  });

  it("says so when ~/.zshrc exits with an error or execs another program", async () => {
    const hint = `run "${zsh.path} -l -i -c true" in a terminal to see what the startup files do`;
    expect((await capture({ ".zshrc": "exit 4\n" })).result).toEqual({
      ok: false,
      reason: `the login shell exited with code 4 before the capture script ran: a startup file exits or fails; ${hint}`,
    });
    expect((await capture({ ".zshrc": "exec sleep 0.1\n" })).result).toEqual({
      ok: false,
      reason:
        "the login shell exited without running the capture script: a startup file replaces the shell with " +
        `another program (exec) or exits; ${hint}`,
    });
  });
});
