// The settings a git command writes into a repository's config (`git config KEY VALUE`, `git clone -c`):
// a later git command runs the program such a setting names.
import type { GitSetting } from "./git.js";

// `git config` options that take a value, and those after which it only reads or removes settings.
const CONFIG_VALUE_OPTIONS: ReadonlySet<string> = new Set([
  "-f",
  "--file",
  "--blob",
  "--type",
  "--default",
  "--comment",
  "--value",
  "--url",
]);
const CONFIG_READS =
  /^(--get|--unset|--list|-l$|--edit|-e$|--rename-section|--remove-section|--show|--name-only|--null|-z$)/;
const CONFIG_READ_COMMANDS: ReadonlySet<string> = new Set([
  "get",
  "list",
  "unset",
  "edit",
  "rename-section",
  "remove-section",
  "get-color",
  "get-colorbool",
]);

/**
 * The setting `git config [set|--add|--replace-all] KEY VALUE` writes, if it writes one: a later git
 * command then runs the program it names (`git config core.pager './p'; git log`).
 */
function configSetting(words: readonly string[], index: number): GitSetting[] {
  const operands: string[] = [];
  for (let at = index + 1; at < words.length; at += 1) {
    const word = words[at] as string;
    if (word.startsWith("-") && word !== "-") {
      if (CONFIG_READS.test(word)) return [];
      if (CONFIG_VALUE_OPTIONS.has(word)) at += 1;
      continue;
    }
    operands.push(word);
  }
  if (operands[0] !== undefined && CONFIG_READ_COMMANDS.has(operands[0])) return [];
  const [key, value] = operands[0] === "set" ? operands.slice(1) : operands;
  if (key === undefined || value === undefined) return [];
  return [{ setting: `${key}=${value}`, key: key.toLowerCase(), value }];
}

/**
 * The settings a git subcommand writes into a repository's config: `git clone -c KEY=VALUE`
 * (`--config`) into the new one, `git config KEY VALUE` into this one.
 */
export function writtenSettings(words: readonly string[], index: number): GitSetting[] {
  if (words[index] === "config") return configSetting(words, index);
  if (words[index] !== "clone") return [];
  const settings: GitSetting[] = [];
  for (let at = index + 1; at < words.length; at += 1) {
    const word = words[at] as string;
    if (word === "--") break;
    const setting =
      word === "-c" || word === "--config"
        ? words[at + 1]
        : word.startsWith("--config=")
          ? word.slice("--config=".length)
          : word.startsWith("-c") && !word.startsWith("--")
            ? word.slice(2)
            : undefined;
    if (setting === undefined) continue;
    const equals = setting.indexOf("=");
    settings.push({
      setting,
      key: (equals === -1 ? setting : setting.slice(0, equals)).toLowerCase(),
      value: equals === -1 ? null : setting.slice(equals + 1),
    });
  }
  return settings;
}
