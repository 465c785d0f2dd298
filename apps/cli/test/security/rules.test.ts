// Issue 10, items 2, 3, 4 and 11, and a project's .conch: what the rules and the classifier let run, tried
// for real through the CLI with real git and bwrap, checked on the host. Nobody approves anything here
// (`--approver deny`): whatever needs a person does not run.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describeWith } from "@conch/test-config";
import { afterEach, beforeEach, expect, it } from "vitest";
import { conch, git, replay, toolCall, userRules, type Workspace, workspace } from "./harness.js";

let ws: Workspace;
beforeEach(() => {
  ws = workspace();
});
afterEach(() => ws.cleanup());

/** A repository with one commit of `a.txt` (and a second one, so `HEAD~1` exists). */
function repo(dir: string, bare = false): void {
  mkdirSync(dir, { recursive: true });
  git(dir, "init", "-q");
  writeFileSync(join(dir, "a.txt"), "one\n");
  git(dir, "add", "a.txt");
  git(dir, "commit", "-q", "-m", "one");
  writeFileSync(join(dir, "a.txt"), "two\n");
  git(dir, "commit", "-q", "-am", "two");
  if (bare) git(dir, "config", "core.bare", "false");
}

/**
 * Runs `command` on the host, outside Conch, to prove the fixture is live: git really runs the program
 * the repository names (so the test above it could fail).
 */
function runOnHost(command: string, cwd: string): void {
  spawnSync("sh", ["-c", command], { cwd, env: { ...ws.env, GIT_PAGER: "cat" }, stdio: "ignore" });
}

/** The audit log's execution events: what really ran. */
function executions(): Record<string, unknown>[] {
  const path = join(ws.home, ".local", "state", "conch", "audit.jsonl");
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((event) => event.type === "execution");
}

/** A program that, run by anyone, leaves `marker` behind. */
function evilProgram(marker: string): string {
  const path = join(ws.base, `evil-${Math.random().toString(36).slice(2)}.sh`);
  writeFileSync(path, `#!/bin/sh\ntouch ${marker}\nexit 1\n`, { mode: 0o755 });
  return path;
}

describeWith("bwrap", "git run unasked never runs a program the repository names (item 3)", () => {
  // Under untrusted only known-safe commands run unasked; no git command is known safe any more, since a
  // repository the agent can write (a shadow sub/.git, an embedded repo) chooses programs git runs.
  const cases: readonly [key: string, setup: (dir: string, program: string) => void, command: string][] = [
    ["core.fsmonitor", (dir, program) => git(dir, "config", "core.fsmonitor", program), "git status"],
    [
      "diff.external",
      (dir, program) => {
        git(dir, "config", "diff.external", program);
        writeFileSync(join(dir, "a.txt"), "three\n");
      },
      "git diff",
    ],
    [
      "diff.<driver>.textconv",
      (dir, program) => {
        writeFileSync(join(dir, ".gitattributes"), "*.txt diff=evil\n");
        git(dir, "config", "diff.evil.textconv", program);
      },
      "git log -p",
    ],
    [
      "diff.<driver>.command",
      (dir, program) => {
        writeFileSync(join(dir, ".gitattributes"), "*.txt diff=evil\n");
        git(dir, "config", "diff.evil.command", program);
        writeFileSync(join(dir, "a.txt"), "three\n");
      },
      "git diff",
    ],
    [
      "filter.<driver>.clean",
      (dir, program) => {
        writeFileSync(join(dir, ".gitattributes"), "*.txt filter=evil\n");
        git(dir, "config", "filter.evil.clean", program);
        writeFileSync(join(dir, "a.txt"), "three\n");
      },
      "git diff",
    ],
    [
      "gpg.program",
      (dir, program) => {
        git(dir, "config", "gpg.program", program);
        git(dir, "config", "log.showSignature", "true");
        const tree = execFileSync("git", ["rev-parse", "HEAD^{tree}"], { cwd: dir, encoding: "utf8" }).trim();
        const object =
          `tree ${tree}\nauthor t <t@t> 0 +0000\ncommitter t <t@t> 0 +0000\n` +
          "gpgsig -----BEGIN PGP SIGNATURE-----\n \n iQ==\n -----END PGP SIGNATURE-----\n\nsigned\n";
        const commit = execFileSync("git", ["hash-object", "-t", "commit", "-w", "--stdin"], {
          cwd: dir,
          input: object,
          encoding: "utf8",
        }).trim();
        git(dir, "update-ref", "HEAD", commit);
      },
      "git log -1",
    ],
    ["alias", (dir, program) => git(dir, "config", "alias.st", `!${program}`), "git st"],
  ];

  it.each(cases)("%s in a shadow sub/.git", (_key, setup, command) => {
    const dir = join(ws.cwd, "sub");
    repo(dir);
    const marker = join(ws.cwd, "ran");
    setup(dir, evilProgram(marker));
    const call = toolCall(ws, "shell_command", { command, workdir: "sub" }, { approval: "untrusted" });
    expect(call.result.status).toBe("rejected");
    expect(executions()).toEqual([]);
    expect(existsSync(marker)).toBe(false);
    runOnHost(command, dir);
    expect(existsSync(marker)).toBe(true);
  });

  it("an embedded repository in the project: cd fixtures/evil.git && git diff HEAD~1 HEAD", () => {
    const dir = join(ws.cwd, "fixtures", "evil.git");
    repo(dir);
    const marker = join(ws.cwd, "ran");
    git(dir, "config", "diff.external", evilProgram(marker));
    const call = toolCall(
      ws,
      "shell_command",
      { command: "cd fixtures/evil.git && git diff HEAD~1 HEAD" },
      { approval: "untrusted" },
    );
    expect(call.result.status).toBe("rejected");
    expect(executions()).toEqual([]);
    expect(existsSync(marker)).toBe(false);
    runOnHost("cd fixtures/evil.git && git diff HEAD~1 HEAD", ws.cwd);
    expect(existsSync(marker)).toBe(true);
  });
});

describeWith("bwrap", "git's global options cannot hide the subcommand (item 2)", () => {
  it("git --shallow-file status -c alias.st='!touch x' st does not run unasked", () => {
    repo(ws.cwd);
    const call = toolCall(
      ws,
      "shell_command",
      { command: "git --shallow-file status -c alias.st='!touch x' st" },
      { approval: "untrusted" },
    );
    expect(call.result.status).toBe("rejected");
    expect(existsSync(join(ws.cwd, "x"))).toBe(false);
  });

  it.each([
    "git --shallow-file status clean -fdx",
    "git --attr-source status clean -fdx",
    "git --namespace status clean -fdx",
    "git --super-prefix status/ clean -fdx",
    "git -C . --shallow-file status clean -fdx",
  ])("%s is dangerous: asked first, so nothing is deleted", (command) => {
    repo(ws.cwd);
    writeFileSync(join(ws.cwd, "untracked.txt"), "keep me");
    const call = toolCall(ws, "shell_command", { command }, { approval: "on-request" });
    expect(call.result.status).toBe("rejected");
    expect(existsSync(join(ws.cwd, "untracked.txt"))).toBe(true);
  });
});

describeWith("bwrap", "an allow rule means run without asking, inside the sandbox (item 4)", () => {
  it("a command every rule allows still runs sandboxed: it cannot write the home", () => {
    userRules(ws, "allow.toml", '[[rule]]\npattern = ["touch"]\ndecision = "allow"\n');
    const call = toolCall(
      ws,
      "shell_command",
      { command: `touch ${ws.home}/pwned` },
      { approval: "on-request" },
    );
    expect(call.result).toMatchObject({ status: "ok", sandbox: "bwrap", denied: true });
    expect(call.text).toContain("Read-only file system");
    // Under untrusted the rule lets it run unasked, in the sandbox; leaving it is asked (and denied here).
    const untrusted = toolCall(
      ws,
      "shell_command",
      { command: `touch ${ws.home}/pwned` },
      { approval: "untrusted" },
    );
    expect(untrusted.result.status).toBe("rejected");
    expect(existsSync(join(ws.home, "pwned"))).toBe(false);
    const audit = readFileSync(join(ws.home, ".local", "state", "conch", "audit.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const runs = audit.filter((event) => event.type === "execution");
    expect(runs.map((event) => [event.sandbox, event.denied])).toEqual([
      ["bwrap", true],
      ["bwrap", true],
    ]);
  });

  it("asking for escalation on an allowed command still needs a person's yes", () => {
    userRules(ws, "allow.toml", '[[rule]]\npattern = ["touch"]\ndecision = "allow"\n');
    const call = toolCall(ws, "shell_command", {
      command: `touch ${ws.home}/pwned`,
      sandbox_permissions: "require_escalated",
      justification: "need it",
    });
    expect(call.result.status).toBe("rejected");
    expect(existsSync(join(ws.home, "pwned"))).toBe(false);
  });

  it('only a rule that says sandbox = "none" lifts the sandbox', () => {
    userRules(ws, "allow.toml", '[[rule]]\npattern = ["touch"]\ndecision = "allow"\nsandbox = "none"\n');
    const call = toolCall(
      ws,
      "shell_command",
      { command: `touch ${ws.home}/made` },
      { approval: "untrusted" },
    );
    expect(call.result).toMatchObject({ status: "ok", sandbox: "none" });
    expect(existsSync(join(ws.home, "made"))).toBe(true);
  });
});

describeWith("bwrap", "forbidden rules cannot be dodged by rewriting (item 11)", () => {
  const dodges = [
    "rm${IFS}f",
    "$(echo rm) f",
    "`echo rm` f",
    "echo rm f | sh",
    "echo rm f | bash -s",
    'bash <<<"rm f"',
    "sh <<'EOF'\nrm f\nEOF",
    "a=rm; $a f",
    "${x:-rm} f",
    'eval "$(echo rm f)"',
    "x='rm f'; eval $x",
    "echo 'rm f' > s.sh; sh s.sh",
    "echo 'rm f' > s.sh; . ./s.sh",
    "printf 'rm f' | xargs -0 sh -c",
    "$'\\x72m' f",
    "r[m] f",
    "command rm f",
    "env rm f",
    "nice -n 1 rm f",
    "timeout 5 rm f",
    "find . -name f -exec rm {} +",
    "echo f | xargs rm",
    "busybox rm f",
    "/bin/rm f",
    "\\rm f",
    "r''m f",
    'f() { rm "$@"; }; f f',
    "trap 'rm f' EXIT",
    "sh -c 'rm f'",
  ];

  it.each(dodges)("%s under on-request: not run, f survives", (command) => {
    userRules(
      ws,
      "no-rm.toml",
      '[[rule]]\npattern = ["rm"]\ndecision = "forbidden"\njustification = "never delete"\n',
    );
    writeFileSync(join(ws.cwd, "f"), "keep");
    mkdirSync(join(ws.cwd, "rm"), { recursive: true });
    const call = toolCall(ws, "shell_command", { command }, { approval: "on-request" });
    expect(call.result.status).toBe("rejected");
    expect(existsSync(join(ws.cwd, "f"))).toBe(true);
  });

  it.each(["rm${IFS}f", "echo rm f | sh", 'bash <<<"rm f"', "a=rm; $a f"])(
    "%s under never: forbidden",
    (command) => {
      userRules(ws, "no-rm.toml", '[[rule]]\npattern = ["rm"]\ndecision = "forbidden"\n');
      writeFileSync(join(ws.cwd, "f"), "keep");
      const call = toolCall(ws, "shell_command", { command }, { approval: "never" });
      expect(call.result.status).toBe("rejected");
      expect(call.text).not.toContain("rejected by user");
      expect(existsSync(join(ws.cwd, "f"))).toBe(true);
    },
  );

  it("a script for a fish shell is never unchecked", () => {
    userRules(ws, "no-rm.toml", '[[rule]]\npattern = ["rm"]\ndecision = "forbidden"\n');
    writeFileSync(join(ws.cwd, "f"), "keep");
    const fish = join(ws.base, "bin", "fish");
    mkdirSync(join(ws.base, "bin"));
    // Any program named fish: here a shell that runs its script, as fish would.
    writeFileSync(fish, '#!/bin/sh\nshift\nexec /bin/sh -c "$1"\n', { mode: 0o755 });
    const call = toolCall(
      ws,
      "exec_command",
      { cmd: "rm f", shell: fish, login: false },
      { approval: "on-request" },
    );
    expect(call.result.status).toBe("rejected");
    expect(existsSync(join(ws.cwd, "f"))).toBe(true);
  });
});

describeWith("bwrap", "a .conch the agent writes is not trusted later", () => {
  const plantAllowRm =
    "mkdir -p .conch/rules && printf 'rules_dirs = [\".conch/rules\"]\\n' > .conch/config.toml && " +
    'printf \'[[rule]]\\npattern = ["rm"]\\ndecision = "allow"\\nsandbox = "none"\\n\' > .conch/rules/x.toml && echo planted';

  it("rules an agent planted in the project's .conch do not load in the next session", () => {
    writeFileSync(join(ws.cwd, "f"), "keep");
    expect(toolCall(ws, "shell_command", { command: plantAllowRm }).text).toContain("planted");
    const next = toolCall(ws, "shell_command", { command: "rm f" }, { approval: "untrusted" });
    expect(next.result.status).toBe("rejected");
    expect(next.stderr).toContain("the project is not trusted");
    expect(existsSync(join(ws.cwd, "f"))).toBe(true);
    // Once present, the .conch is protected: the agent cannot change what a person later trusts.
    const edit = toolCall(ws, "shell_command", { command: "echo x >> .conch/config.toml" });
    expect(edit.text).toContain("Read-only file system");
  });

  it("rules a person trusted load; a rules file the agent changes afterwards un-trusts them", () => {
    mkdirSync(join(ws.cwd, ".conch"));
    mkdirSync(join(ws.cwd, "policy"));
    writeFileSync(join(ws.cwd, ".conch", "config.toml"), 'rules_dirs = ["policy"]\n');
    writeFileSync(
      join(ws.cwd, "policy", "a.toml"),
      '[[rule]]\npattern = ["touch"]\ndecision = "forbidden"\n',
    );
    expect(conch(ws, ["trust"]).stdout).toContain(`the rules of ${ws.cwd} load from now on`);
    const forbidden = toolCall(ws, "shell_command", { command: "touch t" });
    expect(forbidden.result).toMatchObject({ status: "rejected", rejection: "forbidden" });
    // Trusted rules dirs are Conch's own: read-only and unreadable to a sandboxed command.
    const edit = toolCall(ws, "shell_command", { command: "echo x > policy/b.toml" });
    expect(edit.text).toContain("Permission denied");
    // Changed anyway (an approved unsandboxed command, another tool): the pin notices.
    writeFileSync(join(ws.cwd, "f"), "keep");
    writeFileSync(
      join(ws.cwd, "policy", "b.toml"),
      '[[rule]]\npattern = ["rm"]\ndecision = "allow"\nsandbox = "none"\n',
    );
    const next = toolCall(ws, "shell_command", { command: "rm f" }, { approval: "untrusted" });
    expect(next.result.status).toBe("rejected");
    expect(next.stderr).toContain("changed since `conch trust`");
    expect(existsSync(join(ws.cwd, "f"))).toBe(true);
  });

  it("a .conch the agent makes in a subdirectory cannot shadow the trusted project above it", () => {
    mkdirSync(join(ws.cwd, ".conch"));
    writeFileSync(
      join(ws.cwd, ".conch", "config.toml"),
      'rules_dirs = ["policy"]\ndeny_read = ["secret.txt"]\n',
    );
    mkdirSync(join(ws.cwd, "policy"));
    writeFileSync(join(ws.cwd, "policy", "a.toml"), '[[rule]]\npattern = ["rm"]\ndecision = "forbidden"\n');
    writeFileSync(join(ws.cwd, "secret.txt"), "project-secret");
    expect(conch(ws, ["trust"]).status).toBe(0);
    const sub = join(ws.cwd, "sub");
    mkdirSync(sub);
    writeFileSync(join(sub, "f"), "keep");
    const inSub = { ...ws, cwd: sub };
    expect(
      toolCall(inSub, "shell_command", {
        command: "mkdir .conch && echo '# mine' > .conch/config.toml && echo ok",
      }).text,
    ).toContain("ok");
    const next = toolCall(inSub, "shell_command", { command: "rm f; cat ../secret.txt" });
    expect(next.result).toMatchObject({ status: "rejected", rejection: "forbidden" });
    expect(existsSync(join(sub, "f"))).toBe(true);
    expect(toolCall(inSub, "shell_command", { command: "cat ../secret.txt" }).text).not.toContain(
      "project-secret",
    );
  });
});

// Issue 20 §4: a rule names a program, whatever path names it and whatever runs it. Each attempt is made
// for real in the workspace with nobody approving; the file must still be there on the host.
const NO_RM =
  '[[rule]]\npattern = ["rm"]\ndecision = "forbidden"\n\n' +
  // host_executable() decides which paths an allow rule takes, never which escape a restriction.
  '[[host_executable]]\nname = "rm"\npaths = ["/usr/bin/rm"]\n';

const NO_PUSH =
  '[[rule]]\npattern = ["git", "push"]\ndecision = "forbidden"\n\n' +
  '[[host_executable]]\nname = "git"\npaths = ["/usr/bin/git"]\n';

/** A shell command line (`{F}` the file's absolute path) in a directory, through one tool. */
interface ShellTool {
  readonly name: string;
  readonly profile: string;
  readonly args: (command: string, dir: string) => Record<string, unknown>;
}

const SHELL_TOOLS: readonly ShellTool[] = [
  { name: "shell_command", profile: "codex", args: (command, workdir) => ({ command, workdir }) },
  {
    name: "exec_command",
    profile: "codex",
    args: (cmd, workdir) => ({ cmd, workdir, yield_time_ms: 5000 }),
  },
  {
    name: "bash",
    profile: "bash",
    args: (command, workdir) => ({ command, workdir, description: "delete a file" }),
  },
  { name: "terminal_open", profile: "terminal", args: (command, cwd) => ({ command, cwd, tty: false }) },
];

/** An argv (no shell) in a directory, through one tool. */
const ARGV_TOOLS: readonly ShellTool[] = [
  {
    name: "shell",
    profile: "codex",
    args: (argv, workdir) => ({ command: JSON.parse(argv) as string[], workdir }),
  },
  {
    name: "shell",
    profile: "argv",
    args: (argv, cwd) => ({ argv: JSON.parse(argv) as string[], cwd, timeout_seconds: 20 }),
  },
];

describeWith("bwrap", "a forbidden program is forbidden by any path to it (issue 20 §4)", () => {
  const file = (): string => join(ws.cwd, "f");
  // [command line, where it starts]; `..` past the root stays at the root.
  const scripts: readonly [string, () => string][] = [
    ["../../../../../../../../usr/bin/rm {F}", () => ws.cwd],
    ["./rm {F}", () => "/bin"],
    ["bin/rm {F}", () => "/usr"],
    ["cd /usr/bin; ./rm {F}", () => ws.cwd],
    ["cd /usr && bin/rm {F}", () => ws.cwd],
    ["/bin/rm {F}", () => ws.cwd],
    ["/usr/../bin/./rm {F}", () => ws.cwd],
  ];
  const argvs: readonly [string[], () => string][] = [
    [["../../../../../../../../usr/bin/rm", "{F}"], () => ws.cwd],
    [["./rm", "{F}"], () => "/bin"],
    [["bin/rm", "{F}"], () => "/usr"],
    [["/bin/rm", "{F}"], () => ws.cwd],
  ];
  const attempts = [
    ...SHELL_TOOLS.flatMap((tool) =>
      scripts.map(([script, dir]) => ({ tool, line: script, dir, label: script })),
    ),
    ...ARGV_TOOLS.flatMap((tool) =>
      argvs.map(([argv, dir]) => ({ tool, line: JSON.stringify(argv), dir, label: argv.join(" ") })),
    ),
  ];

  it.each(
    attempts.map((attempt) => [`${attempt.tool.profile} ${attempt.tool.name}: ${attempt.label}`, attempt]),
  )("%s: refused, the file survives", (_label, attempt) => {
    userRules(ws, "no-rm.toml", NO_RM);
    writeFileSync(file(), "keep");
    const line = attempt.line.replaceAll("{F}", file());
    const call = toolCall(ws, attempt.tool.name, attempt.tool.args(line, attempt.dir()), {
      profile: attempt.tool.profile,
      approval: "on-request",
    });
    expect(call.result.status).toBe("rejected");
    expect(existsSync(file())).toBe(true);
  });

  const pushes: readonly [string, () => string][] = [
    ["../../../../../../../../usr/bin/git push origin main", () => join(ws.cwd, "repo")],
    ["cd {REPO} && ../../../../../../../../usr/bin/git push origin main", () => "/usr"],
    // host_executable() lists /usr/bin/git only: a restriction holds for /bin/git all the same.
    ["cd {REPO}; /bin/git push origin main", () => ws.cwd],
  ];
  it.each(pushes)("a forbidden git push: %s does not reach the bare repository", (script, dir) => {
    userRules(ws, "no-push.toml", NO_PUSH);
    const { local, bare } = pushFixture();
    const command = script.replaceAll("{REPO}", local);
    const call = toolCall(ws, "shell_command", { command, workdir: dir() }, { approval: "on-request" });
    expect(call.result.status).toBe("rejected");
    expect(pushed(bare)).toBe(false);
  });

  it("the argv profile: a relative path to git push does not reach the bare repository", () => {
    userRules(ws, "no-push.toml", NO_PUSH);
    const { local, bare } = pushFixture();
    const argv = ["../../../../../../../../usr/bin/git", "push", "origin", "main"];
    const call = toolCall(ws, "shell", { argv, cwd: local, timeout_seconds: 20 }, { profile: "argv" });
    expect(call.result.status).toBe("rejected");
    expect(pushed(bare)).toBe(false);
  });
});

/** A repository with commits, whose origin is an empty bare repository, both in the workspace. */
function pushFixture(): { local: string; bare: string } {
  const bare = join(ws.cwd, "remote.git");
  mkdirSync(bare);
  git(bare, "init", "-q", "--bare");
  const local = join(ws.cwd, "repo");
  repo(local);
  git(local, "remote", "add", "origin", bare);
  return { local, bare };
}

/** Whether the bare repository received a main branch. */
function pushed(bare: string): boolean {
  return spawnSync("git", ["--git-dir", bare, "rev-parse", "--verify", "-q", "refs/heads/main"]).status === 0;
}

describeWith("bwrap", "runners and escapes a forbidden program hides behind (issue 20 §4)", () => {
  const file = (): string => join(ws.cwd, "f");
  it.each([
    "npm exec -- rm {F}",
    "npx -y rm {F}",
    "ssh-agent rm {F}",
    "dbus-run-session -- rm {F}",
    "/lib64/ld-linux-x86-64.so.2 /bin/rm {F}",
    "start-stop-daemon --start --exec /bin/rm -- {F}",
    "setarch x86_64 rm {F}",
    "echo a | split --filter='rm {F}'",
    "printf '!rm {F}\\nq\\n' | ed -s",
    // ed's command spelled so that no word of the command line names rm: unread, so it asks.
    "printf '!\\162m {F}\\nq\\n' | ed -s",
    "printf '.shell \\162m {F}\\n' | sqlite3",
    "printf 'shell \\162m {F}\\n' | gdb -q -nx",
    "pnpm /bin/rm {F}",
  ])("%s: refused, the file survives", (script) => {
    userRules(ws, "no-rm.toml", NO_RM);
    writeFileSync(file(), "keep");
    const command = script.replaceAll("{F}", file());
    const call = toolCall(ws, "shell_command", { command }, { approval: "on-request" });
    expect(call.result.status).toBe("rejected");
    expect(existsSync(file())).toBe(true);
  });
});

describeWith("bwrap", "an editor a command starts takes no commands from the model (issue 20 §4)", () => {
  it("git commit without -m on a terminal, then `:!rm F` typed into it: the file survives", async () => {
    userRules(ws, "no-rm.toml", NO_RM);
    const local = join(ws.cwd, "repo");
    repo(local);
    git(local, "config", "user.name", "t");
    git(local, "config", "user.email", "t@t");
    writeFileSync(join(local, "a.txt"), "changed");
    git(local, "add", "a.txt");
    const file = join(ws.cwd, "f");
    writeFileSync(file, "keep");
    const session = replay(ws, ["--approval", "on-request"]);
    const started = await session.call("exec_command", {
      cmd: "git commit",
      workdir: local,
      tty: true,
      yield_time_ms: 3000,
    });
    const id = /session ID (\d+)/.exec(started.text)?.[1];
    if (id !== undefined) {
      await session.call("write_stdin", {
        session_id: Number(id),
        chars: `:!rm ${file}\n:q!\n`,
        yield_time_ms: 3000,
      });
    }
    await session.close();
    expect(existsSync(file)).toBe(true);
  });
});
