import type { EnvPolicy } from "@conch/protocol";
import { looksLikeSecretValue } from "./secret-values.js";

/**
 * Names dropped from the inherited environment unless the policy says otherwise: the usual spellings of
 * keys, tokens, passwords, credentials, session and auth material (`SSH_AUTH_SOCK` too: the agent socket
 * signs as the user). `*_PWD` is a password (`DB_PWD`), not `PWD` or `OLDPWD`. `*AUTH*` also drops
 * `GIT_AUTHOR_*`, which git then takes from its config; `allow` passes any of them on purpose.
 */
export const DEFAULT_ENV_EXCLUDES: readonly string[] = [
  "*KEY*",
  "*SECRET*",
  "*TOKEN*",
  "*PASSWORD*",
  "*PASSWD*",
  "*PAT",
  "*_PWD",
  "*CREDENTIAL*",
  "*AUTH*",
  "*DSN",
  "*JWT*",
  "*COOKIE*",
  "*SESSION*",
];

/** What `inherit: "core"` keeps: enough for a shell to find programs and a home, nothing more. */
export const CORE_ENV_VARS: readonly string[] = [
  "HOME",
  "LOGNAME",
  "PATH",
  "SHELL",
  "USER",
  "USERNAME",
  "TMPDIR",
  "TEMP",
  "TMP",
];

/**
 * Set in every child so that tools behave for a reader that is not a terminal: no pagers, no colour,
 * no credential prompts that would hang, UTF-8 text. Overrides in the policy still win.
 */
export const ENV_PINS: Readonly<Record<string, string>> = {
  TERM: "dumb",
  NO_COLOR: "1",
  PAGER: "cat",
  GIT_PAGER: "cat",
  GH_PAGER: "cat",
  LANG: "C.UTF-8",
  LC_ALL: "C.UTF-8",
  GIT_TERMINAL_PROMPT: "0",
  GIT_ASKPASS: "",
  SSH_ASKPASS: "",
  // An editor run for the command (`git commit` without -m, `crontab -e`) reads its commands from what the
  // model writes later, `:!cmd` among them: it accepts the text as it is instead.
  GIT_EDITOR: "true",
  GIT_SEQUENCE_EDITOR: "true",
  EDITOR: "true",
  VISUAL: "true",
  CONCH: "1",
};

/**
 * A glob as an unanchored expression: a leading or trailing `*` becomes a missing anchor rather than a
 * `.*`, which the engine would otherwise try at every position of the name.
 */
function globToSource(pattern: string): string {
  const open = pattern.startsWith("*");
  const close = pattern.length > 1 && pattern.endsWith("*");
  const body = pattern
    .slice(open ? 1 : 0, close ? -1 : undefined)
    .replace(/[.+^${}()|[\]\\]/g, "\\$&")
    .replace(/\*/g, ".*")
    .replace(/\?/g, ".");
  return `${open ? "" : "^"}${body}${close || (open && body === "") ? "" : "$"}`;
}

// Exclude lists compiled to one expression each: a policy is applied to every command, and the same
// few lists (the default, a runtime's own) come back every time.
const compiledExcludes = new Map<string, RegExp>();
const MAX_COMPILED_EXCLUDES = 32;

function excludeMatcher(patterns: readonly string[]): RegExp {
  const key = patterns.join("\0");
  let matcher = compiledExcludes.get(key);
  if (matcher === undefined) {
    // `(?!)` never matches: an empty list drops nothing.
    const body = patterns.length === 0 ? "(?!)" : patterns.map((p) => `(?:${globToSource(p)})`).join("|");
    // `s`: a `*` spans any character, a newline too.
    matcher = new RegExp(body, "is");
    if (compiledExcludes.size >= MAX_COMPILED_EXCLUDES) compiledExcludes.clear();
    compiledExcludes.set(key, matcher);
  }
  return matcher;
}

/**
 * Which inherited variables `policy` passes on: per `inherit` (`core` only CORE_ENV_VARS, `none`
 * nothing), minus names matching `exclude` and values shaped like a credential whatever their name (a
 * provider's token, a private key, a URL with `user:password@`: `looksLikeSecretValue`), unless the
 * name is in `allow`. What a shell snapshot may carry is decided by the same test.
 */
export function inheritedVariableFilter(policy: EnvPolicy = {}): (name: string, value: string) => boolean {
  const inherit = policy.inherit ?? "all";
  const excludes = excludeMatcher(policy.exclude ?? DEFAULT_ENV_EXCLUDES);
  const allowed = new Set(policy.allow ?? []);
  return (name, value) => {
    if (inherit === "none" || (inherit === "core" && !CORE_ENV_VARS.includes(name))) return false;
    const secret = excludes.test(name) || looksLikeSecretValue(value);
    return !secret || allowed.has(name);
  };
}

/**
 * The child's environment: the parent's variables `policy` passes on (`inheritedVariableFilter`), then
 * the pins, then `set`. The parent environment is a parameter so callers and tests can pass their own.
 */
export function buildEnv(
  policy: EnvPolicy = {},
  parentEnv: Readonly<Record<string, string | undefined>> = process.env,
): Record<string, string> {
  const env: Record<string, string> = Object.create(null);
  const passes = inheritedVariableFilter(policy);
  for (const [name, value] of Object.entries(parentEnv)) {
    if (value !== undefined && passes(name, value)) env[name] = value;
  }
  Object.assign(env, ENV_PINS, policy.set);
  return env;
}
