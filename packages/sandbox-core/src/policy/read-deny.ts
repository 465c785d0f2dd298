import { lstatSync, readdirSync, statSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import type { HiddenPath } from "../types.js";
import { canonical, isInside } from "./protected-paths.js";

/**
 * Reads denied by default under read-only and workspace-write (DESIGN.md §5): credentials of the usual
 * tools, shell and REPL history, and the system's password hashes (readable by a root caller, whose
 * uid owns them). `~/` is the home directory; `*` and `?` match within one path component.
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
  "~/.*_history",
  "~/.history",
  "~/.lesshst",
  "~/.local/share/fish/fish_history",
  "/etc/shadow",
  "/etc/gshadow",
  "/etc/ssh/ssh_host_*_key",
];

const WILDCARD = /[*?]/;

function componentPattern(component: string): RegExp {
  const body = component
    .replace(/[.+^${}()|[\]\\]/g, "\\$&")
    .replace(/\*/g, ".*")
    .replace(/\?/g, ".");
  return new RegExp(`^${body}$`);
}

/** `pattern` with `~` expanded for each home; none when it is not absolute. */
function absolutePatterns(pattern: string, homes: readonly string[]): string[] {
  if (pattern === "~" || pattern.startsWith("~/")) return homes.map((home) => join(home, pattern.slice(1)));
  return isAbsolute(pattern) ? [pattern] : [];
}

/** The existing paths a pattern names, as written (not canonical). */
function expandPattern(absolute: string): string[] {
  let paths = ["/"];
  for (const component of absolute.split("/").filter((part) => part !== "")) {
    if (!WILDCARD.test(component)) {
      paths = paths.map((path) => join(path, component));
      continue;
    }
    const matcher = componentPattern(component);
    paths = paths.flatMap((path) => {
      try {
        return readdirSync(path)
          .filter((name) => matcher.test(name))
          .map((name) => join(path, name));
      } catch {
        return [];
      }
    });
  }
  return paths.filter((path) => lstatSync(path, { throwIfNoEntry: false }) !== undefined);
}

function canonicalAll(patterns: readonly string[], homes: readonly string[]): string[] {
  const paths = new Set<string>();
  for (const pattern of patterns) {
    for (const path of absolutePatterns(pattern, homes).flatMap(expandPattern)) {
      const real = canonical(path);
      if (real !== undefined) paths.add(real);
    }
  }
  return [...paths];
}

/**
 * The paths to hide: every existing path `deny` names (canonical, so a symlinked `~/.ssh` hides its
 * target; `~/` in every one of `homes`, `$HOME` and the account's own), less those `allow` names exactly,
 * less any at or above a writable root (the workspace stays the workspace), one inside another folded
 * into it. What `allow` names inside a hidden directory stays readable there.
 */
export function hiddenPaths(
  deny: readonly string[],
  allow: readonly string[],
  homes: readonly string[],
  writableRoots: readonly string[],
): HiddenPath[] {
  const allowed = canonicalAll(allow, homes);
  const denied = canonicalAll(deny, homes).filter(
    (path) => !allowed.includes(path) && !writableRoots.some((root) => root === path || isInside(root, path)),
  );
  const outer = denied.filter((path) => !denied.some((other) => isInside(path, other))).sort();
  return outer.map((path) => {
    const isDir = statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
    return {
      path,
      type: isDir ? "dir" : "file",
      readable: isDir ? allowed.filter((inner) => isInside(inner, path)).sort() : [],
    };
  });
}
