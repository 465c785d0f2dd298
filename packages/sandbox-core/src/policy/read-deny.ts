import { lstatSync, readdirSync, statSync } from "node:fs";
import { basename, dirname, isAbsolute, join, normalize } from "node:path";
import { SandboxError } from "../errors.js";
import type { HiddenPath } from "../types.js";
import { canonical, isInside } from "./protected-paths.js";

/**
 * Reads denied by default under read-only and workspace-write (DESIGN.md §5): credentials of the usual
 * tools, shell and REPL history, and the system's password hashes (readable by a root caller, whose
 * uid owns them). `~/` is the home directory; `*` and `?` match any characters of one path component,
 * a newline too (a name is any bytes but `/` and NUL).
 */
export const DEFAULT_DENY_READ: readonly string[] = [
  "~/.ssh",
  "~/.aws",
  "~/.gnupg",
  "~/.config/gh",
  "~/.config/hub",
  "~/.config/gcloud",
  "~/.azure",
  "~/.kube",
  "~/.docker/config.json",
  "~/.config/containers/auth.json",
  "~/.netrc",
  "~/.git-credentials",
  "~/.config/git/credentials",
  "~/.npmrc",
  "~/.yarnrc.yml",
  "~/.pypirc",
  "~/.cargo/credentials*",
  "~/.gem/credentials",
  "~/.terraform.d/credentials.tfrc.json",
  "~/.vault-token",
  "~/.pgpass",
  "~/.my.cnf",
  "~/.password-store",
  "~/.local/share/keyrings",
  "~/.config/op",
  "~/.mylogin.cnf",
  "~/.boto",
  "~/.databrickscfg",
  "~/.kaggle/kaggle.json",
  "~/.cache/huggingface/token",
  "~/.huggingface/token",
  "~/.config/sops/age/keys.txt",
  "~/.oci",
  "~/.config/doctl/config.yaml",
  "~/.fly/config.yml",
  "~/.config/stripe/config.toml",
  "~/.config/glab-cli/config.yml",
  "~/.gemini/oauth_creds.json",
  "~/.gemini/.env",
  "~/.local/share/kwalletd",
  // A dotenv in the home, and the AI tools' own files that hold API keys (Claude Code's ~/.claude.json)
  // or MCP servers' configs, whose env blocks carry them.
  "~/.env",
  "~/.claude.json",
  "~/.config/Claude/claude_desktop_config.json",
  "~/.gemini/settings.json",
  "~/.cursor/mcp.json",
  "~/.continue/config.*",
  "~/.claude/.credentials.json",
  "~/.codex/auth.json",
  "~/.config/github-copilot",
  "~/.m2/settings.xml",
  "~/.gradle/gradle.properties",
  "~/.config/rclone",
  "~/.s3cfg",
  "~/.terraformrc",
  "~/.config/pip/pip.conf",
  "~/.pip/pip.conf",
  "~/.config/composer/auth.json",
  "~/.local/share/atuin",
  "~/.mozilla",
  "~/.config/google-chrome",
  "~/.config/chromium",
  // ssh and gpg agents' sockets (gpg-agent's, GNOME Keyring's and gcr's, systemd's ssh-agent, 1Password's,
  // Bitwarden's): with the network on, a command that reaches one signs as the user.
  "/run/user/*/gnupg",
  "/run/user/*/keyring",
  "/run/user/*/gcr",
  "/run/user/*/ssh-agent.socket",
  "~/.1password/agent.sock",
  "~/.bitwarden-ssh-agent.sock",
  "~/.config/BraveSoftware",
  "~/.config/microsoft-edge*",
  "~/.config/vivaldi",
  "~/snap/firefox/common/.mozilla",
  // VS Code and its forks keep extensions' secrets here when no keyring is running.
  "~/.config/Code*/User/globalStorage/state.vscdb*",
  "~/.config/VSCodium/User/globalStorage/state.vscdb*",
  "~/.config/Cursor/User/globalStorage/state.vscdb*",
  // Shell and REPL history under every usual name: `*history*` covers `.zsh_history`, `.zhistory`,
  // `.python_history`, `.Rhistory`, `.node_repl_history`…, and the copies a shell writes before renaming
  // them over the file (`.zsh_history.new`, readline's `.bash_history-PID.tmp`) or leaves behind. A
  // profile's own HISTFILE comes from the environment (`environmentDenyRead`) and the shell snapshot.
  "~/.*history*",
  "~/.*histfile*",
  "~/.*_hist",
  "~/.lesshst",
  "~/.viminfo",
  "~/.julia/logs/repl_history.jl",
  "~/.ipython/profile_*/history.sqlite",
  "~/.local/share/fish/*_history",
  "~/.config/fish/fish_history",
  "~/.local/share/*/*history",
  "~/.local/state/*/*history",
  "~/.local/share/nvim/shada",
  "~/.local/state/nvim/shada",
  "~/.cache/zsh/*history",
  "~/.ghc/ghci_history",
  "~/.mongodb/mongosh/*history",
  "~/.dbshell",
  // macOS: the keychains' files, browser profiles and cookies, mail and messages, 1Password's and
  // Bitwarden's agents, and the AI tools' and editors' files that hold keys, under ~/Library.
  "~/Library/Keychains",
  "~/Library/Cookies",
  "~/Library/Safari",
  "~/Library/Mail",
  "~/Library/Messages",
  "~/Library/Application Support/Google/Chrome",
  "~/Library/Application Support/Firefox",
  "~/Library/Application Support/BraveSoftware",
  "~/Library/Application Support/Microsoft Edge",
  "~/Library/Application Support/Vivaldi",
  "~/Library/Application Support/Claude/claude_desktop_config.json",
  "~/Library/Application Support/Code*/User/globalStorage/state.vscdb*",
  "~/Library/Application Support/Cursor/User/globalStorage/state.vscdb*",
  "~/Library/Group Containers/2BUA8C4S2C.com.1password",
  "~/Library/Containers/com.bitwarden.desktop",
  "/etc/shadow",
  "/etc/gshadow",
  // macOS's password hashes and system keychain (readable by a root caller).
  "/private/var/db/dslocal/nodes/Default/users",
  "/private/var/db/SystemKey",
  "/Library/Keychains/System.keychain",
  "/etc/ssh/ssh_host_*_key",
];

const WILDCARD = /[*?]/;

function componentPattern(component: string): RegExp {
  const body = component
    .replace(/[.+^${}()|[\]\\]/g, "\\$&")
    .replace(/\*/g, ".*")
    .replace(/\?/g, ".");
  // `s`: `.` is any character, so `*` spans a newline in a name as the shell's glob does; `u`: `?` is
  // one character, not half of a surrogate pair.
  return new RegExp(`^${body}$`, "su");
}

/** `pattern` with `~` expanded for each home; none when it is not absolute. */
function absolutePatterns(pattern: string, homes: readonly string[]): string[] {
  if (pattern === "~" || pattern.startsWith("~/")) return homes.map((home) => join(home, pattern.slice(1)));
  return isAbsolute(pattern) ? [pattern] : [];
}

interface PatternNode {
  /** A pattern ends here: the path itself is named. */
  named: boolean;
  readonly literal: Map<string, PatternNode>;
  readonly wild: Map<string, { matcher: RegExp; node: PatternNode }>;
}

const newNode = (): PatternNode => ({ named: false, literal: new Map(), wild: new Map() });

// Up to this many plain names below one directory are looked up one by one; more, or any wildcard,
// and the directory is read once instead (the home directory holds most of the default list).
const LOOKUPS_BEFORE_READDIR = 8;

// Where names may differ from what the disk holds only in case, a name missing from a listing is
// still looked up.
const CASE_FOLDING = process.platform === "darwin" || process.platform === "win32";

/**
 * Whether `path` is there to hide. One this user cannot reach (a directory on the way it may not search:
 * `TF_CLI_CONFIG_FILE=/root/.terraformrc` for another user) is not: a command runs with the same rights.
 */
function exists(path: string): boolean {
  try {
    return lstatSync(path, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return false;
  }
}

/** The patterns as one tree of path components, built once per workspace. */
function patternTree(absolutes: readonly string[]): PatternNode {
  const root = newNode();
  for (const absolute of absolutes) {
    let node = root;
    for (const component of normalize(absolute).split("/")) {
      if (component === "") continue;
      if (WILDCARD.test(component)) {
        let entry = node.wild.get(component);
        if (entry === undefined) {
          entry = { matcher: componentPattern(component), node: newNode() };
          node.wild.set(component, entry);
        }
        node = entry.node;
      } else {
        let next = node.literal.get(component);
        if (next === undefined) {
          next = newNode();
          node.literal.set(component, next);
        }
        node = next;
      }
    }
    node.named = true;
  }
  return root;
}

/**
 * The existing paths a pattern tree names, as written (not canonical). Each directory on the way is
 * listed or looked into once for all the patterns, and found afresh on every call: nothing on disk is
 * cached, so a secret created mid-session is hidden from the next command on. A listed name that is not
 * UTF-8 cannot be passed to a backend to hide it: one a pattern matches is returned in `unnamed` (as
 * its parent and the name decoded with replacement characters) for the caller to refuse.
 */
function existingPaths(root: PatternNode): { found: string[]; unnamed: string[] } {
  const found: string[] = [];
  const unnamed: string[] = [];
  const visit = (path: string, node: PatternNode): void => {
    if (node.named) found.push(path);
    if (node.literal.size === 0 && node.wild.size === 0) return;
    const below: [string, PatternNode][] = [];
    if (node.wild.size === 0 && node.literal.size <= LOOKUPS_BEFORE_READDIR) {
      for (const [name, next] of node.literal) {
        if (exists(join(path, name))) below.push([name, next]);
      }
    } else {
      let raw: Buffer[];
      try {
        raw = readdirSync(path, { encoding: "buffer" });
      } catch {
        return;
      }
      const names: string[] = [];
      const undecodable: string[] = [];
      for (const bytes of raw) {
        const name = bytes.toString("utf8");
        (Buffer.from(name, "utf8").equals(bytes) ? names : undecodable).push(name);
      }
      const listed = new Set(names);
      for (const [name, next] of node.literal) {
        if (listed.has(name) || (CASE_FOLDING && exists(join(path, name)))) below.push([name, next]);
      }
      for (const { matcher, node: next } of node.wild.values()) {
        for (const name of names) if (matcher.test(name)) below.push([name, next]);
        for (const name of undecodable) if (matcher.test(name)) unnamed.push(join(path, name));
      }
    }
    for (const [name, next] of below) visit(join(path, name), next);
  };
  visit("/", root);
  return { found, unnamed };
}

function canonicalAll(tree: PatternNode): { paths: string[]; unnamed: string[] } {
  const paths = new Set<string>();
  const { found, unnamed } = existingPaths(tree);
  for (const path of found) {
    const real = canonical(path);
    if (real !== undefined) paths.add(real);
  }
  const unnamedReal = unnamed.map((path) => join(canonical(dirname(path)) ?? dirname(path), basename(path)));
  return { paths: [...paths], unnamed: unnamedReal };
}

/**
 * The paths to hide: every existing path `deny` names (canonical, so a symlinked `~/.ssh` hides its
 * target; `~/` in every one of `homes`, `$HOME` and the account's own), less those `allow` names exactly,
 * less any at or above a writable root (the workspace stays the workspace), one inside another folded
 * into it. What `allow` names inside a hidden directory stays readable there. The patterns are
 * compiled once; the disk is read on every call.
 */
export function hiddenPathFinder(
  deny: readonly string[],
  allow: readonly string[],
  homes: readonly string[],
): (writableRoots: readonly string[]) => HiddenPath[] {
  const tree = (patterns: readonly string[]) =>
    patternTree(patterns.flatMap((pattern) => absolutePatterns(pattern, homes)));
  // Built on first use: a workspace whose deny list grows before its first command (the snapshot's
  // names) builds them once.
  let trees: { deny: ReturnType<typeof tree>; allow: ReturnType<typeof tree> } | undefined;
  return (writableRoots) => {
    trees ??= { deny: tree(deny), allow: tree(allow) };
    const { deny: denyTree, allow: allowTree } = trees;
    const allowed = allow.length === 0 ? [] : canonicalAll(allowTree).paths;
    const inRoot = (path: string) => writableRoots.some((root) => root === path || isInside(path, root));
    const found = canonicalAll(denyTree);
    const denied = found.paths.filter(
      (path) =>
        !allowed.includes(path) && !writableRoots.some((root) => root === path || isInside(root, path)),
    );
    const outer = denied.filter((path) => !denied.some((other) => isInside(path, other))).sort();
    const unhidden = found.unnamed.find(
      (path) => !inRoot(path) && !outer.some((hidden) => isInside(path, hidden)),
    );
    if (unhidden !== undefined) {
      throw new SandboxError(
        "SANDBOX_UNAVAILABLE",
        `cannot sandbox: ${JSON.stringify(unhidden)} (shown with replacement characters) matches a read ` +
          "deny pattern, and its name is not UTF-8, so the sandbox cannot name it to hide it; rename or " +
          "remove it",
      );
    }
    return outer.map((path) => {
      const isDir = statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
      return {
        path,
        type: isDir ? "dir" : "file",
        readable: isDir ? allowed.filter((inner) => isInside(inner, path)).sort() : [],
      };
    });
  };
}
