import {
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { basename, join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  type CaptureShellSnapshotResult,
  captureShellSnapshot,
  isSnapshotCurrent,
  type ShellSnapshot,
  snapshotExecArgs,
} from "../src/index.js";
import {
  describeWithShell,
  installedShell,
  isAlive,
  PINNED,
  policyKeep,
  run,
  useTempHome,
} from "./helpers.js";
import { TRICKY_SCRIPTS } from "./tricky-scripts.js";

// A Debian-style pair: ~/.profile sources ~/.bashrc, which returns at once unless the shell is
// interactive. Both print to stdout and stderr and take 0.3 s, like a profile that runs `pyenv init`.
const PROFILE = `echo profile-says-hello
echo profile-complains >&2
. "$HOME/.bashrc"
`;
const BASHRC = `case $- in *i*) ;; *) return ;; esac
echo bashrc-says-hello
echo "pyenv: cannot rehash: $HOME/.pyenv/shims isn't writable" >&2
sleep 0.3
export FROM_PROFILE='it'"'"'s "quoted" $NOT_EXPANDED
and a second line'
greet() { echo "hello, $1"; }
alias hi='echo alias works'
`;

function expectOk(result: CaptureShellSnapshotResult): ShellSnapshot {
  if (!result.ok) throw new Error(`capture failed: ${result.reason}`);
  return result.snapshot;
}

describe.runIf(process.platform === "linux")("shell snapshots of bash", () => {
  const tempHome = useTempHome();
  const bash = installedShell("bash");
  if (bash === undefined) throw new Error("bash is not installed");
  const keepAll = (): boolean => true;

  async function capture(
    profile: Record<string, string>,
    options: { keep?: (name: string, value: string) => boolean; timeoutMs?: number } = {},
  ) {
    const home = tempHome();
    for (const [name, text] of Object.entries(profile)) home.write(name, text);
    const result = await captureShellSnapshot(bash as NonNullable<typeof bash>, {
      dir: home.dir,
      env: home.env,
      keep: options.keep ?? keepAll,
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    });
    return { home, result };
  }

  it("carries the profile's variable, function and alias, and none of its output", async () => {
    const { home, result } = await capture({ ".profile": PROFILE, ".bashrc": BASHRC });
    const snapshot = expectOk(result);
    const ran = run(snapshotExecArgs(snapshot, 'hi\ngreet world\nprintf "%s\\n" "$FROM_PROFILE"'), home.env);
    expect(ran).toEqual({
      stdout: `alias works\nhello, world\nit's "quoted" $NOT_EXPANDED\nand a second line\n`,
      stderr: "",
      status: 0,
    });
    // The same script in a plain non-login bash has none of it.
    expect(run([bash.path, "-c", "type greet hi >/dev/null 2>&1 || echo none"], home.env).stdout).toBe(
      "none\n",
    );
  });

  it("describes where it came from", async () => {
    const { home, result } = await capture({ ".profile": PROFILE, ".bashrc": BASHRC });
    const snapshot = expectOk(result);
    expect(snapshot.shell).toEqual(bash);
    expect(snapshot.path).toMatch(new RegExp(`^${home.dir}/bash-[0-9a-f]{16}\\.sh$`));
    expect(statSync(home.dir).mode & 0o777).toBe(0o700);
    expect(statSync(snapshot.path).mode & 0o777).toBe(0o600);
    expect(readdirSync(home.dir)).toEqual([basename(snapshot.path)]);
    const sources = Object.fromEntries(snapshot.sources.map(({ path, mtimeMs }) => [path, mtimeMs]));
    expect(sources[join(home.home, ".bashrc")]).toBe(statSync(join(home.home, ".bashrc")).mtimeMs);
    expect(sources[join(home.home, ".profile")]).toBe(statSync(join(home.home, ".profile")).mtimeMs);
    for (const name of [".bash_profile", ".bash_login", ".bash_aliases"]) {
      expect(sources[join(home.home, name)]).toBeNull();
    }
    expect(Object.keys(sources)).toEqual(expect.arrayContaining(["/etc/profile", "/etc/bash.bashrc"]));
  });

  it("drops the variables keep rejects", async () => {
    const profile = `export OPENAI_API_KEY=sk-not-for-models\nexport GITHUB_TOKEN=ghp_x\nexport KEPT=yes\n`;
    const { home, result } = await capture({ ".profile": profile }, { keep: policyKeep });
    const snapshot = expectOk(result);
    const ran = run(
      snapshotExecArgs(snapshot, 'echo "${OPENAI_API_KEY-unset} ${GITHUB_TOKEN-unset} $KEPT"'),
      home.env,
    );
    expect(ran.stdout).toBe("unset unset yes\n");
    expect(readFileSync(snapshot.path, "utf8")).not.toMatch(/sk-not-for-models|ghp_x/);
  });

  it("gives keep every exported variable but the shell's own, with its value", async () => {
    const seen = new Map<string, string>();
    const { home, result } = await capture(
      { ".profile": "export UNICODE='héllo wörld'\n" },
      {
        keep: (name, value) => {
          seen.set(name, value);
          return true;
        },
      },
    );
    expectOk(result);
    expect(seen.get("UNICODE")).toBe("héllo wörld");
    expect(seen.get("HOME")).toBe(home.home);
    for (const name of ["PWD", "OLDPWD", "SHLVL", "_"]) expect(seen.has(name)).toBe(false);
  });

  it("passes on what keep throws, and leaves no work files behind", async () => {
    const home = tempHome();
    const keep = (): boolean => {
      throw new Error("policy exploded");
    };
    await expect(captureShellSnapshot(bash, { dir: home.dir, env: home.env, keep })).rejects.toThrow(
      "policy exploded",
    );
    expect(readdirSync(home.dir)).toEqual([]);
  });

  it("leaves the variables Conch pins to the command's environment", async () => {
    const profile = `export TERM=xterm-256color PAGER=less NO_COLOR= LANG=fr_FR.UTF-8 LC_ALL=fr_FR.UTF-8 CONCH=0\n`;
    const { home, result } = await capture({ ".profile": profile }, { keep: policyKeep });
    const snapshot = expectOk(result);
    const pins = {
      TERM: "dumb",
      PAGER: "cat",
      NO_COLOR: "1",
      LANG: "C.UTF-8",
      LC_ALL: "C.UTF-8",
      CONCH: "1",
    };
    const script = PINNED.filter((name) => name in pins)
      .map((name) => `echo ${name}=$${name}`)
      .join("\n");
    const ran = run(snapshotExecArgs(snapshot, script), { ...home.env, ...pins });
    expect(ran.stdout).toBe("TERM=dumb\nNO_COLOR=1\nPAGER=cat\nLANG=C.UTF-8\nLC_ALL=C.UTF-8\nCONCH=1\n");
  });

  it.each(TRICKY_SCRIPTS)("runs %j exactly as bash -c does", async (script) => {
    const { home, result } = await capture({ ".profile": "export PROFILE_RAN=1\n" });
    const snapshot = expectOk(result);
    const plain = run([bash.path, "-c", script], home.env, home.home);
    expect(run(snapshotExecArgs(snapshot, script), home.env, home.home)).toEqual(plain);
  });

  it("still runs the command, quietly, when the snapshot file is gone", async () => {
    const { home, result } = await capture({ ".profile": PROFILE, ".bashrc": BASHRC });
    const snapshot = expectOk(result);
    rmSync(snapshot.path);
    expect(
      run(snapshotExecArgs(snapshot, 'echo "ran ${FROM_PROFILE-without the snapshot}"'), home.env),
    ).toEqual({
      stdout: "ran without the snapshot\n",
      stderr: "",
      status: 0,
    });
    expect(isSnapshotCurrent(snapshot, { now: snapshot.capturedAt })).toBe(false);
  });

  it("loads the snapshot, and no ~/.bashrc, when stdin is a socket and SSH_CLIENT is set", async () => {
    // bash then takes itself for a command run by sshd: without --norc it would read ~/.bashrc
    // instead of BASH_ENV.
    const { home, result } = await capture({ ".profile": "export FROM_PROFILE=1\n" });
    const snapshot = expectOk(result);
    home.write(".bashrc", "echo bashrc-noise\n");
    const env = { ...home.env, SSH_CLIENT: "192.0.2.1 50000 22" };
    expect(run(snapshotExecArgs(snapshot, "echo $FROM_PROFILE"), env, undefined, "pipe")).toEqual({
      stdout: "1\n",
      stderr: "",
      status: 0,
    });
  });

  it("keeps BASH_ENV away from the command's children", async () => {
    const { home, result } = await capture({ ".profile": "export PROFILE_RAN=1\n" });
    const snapshot = expectOk(result);
    const ran = run(
      snapshotExecArgs(snapshot, 'echo "${BASH_ENV-unset} $PROFILE_RAN"; env | grep -c ^BASH_ENV='),
      home.env,
    );
    expect(ran.stdout).toBe("unset 1\n0\n");
  });

  it("loads the user's options but not the interactive ones", async () => {
    const profile = `shopt -s extglob globstar\nset -o noclobber\nset -x\n`;
    const { home, result } = await capture({ ".profile": profile });
    const snapshot = expectOk(result);
    const script = "shopt -p extglob globstar expand_aliases; echo $-";
    const flags = run([bash.path, "-c", "set -C; echo $-"], home.env).stdout;
    expect(run(snapshotExecArgs(snapshot, script), home.env)).toEqual({
      stdout: `shopt -s extglob\nshopt -s globstar\nshopt -s expand_aliases\n${flags}`,
      stderr: "",
      status: 0,
    });
  });

  it("becomes stale when a startup file changes, appears, or the snapshot ages", async () => {
    const home = tempHome();
    const bashrc = home.write(".bashrc", BASHRC);
    home.write(".profile", PROFILE);
    // Whole seconds, so that setting the time back restores exactly what the capture saw.
    const seen = new Date("2025-01-02T03:04:05Z");
    utimesSync(bashrc, seen, seen);
    const snapshot = expectOk(
      await captureShellSnapshot(bash, { dir: home.dir, env: home.env, keep: keepAll }),
    );
    const now = snapshot.capturedAt + 1000;
    expect(isSnapshotCurrent(snapshot, { now })).toBe(true);
    expect(isSnapshotCurrent(snapshot)).toBe(true);
    expect(isSnapshotCurrent(snapshot, { now: snapshot.capturedAt + 3_599_999 })).toBe(true);
    expect(isSnapshotCurrent(snapshot, { now: snapshot.capturedAt + 3_600_000 })).toBe(false);
    expect(isSnapshotCurrent(snapshot, { now, ttlMs: 500 })).toBe(false);
    expect(isSnapshotCurrent(snapshot, { now: snapshot.capturedAt - 1 })).toBe(false);

    utimesSync(bashrc, seen, new Date(seen.getTime() + 5000));
    expect(isSnapshotCurrent(snapshot, { now })).toBe(false);
    utimesSync(bashrc, seen, seen);
    expect(isSnapshotCurrent(snapshot, { now })).toBe(true);

    home.write(".bash_aliases", "alias ll='ls -l'\n");
    expect(isSnapshotCurrent(snapshot, { now })).toBe(false);
    rmSync(join(home.home, ".bash_aliases"));
    expect(isSnapshotCurrent(snapshot, { now })).toBe(true);
    rmSync(bashrc);
    expect(isSnapshotCurrent(snapshot, { now })).toBe(false);
  });

  it("replaces a symlink planted at the snapshot path instead of writing through it", async () => {
    const { home, result } = await capture({ ".profile": "export PROFILE_RAN=1\n" });
    const first = expectOk(result);
    const victim = join(home.home, "victim");
    writeFileSync(victim, "precious\n");
    rmSync(first.path);
    symlinkSync(victim, first.path);
    const again = expectOk(await captureShellSnapshot(bash, { dir: home.dir, env: home.env, keep: keepAll }));
    expect(again.path).toBe(first.path);
    expect(lstatSync(again.path).isSymbolicLink()).toBe(false);
    expect(readFileSync(victim, "utf8")).toBe("precious\n");
    expect(readFileSync(again.path, "utf8")).toContain("export PROFILE_RAN='1'");
  });

  it("prunes snapshots and work directories long left, and nothing else", async () => {
    const home = tempHome();
    mkdirSync(home.dir, { recursive: true, mode: 0o700 });
    const days = (n: number): Date => new Date(Date.now() - n * 24 * 3600 * 1000);
    const plant = (name: string, age: number, dir = false): void => {
      const path = join(home.dir, name);
      if (dir) mkdirSync(path);
      else writeFileSync(path, "");
      utimesSync(path, days(age), days(age));
    };
    plant("bash-0123456789abcdef.sh", 4);
    plant("zsh-0123456789abcdef", 4, true);
    plant(".capture-abandoned", 2, true);
    plant("bash-fedcba9876543210.sh", 2);
    plant(".capture-running", 0.1, true);
    plant("notes.txt", 30);
    const snapshot = expectOk(
      await captureShellSnapshot(bash, { dir: home.dir, env: home.env, keep: keepAll }),
    );
    expect(readdirSync(home.dir).sort()).toEqual(
      [".capture-running", "bash-fedcba9876543210.sh", basename(snapshot.path), "notes.txt"].sort(),
    );
  });

  it("leaves the user's history file alone", async () => {
    const history = "ls\ncd /tmp\n";
    const { home, result } = await capture({
      ".bash_history": history,
      ".profile": '. "$HOME/.bashrc"\n',
      ".bashrc": "HISTFILE=$HOME/.bash_history\nHISTSIZE=100\nhistory -s injected\n",
    });
    expectOk(result);
    expect(readFileSync(join(home.home, ".bash_history"), "utf8")).toBe(history);
  });

  it("reports the history file the profile left, absolute, exported or not", async () => {
    const own = await capture({ ".profile": "HISTFILE=/var/tmp/conch-elsewhere/hist\n" });
    expect(expectOk(own.result).historyFile).toBe("/var/tmp/conch-elsewhere/hist");
    const relative = await capture({ ".profile": "HISTFILE=.config/bash/history\n" });
    expect(expectOk(relative.result).historyFile).toBe(join(relative.home.home, ".config/bash/history"));
    // An interactive bash names ~/.bash_history when the profile says nothing.
    const plain = await capture({});
    expect(expectOk(plain.result).historyFile).toBe(join(plain.home.home, ".bash_history"));
    const none = await capture({ ".profile": "unset HISTFILE\n" });
    expect(expectOk(none.result).historyFile).toBeNull();
  });

  it("reports the exported variables that hold paths, whatever the env policy keeps", async () => {
    const { result } = await capture(
      {
        ".profile":
          "export KUBECONFIG=/var/tmp/kube/a:/var/tmp/kube/b AWS_SHARED_CREDENTIALS_FILE=/var/tmp/aws\n" +
          "export PLAIN=value RELATIVE=kube/config\nNOT_EXPORTED=/var/tmp/x\n",
      },
      { keep: (name) => name !== "AWS_SHARED_CREDENTIALS_FILE" },
    );
    const paths = expectOk(result).exportedPaths;
    expect(paths.KUBECONFIG).toBe("/var/tmp/kube/a:/var/tmp/kube/b");
    expect(paths.AWS_SHARED_CREDENTIALS_FILE).toBe("/var/tmp/aws");
    expect(Object.keys(paths).filter((name) => ["PLAIN", "RELATIVE", "NOT_EXPORTED"].includes(name))).toEqual(
      [],
    );
  });

  it("kills the login shell's process group at the deadline", async () => {
    const { home, result } = await capture(
      { ".profile": 'echo $$ > "$HOME/shell.pid"\nsleep 100 & echo $! > "$HOME/sleep.pid"\nwait\n' },
      { timeoutMs: 1000 },
    );
    expect(result).toEqual({
      ok: false,
      reason:
        "the login shell did not finish within 1000 ms (its process group was killed): a startup file hangs " +
        `or waits for input; run "${bash.path} -l -i -c true" in a terminal to see what the startup files do`,
    });
    const pids = ["shell.pid", "sleep.pid"].map((name) =>
      Number(readFileSync(join(home.home, name), "utf8")),
    );
    // SIGKILL is sent to the whole group at once; a loaded machine may take a moment to end each
    // process. One that never ends fails this test by its timeout.
    while (pids.some(isAlive)) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(pids.filter(isAlive)).toEqual([]);
  });

  it("kills what the profile left running in its process group", async () => {
    const { home, result } = await capture({ ".profile": 'sleep 100 & echo $! > "$HOME/sleep.pid"\n' });
    expectOk(result);
    expect(isAlive(Number(readFileSync(join(home.home, "sleep.pid"), "utf8")))).toBe(false);
  });

  it("says so when a startup file exits with an error", async () => {
    const { home, result } = await capture({ ".profile": "exit 3\n" });
    expect(readdirSync(home.dir)).toEqual([]);
    expect(result).toEqual({
      ok: false,
      reason:
        "the login shell exited with code 3 before the capture script ran: a startup file exits or fails; " +
        `run "${bash.path} -l -i -c true" in a terminal to see what the startup files do`,
    });
  });

  it("says so when a startup file execs another program", async () => {
    const { result } = await capture({ ".profile": "exec sleep 0.1\n" });
    expect(result).toEqual({
      ok: false,
      reason:
        "the login shell exited without running the capture script: a startup file replaces the shell with " +
        `another program (exec) or exits; run "${bash.path} -l -i -c true" in a terminal to see what the ` +
        "startup files do",
    });
  });

  describeWithShell("with zsh installed", "zsh", (zsh) => {
    it("says so when the profile execs zsh", async () => {
      const { result } = await capture({ ".profile": `exec ${zsh.path}\n` });
      expect(result).toEqual({
        ok: false,
        reason:
          "the login shell exited without running the capture script: a startup file replaces the shell with " +
          `another program (exec) or exits; run "${bash.path} -l -i -c true" in a terminal to see what the ` +
          "startup files do",
      });
    });
  });
});
