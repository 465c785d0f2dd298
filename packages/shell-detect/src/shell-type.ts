import { win32 } from "node:path";

export const SHELL_TYPES = ["bash", "zsh", "sh", "dash", "fish", "pwsh", "powershell", "cmd"] as const;

export type ShellType = (typeof SHELL_TYPES)[number];

/** A shell Conch can run scripts in: what kind it is and the executable to spawn. */
export interface Shell {
  readonly type: ShellType;
  readonly path: string;
}

/**
 * The shell type named by the basename of `path`, or `undefined` when it is not a supported shell.
 * Symlinks are not followed: `/bin/sh` stays `sh` even where it points at bash or dash, because a shell
 * invoked as `sh` switches to POSIX behaviour.
 */
export function shellTypeOf(path: string): ShellType | undefined {
  // win32.basename splits on both separators, so Windows paths work on any host.
  const base = win32.basename(path);
  // Windows file names are case-insensitive, so `PowerShell.exe` and `CMD.EXE` name known shells.
  const name = /\.exe$/i.test(base) ? base.slice(0, -4).toLowerCase() : base;
  return SHELL_TYPES.find((type) => type === name);
}
