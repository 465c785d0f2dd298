import { expectedReceived } from "@conch/protocol";
import { ArityRulesError } from "../errors.js";
import { DEFAULT_ARITY } from "./default-arity.js";

/** Command prefix (space-joined words, e.g. `"npm run"`) → how many words name the command. */
export type ArityTable = ReadonlyMap<string, number>;

/** The table seeded from OpenCode's 136 entries, extended (and overridden) by `extra`. */
export function createArityTable(extra: Readonly<Record<string, number>> = {}): ArityTable {
  return new Map([...Object.entries(DEFAULT_ARITY), ...Object.entries(extra)]);
}

const DEFAULT_TABLE: ArityTable = createArityTable();

/**
 * Entries from a TOML file: a table `[arity]` of `"prefix words" = N`. Each prefix is one or more literal
 * words; N is an integer from 1 to 8, at least the number of words.
 */
export async function parseArityToml(text: string, file: string): Promise<Record<string, number>> {
  const { parse, TomlError } = await import("smol-toml");
  let doc: Record<string, unknown>;
  try {
    doc = parse(text);
  } catch (cause) {
    const line = cause instanceof TomlError ? cause.line : 0;
    throw new ArityRulesError(
      "INVALID_ARITY_TABLE",
      `${file}:${line}: ${(cause as Error).message.split("\n")[0]}`,
      {
        cause,
      },
    );
  }
  const lineOf = (needle: string): number => {
    const index = text.split("\n").findIndex((l) => l.includes(needle));
    return index + 1;
  };
  const fail = (line: number, message: string): never => {
    throw new ArityRulesError("INVALID_ARITY_TABLE", `${file}:${line}: ${message}`);
  };
  for (const key of Object.keys(doc)) {
    if (key !== "arity") fail(lineOf(key), `unknown key "${key}" (expected an [arity] table)`);
  }
  const table = doc.arity;
  if (table === undefined) return {};
  if (typeof table !== "object" || table === null || Array.isArray(table)) {
    return fail(lineOf("arity"), 'arity: expected a table of "prefix" = N');
  }
  const entries: Record<string, number> = {};
  for (const [prefix, value] of Object.entries(table)) {
    const words = prefix.split(" ");
    if (!words.every(isLiteralToken)) {
      fail(lineOf(prefix), `arity."${prefix}": expected literal words separated by single spaces`);
    }
    if (typeof value !== "number" || !Number.isInteger(value) || value < words.length || value > 8) {
      fail(
        lineOf(prefix),
        expectedReceived(`arity."${prefix}"`, `an integer from ${words.length} to 8`, value),
      );
    }
    entries[prefix] = value as number;
  }
  return entries;
}

const LITERAL_TOKEN = /^[A-Za-z0-9_./:@%+=,-]+$/;

/** Only such tokens may become part of a stored rule: no quoting, globbing or expansion can hide in them. */
export function isLiteralToken(token: string): boolean {
  return LITERAL_TOKEN.test(token);
}

function commandWord(token: string): string {
  return token.slice(token.lastIndexOf("/") + 1);
}

/**
 * The prefix of `argv` that names the command, for an "always allow" rule: the longest table entry that
 * matches the leading words (flags are skipped when matching and counting, but kept in the prefix so the
 * rule still matches the argv it came from), cut at that entry's arity. A command the table does not know
 * gets its whole argv, so approving `deploy-prod --force` never approves `deploy-prod` with anything.
 */
export function approvalPrefix(argv: readonly string[], table: ArityTable = DEFAULT_TABLE): string[] {
  if (argv.length === 0) return [];
  // Positions of the words that count: the command and every argument that is not a flag.
  const words: number[] = [0];
  for (let i = 1; i < argv.length; i++) if (!(argv[i] as string).startsWith("-")) words.push(i);
  const key = (n: number): string =>
    [commandWord(argv[0] as string), ...words.slice(1, n).map((i) => argv[i] as string)].join(" ");
  for (let n = words.length; n > 0; n--) {
    const arity = table.get(key(n));
    if (arity === undefined) continue;
    // Up to the last counted word: flags between words stay, flags after it do not.
    return argv.slice(0, (words[Math.min(arity, words.length) - 1] as number) + 1);
  }
  return [...argv];
}
