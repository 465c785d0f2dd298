// Which of git's config keys name something git runs, or a file that decides what it runs, at the
// person's next git command. Only data: `git-config-paths.ts` reads the values git itself reports.

/**
 * Keys whose whole value is one path (git's `pathname` type), and what a relative one is relative to:
 * `top` the work tree's top (where git runs its hooks and resolves these), `origin` the directory of the
 * config file that says it (include paths).
 * - `core.hookspath`: the hooks dir; `core.attributesfile`: attributes pick filter, diff and merge drivers;
 * - `init.templatedir`: copied into every new repository, hooks included;
 * - `include.path`, `includeif.<cond>.path`: more config, whatever the condition says now.
 */
export const GIT_PATH_KEYS: ReadonlyMap<string, "top" | "origin"> = new Map([
  ["core.hookspath", "top"],
  ["core.attributesfile", "top"],
  ["init.templatedir", "top"],
  ["include.path", "origin"],
]);

/** `includeIf.<condition>.path`: a section with a subsection; matched apart from `GIT_PATH_KEYS`. */
export const GIT_INCLUDE_IF_SECTION = "includeif";

/**
 * The last part of a key whose value is a command git runs through the shell (or a program it execs):
 * `core.fsmonitor` (unless a boolean), `core.sshcommand`, `core.editor`, `core.pager`, `core.askpass`,
 * `core.gitproxy`, `sequence.editor`, `diff.external`, `gpg[.<format>].program`,
 * `gpg.ssh.defaultkeycommand`, `credential[.<url>].helper`, `interactive.difffilter`,
 * `uploadpack.packobjectshook`, `diff.<driver>.command|textconv`, `filter.<driver>.clean|smudge|process`,
 * `merge.<driver>.driver`, `mergetool|difftool|man|browser|guitool.<tool>.cmd|path`,
 * `trailer.<token>.command|cmd`, `tar.<format>.command`, `remote.<name>.receivepack|uploadpack`,
 * `submodule.<name>.update` (`!command`), `sendemail.smtpserver|sendmailcmd|tocmd|cccmd`, `instaweb.httpd`.
 * Matching by the last part alone catches keys of the same shape in sections not listed: a path it names
 * is protected only when it lies in a writable root, so a false match costs nothing.
 */
export const GIT_COMMAND_VARIABLES: ReadonlySet<string> = new Set([
  "askpass",
  "cccmd",
  "clean",
  "cmd",
  "command",
  "defaultkeycommand",
  "difffilter",
  "driver",
  "editor",
  "external",
  "fsmonitor",
  "gitproxy",
  "helper",
  "httpd",
  "packobjectshook",
  "pager",
  "path",
  "process",
  "program",
  "receivepack",
  "sendmailcmd",
  "smtpserver",
  "smudge",
  "sshcommand",
  "textconv",
  "tocmd",
  "update",
  "uploadpack",
]);

/** Sections every variable of which is a command: `alias.<name>` (`!command`), `pager.<command>`. */
export const GIT_COMMAND_SECTIONS: ReadonlySet<string> = new Set(["alias", "pager"]);

/**
 * Sections whose `path` is not a program: a submodule's `path` is where it is checked out in the work
 * tree, which the sandboxed command must be able to edit.
 */
export const GIT_NON_COMMAND_PATH_SECTIONS: ReadonlySet<string> = new Set(["submodule"]);

/**
 * Paths inside a git directory that decide what git runs or where it reads from:
 * - `config`, `config.worktree`: settings, among them hooks, aliases, filters, pagers, `core.worktree`;
 * - `hooks`: the programs git runs at a commit, a checkout, a merge, a push;
 * - `commondir` (a linked worktree's pointer to the shared repository) and a worktree's `gitdir` (its
 *   work tree, which `git worktree remove` deletes): git would read config and hooks from, or delete,
 *   another directory;
 * - `objects/info/alternates`, `objects/info/http-alternates`: other object stores git reads;
 * - `remotes/`, `branches/`: remotes in git's oldest format, which `git fetch NAME` reads.
 * Not here: `info/attributes` picks only drivers that config defines (and the work tree's own
 * `.gitattributes`, which the command may write anyway, does the same); `info/exclude`, `description`,
 * `packed-refs`, `shallow`, and the state of a rebase, a merge or a cherry-pick are git's ordinary work.
 */
export const GIT_DIR_CONTROL: readonly string[] = [
  "config",
  "config.worktree",
  "hooks",
  "commondir",
  "gitdir",
  "objects/info/alternates",
  "objects/info/http-alternates",
  "remotes",
  "branches",
];
