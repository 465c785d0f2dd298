// Interpreters of other languages run code that can run any program (`python3 -c 'os.system("rm f")'`,
// `perl -e 'exec "rm", "f"'`). Their languages are not read. Code given on the command line is an
// option that gives a program code (`command-option`); with neither code nor a script file they read
// their program from input, where a model can type it later (`command-input`). A script file they run
// is the project's own content, as `./build.sh` is: not unread. Sources: python3(1), perl(1) and
// perlrun(1), ruby(1), node(1), php(1), lua(1), julia(1), Rscript(1), tclsh(1).

interface InterpreterSpec {
  /** Options whose value (attached, or the next word) is code to run; single letters may end a cluster. */
  readonly inline: readonly string[];
  /** Options after which it runs no code from input: a module or file it names, a mode of its own. */
  readonly runsElsewhere?: readonly string[];
  /** Other options whose value is the next word. */
  readonly values?: readonly string[];
  /** Options that only print and exit. */
  readonly queries?: readonly string[];
}

const PYTHON: InterpreterSpec = {
  inline: ["-c"],
  runsElsewhere: ["-m"],
  values: ["-W", "-X", "-Q", "--check-hash-based-pycs"],
  queries: ["-V", "--version", "-h", "--help", "-?"],
};

const NODE: InterpreterSpec = {
  inline: ["-e", "--eval", "-p", "--print"],
  runsElsewhere: ["--test", "--run", "-c", "--check"],
  values: [
    "-r",
    "--require",
    "--import",
    "--loader",
    "--experimental-loader",
    "--input-type",
    "-C",
    "--conditions",
    "--title",
  ],
  queries: ["-v", "--version", "-h", "--help", "--v8-options"],
};

const INTERPRETERS: ReadonlyMap<string, InterpreterSpec> = new Map([
  ["python", PYTHON],
  ["python2", PYTHON],
  ["python3", PYTHON],
  ["pypy", PYTHON],
  ["pypy3", PYTHON],
  ["perl", { inline: ["-e", "-E"], queries: ["-v", "-V", "--version", "-h", "--help"] }],
  [
    "ruby",
    {
      inline: ["-e"],
      values: ["-r", "-I", "-C", "-E", "--encoding"],
      queries: ["-v", "--version", "-h", "--help"],
    },
  ],
  ["node", NODE],
  ["nodejs", NODE],
  [
    "php",
    {
      inline: ["-r", "-B", "-R", "-E"],
      runsElsewhere: ["-f", "--file", "-S", "--server", "-l", "--syntax-check"],
      values: ["-d", "-c", "-z", "-t"],
      queries: ["-v", "--version", "-h", "--help", "-i", "--info", "-m", "--modules"],
    },
  ],
  ["lua", { inline: ["-e"], values: ["-l"], queries: ["-v"] }],
  ["luajit", { inline: ["-e"], values: ["-l", "-j", "-O", "-b"], queries: ["-v"] }],
  [
    "julia",
    {
      inline: ["-e", "--eval", "-E", "--print"],
      values: ["-p", "--procs", "-L", "--load", "-t", "--threads", "-J", "--sysimage"],
      queries: ["-v", "--version", "-h", "--help"],
    },
  ],
  ["Rscript", { inline: ["-e"], queries: ["--version", "--help"] }],
  ["R", { inline: ["-e"], queries: ["--version", "--help"] }],
  ["tclsh", { inline: [] }],
  ["wish", { inline: [] }],
]);

/** The interpreter a program name is, versioned names too (`python3.12`), or undefined. */
function specOf(name: string): InterpreterSpec | undefined {
  return INTERPRETERS.get(name) ?? INTERPRETERS.get(name.replace(/[\d.]+$/, ""));
}

export interface InterpreterCode {
  /** The code given on the command line: the index of its option word, and the code. */
  readonly inline: { readonly index: number; readonly code: string | null } | null;
  /** True when it reads its program from input (no code, script or module given). */
  readonly readsInput: boolean;
}

/** What an interpreter runs, as far as its command line says; null for any other program. */
export function interpreterCode(name: string, words: readonly string[]): InterpreterCode | null {
  const spec = specOf(name);
  if (spec === undefined) return null;
  for (let index = 1; index < words.length; index += 1) {
    const word = words[index] as string;
    // A script file (or `-` for input, which is what a script from input is).
    if (word === "-") return { inline: null, readsInput: true };
    if (word === "--" || !word.startsWith("-")) return { inline: null, readsInput: false };
    if (spec.queries?.includes(word) || spec.runsElsewhere?.includes(word)) {
      return { inline: null, readsInput: false };
    }
    const equals = word.indexOf("=");
    const long = word.startsWith("--") ? (equals === -1 ? word : word.slice(0, equals)) : null;
    if (long !== null) {
      if (spec.runsElsewhere?.includes(long)) return { inline: null, readsInput: false };
      if (spec.inline.includes(long)) {
        const code = equals === -1 ? (words[index + 1] ?? null) : word.slice(equals + 1);
        return { inline: { index, code }, readsInput: false };
      }
      if (spec.values?.includes(long) && equals === -1) index += 1;
      continue;
    }
    // A short cluster (`-Bc CODE`, `-ne CODE`, `-mpytest`): the first letter that takes a value ends it.
    for (let at = 1; at < word.length; at += 1) {
      const option = `-${word[at] as string}`;
      const attached = at + 1 < word.length ? word.slice(at + 1) : null;
      if (spec.inline.includes(option)) {
        return { inline: { index, code: attached ?? words[index + 1] ?? null }, readsInput: false };
      }
      if (spec.runsElsewhere?.includes(option)) return { inline: null, readsInput: false };
      if (spec.values?.includes(option)) {
        if (attached === null) index += 1;
        break;
      }
    }
  }
  return { inline: null, readsInput: true };
}
