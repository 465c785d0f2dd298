import { ShellDetectError } from "./errors.js";
import { createHost, type Host, ownOptions, type ShellLookupOptions } from "./host.js";
import { type PasswdOptions, userPasswdShell } from "./passwd.js";
import { describeSearch, findExecutable } from "./search-path.js";
import { type Shell, shellTypeOf } from "./shell-type.js";

export interface DetectShellOptions extends ShellLookupOptions {
  /** passwd(5) text to read the user's entry from instead of the system user database, e.g. a fixture. */
  readonly passwd?: string;
  /** Whose entry to read (with `username`, both must match). Default: the current user. */
  readonly uid?: number;
  readonly username?: string;
}

/**
 * The user's shell. On POSIX: the passwd entry's login shell (what the user chose with chsh, even when
 * `$SHELL` was overridden or never set, as under cron, sudo or a service manager), then `$SHELL`, then the
 * first of bash, zsh, sh. On Windows: pwsh, then Windows PowerShell, then `COMSPEC`, then cmd.
 * A candidate counts only if it is a supported shell and an executable file.
 */
export function detectShell(options?: DetectShellOptions): Shell {
  const own = ownOptions(options);
  const host = createHost(own);
  return host.windows ? detectWindowsShell(host) : detectPosixShell(own, host);
}

function detectPosixShell(options: PasswdOptions, host: Host): Shell {
  const fromPasswd = userPasswdShell(options);
  const fromEnv = host.getEnv("SHELL");
  const shell =
    usableShell(fromPasswd, host) ?? usableShell(fromEnv, host) ?? firstFound(["bash", "zsh", "sh"], host);
  if (shell !== undefined) {
    return shell;
  }
  throw new ShellDetectError(
    "SHELL_NOT_FOUND",
    `no supported shell found (passwd shell ${quote(fromPasswd)}, $SHELL ${quote(fromEnv)}, ` +
      `no bash, zsh or sh in ${describeSearch(host)})`,
  );
}

function detectWindowsShell(host: Host): Shell {
  const comspec = host.getEnv("COMSPEC");
  const shell =
    firstFound(["pwsh", "powershell"], host) ?? usableShell(comspec, host) ?? firstFound(["cmd"], host);
  if (shell !== undefined) {
    return shell;
  }
  throw new ShellDetectError(
    "SHELL_NOT_FOUND",
    `no supported shell found (COMSPEC ${quote(comspec)}, no pwsh, powershell or cmd in ${describeSearch(host)})`,
  );
}

function usableShell(path: string | undefined, host: Host): Shell | undefined {
  if (path === undefined || !host.path.isAbsolute(path)) {
    return undefined;
  }
  const type = shellTypeOf(path);
  return type !== undefined && host.exists(path) ? { type, path } : undefined;
}

function firstFound(names: readonly string[], host: Host): Shell | undefined {
  for (const name of names) {
    const path = findExecutable(name, host);
    const type = shellTypeOf(name);
    if (path !== undefined && type !== undefined) {
      return { type, path };
    }
  }
  return undefined;
}

function quote(value: string | undefined): string {
  return value === undefined ? "unset" : JSON.stringify(value);
}
