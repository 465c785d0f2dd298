import { type ParseArgsConfig, parseArgs as parseNodeArgs } from "node:util";
import { expectedReceived } from "@conch/protocol";
import { UsageError } from "./errors.js";

interface OptionSpec {
  readonly type: "boolean" | "string" | "integer";
  /** May be given more than once; the values are collected in order. */
  readonly multiple?: boolean;
}

type OptionSpecs = Readonly<Record<string, OptionSpec>>;

type OptionValue<S extends OptionSpec> = S["type"] extends "boolean"
  ? boolean
  : S["type"] extends "integer"
    ? number
    : string;

/** What `specs` parse to, typed like util.parseArgs's own results: a multiple string is `string[]`. */
type ParsedOptions<T extends OptionSpecs> = {
  -readonly [K in keyof T]?: T[K] extends { readonly multiple: true }
    ? OptionValue<T[K]>[]
    : OptionValue<T[K]>;
};

interface ParsedArgs<T extends OptionSpecs> {
  options: ParsedOptions<T>;
  positionals: string[];
}

function isPositional(arg: string): boolean {
  return !arg.startsWith("-") || arg === "-";
}

/**
 * Where option parsing stops when it stops at the first positional: util.parseArgs has no such mode, so
 * the options are walked the way it walks them (a lone `--name` of a value-taking option takes the next
 * argument, whatever it is) up to the first positional. After `--` everything is positional anyway.
 */
function optionsEnd(args: readonly string[], specs: OptionSpecs): number {
  let i = 0;
  while (i < args.length) {
    const arg = args[i] as string;
    if (arg === "--") return args.length;
    if (isPositional(arg)) return i;
    const name = arg.slice(2);
    const takesValue =
      arg.startsWith("--") &&
      !arg.includes("=") &&
      Object.hasOwn(specs, name) &&
      specs[name]?.type !== "boolean";
    i += takesValue ? 2 : 1;
  }
  return i;
}

function parseValue(name: string, spec: OptionSpec, raw: string, command: string): string | number {
  if (raw === "") throw new UsageError(`--${name}: expected a value, received ""`, command);
  if (spec.type !== "integer") return raw;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(value) || value <= 0) {
    throw new UsageError(expectedReceived(`--${name}`, "a positive integer", raw), command);
  }
  return value;
}

/**
 * Options first, then positionals, read by util.parseArgs. Option parsing stops at `--` or, when
 * `stopAtPositional` is set, at the first positional, so `conch run ls -la` passes `-la` to ls rather
 * than to conch. `-h` is `--help`; there are no other short options. An option that takes one value may
 * be given once. Every mistake is a UsageError that names the option the way it was given.
 */
export function parseArgs<const T extends OptionSpecs>(
  args: readonly string[],
  specs: T,
  command: string,
  stopAtPositional: boolean,
): ParsedArgs<T> {
  const end = stopAtPositional ? optionsEnd(args, specs) : args.length;
  const head = args.slice(0, end);
  const config: NonNullable<ParseArgsConfig["options"]> = Object.create(null);
  for (const [name, spec] of Object.entries(specs)) {
    config[name] = { type: spec.type === "boolean" ? "boolean" : "string" };
  }
  if (Object.hasOwn(specs, "help")) config.help = { type: "boolean", short: "h" };
  // Not strict: util.parseArgs's own checks would refuse `--cwd -x` (a value that starts with a dash) and
  // word their messages its way. The tokens, in order, are checked here instead, so the first mistake wins.
  const { tokens } = parseNodeArgs({
    args: head,
    options: config,
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  const options: Record<string, unknown> = Object.create(null);
  const positionals: string[] = [];
  for (const token of tokens) {
    if (token.kind === "positional") {
      positionals.push(token.value);
      continue;
    }
    if (token.kind === "option-terminator") continue;
    const raw = head[token.index] as string;
    const spec = Object.hasOwn(specs, token.name) ? specs[token.name] : undefined;
    // A group of short options (`-la`) or a short one with a value (`-h=1`) is one unknown option.
    if (spec === undefined || (!raw.startsWith("--") && raw !== "-h")) {
      throw new UsageError(`unknown option ${raw.split("=")[0]}`, command);
    }
    const { name } = token;
    let value: string | number | boolean;
    if (spec.type === "boolean") {
      if (token.value !== undefined) throw new UsageError(`--${name} takes no value`, command);
      value = true;
    } else {
      if (token.value === undefined) throw new UsageError(`--${name} needs a value`, command);
      value = parseValue(name, spec, token.value, command);
    }
    const list = options[name];
    // A second value would silently win over the first (a wrapper's `--sandbox read-only` undone by an
    // appended `--sandbox danger-full-access`): an option given once means what it says, or it is an error.
    if (!spec.multiple && name in options && spec.type !== "boolean") {
      throw new UsageError(`--${name} given more than once: give it once`, command);
    }
    if (!spec.multiple) options[name] = value;
    else if (Array.isArray(list)) list.push(value);
    else options[name] = [value];
  }
  positionals.push(...args.slice(end));
  // Each value was made above from its own spec, so it has the type ParsedOptions gives that spec.
  return { options: options as ParsedOptions<T>, positionals };
}
