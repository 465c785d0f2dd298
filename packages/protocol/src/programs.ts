// The shells and language interpreters, by file name, in one table for every package: the analyser (which
// scripts it reads, which shells may not know bash's quoting, what a download piped into runs), the
// approval rules (which prefixes are never stored bare) and the session store (which programs show a
// prompt) read it here; shell-detect's test holds its supported shells to it.

/** What a shell is to Conch. */
export interface ShellFacts {
  /**
   * `bourne`: the Bourne family, read with bash's grammar when the analyser looks for danger or for what
   * a script runs (missing a script is worse than reading one too many); `own`: a language of its own,
   * which the analyser never reads; `multi-call`: a binary whose applets include a shell (`busybox sh`).
   */
  readonly family: "bourne" | "own" | "multi-call";
  /**
   * Its `-c SCRIPT` may be proven known safe: bash and the shells whose scripts bash's grammar reads
   * exactly enough (Codex's `bash|sh|zsh|dash -c`). Any other shell's script is never known safe.
   */
  readonly provable: boolean;
  /** A POSIX shell that may not know bash's `$'…'` quoting (dash reads `$'x\' ; rm y ; ' #'` as three words). */
  readonly posix: boolean;
  /** Interactive on a terminal: it prints a prompt and waits at it for a line. */
  readonly prompts: boolean;
}

const bashLike: ShellFacts = { family: "bourne", provable: true, posix: false, prompts: true };
const posixProvable: ShellFacts = { family: "bourne", provable: true, posix: true, prompts: true };
const bourne: ShellFacts = { family: "bourne", provable: false, posix: false, prompts: true };
const posix: ShellFacts = { family: "bourne", provable: false, posix: true, prompts: true };
const own: ShellFacts = { family: "own", provable: false, posix: false, prompts: true };

/** Every shell Conch knows, by file name (a version suffix or `.exe` is the caller's to strip). */
export const SHELLS: Readonly<Record<string, ShellFacts>> = Object.freeze({
  bash: bashLike,
  zsh: bashLike,
  sh: posixProvable,
  dash: posixProvable,
  rbash: bourne,
  ksh: posix,
  mksh: posix,
  lksh: posix,
  pdksh: posix,
  oksh: posix,
  loksh: posix,
  ash: posix,
  hush: posix,
  yash: posix,
  posh: posix,
  bosh: posix,
  fish: own,
  csh: own,
  tcsh: own,
  nu: own,
  nushell: own,
  xonsh: own,
  elvish: own,
  pwsh: own,
  powershell: own,
  cmd: own,
  rc: own,
  es: own,
  ion: own,
  murex: own,
  oil: own,
  osh: own,
  ysh: own,
  scsh: own,
  busybox: { family: "multi-call", provable: false, posix: true, prompts: false },
});

/** The names of the shells whose facts `match`. */
export function shellNames(match: (facts: ShellFacts) => boolean = () => true): ReadonlySet<string> {
  return new Set(Object.entries(SHELLS).flatMap(([name, facts]) => (match(facts) ? [name] : [])));
}

/**
 * Programs that run code given to them (`-c`, `-e`, a file) in a language other than a shell's, by
 * name: `stdin` when, given no program on the command line, they run what arrives on their standard
 * input (`curl … | python3` runs the download; `curl … | awk '{…}'` runs only its own argument).
 */
export const INTERPRETERS: Readonly<Record<string, { readonly stdin: boolean }>> = Object.freeze({
  python: { stdin: true },
  python2: { stdin: true },
  python3: { stdin: true },
  pythonw: { stdin: true },
  py: { stdin: true },
  pyw: { stdin: true },
  pypy: { stdin: true },
  pypy3: { stdin: true },
  node: { stdin: true },
  nodejs: { stdin: true },
  deno: { stdin: true },
  bun: { stdin: true },
  ruby: { stdin: true },
  irb: { stdin: true },
  perl: { stdin: true },
  php: { stdin: true },
  lua: { stdin: true },
  luajit: { stdin: true },
  tclsh: { stdin: true },
  wish: { stdin: true },
  Rscript: { stdin: true },
  julia: { stdin: true },
  osascript: { stdin: true },
  awk: { stdin: false },
  gawk: { stdin: false },
  mawk: { stdin: false },
});
