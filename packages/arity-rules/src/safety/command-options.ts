// Options through which a program is given a command, a script or another program to run: `git rebase
// --exec`, `tar --to-command=`, `ssh -o ProxyCommand=`, `rsync -e`, `man -P`, `vim -c`, `gdb -ex`,
// `sed 's/x/y/e'`, `awk '{ system("…") }'`. Such a program is another program in the README's sense (rules
// name programs, and a rule about `rm` cannot see into `vim`), but these pass their command where a reader
// can see it, so they are modelled: the command line is not read completely, and where the value is shell
// text or a program's command line it is also read as a script, so the danger search and the restrictive
// rules see the commands in it. The list is not exhaustive; the sandbox contains the rest.
import {
  type CommandOption,
  type CommandOptionKind,
  long,
  type OptionSpec,
  own,
  scan,
} from "./option-scan.js";
import { awkOptions, sedOptions } from "./sed-awk.js";

// ---- tar ----

const TAR: OptionSpec = {
  long: {
    "--to-command": long("script"),
    "--use-compress-program": long("program"),
    "--rsh-command": long("program"),
    "--rmt-command": long("program"),
    "--info-script": long("script"),
    "--new-volume-script": long("script"),
    "--checkpoint-action": long("script"),
  },
  exact: ["--checkpoint"],
  short: { I: "program", F: "script" },
  valueLetters: "bCfgHKLNTVX",
};

function tarOptions(words: readonly string[]): CommandOption[] {
  const found: CommandOption[] = [];
  let start = 1;
  // Old-style `tar xIf PROG ARCHIVE`: the first word's letters, each taking the next word in turn.
  const first = words[1];
  if (first !== undefined && !first.startsWith("-")) {
    let next = 2;
    for (const letter of first) {
      const kind = own(TAR.short, letter);
      if (kind !== undefined) found.push({ kind, indexes: [1, next], value: words[next] ?? null });
      if (kind !== undefined || TAR.valueLetters?.includes(letter)) next += 1;
    }
    start = next;
  }
  for (const option of scan(words, start, TAR)) {
    if (option.option !== "--checkpoint-action") {
      found.push(option);
      continue;
    }
    // `--checkpoint-action=exec=CMD` runs CMD; its other actions (dot, echo, sleep=, …) do not.
    const exec = /(?:^|,)\s*exec=(.*)$/s.exec(option.value ?? "");
    if (exec !== null) found.push({ ...option, value: exec[1] as string });
    else if ((option.value ?? "").includes("exec")) found.push({ ...option, value: null });
  }
  return found;
}

// ---- ssh, scp, sftp, sshfs ----

// ssh_config keywords (case-insensitive) whose value is a command, a program or more configuration.
const SSH_KEYWORDS: ReadonlyMap<string, CommandOptionKind> = new Map([
  ["proxycommand", "script"],
  ["localcommand", "script"],
  ["knownhostscommand", "script"],
  ["remotecommand", "remote"],
  ["pkcs11provider", "file"],
  ["securitykeyprovider", "file"],
  ["xauthlocation", "program"],
  ["include", "file"],
  ["match", "script"],
  // sshfs's own options.
  ["ssh_command", "program"],
  ["sftp_server", "remote"],
]);

const SSH: Readonly<Record<string, OptionSpec>> = {
  ssh: { short: { o: "text", F: "file", I: "file" }, valueLetters: "bceilmpBDEJLOPQRSwW" },
  slogin: { short: { o: "text", F: "file", I: "file" }, valueLetters: "bceilmpBDEJLOPQRSwW" },
  scp: { short: { o: "text", F: "file", S: "program", D: "program" }, valueLetters: "ciJlPX" },
  sftp: { short: { o: "text", F: "file", S: "program", D: "program" }, valueLetters: "BbciJlPRsX" },
  sshfs: { short: { o: "text", F: "file" }, valueLetters: "p" },
};

function sshOptions(name: string, spec: OptionSpec, words: readonly string[]): CommandOption[] {
  const found: CommandOption[] = [];
  for (const option of scan(words, 1, spec)) {
    if (option.kind !== "text") {
      found.push(option);
      continue;
    }
    // `-o Key=Value`, `-oKey=Value`, `-o 'Key Value'`; sshfs also takes `-o a,b=c`.
    for (const setting of name === "sshfs" ? (option.value ?? "").split(",") : [option.value ?? ""]) {
      const match = /^\s*([A-Za-z0-9_]+)\s*(?:=\s*|\s+)(.*)$/s.exec(setting);
      const kind = match === null ? undefined : SSH_KEYWORDS.get((match[1] as string).toLowerCase());
      if (kind === undefined || match === null) continue;
      const value = (match[2] as string).trim();
      if (value.toLowerCase() !== "none") found.push({ ...option, kind, value });
    }
  }
  return found;
}

// ---- vim and friends ----

const VIM: OptionSpec = {
  long: {
    "--cmd": long("text", 5),
    "--remote-send": long("text", 13),
    "--remote-expr": long("text", 13),
  },
  short: { c: "text", S: "file", u: "file", U: "file", s: "file", l: "file" },
  valueLetters: "TiwWt",
  optionalLetters: "oOpVq",
};
const VIM_NAMES: ReadonlySet<string> = new Set([
  "vim",
  "vi",
  "nvim",
  "ex",
  "view",
  "rvim",
  "rview",
  "gvim",
  "gview",
  "vimdiff",
  "gvimdiff",
  "nvimdiff",
  "evim",
  "eview",
  "vimx",
]);
// `-u NONE` and friends load nothing.
const VIM_NO_FILE: ReadonlySet<string> = new Set(["NONE", "NORC", "DEFAULTS"]);

function vimOptions(name: string, words: readonly string[]): CommandOption[] {
  const found = scan(words, 1, VIM).filter(
    (option) => option.kind !== "file" || !VIM_NO_FILE.has(option.value ?? ""),
  );
  for (let index = 1; index < words.length; index += 1) {
    const word = words[index] as string;
    if (word === "--") break;
    // `+N` goes to a line and `+/pattern` searches; `+cmd` runs an Ex command.
    if (word.startsWith("+") && !/^\+(\d*|\/.*)$/s.test(word)) {
      found.push({ kind: "text", indexes: [index], value: word.slice(1) });
    }
    // In Ex mode (-e, -E, `ex`) commands are read from input when it is not a terminal.
    if (/^-[A-Za-z]*[eE]/.test(word) && !word.startsWith("--")) {
      found.push({ kind: "text", indexes: [index], value: null });
    }
  }
  if (name === "ex") found.push({ kind: "text", indexes: [0], value: null });
  return found;
}

// ---- the others ----

const PROGRAMS: Readonly<Record<string, OptionSpec>> = {
  rsync: {
    long: {
      "--rsh": long("program"),
      "--rsync-path": long("remote", 5),
      "--remote-option": long("remote", 5),
      "--config": long("file", 5),
    },
    short: { e: "program", M: "remote" },
    valueLetters: "BfT@",
  },
  man: {
    long: {
      "--pager": long("script", 4),
      "--html": long("program", 4, true),
      "--config-file": long("file", 4),
    },
    short: { P: "script", C: "file" },
    optionalShort: { H: "program" },
    valueLetters: "eLmMrSspRET",
    optionalLetters: "X",
  },
  sort: { long: { "--compress-program": long("program", 4) }, valueLetters: "kStT" },
  zip: { long: { "--unzip-command": long("script", 5) } },
  gdb: {
    long: {
      "-ex": long("text", 3),
      "-iex": long("text", 4),
      "-eval-command": long("text", 3),
      "-init-eval-command": long("text", 7),
      "-x": long("file", 2),
      "-ix": long("file", 3),
      "-command": long("file", 4),
      "-init-command": long("file", 7),
    },
    singleDash: true,
  },
  lldb: {
    long: {
      "--one-line": long("text", 5),
      "--one-line-before-file": long("text", 12),
      "--one-line-on-crash": long("text", 12),
      "--source": long("file", 5),
      "--source-before-file": long("file", 10),
      "--source-on-crash": long("file", 10),
    },
    short: { o: "text", O: "text", k: "text", s: "file", S: "file", K: "file" },
    valueLetters: "acflnp",
  },
  less: {
    long: {
      "--lesskey-file": long("file", 10),
      "--lesskey-src": long("file", 10),
      "--lesskey-content": long("text", 10),
    },
    short: { k: "file" },
    valueLetters: "bhjoOpPtTxyz#",
  },
  emacs: {
    long: {
      "-eval": long("text", 3),
      "-execute": long("text", 3),
      "-l": long("file", 2),
      "-load": long("file", 3),
      "-f": long("text", 2),
      "-funcall": long("text", 3),
      "-script": long("file", 3),
      "-x": long("file", 2),
      "-u": long("file", 2),
      "-user": long("file", 3),
    },
    singleDash: true,
  },
  npx: { long: { "--call": long("script", 4) }, short: { c: "script" } },
  nodemon: { long: { "--exec": long("script", 4) }, short: { x: "script" } },
  "nix-shell": { long: { "--run": long("script", 5), "--command": long("script", 5) } },
  sqlite3: { long: { "-init": long("file", 5), "-cmd": long("text", 4) }, singleDash: true },
  perf: { long: { "--pre": long("script", 5), "--post": long("script", 6) } },
  wget: { long: { "--use-askpass": long("program", 6) } },
  valgrind: { long: { "--db-command": long("script", 5) } },
  // Found in the Debian man pages (see runner-table.ts for how): a preprocessor, a filter, a program
  // run for a connection, a session's shell or command.
  rg: { long: { "--pre": long("program", 5) }, exact: ["--pre-glob"] },
  split: { long: { "--filter": long("script", 5) } },
  nc: { short: { e: "program", c: "script" } },
  netcat: { short: { e: "program", c: "script" } },
  "nc.traditional": { short: { e: "program", c: "script" } },
  ncat: {
    long: { "--exec": long("program", 4), "--sh-exec": long("script", 4), "--lua-exec": long("file", 4) },
    short: { e: "program", c: "script" },
  },
  "dbus-run-session": { long: { "--dbus-daemon": long("program", 7) } },
  screen: { short: { s: "program", c: "file", X: "text" }, valueLetters: "ehpSTt" },
  // make(1): `--eval` text is read as a makefile, whose recipes and $(shell) run commands.
  make: { long: { "--eval": long("text", 4) }, short: { E: "text" }, valueLetters: "CfIjlOoW" },
  capsh: { long: { "--shell": long("program", 4) } },
};

// socat(1): the EXEC: and SYSTEM: address types run a program and shell text (address keywords are
// case-insensitive; `EXEC:cmd,opt`).
const SOCAT_ADDRESS = /^(exec|system):(.*)$/is;

function socatOptions(words: readonly string[]): CommandOption[] {
  const found: CommandOption[] = [];
  for (const [index, word] of words.entries()) {
    const address = index > 0 ? SOCAT_ADDRESS.exec(word) : null;
    if (address === null) continue;
    const kind = (address[1] as string).toLowerCase() === "exec" ? "program" : "script";
    found.push({ kind, indexes: [index], value: address[2] as string });
  }
  return found;
}

/** fd(1) `-x CMD…` and `-X CMD…` (`--exec`, `--exec-batch`): the rest of the words, up to `;`. */
function fdOptions(words: readonly string[]): CommandOption[] {
  const found: CommandOption[] = [];
  for (let index = 1; index < words.length; index += 1) {
    const word = words[index] as string;
    if (word === "--") break;
    if (!/^(-[xX]|--exec|--exec-batch)$/.test(word)) continue;
    let end = index + 1;
    while (end < words.length && words[end] !== ";") end += 1;
    found.push({
      kind: "argv",
      option: word,
      indexes: [index],
      value: null,
      argv: words.slice(index + 1, end),
    });
    index = end;
  }
  return found;
}

// sqlite3's dot-commands that run a program or pipe to or from one.
const SQLITE_COMMAND = /(^|\n)\s*\.(sh|sy|once|out|read|import|excel)/i;

/** The options PROGRAMS lists for name. */
function listedOptions(name: string, words: readonly string[]): CommandOption[] {
  const spec = own(PROGRAMS, name);
  return spec === undefined ? [] : scan(words, 1, spec);
}

/** zip's `-TT CMD` (a two-letter option) and `-TT=CMD`, besides its listed options. */
function zipOptions(words: readonly string[]): CommandOption[] {
  const found = listedOptions("zip", words);
  for (let index = 1; index < words.length; index += 1) {
    const word = words[index] as string;
    if (!word.startsWith("-TT")) continue;
    const attached = word.slice(3).replace(/^=/, "");
    found.push(
      attached === ""
        ? { kind: "script", indexes: [index, index + 1], value: words[index + 1] ?? null }
        : { kind: "script", indexes: [index], value: attached },
    );
  }
  return found;
}

/** less: `+cmd` runs less commands at start; `!cmd` and `|mcmd` among them run shell commands. */
function lessOptions(words: readonly string[]): CommandOption[] {
  const found = listedOptions("less", words);
  for (let index = 1; index < words.length; index += 1) {
    const word = words[index] as string;
    if (word.startsWith("+") && /[!|]/.test(word))
      found.push({ kind: "text", indexes: [index], value: null });
  }
  return found;
}

/** sqlite3: the options and operands that hold a dot-command running or piping through a program. */
function sqliteOptions(words: readonly string[]): CommandOption[] {
  const found = listedOptions("sqlite3", words);
  for (const [index, word] of words.entries()) {
    if (index > 0 && SQLITE_COMMAND.test(word)) found.push({ kind: "text", indexes: [index], value: null });
  }
  return found.filter(
    (option) => option.kind === "file" || option.value === null || SQLITE_COMMAND.test(option.value),
  );
}

/** `gdb … --args PROG ARGS` and `lldb … -- PROG ARGS`: the program debugged, which `run` starts. */
function debuggedProgram(name: string, words: readonly string[]): CommandOption[] {
  const marker = name === "gdb" ? words.findIndex((word) => word === "--args" || word === "-args") : -1;
  const start = name === "lldb" ? words.indexOf("--") : marker;
  if (start === -1 || start + 1 >= words.length) return [];
  return [{ kind: "argv", indexes: [start], value: null, argv: words.slice(start + 1) }];
}

/** `nix develop|shell … -c|--command CMD ARGS…` runs CMD with ARGS. */
function nixCommand(words: readonly string[]): CommandOption[] {
  if (words[1] !== "develop" && words[1] !== "shell") return [];
  const at = words.findIndex((word, index) => index > 1 && (word === "-c" || word === "--command"));
  return at === -1 || at + 1 >= words.length
    ? []
    : [{ kind: "argv", option: words[at] as string, indexes: [at], value: null, argv: words.slice(at + 1) }];
}

// tmux commands that run shell text (new-session 'cmd', run-shell, if-shell, send-keys typed into a
// shell, …) or read a file of tmux commands (source-file).
const TMUX_COMMANDS: ReadonlySet<string> = new Set([
  "new-session",
  "new",
  "new-window",
  "neww",
  "split-window",
  "splitw",
  "respawn-pane",
  "respawnp",
  "respawn-window",
  "respawnw",
  "run-shell",
  "run",
  "if-shell",
  "if",
  "pipe-pane",
  "pipep",
  "display-popup",
  "popup",
  "send-keys",
  "send",
  "source-file",
  "source",
  "command-prompt",
  "confirm-before",
  "bind-key",
  "bind",
  "set-hook",
]);

function tmuxCommands(words: readonly string[]): CommandOption[] {
  const found = scan(words, 1, { short: { c: "script", f: "file" }, valueLetters: "LST" }).filter(
    (option) =>
      option.indexes[0] === 1 || words.slice(1, option.indexes[0]).every((word) => word.startsWith("-")),
  );
  for (const [index, word] of words.entries()) {
    if (index > 0 && TMUX_COMMANDS.has(word)) found.push({ kind: "text", indexes: [index], value: null });
  }
  return found;
}

// Runners (looked through in runners.ts) whose own options may give a command.
const RUNNERS_WITH_COMMAND_OPTIONS: ReadonlySet<string> = new Set([
  "perf",
  "valgrind",
  "dbus-run-session",
  "screen",
  "npm",
  "npx",
  "capsh",
]);

/** True when the runner `name` has options that give a command (`perf stat --pre`). */
export function runnerHasCommandOptions(name: string): boolean {
  return RUNNERS_WITH_COMMAND_OPTIONS.has(name);
}

/** Reads the command options of one program's words (`words[0]` is the program, named `name`). */
type OptionReader = (words: readonly string[], name: string) => CommandOption[];

function each(names: readonly string[], reader: OptionReader): [string, OptionReader][] {
  return names.map((name) => [name, reader]);
}

/**
 * The programs read by a hook of their own, beyond the plain specs of PROGRAMS (read for any other name).
 */
const READERS: ReadonlyMap<string, OptionReader> = new Map([
  ...each(["tar", "gtar", "bsdtar"], tarOptions),
  ...Object.entries(SSH).map(([name, spec]): [string, OptionReader] => [
    name,
    (words) => sshOptions(name, spec, words),
  ]),
  ...each(["sed", "gsed"], sedOptions),
  ...each(["awk", "gawk", "mawk", "nawk", "original-awk"], awkOptions),
  ...each([...VIM_NAMES], (words, name) => vimOptions(name, words)),
  ...each(["gdb", "lldb"], (words, name) => [...listedOptions(name, words), ...debuggedProgram(name, words)]),
  [
    "npm",
    (words) =>
      words[1] === "exec" || words[1] === "x"
        ? scan(words, 2, PROGRAMS.npx as OptionSpec)
        : scan(words, 1, { long: { "--script-shell": long("program", 6) } }),
  ],
  ["nix", nixCommand],
  // at and batch read the commands they schedule from input or a file.
  ...each(["at", "batch"], () => [{ kind: "text", indexes: [0], value: null }]),
  ["tmux", tmuxCommands],
  ["socat", socatOptions],
  ...each(["fd", "fdfind"], fdOptions),
  ["zip", zipOptions],
  ["less", lessOptions],
  ["sqlite3", sqliteOptions],
]);

/**
 * The command options of one command (`words[0]` is the program, after runners): see the kinds. Git is
 * read by `gitCommandOptions`.
 */
export function commandOptions(name: string, words: readonly string[]): CommandOption[] {
  const reader = READERS.get(name);
  return reader === undefined ? listedOptions(name, words) : reader(words, name);
}

// ---- git ----

// Merge strategies git has built in; any other name runs a `git-merge-NAME` program found on PATH.
const GIT_STRATEGIES: ReadonlySet<string> = new Set([
  "ort",
  "recursive",
  "resolve",
  "octopus",
  "ours",
  "subtree",
]);

const GIT: Readonly<Record<string, OptionSpec>> = {
  rebase: {
    long: { "--exec": long("script", 4), "--strategy": long("program", 6) },
    short: { x: "script", s: "program" },
    valueLetters: "XC",
  },
  difftool: {
    long: { "--extcmd": long("reached-script", 4) },
    short: { x: "reached-script" },
    valueLetters: "t",
  },
  "ls-remote": {
    long: { "--upload-pack": long("script", 3), "--exec": long("script", 4) },
    short: { u: "script" },
  },
  fetch: { long: { "--upload-pack": long("script", 3) } },
  pull: {
    long: { "--upload-pack": long("script", 3), "--strategy": long("program", 6) },
    short: { s: "program" },
    valueLetters: "X",
  },
  clone: {
    long: { "--upload-pack": long("script", 3), "--template": long("file", 4) },
    short: { u: "script" },
    valueLetters: "obj",
  },
  init: { long: { "--template": long("file", 4) } },
  push: { long: { "--receive-pack": long("script", 3), "--exec": long("script", 4) } },
  "fetch-pack": { long: { "--upload-pack": long("script", 3), "--exec": long("script", 4) } },
  "send-pack": { long: { "--receive-pack": long("script", 3), "--exec": long("script", 4) } },
  archive: { long: { "--exec": long("script", 4) }, valueLetters: "o" },
  "send-email": {
    long: {
      "--sendmail-cmd": long("script", 4),
      "--to-cmd": long("script", 5),
      "--cc-cmd": long("script", 5),
      "--header-cmd": long("script", 4),
      "--smtp-server": long("program", 12),
    },
  },
  "filter-branch": {
    long: {
      "--env-filter": long("script", 12),
      "--tree-filter": long("script", 13),
      "--index-filter": long("script", 14),
      "--parent-filter": long("script", 15),
      "--msg-filter": long("script", 12),
      "--commit-filter": long("script", 15),
      "--tag-name-filter": long("script", 17),
      "--setup": long("script", 7),
    },
  },
  grep: {
    long: { "--open-files-in-pager": long("program", 4, true) },
    optionalShort: { O: "program" },
    valueLetters: "efABCm",
  },
  merge: { long: { "--strategy": long("program", 6) }, short: { s: "program" }, valueLetters: "XmF" },
  "cherry-pick": { long: { "--strategy": long("program", 6) }, valueLetters: "Xm" },
  revert: { long: { "--strategy": long("program", 6) }, valueLetters: "Xm" },
  daemon: { long: { "--access-hook": long("program", 4) } },
};

/**
 * The command options of a git subcommand (`words[index]`), as git reads them: see the kinds. A merge
 * strategy git does not have built in is a program; `git grep -O` runs a pager; `git bisect run CMD…`
 * runs CMD; `git submodule foreach` runs its text with sh; `git for-each-repo` runs a git command; `git
 * hook run` runs a hook the repository holds.
 */
export function gitCommandOptions(words: readonly string[], index: number): CommandOption[] {
  const subcommand = words[index] as string;
  const args = index + 1;
  switch (subcommand) {
    case "bisect":
      return words[args] === "run" && args + 1 < words.length
        ? [{ kind: "argv", indexes: [args], value: null, argv: words.slice(args + 1) }]
        : [];
    case "submodule":
    case "submodule--helper": {
      const at = words.indexOf("foreach", args);
      if (at === -1) return [];
      let start = at + 1;
      while (words[start] === "--quiet" || words[start] === "-q" || words[start] === "--recursive")
        start += 1;
      if (words[start] === "--") start += 1;
      if (start >= words.length) return [];
      const indexes = [at, ...words.slice(start).map((_, offset) => start + offset)];
      return [{ kind: "script", indexes, value: words.slice(start).join(" ") }];
    }
    case "for-each-repo": {
      const end = words.indexOf("--", args);
      let start = end === -1 ? args : end + 1;
      while (end === -1 && words[start]?.startsWith("--config")) start += words[start]?.includes("=") ? 1 : 2;
      return start < words.length
        ? [{ kind: "argv", indexes: [index], value: null, argv: ["git", ...words.slice(start)] }]
        : [];
    }
    case "hook":
      return words[args] === "run" ? [{ kind: "file", indexes: [args], value: null }] : [];
  }
  const spec = own(GIT, subcommand);
  if (spec === undefined) return [];
  return scan(words, args, spec).filter((option) => {
    if (option.option === "--strategy" || (option.option === "-s" && option.kind === "program")) {
      return !GIT_STRATEGIES.has(option.value ?? "");
    }
    // `--smtp-server` names a host, or a sendmail-like program by its path.
    if (option.option === "--smtp-server") return (option.value ?? "").includes("/");
    return true;
  });
}
