// The constructs that keep a reader from knowing every command a script runs. Rules that forbid or ask
// for a program cannot hold for a script with one of these: `a=rm; $a f` runs rm without the word rm
// ever being a command name, `echo rm f | sh` runs it from text, `fish -c 'rm f'` is in a language the
// analyser does not read.

/** Why the commands a command line runs cannot all be known by reading it. */
export const UNREAD_REASONS: readonly [
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
] = [
  // The analyser could not read the script's structure.
  "parse-error",
  "unsupported-syntax",
  "too-large",
  "too-deep",
  // A command name known only when it runs: `$a f`, `$(echo rm) f`, `{rm,f}`, `sudo $x`, `find -exec {}`.
  "dynamic-command-name",
  // Shell text known only when it runs: `eval "$x"`, `sh -c "echo $x"`, `trap "$x" EXIT`, and values bash
  // evaluates as code (`$((x))`, `${a[i]}`, `${x@P}`, `[[ x -eq 1 ]]`).
  "dynamic-script",
  // A shell reading commands from input or a file: `| sh`, `bash -s`, `sh < f`, `bash <<<…`, `sh f.sh`.
  "shell-input",
  // A shell of another language: fish, pwsh, nu, xonsh, elvish, csh, …
  "unread-shell",
  // `source FILE`, `. FILE`.
  "source",
  // A command completed from input: `xargs env`, `xargs sh`, `parallel`.
  "input-command",
  // `alias`, `hash -p`, `enable`: a name then runs something else.
  "alias",
  // A git alias or external command: `git -c alias.x='!…' x`, or a subcommand that is not git's own.
  "git-alias",
  // A git setting on the command line that may name a program: `-c core.pager=…`, `-c diff.external=…`.
  "git-config",
  // A variable naming code for a program to run: BASH_ENV, BASH_FUNC_*, PS4, GIT_PAGER, EDITOR, LD_PRELOAD.
  "command-variable",
  // A shell builtin outside the modelled list (builtins.ts), or used in a way it does not model: `compgen`,
  // `fc`, `bind`, `history`, `printf -v`, `declare -i`, `set -k`, zsh's `zmodload`.
  "unmodelled-builtin",
  // Text bash evaluates as code where it takes a variable name or a number: an array subscript given to a
  // builtin (`test -v 'a[$(rm f)]'`, `declare 'a[$(rm f)]=1'`, `read "$name"`), an assignment with a
  // subscript (`a[x]=1`), or a value a special variable evaluates (`RANDOM='a[$(rm f)]'`).
  "evaluated-text",
  // An option that gives a program a command, a script or a program to run: `git rebase --exec`,
  // `tar --to-command`, `ssh -o ProxyCommand=`, `rsync -e`, `vim -c`, `sed 's/x/y/e'` (command-options.ts).
  "command-option",
  // PATH, the working directory or the root set on the command line (`PATH=./bin:$PATH`, `export PATH=…`,
  // zsh's `path=(…)`, `env PATH=… cmd`, `env -C DIR cmd`, `chroot R cmd`, and runners that put a project's
  // bin directory first, `pnpm exec`, `uv run`, …): a name may then run another program. Rules still
  // match the name; nothing after it is known to be what it says.
  "program-path",
  // Something zsh reads or runs differently from bash, in a script zsh runs (`zsh -lc SCRIPT`; the list
  // is at the top of analyze/walker.ts): `=rm f` (a PATH lookup), `repeat 2 rm f`, a redirection with no
  // command (zsh runs `$NULLCMD`), `>!`, `$x[i]` (an evaluated subscript), a `(` in a word (glob qualifiers).
  "zsh-syntax",
  // A program that runs commands typed or fed into it, in its own language: ed's and less's `!`, vim's
  // `:!`, psql's `\!`, gdb's `shell` (runner-table.ts lists them and where each is documented).
  "command-input",
] as const;

export type UnreadReason = (typeof UNREAD_REASONS)[number];

export interface UnreadPart {
  reason: UnreadReason;
  /** The construct as written (a word, a command, or the start of a script). */
  text: string;
}

/** A command a command line reaches. */
export interface ReachedCommand {
  argv: string[];
  /**
   * Indexes (ascending) of the words that are not literal (`$x`, `"$(pwd)"`, `*.ts`): each may become
   * any words, or none. Absent when every word is literal.
   */
  dynamic?: number[];
  /**
   * True when it runs with a PATH, working directory or root that the command line set before it (`env
   * PATH=./bin cat`, `env -C DIR ./x`, `pnpm exec cat`, `chroot R cat`): its name may not resolve where
   * it does now. Absent otherwise.
   */
  pathChanged?: true;
  /**
   * True when the shell runs it itself (a builtin or keyword such as `echo`, `cd`, `[[`, named bare in a
   * script, directly or behind `command`/`builtin`): its name is not looked up on PATH. Absent for
   * programs, and for a builtin's name given to a program that runs it (`env echo`, `xargs echo`).
   */
  builtin?: true;
}

/** What a command line runs, as far as reading it can tell. */
export interface Reach {
  /**
   * Every command reached, in walk order: each runner's command (`timeout 5 sudo ls`, `sudo ls`) down to
   * the command behind them all (`ls`).
   */
  commands: ReachedCommand[];
  /** What keeps the reading from being complete; empty when every command it runs is in `commands`. */
  unread: UnreadPart[];
}
