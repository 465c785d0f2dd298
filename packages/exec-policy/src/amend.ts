import { randomUUID } from "node:crypto";
import { mkdir, open, readFile, realpath, rename, stat, unlink } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { parse, TomlError } from "smol-toml";
import { normalizeNetworkHost, parseNetworkProtocol } from "./network.js";
import { invalidRules, RuleProblem } from "./problem.js";

// Appends run one at a time per file within this process; each one replaces the file by rename, so a
// reader sees the old file or the new one, never a half-written one.
const queues = new Map<string, Promise<unknown>>();

function serialized<T>(key: string, task: () => Promise<T>): Promise<T> {
  const previous = queues.get(key) ?? Promise.resolve();
  const run = previous.then(task, task);
  const settled = run.then(
    () => undefined,
    () => undefined,
  );
  queues.set(key, settled);
  void settled.then(() => {
    if (queues.get(key) === settled) queues.delete(key);
  });
  return run;
}

function isNotFound(error: unknown): boolean {
  return error instanceof Error && (error as NodeJS.ErrnoException).code === "ENOENT";
}

async function readIfExists(path: string): Promise<{ text: string; mode: number | undefined }> {
  try {
    const [text, info] = await Promise.all([readFile(path, "utf8"), stat(path)]);
    return { text, mode: info.mode & 0o7777 };
  } catch (error) {
    if (isNotFound(error)) return { text: "", mode: undefined };
    throw error;
  }
}

async function writeAtomically(path: string, text: string, mode: number | undefined): Promise<void> {
  const temporary = join(dirname(path), `.${basename(path)}.${process.pid}.${randomUUID()}.tmp`);
  try {
    const handle = await open(temporary, "wx", mode ?? 0o666);
    try {
      await handle.writeFile(text, "utf8");
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, path);
  } catch (error) {
    await unlink(temporary).catch(() => undefined);
    throw error;
  }
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

async function realpathIfExists(path: string): Promise<string | null> {
  try {
    return await realpath(path);
  } catch (error) {
    if (isNotFound(error)) return null;
    throw error;
  }
}

/**
 * The file a write really replaces: a symlink's target. Also the queue key, so that every spelling of
 * one file (a symlink, a symlinked directory) shares one queue, whether or not the file exists yet.
 */
async function writtenPath(absolute: string): Promise<string> {
  const real = await realpathIfExists(absolute);
  if (real !== null) return real;
  const directory = await realpathIfExists(dirname(absolute));
  return directory === null ? absolute : join(directory, basename(absolute));
}

function separated(contents: string): string {
  return contents === "" || contents.endsWith("\n") ? contents : `${contents}\n`;
}

/** The `.rules` line Codex writes, byte for byte: `prefix_rule(pattern=["a", "b"], decision="allow")`. */
function rulesLine(prefix: readonly string[]): string {
  return `prefix_rule(pattern=[${prefix.map((token) => JSON.stringify(token)).join(", ")}], decision="allow")`;
}

function appendToRulesFile(contents: string, prefix: readonly string[]): string | null {
  const line = rulesLine(prefix);
  if (contents.split(/\r?\n/).includes(line)) return null;
  return `${separated(contents)}${line}\n`;
}

// A TOML basic string: JSON's escapes are TOML's, except that TOML also wants DEL escaped.
function tomlString(value: string): string {
  return JSON.stringify(value).replaceAll("\x7f", "\\u007f");
}

function parseToml(path: string, text: string): Record<string, unknown> {
  try {
    return parse(text);
  } catch (error) {
    if (!(error instanceof TomlError)) throw error;
    const message = error.message.replace(/^Invalid TOML document: /, "").split("\n\n")[0] as string;
    throw invalidRules(path, error.line, `invalid TOML: ${message}`, error);
  }
}

function isSameAllowRule(entry: unknown, prefix: readonly string[]): boolean {
  if (typeof entry !== "object" || entry === null) return false;
  const { pattern, decision } = entry as { pattern?: unknown; decision?: unknown };
  if ((decision ?? "allow") !== "allow" || !Array.isArray(pattern) || pattern.length !== prefix.length)
    return false;
  return pattern.every((token: unknown, i) => {
    const literal = Array.isArray(token) && token.length === 1 ? token[0] : token;
    return literal === prefix[i];
  });
}

function appendToTomlFile(path: string, contents: string, prefix: readonly string[]): string | null {
  const existing = parseToml(path, contents).rule;
  if (Array.isArray(existing) && existing.some((entry: unknown) => isSameAllowRule(entry, prefix)))
    return null;
  const block = `[[rule]]\npattern = [${prefix.map(tomlString).join(", ")}]\ndecision = "allow"\n`;
  const updated = contents.trim() === "" ? block : `${separated(contents)}\n${block}`;
  // The file may hold `rule` in a form a [[rule]] table cannot extend; never write a broken file.
  parseToml(path, updated);
  return updated;
}

/**
 * Adds a rule on disk only: appends an `allow` prefix rule for `prefix` to a rules file, creating the
 * file (and its directory) if needed: Codex's `prefix_rule(pattern=[...], decision="allow")` line for a
 * `.rules` file, a `[[rule]]` table for a `.toml` file. Resolves to false, leaving the file untouched,
 * when that rule is already there. The file is replaced atomically (temporary file in the same
 * directory, then rename; a symlinked file is updated at its target). Which prefixes may be stored is
 * the caller's decision (`allowPrefixRule` checks it).
 */
export async function appendAllowRuleToFile(path: string, prefix: readonly string[]): Promise<boolean> {
  if (prefix.length === 0) throw invalidRules(path, null, "prefix rule requires at least one token");
  const malformed = prefix.find((token) => LONE_SURROGATE.test(token));
  if (malformed !== undefined) {
    throw invalidRules(path, null, `prefix token ${JSON.stringify(malformed)} is not well-formed Unicode`);
  }
  return amendFile(path, (text, toml) =>
    toml ? appendToTomlFile(path, text, prefix) : appendToRulesFile(text, prefix),
  );
}

/**
 * Replaces the rules file at `path` (a symlink's target; created with its directory if needed) with what
 * `update` makes of its text, atomically and one change at a time per file; `update` returns null to
 * leave it as it is. Resolves to whether it was written.
 */
async function amendFile(
  path: string,
  update: (text: string, toml: boolean) => string | null,
): Promise<boolean> {
  const absolute = resolve(path);
  const target = await writtenPath(absolute);
  const toml = absolute.toLowerCase().endsWith(".toml");
  return serialized(target, async () => {
    await mkdir(dirname(target), { recursive: true });
    const { text, mode } = await readIfExists(target);
    const updated = update(text, toml);
    if (updated === null) return false;
    await writeAtomically(target, updated, mode);
    return true;
  });
}

/** The `.rules` line for an allowed host: `network_rule(host="h", protocol="https", decision="allow")`. */
function networkRulesLine(host: string, protocol: string): string {
  return `network_rule(host=${JSON.stringify(host)}, protocol=${JSON.stringify(protocol)}, decision="allow")`;
}

/**
 * Adds an `allow` network rule for `host` on disk only, as `appendAllowRuleToFile` does for a prefix: a
 * `network_rule(...)` line in a `.rules` file, a `[[network_rule]]` table in a `.toml` one, atomically,
 * false when the file has that rule already. `protocol` is the proxy's word (`http`, `https`, `socks5`,
 * stored as `socks5_tcp`); `host` must be one a rules file accepts (a specific host or IP literal), else
 * `INVALID_RULES` and nothing changes.
 */
export async function appendNetworkRuleToFile(
  path: string,
  rule: { readonly host: string; readonly protocol: string },
): Promise<boolean> {
  const spelled = rule.protocol === "socks5" ? "socks5_tcp" : rule.protocol;
  let host: string;
  try {
    host = normalizeNetworkHost(rule.host);
    parseNetworkProtocol(spelled);
  } catch (error) {
    if (error instanceof RuleProblem) throw invalidRules(path, null, error.message, error);
    throw error;
  }
  return amendFile(path, (text, toml) => {
    if (!toml) {
      const line = networkRulesLine(host, spelled);
      return text.split(/\r?\n/).includes(line) ? null : `${separated(text)}${line}\n`;
    }
    const existing = parseToml(path, text).network_rule;
    const same =
      Array.isArray(existing) &&
      existing.some((entry: unknown) => {
        const table = entry as { host?: unknown; protocol?: unknown; decision?: unknown };
        return table.host === host && table.protocol === spelled && table.decision === "allow";
      });
    if (same) return null;
    const block = `[[network_rule]]\nhost = ${tomlString(host)}\nprotocol = ${tomlString(spelled)}\ndecision = "allow"\n`;
    const updated = text.trim() === "" ? block : `${separated(text)}\n${block}`;
    // Never write a broken file.
    parseToml(path, updated);
    return updated;
  });
}
