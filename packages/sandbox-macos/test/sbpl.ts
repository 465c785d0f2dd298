// A reader, a checker and a small evaluator of the Seatbelt profile language, for the subset Conch
// writes: no peer validates SBPL off macOS, so the tests here read the generated text as Seatbelt would
// (as far as its documented and observed rules go) and ask it questions. Seatbelt's own rules encoded:
// the last matching rule decides, except that a deny naming an operation is not undone by a later allow
// through a wildcard (sandbox-runtime's observation); `literal`/`path` match one path, `subpath` a path
// and all below it; a path need not exist to match.

export type Node =
  | { readonly kind: "list"; readonly items: readonly Node[] }
  | { readonly kind: "string"; readonly value: string }
  | { readonly kind: "regex"; readonly value: string }
  | { readonly kind: "symbol"; readonly value: string };

/** Reads every top-level form; throws on unbalanced parentheses, unterminated strings, stray characters. */
export function readSbpl(text: string): Node[] {
  let i = 0;
  const skip = (): void => {
    for (;;) {
      while (i < text.length && /\s/.test(text[i] as string)) i++;
      if (text[i] !== ";") return;
      while (i < text.length && text[i] !== "\n") i++;
    }
  };
  const readString = (): string => {
    // At the opening quote. \" and \\ are escapes; anything else after a backslash is kept as is.
    i++;
    let value = "";
    for (;;) {
      if (i >= text.length) throw new Error("unterminated string");
      const c = text[i] as string;
      if (c === "\\") {
        const next = text[i + 1];
        if (next === undefined) throw new Error("unterminated string");
        value += next === '"' || next === "\\" ? next : `\\${next}`;
        i += 2;
        continue;
      }
      if (c === '"') {
        i++;
        return value;
      }
      if (c === "\n") throw new Error(`line break inside a string at ${i}`);
      value += c;
      i++;
    }
  };
  const readNode = (): Node => {
    skip();
    const c = text[i];
    if (c === undefined) throw new Error("unexpected end of profile");
    if (c === "(") {
      i++;
      const items: Node[] = [];
      for (;;) {
        skip();
        if (i >= text.length) throw new Error("unbalanced parentheses: a list is not closed");
        if (text[i] === ")") {
          i++;
          return { kind: "list", items };
        }
        items.push(readNode());
      }
    }
    if (c === ")") throw new Error(`unbalanced parentheses: a ")" closes nothing at ${i}`);
    if (c === '"') return { kind: "string", value: readString() };
    if (c === "#" && text[i + 1] === '"') {
      i++;
      return { kind: "regex", value: readString() };
    }
    const start = i;
    while (i < text.length && !/[\s()";]/.test(text[i] as string)) i++;
    if (i === start) throw new Error(`unexpected ${JSON.stringify(c)} at ${i}`);
    return { kind: "symbol", value: text.slice(start, i) };
  };
  const forms: Node[] = [];
  for (;;) {
    skip();
    if (i >= text.length) return forms;
    forms.push(readNode());
  }
}

/**
 * The operations a profile may name: those of Codex's, sandbox-runtime's and Gemini CLI's profiles
 * (their base and network policies), which are the ones Seatbelt is known to accept.
 */
const KNOWN_OPERATIONS: ReadonlySet<string> = new Set([
  "default",
  "file*",
  "file-read*",
  "file-read-data",
  "file-read-metadata",
  "file-read-xattr",
  "file-write*",
  "file-write-create",
  "file-write-data",
  "file-write-flags",
  "file-write-mode",
  "file-write-owner",
  "file-write-setugid",
  "file-write-times",
  "file-write-unlink",
  "file-write-xattr",
  "file-ioctl",
  "file-link",
  "file-map-executable",
  "process-exec",
  "process-exec*",
  "process-fork",
  "process-info*",
  "signal",
  "sysctl-read",
  "sysctl-write",
  "iokit-open",
  "mach-lookup",
  "mach-priv-task-port",
  "ipc-posix-sem",
  "ipc-posix-shm",
  "ipc-posix-shm-read*",
  "ipc-posix-shm-read-data",
  "ipc-posix-shm-write-create",
  "ipc-posix-shm-write-unlink",
  "pseudo-tty",
  "user-preference-read",
  "system-socket",
  "network*",
  "network-bind",
  "network-inbound",
  "network-outbound",
]);

const FILTERS = new Set([
  "literal",
  "path",
  "subpath",
  "regex",
  "require-all",
  "require-any",
  "require-not",
  "vnode-type",
  "extension",
  "target",
  "sysctl-name",
  "sysctl-name-prefix",
  "sysctl-name-regex",
  "iokit-registry-entry-class",
  "global-name",
  "local-name",
  "ipc-posix-name-regex",
  "ipc-posix-name-prefix",
  "socket-domain",
  "socket-protocol",
  "remote",
  "local",
  "with",
]);

/** Paths a profile may spell out: devices every Mac has. Anything else must be a parameter. */
const FIXED_PATHS = new Set([
  "/dev/null",
  "/dev/zero",
  "/dev/ptmx",
  "/dev/tty",
  "/dev/stdout",
  "/dev/stderr",
]);
/** The only regexes a profile may hold: fixed ones, so that no path can be spliced into one. */
const FIXED_REGEXES = new Set([
  "^/dev/ttys[0-9]+$",
  "^/dev/fd/[0-9]+$",
  "^/__KMP_REGISTERED_LIB_[0-9]+$",
  "^net.routetable",
  String.raw`/\.[Cc][Oo][Nn][Cc][Hh](/|$)`,
  `/\\.[Aa][Gg][Ee][Nn][Tt]([Ss]|${String.fromCharCode(0x17f)})(/|$)`,
]);

/**
 * Throws unless `text` is a profile Conch means to write: it reads, starts `(version 1)`, has only
 * `allow`/`deny` forms after it, names known operations and filters only, uses every parameter it is
 * given and only those, and spells out no path but the fixed device paths.
 */
export function checkProfile(text: string, params: Readonly<Record<string, string>>): void {
  const forms = readSbpl(text);
  const first = forms[0];
  if (
    first?.kind !== "list" ||
    first.items.length !== 2 ||
    first.items[0]?.kind !== "symbol" ||
    first.items[0].value !== "version" ||
    first.items[1]?.kind !== "symbol" ||
    first.items[1].value !== "1"
  ) {
    throw new Error("a profile starts (version 1)");
  }
  const used = new Set<string>();
  const walk = (node: Node, inFilter: boolean): void => {
    if (node.kind === "string") {
      if (node.value.startsWith("/") && !FIXED_PATHS.has(node.value)) {
        throw new Error(`a path is spelled out in the profile: ${node.value}`);
      }
      return;
    }
    if (node.kind === "regex") {
      if (!FIXED_REGEXES.has(node.value))
        throw new Error(`a regex that is not one of the fixed ones: ${node.value}`);
      return;
    }
    if (node.kind !== "list") return;
    const head = node.items[0];
    if (head?.kind !== "symbol") throw new Error("a list must start with a symbol");
    if (inFilter && !FILTERS.has(head.value) && head.value !== "param") {
      throw new Error(`unknown filter ${head.value}`);
    }
    if (head.value === "param") {
      const name = node.items[1];
      if (node.items.length !== 2 || name?.kind !== "string")
        throw new Error('(param "NAME") takes one string');
      if (!/^[A-Z0-9_]+$/.test(name.value)) throw new Error(`a parameter name is [A-Z0-9_]+: ${name.value}`);
      if (!(name.value in params)) throw new Error(`(param "${name.value}") has no -D${name.value}=`);
      used.add(name.value);
      return;
    }
    for (const item of node.items.slice(1)) walk(item, true);
  };
  for (const form of forms.slice(1)) {
    if (form.kind !== "list") throw new Error("a top-level form is a list");
    const head = form.items[0];
    if (head?.kind !== "symbol" || (head.value !== "allow" && head.value !== "deny")) {
      throw new Error(
        `a top-level form is (allow ...) or (deny ...), received ${head?.kind === "symbol" ? head.value : "?"}`,
      );
    }
    let operations = 0;
    for (const item of form.items.slice(1)) {
      if (item.kind === "symbol") {
        if (!KNOWN_OPERATIONS.has(item.value)) throw new Error(`unknown operation ${item.value}`);
        operations++;
      } else {
        walk(item, true);
      }
    }
    if (operations === 0) throw new Error(`(${head.value} ...) names no operation`);
  }
  for (const name of Object.keys(params)) {
    if (!used.has(name)) throw new Error(`-D${name}= is given but the profile never uses it`);
  }
}

/** One question to a profile: an operation, and what it acts on. */
export interface Query {
  readonly op: string;
  readonly path?: string;
  readonly vnode?: "DIRECTORY" | "REGULAR-FILE" | "CHARACTER-DEVICE";
  /** network-outbound's remote end, or network-bind's local one: an IP address and port... */
  readonly address?: { readonly host: string; readonly port: number };
  /** ...or a unix socket's path. */
  readonly socket?: string;
  /** mach-lookup's service name. */
  readonly service?: string;
}

type Decision = "allow" | "deny";

function covers(pattern: string, op: string): "exact" | "wildcard" | null {
  if (pattern === op) return "exact";
  if (pattern === "default") return "wildcard";
  if (pattern.endsWith("*") && op.startsWith(pattern.slice(0, -1))) return "wildcard";
  return null;
}

function stringArg(node: Node | undefined, params: Readonly<Record<string, string>>): string {
  if (node?.kind === "string" || node?.kind === "regex") return node.value;
  if (node?.kind === "list" && node.items[0]?.kind === "symbol" && node.items[0].value === "param") {
    const name = node.items[1];
    if (name?.kind !== "string") throw new Error("bad (param)");
    const value = params[name.value];
    if (value === undefined) throw new Error(`no value for (param "${name.value}")`);
    return value;
  }
  throw new Error("a filter's argument is a string, a regex or a (param)");
}

const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);

function matches(filter: Node, query: Query, params: Readonly<Record<string, string>>): boolean {
  if (filter.kind !== "list") throw new Error("a filter is a list");
  const head = filter.items[0];
  if (head?.kind !== "symbol") throw new Error("a filter starts with a symbol");
  const args = filter.items.slice(1);
  switch (head.value) {
    case "literal":
    case "path":
      return query.path === stringArg(args[0], params);
    case "subpath": {
      const root = stringArg(args[0], params);
      return (
        query.path !== undefined &&
        (query.path === root || query.path.startsWith(root === "/" ? "/" : `${root}/`))
      );
    }
    case "regex":
      return query.path !== undefined && new RegExp(stringArg(args[0], params)).test(query.path);
    case "require-all":
      return args.every((arg) => matches(arg, query, params));
    case "require-any":
      return args.some((arg) => matches(arg, query, params));
    case "require-not":
      return !matches(args[0] as Node, query, params);
    case "vnode-type":
      return args[0]?.kind === "symbol" && query.vnode === args[0].value;
    case "remote":
    case "local": {
      const kind = args[0]?.kind === "symbol" ? args[0].value : "";
      if (kind === "unix-socket") {
        if (query.socket === undefined) return false;
        const filter = args[1];
        return filter === undefined || matches(filter, { op: query.op, path: query.socket }, params);
      }
      if (kind !== "ip") throw new Error(`(${head.value} ${kind} ...) is not modelled`);
      if (query.address === undefined) return false;
      const spec = stringArg(args[1], params);
      const cut = spec.lastIndexOf(":");
      const host = spec.slice(0, cut);
      const port = spec.slice(cut + 1);
      const hostOk =
        host === "*" ||
        (host === "localhost" && LOOPBACK.has(query.address.host)) ||
        host === query.address.host;
      return hostOk && (port === "*" || Number(port) === query.address.port);
    }
    case "with":
      return true;
    case "global-name":
      return query.service !== undefined && query.service === stringArg(args[0], params);
    default:
      if (FILTERS.has(head.value)) return false; // About something no query here asks (sysctls, services).
      throw new Error(`unknown filter ${head.value}`);
  }
}

/** What `text` with `params` decides for `query`. */
export function evaluate(text: string, params: Readonly<Record<string, string>>, query: Query): Decision {
  let decision: Decision = "deny";
  let specificDeny = false;
  for (const form of readSbpl(text).slice(1)) {
    if (form.kind !== "list") continue;
    const [head, ...rest] = form.items;
    if (head?.kind !== "symbol") continue;
    const action = head.value as Decision;
    let how: "exact" | "wildcard" | null = null;
    const filters: Node[] = [];
    for (const item of rest) {
      if (item.kind === "symbol") {
        const covered = covers(item.value, query.op);
        if (covered === "exact" || (covered === "wildcard" && how === null)) how = covered;
      } else if (
        !(item.kind === "list" && item.items[0]?.kind === "symbol" && item.items[0].value === "with")
      ) {
        filters.push(item);
      }
    }
    if (how === null) continue;
    // Several filters in one rule: any of them (Seatbelt's rule with many filters is their union).
    if (filters.length > 0 && !filters.some((filter) => matches(filter, query, params))) continue;
    if (action === "allow" && specificDeny && how === "wildcard") continue;
    decision = action;
    specificDeny = action === "deny" && how === "exact";
  }
  return decision;
}
