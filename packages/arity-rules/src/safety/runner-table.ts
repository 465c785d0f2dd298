// The programs that run another program, beyond the shells, wrappers and runners modelled in
// runners.ts and the options of command-options.ts, with where each entry comes from. The list was
// drawn up from the man pages Debian ships (sections 1 and 8 on a Debian 12 system with the packages
// a developer machine has, searched for option and operand descriptions that execute a command, a
// program or shell text: "execute", "run the command", "shell command", "escape to the shell"), from
// the command-line reference of the package managers and tools that are not in Debian (npm, pnpm,
// yarn, bun, uv, poetry, pipx, pdm, hatch, conda, pixi, mise, asdf), and from review findings (issue
// 20: `npm exec --`, `ed`'s `!`, `ssh-agent CMD`, `dbus-run-session`). A new entry names its source.
//
// Two kinds:
// - runners: the command is in their operands, read as a command (or as shell text), so the rules see
//   the program it names;
// - programs that take commands typed or fed into them (an editor's `:!`, a pager's `!`, a database
//   client's `\!`, ed's `!`): what they run is in their own command language, written into their input,
//   where a model can type it later (write_stdin, terminal_write). Their language is not read: the
//   command line is unread (`command-input`), so it needs approval whenever a rule prompts or forbids.
// Interpreters of other languages are not listed: their code is another program, as a script file is
// (docs/security.md). Options that give a program a command are in command-options.ts, and runners
// named by an option or a path pattern (start-stop-daemon, coreutils, the
// dynamic loader, bwrap, capsh, runcon) in table-runners.ts.

/**
 * A runner: a program that runs the command in its operands. Only the options listed exist for it as
 * far as this table knows: another one may take a value, so where the command starts is not known and
 * the command line is unread.
 */
export interface RunnerEntry {
  /** The program's file name (a path to it counts as the same program). */
  readonly name: string;
  /** Words that make it a runner when they are its first operands (`npm exec`); absent: always. */
  readonly subcommands?: readonly (readonly string[])[];
  /** Options without a value; single letters may be clustered. */
  readonly flags?: readonly string[];
  /** Options with a value in the next word or attached. */
  readonly valueOptions?: readonly string[];
  /** Operands of its own before the command (`direnv exec DIR CMD`). */
  readonly operands?: number;
  /** It puts a project's own bin directory first on PATH (`node_modules/.bin`, a virtualenv). */
  readonly changesPath?: true;
  /** Its operands are shell text (`yarn exec`), joined by spaces, or each a script (`concurrently`). */
  readonly shell?: "joined" | "each";
  /** Subcommands whose operands are shell text joined by spaces (`yarn exec`). */
  readonly shellSubcommands?: readonly string[];
  /** Options after which its operands are shell text (`pnpm exec --shell-mode`). */
  readonly shellOptions?: readonly string[];
  /**
   * Its own commands: a first operand that is none of them (nor a subcommand above) is a command it
   * runs (`pnpm echo hi` is `pnpm exec echo hi`).
   */
  readonly ownCommands?: readonly string[];
  /** With no command it starts an interactive shell (`screen`, `newgrp`). */
  readonly bareShell?: true;
  /** The command starts only after this word (`mise exec node@20 -- CMD`); without it, a shell. */
  readonly after?: "--";
  readonly source: string;
}

const PM_SOURCE = "the tool's command-line reference";

// pnpm 10's own commands and their aliases (`pnpm help --all`); a script of package.json named like
// another word is a command pnpm runs too, so over-reading here only reaches the script's name.
const PNPM_COMMANDS: readonly string[] = [
  "add",
  "i",
  "install",
  "up",
  "update",
  "upgrade",
  "remove",
  "rm",
  "uninstall",
  "un",
  "link",
  "ln",
  "unlink",
  "import",
  "rebuild",
  "rb",
  "prune",
  "fetch",
  "install-test",
  "it",
  "dedupe",
  "patch",
  "patch-commit",
  "patch-remove",
  "audit",
  "list",
  "ls",
  "ll",
  "la",
  "outdated",
  "why",
  "licenses",
  "run",
  "run-script",
  "test",
  "t",
  "tst",
  "start",
  "restart",
  "stop",
  "create",
  "init",
  "publish",
  "pack",
  "recursive",
  "multi",
  "m",
  "server",
  "store",
  "root",
  "bin",
  "setup",
  "config",
  "c",
  "get",
  "set",
  "env",
  "doctor",
  "deploy",
  "self-update",
  "cat-file",
  "cat-index",
  "find-hash",
  "approve-builds",
  "ignored-builds",
  "completion",
  "help",
  "sbom",
  "docs",
  "home",
  "owner",
  "dist-tag",
  "view",
  "info",
  "show",
  "v",
  "search",
  "login",
  "logout",
  "adduser",
  "whoami",
  "ping",
  "version",
  "catalog",
  "licence",
  "query",
  "edit",
];

export const RUNNER_TABLE: readonly RunnerEntry[] = [
  // Package managers and project tools: run a command with the project's bin directory first on PATH.
  {
    name: "npm",
    // npm takes a unique abbreviation of a command: `exe` is `exec`.
    subcommands: [["exec"], ["exe"], ["x"]],
    flags: ["--yes", "-y", "--no", "--workspaces", "--ws", "--include-workspace-root", "-g", "--global"],
    valueOptions: [
      "--package",
      "-p",
      "--workspace",
      "-w",
      "--prefix",
      "--registry",
      "--cache",
      "--call",
      "-c",
    ],
    changesPath: true,
    source: `npm-exec(1), and npm-explore(1) in table-runners.ts: ${PM_SOURCE}`,
  },
  {
    name: "npx",
    flags: ["--yes", "-y", "--no", "--quiet", "-q"],
    // `-c`/`--call` give shell text, read by command-options.ts.
    valueOptions: ["--package", "-p", "--prefix", "--registry", "--cache", "--call", "-c"],
    changesPath: true,
    source: `npx(1), ${PM_SOURCE}`,
  },
  {
    name: "pnpm",
    subcommands: [["exec"], ["dlx"], ["x"]],
    flags: [
      "-r",
      "--recursive",
      "--parallel",
      "--no-bail",
      "--report-summary",
      "-w",
      "--workspace-root",
      "--silent",
      "-s",
      "--shell-mode",
      "-c",
    ],
    valueOptions: ["--filter", "-F", "--dir", "-C", "--package", "--resume-from", "--reporter"],
    shellOptions: ["--shell-mode", "-c"],
    ownCommands: PNPM_COMMANDS,
    changesPath: true,
    source: `pnpm exec, pnpm dlx, and \`pnpm CMD\` for any CMD not its own (pnpm 10 runs it as exec): ${PM_SOURCE}`,
  },
  {
    name: "pnpx",
    flags: ["--silent", "-s", "--shell-mode", "-c"],
    valueOptions: ["--package"],
    shellOptions: ["--shell-mode", "-c"],
    changesPath: true,
    source: `pnpx (pnpm dlx): ${PM_SOURCE}`,
  },
  {
    name: "yarn",
    subcommands: [["exec"], ["dlx"]],
    flags: ["--quiet", "-q"],
    valueOptions: ["--package", "-p"],
    shellSubcommands: ["exec"],
    changesPath: true,
    source: `yarn exec (its operands are a shell command line), yarn dlx: ${PM_SOURCE}`,
  },
  {
    name: "bunx",
    flags: ["--bun", "--silent", "--verbose", "--no-install"],
    valueOptions: ["--package", "-p"],
    changesPath: true,
    source: `bunx: ${PM_SOURCE}`,
  },
  {
    name: "bun",
    subcommands: [["x"]],
    flags: ["--bun", "--silent", "--verbose", "--no-install"],
    valueOptions: ["--package", "-p"],
    changesPath: true,
    source: `bun x: ${PM_SOURCE}`,
  },
  {
    name: "uv",
    subcommands: [["run"], ["tool", "run"]],
    flags: [
      "--no-sync",
      "--frozen",
      "--locked",
      "--isolated",
      "--no-project",
      "--no-dev",
      "--all-extras",
      "--active",
      "--offline",
      "-q",
      "--quiet",
      "-v",
      "--verbose",
      "--no-cache",
    ],
    valueOptions: [
      "--with",
      "--with-requirements",
      "--with-editable",
      "--from",
      "--python",
      "-p",
      "--package",
      "--extra",
      "--group",
      "--env-file",
      "--directory",
      "--project",
      "--index",
      "--index-url",
    ],
    changesPath: true,
    source: `uv run, uv tool run: ${PM_SOURCE}`,
  },
  {
    name: "uvx",
    flags: ["--isolated", "--offline", "-q", "--quiet", "-v", "--verbose", "--no-cache"],
    valueOptions: ["--with", "--with-requirements", "--from", "--python", "-p", "--index", "--index-url"],
    changesPath: true,
    source: `uvx (uv tool run): ${PM_SOURCE}`,
  },
  {
    name: "poetry",
    subcommands: [["run"]],
    flags: ["-q", "--quiet", "-v", "-vv", "-vvv", "--verbose", "-n", "--no-interaction", "--no-plugins"],
    valueOptions: ["-C", "--directory", "-P", "--project"],
    changesPath: true,
    source: `poetry run: ${PM_SOURCE}`,
  },
  {
    name: "pipx",
    subcommands: [["run"]],
    flags: ["--no-cache", "--system-site-packages", "-q", "--quiet", "-v", "--verbose"],
    valueOptions: ["--spec", "--python", "--pip-args", "--index-url"],
    changesPath: true,
    source: `pipx run: ${PM_SOURCE}`,
  },
  {
    name: "pdm",
    subcommands: [["run"]],
    flags: ["-s", "--site-packages", "-q", "--quiet", "-v", "--verbose"],
    valueOptions: ["-p", "--project", "--venv"],
    changesPath: true,
    source: `pdm run: ${PM_SOURCE}`,
  },
  {
    name: "pipenv",
    subcommands: [["run"]],
    changesPath: true,
    source: `pipenv run: ${PM_SOURCE}`,
  },
  {
    name: "hatch",
    subcommands: [["run"]],
    valueOptions: ["-e", "--env"],
    changesPath: true,
    source: `hatch run: ${PM_SOURCE}`,
  },
  ...["conda", "mamba", "micromamba"].map(
    (name): RunnerEntry => ({
      name,
      subcommands: [["run"]],
      flags: ["--no-capture-output", "--live-stream", "-v", "--verbose"],
      valueOptions: ["-n", "--name", "-p", "--prefix", "--cwd"],
      changesPath: true,
      source: `${name} run: ${PM_SOURCE}`,
    }),
  ),
  {
    name: "pixi",
    subcommands: [["run"], ["exec"]],
    flags: ["--frozen", "--locked", "-q", "--quiet", "-v", "--verbose"],
    valueOptions: ["--manifest-path", "-e", "--environment", "-s", "--spec"],
    changesPath: true,
    source: `pixi run, pixi exec: ${PM_SOURCE}`,
  },
  ...["mise", "rtx"].map(
    (name): RunnerEntry => ({
      name,
      subcommands: [["exec"], ["x"]],
      after: "--",
      changesPath: true,
      source: `${name} exec [TOOL@VERSION]... -- CMD: ${PM_SOURCE}`,
    }),
  ),
  {
    name: "asdf",
    subcommands: [["exec"]],
    changesPath: true,
    source: `asdf exec: ${PM_SOURCE}`,
  },
  ...["rbenv", "pyenv", "nodenv", "goenv", "jenv", "plenv"].map(
    (name): RunnerEntry => ({
      name,
      subcommands: [["exec"]],
      changesPath: true,
      source: `${name} exec: ${PM_SOURCE}`,
    }),
  ),
  {
    name: "bundle",
    subcommands: [["exec"]],
    flags: ["--keep-file-descriptors"],
    valueOptions: ["--gemfile"],
    changesPath: true,
    source: `bundle-exec(1): ${PM_SOURCE}`,
  },
  {
    name: "opam",
    subcommands: [["exec"]],
    valueOptions: ["--switch", "--root"],
    changesPath: true,
    source: `opam exec: ${PM_SOURCE}`,
  },
  {
    name: "direnv",
    subcommands: [["exec"]],
    operands: 1,
    changesPath: true,
    source: "direnv exec DIR CMD: direnv(1)",
  },
  {
    name: "ip",
    subcommands: [
      ["netns", "exec"],
      ["vrf", "exec"],
    ],
    operands: 1,
    source: "ip-netns(8), ip-vrf(8): ip netns exec NAME CMD, ip vrf exec NAME CMD",
  },
  // Session, agent and daemon starters.
  {
    name: "ssh-agent",
    flags: ["-c", "-s", "-D", "-d", "-k"],
    valueOptions: ["-a", "-E", "-O", "-P", "-t"],
    source: "ssh-agent(1): ssh-agent [options] command [arg ...]",
  },
  {
    name: "dbus-run-session",
    flags: ["--help", "--version"],
    valueOptions: ["--config-file", "--dbus-daemon"],
    source: "dbus-run-session(1): dbus-run-session [--config-file=F] [--dbus-daemon=BINARY] [--] PROGRAM",
  },
  {
    name: "dbus-launch",
    flags: [
      "--sh-syntax",
      "--csh-syntax",
      "--auto-syntax",
      "--binary-syntax",
      "--close-stderr",
      "--exit-with-session",
      "--exit-with-x11",
      "--version",
      "--help",
    ],
    valueOptions: ["--autolaunch", "--config-file"],
    source: "dbus-launch(1): dbus-launch [options] [PROGRAM] [ARGS...]",
  },
  {
    name: "screen",
    flags: [..."aAdDrRmqLlOUxif".split("").map((letter) => `-${letter}`)],
    valueOptions: ["-c", "-e", "-h", "-p", "-S", "-s", "-T", "-t", "-X"],
    bareShell: true,
    source: "screen(1): screen [-opts] [cmd [args]]; without cmd, a shell",
  },
  {
    name: "daemonize",
    flags: ["-a", "-v"],
    valueOptions: ["-c", "-e", "-E", "-o", "-p", "-l", "-u"],
    source: "daemonize(1): daemonize [options] path [arg ...]",
  },
  {
    name: "dtach",
    subcommands: [["-A"], ["-c"], ["-n"], ["-N"]],
    flags: ["-z"],
    valueOptions: ["-e", "-r"],
    operands: 1,
    source: "dtach(1): dtach -A|-c|-n|-N SOCKET [options] COMMAND",
  },
  {
    name: "abduco",
    subcommands: [["-c"], ["-n"], ["-A"]],
    flags: ["-f", "-r", "-q", "-l"],
    valueOptions: ["-e"],
    operands: 1,
    source: "abduco(1): abduco -c|-n|-A NAME COMMAND",
  },
  {
    name: "tini",
    flags: ["-s", "-v", "-vv", "-vvv", "-g", "-w", "-l"],
    valueOptions: ["-p", "-e"],
    source: "tini: tini [options] -- PROGRAM",
  },
  {
    name: "dumb-init",
    flags: ["-c", "--single-child", "-v", "--verbose"],
    valueOptions: ["-r", "--rewrite"],
    source: "dumb-init(1): dumb-init [options] COMMAND",
  },
  {
    name: "systemd-cat",
    flags: ["--help", "--version"],
    valueOptions: ["-t", "--identifier", "-p", "--priority", "--stderr-priority", "--level-prefix"],
    source: "systemd-cat(1): systemd-cat [OPTIONS...] [COMMAND] [ARGUMENTS...]",
  },
  {
    name: "systemd-inhibit",
    flags: ["--list", "--help", "--version", "--no-pager", "--no-legend"],
    valueOptions: ["--what", "--who", "--why", "--mode"],
    source: "systemd-inhibit(1): systemd-inhibit [OPTIONS...] [COMMAND] [ARGUMENTS...]",
  },
  {
    name: "run0",
    flags: ["--no-ask-password", "--background"],
    valueOptions: [
      "-u",
      "--user",
      "-g",
      "--group",
      "--unit",
      "--property",
      "--description",
      "--slice",
      "--nice",
      "-D",
      "--chdir",
      "--setenv",
    ],
    source: "run0(1): run0 [OPTIONS...] COMMAND [ARGUMENTS...]",
  },
  {
    name: "newgrp",
    flags: ["-"],
    operands: 1,
    bareShell: true,
    source: "newgrp(1): starts a new shell with the group",
  },
  // daemontools and runit run a command with a changed environment, user or limit.
  ...[
    ["setuidgid", 1],
    ["envuidgid", 1],
    ["envdir", 1],
    ["setlock", 1],
    ["fghack", 0],
    ["pgrphack", 0],
  ].map(
    ([name, operands]): RunnerEntry => ({
      name: name as string,
      flags: ["-n", "-N", "-x", "-X"],
      operands: operands as number,
      source: `${name as string}(8), daemontools: ${name as string} ... CHILD`,
    }),
  ),
  {
    name: "softlimit",
    valueOptions: ["-m", "-a", "-d", "-s", "-l", "-f", "-c", "-o", "-p", "-t", "-r"],
    source: "softlimit(8), daemontools: softlimit OPTS CHILD",
  },
  {
    name: "chpst",
    flags: ["-v", "-P", "-0", "-1", "-2"],
    valueOptions: ["-u", "-U", "-b", "-e", "-/", "-C", "-n", "-l", "-L", "-m", "-d", "-o", "-p", "-f", "-c"],
    source: "chpst(8), runit: chpst [opts] PROG",
  },
  ...[
    ["gosu", 1],
    ["su-exec", 1],
  ].map(
    ([name, operands]): RunnerEntry => ({
      name: name as string,
      operands: operands as number,
      source: `${name as string}: ${name as string} USER COMMAND`,
    }),
  ),
  // Wrappers that change how the command runs.
  {
    name: "runcon",
    flags: ["-c", "--compute"],
    valueOptions: ["-u", "--user", "-r", "--role", "-t", "--type", "-l", "--range"],
    source: "runcon(1): runcon CONTEXT COMMAND, or runcon [-c] [-u USER] [-r ROLE] [-t TYPE] COMMAND",
  },
  {
    name: "setarch",
    flags: [..."vRFZLXBIT3".split("").map((letter) => `-${letter}`), "--verbose"],
    operands: 1,
    source: "setarch(8): setarch ARCH [options] [program [arguments]]",
  },
  ...["linux32", "linux64", "i386", "x86_64"].map(
    (name): RunnerEntry => ({
      name,
      flags: [..."vRFZLXBIT3".split("").map((letter) => `-${letter}`), "--verbose"],
      source: `setarch(8): ${name} [options] [program [arguments]]`,
    }),
  ),
  {
    name: "fstab-decode",
    source: "fstab-decode(8): fstab-decode COMMAND [ARGUMENT]...",
  },
  { name: "eatmydata", source: "eatmydata(1): eatmydata COMMAND" },
  { name: "faketime", flags: ["-m"], valueOptions: ["-f", "-p"], operands: 1, source: "faketime(1)" },
  {
    name: "fakechroot",
    flags: ["-s", "--use-system-libs"],
    valueOptions: ["-e", "-c", "-l"],
    source: "fakechroot(1)",
  },
  {
    name: "trickle",
    flags: ["-s", "-v"],
    valueOptions: ["-d", "-u", "-w", "-t", "-l", "-n"],
    source: "trickle(1)",
  },
  { name: "torify", source: "torify(1): torify COMMAND" },
  { name: "tsocks", source: "tsocks(1): tsocks COMMAND" },
  {
    name: "proot",
    flags: ["-0", "-v", "-V", "-h", "--kill-on-exit"],
    valueOptions: ["-r", "-b", "-m", "-w", "-k", "-q", "-i"],
    source: "proot(1): proot [options] [--] [command]",
  },
  {
    name: "podman",
    subcommands: [["unshare"]],
    flags: ["--rootless-netns"],
    source: "podman-unshare(1): runs a command in a user namespace on this host",
  },
  {
    name: "buildah",
    subcommands: [["unshare"]],
    valueOptions: ["--mount", "-m"],
    source: "buildah-unshare(1): runs a command in a user namespace on this host",
  },
  { name: "rootlesskit", source: "rootlesskit: rootlesskit [flags] COMMAND" },
  // Runners that leave a container for its host.
  {
    name: "flatpak-spawn",
    flags: ["--host", "--watch-bus", "--clear-env", "--latest-pid", "--sandbox", "--no-network", "--verbose"],
    valueOptions: [
      "--env",
      "--forward-fd",
      "--directory",
      "--sandbox-expose",
      "--sandbox-expose-ro",
      "--app-path",
    ],
    source: "flatpak-spawn(1): flatpak-spawn [OPTION...] COMMAND [ARGUMENT...]",
  },
  { name: "host-spawn", flags: ["-no-pty", "-pty", "-v"], source: "host-spawn: host-spawn COMMAND" },
  {
    name: "distrobox-host-exec",
    flags: ["-v", "--verbose", "-Y", "--yes"],
    source: "distrobox-host-exec(1)",
  },
  {
    name: "toolbox",
    subcommands: [["run"]],
    valueOptions: ["-c", "--container", "-d", "--distro", "-r", "--release"],
    source: "toolbox-run(1): toolbox run [--container NAME] COMMAND",
  },
  // moreutils: runners, and programs whose operands are each shell text.
  { name: "chronic", flags: ["-e", "-v"], source: "chronic(1), moreutils" },
  { name: "ifne", flags: ["-n"], source: "ifne(1), moreutils" },
  { name: "lckdo", flags: ["-w", "-q"], valueOptions: ["-W"], operands: 1, source: "lckdo(1), moreutils" },
  { name: "zrun", source: "zrun(1), moreutils" },
  {
    name: "pee",
    flags: ["--ignore-sigpipe", "--ignore-write-errors"],
    shell: "each",
    source: "pee(1), moreutils",
  },
  { name: "mispipe", shell: "each", source: "mispipe(1), moreutils" },
  // Job queues and watchers run their command later, or on every change.
  { name: "nq", flags: ["-c", "-q"], source: "nq(1): nq [-c] [-q] COMMAND" },
  { name: "tsp", flags: ["-n", "-f", "-g", "-B"], valueOptions: ["-L", "-D", "-N", "-E"], source: "tsp(1)" },
  {
    name: "watchexec",
    flags: ["-c", "--clear", "-r", "--restart", "-p", "--postpone", "-N", "--notify", "--no-vcs-ignore"],
    valueOptions: ["-w", "--watch", "-e", "--exts", "-f", "--filter", "-i", "--ignore", "-d", "--debounce"],
    shell: "joined",
    source: "watchexec(1): runs its command with a shell by default",
  },
  {
    name: "entr",
    flags: ["-a", "-c", "-d", "-n", "-p", "-r", "-z"],
    shellOptions: ["-s"],
    source: "entr(1)",
  },
  {
    name: "concurrently",
    flags: ["-k", "--kill-others", "--raw", "-r", "--no-color"],
    valueOptions: ["-n", "--names", "-c", "--prefix-colors", "-p", "--prefix", "--max-processes", "-m"],
    shell: "each",
    source: "concurrently: each operand is a command line run with a shell",
  },
  // Multi-call binaries: the first operand names the program.
  { name: "toybox", source: "toybox(1): toybox COMMAND [ARGUMENTS...]" },
];

export interface CommandInputEntry {
  readonly names: readonly string[];
  /** Given this many operands (sqlite3's database and SQL), it runs those and reads no input. */
  readonly operandsRead?: number;
  readonly source: string;
}

/**
 * Programs that take commands typed or fed into them, in a language the analyser does not read, with
 * the escape that runs a program. Their command line is unread whatever its words.
 */
export const COMMAND_INPUT_TABLE: readonly CommandInputEntry[] = [
  { names: ["ed"], source: "ed(1): `!command`, and a file name starting with `!`" },
  {
    names: ["vi", "vim", "view", "nvim", "vimdiff", "gvim", "gview", "nvimdiff", "vimx", "evim", "eview"],
    source: "vim(1): `:!{cmd}`, `:shell` (rvim and rview, restricted, are not listed)",
  },
  {
    names: ["emacs", "emacs-nox", "emacs-gtk", "mg", "jed", "jove"],
    source: "emacs(1): M-! shell-command",
  },
  {
    names: ["nano", "joe", "micro", "kak", "hx", "helix", "mcedit", "ne"],
    source: "nano(1): ^T execute command",
  },
  {
    names: ["editor", "sensible-editor", "vipe", "vidir"],
    source: "sensible-editor(1), vipe(1), vidir(1): run $EDITOR, an editor above",
  },
  {
    names: [
      "less",
      "more",
      "most",
      "pg",
      "pager",
      "sensible-pager",
      "zless",
      "zmore",
      "bzless",
      "bzmore",
      "xzless",
      "xzmore",
      "lzless",
      "lzmore",
      "zstdless",
    ],
    source: "less(1), more(1), pager(1): `!command`",
  },
  { names: ["dc"], source: "dc(1): `!` runs the rest of the line as a system command (GNU bc has none)" },
  {
    names: ["gnuplot", "octave", "octave-cli", "maxima", "calc"],
    source: "gnuplot(1) `!`/system, octave system()",
  },
  { names: ["psql"], source: "psql(1): `\\! [command]`" },
  { names: ["mysql", "mariadb"], source: "mysql(1): `system`, `\\!`" },
  {
    names: ["sqlite3", "duckdb"],
    operandsRead: 2,
    source: "sqlite3(1): `.shell`, `.system` (SQL given as an operand is read by command-options.ts)",
  },
  { names: ["gdb", "lldb"], source: "gdb(1): `shell`, `!`; lldb: `platform shell`" },
  {
    names: ["ftp", "sftp", "lftp", "ncftp", "smbclient", "telnet", "tnftp"],
    source: "sftp(1): `!command`; ftp(1), lftp(1), smbclient(1), telnet(1): `!`",
  },
  {
    names: ["mail", "mailx", "s-nail", "bsd-mailx", "mutt", "neomutt", "alpine"],
    source: "mailx(1): `!command`, `~!command`",
  },
  { names: ["w3m", "lynx", "links", "elinks"], source: "w3m(1), lynx(1): `!` shell escape" },
  {
    names: ["mc", "ranger", "nnn", "vifm", "lf", "ncdu", "tig"],
    source: "mc(1), tig(1): run shell commands",
  },
  { names: ["expect", "expectk"], source: "expect(1): spawn, exec" },
  { names: ["screen", "tmux", "byobu"], source: "screen(1) `C-a :exec`, tmux(1) `run-shell`, typed in" },
  { names: ["crontab"], source: "crontab(1): installs commands cron runs later" },
];

/** The entries of COMMAND_INPUT_TABLE, by program name. */
export const COMMAND_INPUT_PROGRAMS: ReadonlyMap<string, CommandInputEntry> = new Map(
  COMMAND_INPUT_TABLE.flatMap((entry) => entry.names.map((name) => [name, entry] as const)),
);
