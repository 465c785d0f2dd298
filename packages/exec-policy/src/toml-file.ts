import { parse, TomlError } from "smol-toml";
import { type LocatedExamples, parseExample } from "./examples.js";
import {
  type ExecPolicyBuilder,
  expandPattern,
  normalizePattern,
  parseJustification,
  parseRuleDecision,
  parseRuleSandbox,
} from "./exec-policy.js";
import { parseHostExecutablePath, validateHostExecutableName } from "./host-executable.js";
import { normalizeNetworkHost, parseNetworkDecision, parseNetworkProtocol } from "./network.js";
import { RuleProblem } from "./problem.js";
import type { PatternToken } from "./types.js";

// Conch's own rules format:
//
//   [[rule]]
//   pattern = ["git", ["push", "fetch"]]
//   decision = "prompt"                  # allow | prompt | forbidden; default allow
//   justification = "Pushing and fetching touch the network."
//   match = ["git push origin main", ["git", "fetch"]]
//   not_match = ["git status"]
//   sandbox = "none"                     # allow rules only: also run outside the sandbox (dangerous)
//
//   [[host_executable]]
//   name = "git"
//   paths = ["/usr/bin/git"]
//
//   [[network_rule]]
//   host = "api.github.com"
//   protocol = "https"
//   decision = "allow"                   # allow | prompt | deny (or forbidden)
//
// The same checks and messages as Codex's `prefix_rule()`, `host_executable()` and `network_rule()`;
// `sandbox` is Conch's own.

type TableName = "rule" | "host_executable" | "network_rule";

const TABLE_KEYS: Readonly<Record<TableName, readonly string[]>> = {
  rule: ["pattern", "decision", "justification", "match", "not_match", "sandbox"],
  host_executable: ["name", "paths"],
  network_rule: ["host", "protocol", "decision", "justification"],
};

function tomlTypeName(value: unknown): string {
  if (typeof value === "string") return "string";
  if (typeof value === "boolean") return "boolean";
  if (typeof value === "bigint" || Number.isInteger(value)) return "integer";
  if (typeof value === "number") return "float";
  if (Array.isArray(value)) return "array";
  if (value instanceof Date) return "datetime";
  return "table";
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * Where things are in the source, found by scanning lines (smol-toml keeps no positions): the line of
 * each `[[name]]` header, and of a key inside one table's block. Lines inside multi-line strings are
 * skipped, so a header quoted in a string does not count.
 */
class SourceMap {
  readonly #lines: string[];
  readonly #code: boolean[];
  readonly #headers = new Map<string, number[]>();

  constructor(text: string) {
    this.#lines = text.split(/\r?\n/);
    this.#code = [];
    let inside: string | null = null;
    for (const [index, line] of this.#lines.entries()) {
      this.#code.push(inside === null);
      if (inside === null) {
        const header = /^\s*\[\[\s*["']?([A-Za-z0-9_-]+)["']?\s*\]\]/.exec(line);
        if (header !== null) {
          const name = header[1] as string;
          this.#headers.set(name, [...(this.#headers.get(name) ?? []), index + 1]);
        }
      }
      for (const delimiter of line.match(/"""|'''/g) ?? []) {
        if (inside === null) inside = delimiter;
        else if (inside === delimiter) inside = null;
      }
    }
  }

  /** The 1-based line of the `index`-th `[[name]]` header, or null when it is not written that way. */
  header(name: string, index: number): number | null {
    return this.#headers.get(name)?.[index] ?? null;
  }

  /** The line of `key = ...` in the block that starts at `from`, else `from`. */
  key(from: number | null, key: string): number | null {
    if (from === null) return null;
    const pattern = new RegExp(`^\\s*["']?${escapeRegExp(key)}["']?\\s*=`);
    for (let line = from + 1; line <= this.#lines.length; line++) {
      if (!this.#code[line - 1]) continue;
      const text = this.#lines[line - 1] as string;
      if (/^\s*\[/.test(text)) break;
      if (pattern.test(text)) return line;
    }
    return from;
  }

  /** The first line that defines top-level `key` (`key = ...`, `[key]`, `[[key]]`), or null. */
  topLevel(key: string): number | null {
    const pattern = new RegExp(`^\\s*(\\[{1,2}\\s*)?["']?${escapeRegExp(key)}["']?\\s*[=.\\]]`);
    const index = this.#lines.findIndex((line, i) => this.#code[i] === true && pattern.test(line));
    return index === -1 ? null : index + 1;
  }
}

/** A problem in one table of a TOML rules file, located as well as the source allows. */
function tableProblem(
  source: SourceMap,
  table: TableName,
  index: number,
  key: string | null,
  message: string,
): RuleProblem {
  const header = source.header(table, index);
  const line = key === null ? header : source.key(header, key);
  const label = table === "rule" ? `rule ${index + 1}` : `${table} ${index + 1}`;
  return new RuleProblem(`${label}: ${message}`, line ?? 1);
}

function isTable(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

function readTables(
  source: SourceMap,
  document: Record<string, unknown>,
  name: TableName,
): Record<string, unknown>[] {
  const value = document[name];
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every(isTable)) {
    throw new RuleProblem(`\`${name}\` must be an array of tables ([[${name}]])`, source.topLevel(name) ?? 1);
  }
  value.forEach((table, index) => {
    for (const key of Object.keys(table)) {
      if (!TABLE_KEYS[name].includes(key)) {
        throw tableProblem(
          source,
          name,
          index,
          key,
          `unknown key \`${key}\` (expected one of ${TABLE_KEYS[name].join(", ")})`,
        );
      }
    }
  });
  return value;
}

interface TableReader {
  string(key: string): string | null;
  requiredString(key: string): string;
  array(key: string): readonly unknown[] | null;
  /** Runs `check`, blaming a RuleProblem on `key`'s line. */
  at<T>(key: string, check: () => T): T;
}

function tableReader(
  source: SourceMap,
  tableName: TableName,
  index: number,
  table: Record<string, unknown>,
): TableReader {
  const problem = (key: string | null, message: string): RuleProblem =>
    tableProblem(source, tableName, index, key, message);
  const reader: TableReader = {
    string(key) {
      const value = table[key];
      if (value === undefined) return null;
      if (typeof value !== "string")
        throw problem(key, `\`${key}\` must be a string (got ${tomlTypeName(value)})`);
      return value;
    },
    requiredString(key) {
      const value = reader.string(key);
      if (value === null) throw problem(null, `missing required key \`${key}\``);
      return value;
    },
    array(key) {
      const value = table[key];
      if (value === undefined) return null;
      if (!Array.isArray(value))
        throw problem(key, `\`${key}\` must be an array (got ${tomlTypeName(value)})`);
      return value;
    },
    at(key, check) {
      try {
        return check();
      } catch (error) {
        if (error instanceof RuleProblem && error.line === null) throw problem(key, error.message);
        throw error;
      }
    },
  };
  return reader;
}

function patternToken(value: unknown): PatternToken {
  if (typeof value === "string") return value;
  if (!Array.isArray(value)) {
    throw new RuleProblem(
      `invalid pattern element: pattern element must be a string or list of strings (got ${tomlTypeName(value)})`,
    );
  }
  return value.map((alternative: unknown) => {
    if (typeof alternative !== "string") {
      throw new RuleProblem(
        `invalid pattern element: pattern alternative must be a string (got ${tomlTypeName(alternative)})`,
      );
    }
    return alternative;
  });
}

function example(value: unknown): string[] {
  if (typeof value === "string") return parseExample(value);
  if (!Array.isArray(value)) {
    throw new RuleProblem(
      `invalid example: example must be a string or list of strings (got ${tomlTypeName(value)})`,
    );
  }
  return parseExample(
    value.map((token: unknown) => {
      if (typeof token !== "string") {
        throw new RuleProblem(`invalid example: example tokens must be strings (got ${tomlTypeName(token)})`);
      }
      return token;
    }),
  );
}

/**
 * Reads a TOML rules file into the builder and returns the examples still to check. Each rule keeps
 * `path` and the line of its `[[rule]]` header. Throws RuleProblem.
 */
export function readTomlFile(text: string, builder: ExecPolicyBuilder, path: string): LocatedExamples[] {
  let document: Record<string, unknown>;
  try {
    document = parse(text);
  } catch (error) {
    if (error instanceof TomlError) {
      const message = error.message.replace(/^Invalid TOML document: /, "").split("\n\n")[0] as string;
      throw new RuleProblem(`invalid TOML: ${message}`, error.line);
    }
    throw error;
  }
  const source = new SourceMap(text);
  for (const key of Object.keys(document)) {
    if (!Object.hasOwn(TABLE_KEYS, key)) {
      throw new RuleProblem(
        `unknown key \`${key}\` (expected [[rule]], [[host_executable]] or [[network_rule]] tables)`,
        source.topLevel(key) ?? 1,
      );
    }
  }

  const pending: LocatedExamples[] = [];
  readTables(source, document, "rule").forEach((table, index) => {
    const read = tableReader(source, "rule", index, table);
    const decision = read.at("decision", () => parseRuleDecision(read.string("decision")));
    const justification = read.at("justification", () => parseJustification(read.string("justification")));
    const patternValues = read.array("pattern");
    if (patternValues === null)
      throw tableProblem(source, "rule", index, null, "missing required key `pattern`");
    const pattern = read.at("pattern", () => normalizePattern(patternValues.map(patternToken)));
    const matches = read.at("match", () => (read.array("match") ?? []).map(example));
    const notMatches = read.at("not_match", () => (read.array("not_match") ?? []).map(example));
    const sandbox = read.at("sandbox", () => parseRuleSandbox(read.string("sandbox"), decision));
    const line = source.header("rule", index) ?? 1;
    const rules = expandPattern(pattern, decision, justification, sandbox, { path, line });
    for (const rule of rules) builder.addRule(rule);
    pending.push({ rules, pattern, matches, notMatches, label: `rule ${index + 1}`, line });
  });

  readTables(source, document, "host_executable").forEach((table, index) => {
    const read = tableReader(source, "host_executable", index, table);
    const name = read.requiredString("name");
    read.at("name", () => validateHostExecutableName(name));
    const rawPaths = read.array("paths");
    if (rawPaths === null) {
      throw tableProblem(source, "host_executable", index, null, "missing required key `paths`");
    }
    const paths = read.at("paths", () =>
      rawPaths.map((raw: unknown) => {
        if (typeof raw !== "string") {
          throw new RuleProblem(
            `invalid rule: host_executable paths must be strings (got ${tomlTypeName(raw)})`,
          );
        }
        return parseHostExecutablePath(name, raw);
      }),
    );
    builder.setHostExecutable(name, paths);
  });

  readTables(source, document, "network_rule").forEach((table, index) => {
    const read = tableReader(source, "network_rule", index, table);
    const protocol = read.at("protocol", () => parseNetworkProtocol(read.requiredString("protocol")));
    const decision = read.at("decision", () => parseNetworkDecision(read.requiredString("decision")));
    const justification = read.at("justification", () => parseJustification(read.string("justification")));
    const host = read.at("host", () => normalizeNetworkHost(read.requiredString("host")));
    builder.addNetworkRule({ host, protocol, decision, justification });
  });
  return pending;
}
