import { UsageError } from "./errors.js";

interface OptionSpec {
  readonly type: "boolean" | "string" | "integer";
  /** May be given more than once; the values are collected in order. */
  readonly multiple?: boolean;
}

export type OptionSpecs = Readonly<Record<string, OptionSpec>>;
type OptionValue = boolean | string | number | string[] | number[];

export interface ParsedArgs {
  options: Record<string, OptionValue>;
  positionals: string[];
}

function parseValue(name: string, spec: OptionSpec, raw: string, command: string): string | number {
  if (raw === "") throw new UsageError(`--${name}: expected a value, received ""`, command);
  if (spec.type !== "integer") return raw;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(value) || value <= 0) {
    throw new UsageError(`--${name}: expected a positive integer, received ${JSON.stringify(raw)}`, command);
  }
  return value;
}

/**
 * Options first, then positionals. Option parsing stops at `--` or, when `stopAtPositional` is set, at
 * the first positional, so `conch run ls -la` passes `-la` to ls rather than to conch.
 */
export function parseArgs(
  args: readonly string[],
  specs: OptionSpecs,
  command: string,
  stopAtPositional: boolean,
): ParsedArgs {
  const options: Record<string, OptionValue> = Object.create(null);
  const positionals: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === "--") {
      positionals.push(...args.slice(i + 1));
      break;
    }
    if (!arg.startsWith("-") || arg === "-") {
      if (stopAtPositional) {
        positionals.push(...args.slice(i));
        break;
      }
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    const name = arg === "-h" ? "help" : arg.slice(2, eq === -1 ? undefined : eq);
    const spec = arg.startsWith("--") || arg === "-h" ? specs[name] : undefined;
    if (spec === undefined) throw new UsageError(`unknown option ${arg.split("=")[0]}`, command);
    let value: string | number | boolean;
    if (spec.type === "boolean") {
      if (eq !== -1) throw new UsageError(`--${name} takes no value`, command);
      value = true;
    } else {
      const raw = eq !== -1 ? arg.slice(eq + 1) : args[++i];
      if (raw === undefined) throw new UsageError(`--${name} needs a value`, command);
      value = parseValue(name, spec, raw, command);
    }
    if (spec.multiple) {
      const list = (options[name] ?? []) as (string | number)[];
      list.push(value as string | number);
      options[name] = list as string[] | number[];
    } else {
      options[name] = value;
    }
  }
  return { options, positionals };
}
