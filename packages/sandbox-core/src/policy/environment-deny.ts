import { isAbsolute, join, normalize } from "node:path";
import { DEFAULT_DENY_READ } from "./read-deny.js";

/**
 * Credentials and history that a variable moves out of the default names, as `$NAME` or `$NAME/rest`:
 * what the tool reads instead of the file or directory DEFAULT_DENY_READ names for it. `KUBECONFIG`
 * is a list (`:`-separated), like PATH. Kept beside DEFAULT_DENY_READ: a tool added there whose
 * location a variable moves belongs here too.
 */
export const ENVIRONMENT_DENY_READ: readonly string[] = [
  // History files: shells and REPLs.
  "$HISTFILE",
  "$LESSHISTFILE",
  "$PYTHON_HISTORY",
  "$NODE_REPL_HISTORY",
  "$PSQL_HISTORY",
  "$MYSQL_HISTFILE",
  "$SQLITE_HISTORY",
  "$REDISCLI_HISTFILE",
  "$R_HISTFILE",
  // zsh keeps its files, history too, in ZDOTDIR.
  "$ZDOTDIR/.*history*",
  "$ZDOTDIR/.*histfile*",
  "$ZDOTDIR/.*_hist",
  // Credential files a variable names.
  "$KUBECONFIG",
  "$AWS_SHARED_CREDENTIALS_FILE",
  "$AWS_CONFIG_FILE",
  "$GOOGLE_APPLICATION_CREDENTIALS",
  "$NPM_CONFIG_USERCONFIG",
  "$npm_config_userconfig",
  "$NETRC",
  "$PGPASSFILE",
  "$PGSERVICEFILE",
  "$MYSQL_TEST_LOGIN_FILE",
  "$RCLONE_CONFIG",
  "$BOTO_CONFIG",
  "$TF_CLI_CONFIG_FILE",
  "$PIP_CONFIG_FILE",
  "$REGISTRY_AUTH_FILE",
  "$SOPS_AGE_KEY_FILE",
  "$HF_TOKEN_PATH",
  "$DATABRICKS_CONFIG_FILE",
  "$VAULT_CONFIG_PATH",
  // The ssh agent's socket: with the network on, a command that reaches it signs as the user.
  "$SSH_AUTH_SOCK",
  // Directories a variable moves: what DEFAULT_DENY_READ hides in the default one.
  "$DOCKER_CONFIG/config.json",
  "$GNUPGHOME",
  "$CLOUDSDK_CONFIG",
  "$AZURE_CONFIG_DIR",
  "$GH_CONFIG_DIR",
  "$OP_CONFIG_DIR",
  "$PASSWORD_STORE_DIR",
  "$CARGO_HOME/credentials*",
  "$GRADLE_USER_HOME/gradle.properties",
  "$COMPOSER_HOME/auth.json",
  "$CODEX_HOME/auth.json",
  "$CLAUDE_CONFIG_DIR/.credentials.json",
  "$HF_HOME/token",
  "$KAGGLE_CONFIG_DIR/kaggle.json",
];

// The XDG base directories: each moves every default entry under its default location.
const XDG_DIRS: readonly (readonly [string, string])[] = [
  ["~/.config/", "XDG_CONFIG_HOME"],
  ["~/.local/share/", "XDG_DATA_HOME"],
  ["~/.local/state/", "XDG_STATE_HOME"],
  ["~/.cache/", "XDG_CACHE_HOME"],
];

const LIST_VARIABLES: ReadonlySet<string> = new Set(["KUBECONFIG"]);

/**
 * What `env` moves the default credentials and history to (ENVIRONMENT_DENY_READ, and the
 * DEFAULT_DENY_READ entries under an XDG base directory the environment moves), as absolute patterns.
 * A variable counts only when it holds an absolute path other than `/`; a value's `*` and `?` stay
 * wildcards, which hides more, never less.
 */
export function environmentDenyRead(env: Readonly<Record<string, string | undefined>>): string[] {
  const values = (name: string): string[] =>
    (LIST_VARIABLES.has(name) ? (env[name] ?? "").split(":") : [env[name] ?? ""]).filter(
      (value) => isAbsolute(value) && normalize(value) !== "/",
    );
  const patterns: string[] = [];
  for (const entry of ENVIRONMENT_DENY_READ) {
    const [, name = "", rest = ""] = /^\$(\w+)(.*)$/.exec(entry) ?? [];
    for (const value of values(name)) patterns.push(normalize(join(value, rest)));
  }
  for (const [prefix, name] of XDG_DIRS) {
    for (const value of values(name)) {
      for (const entry of DEFAULT_DENY_READ) {
        if (entry.startsWith(prefix)) patterns.push(join(value, entry.slice(prefix.length)));
      }
    }
  }
  return patterns;
}
