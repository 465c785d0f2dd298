import { ShellDetectError, unsupportedShellError } from "./errors.js";
import { createHost, ownOptions, type ShellLookupOptions } from "./host.js";
import { describeSearch, findExecutable } from "./search-path.js";
import { type Shell, shellTypeOf } from "./shell-type.js";

/**
 * The shell named explicitly by the user: a bare name such as `"zsh"` is looked up in PATH and the system
 * shell directories, a path such as `"/bin/dash"` is taken as given (relative to the cwd).
 */
export function resolveShell(nameOrPath: string, options?: ShellLookupOptions): Shell {
  const host = createHost(ownOptions(options));
  const type = shellTypeOf(nameOrPath);
  if (type === undefined) {
    throw unsupportedShellError(nameOrPath);
  }
  const bareName = host.windows ? !/[\\/]/.test(nameOrPath) : !nameOrPath.includes("/");
  if (bareName) {
    const path = findExecutable(nameOrPath, host);
    if (path === undefined) {
      throw new ShellDetectError(
        "SHELL_NOT_FOUND",
        `shell ${JSON.stringify(nameOrPath)} not found in ${describeSearch(host)}`,
      );
    }
    return { type, path };
  }
  const path = host.path.resolve(nameOrPath);
  if (!host.exists(path)) {
    throw new ShellDetectError(
      "SHELL_NOT_FOUND",
      `shell ${JSON.stringify(nameOrPath)} not found (no executable file at ${JSON.stringify(path)})`,
    );
  }
  return { type, path };
}
