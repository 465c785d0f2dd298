import { accessSync, constants, statSync } from "node:fs";
import { type PlatformPath, posix, win32 } from "node:path";

/** What a shell lookup reads from the machine; each defaults to the real one. */
export interface ShellLookupOptions {
  /** Where SHELL, PATH, COMSPEC and SystemRoot are read from. Default: `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** True when `path` is an executable file. Default: asks the file system. */
  readonly exists?: (path: string) => boolean;
  /** Default: `process.platform`. */
  readonly platform?: NodeJS.Platform;
}

/** The machine as one lookup sees it, after defaults are applied. */
export interface Host {
  readonly windows: boolean;
  readonly path: PlatformPath;
  readonly exists: (path: string) => boolean;
  readonly getEnv: (name: string) => string | undefined;
}

/** A null-prototype copy, so nothing inherited from a polluted Object.prototype can pose as an option. */
export function ownOptions<T extends object>(options: T | undefined): T {
  return Object.assign(Object.create(null), options);
}

export function createHost(options: ShellLookupOptions): Host {
  const env = options.env ?? process.env;
  const windows = (options.platform ?? process.platform) === "win32";
  return {
    windows,
    path: windows ? win32 : posix,
    exists: options.exists ?? isExecutableFile,
    // Windows variable names are case-insensitive (`Path`, `ComSpec`), but a plain env object is not.
    getEnv: windows
      ? (name) => {
          const key = Object.keys(env).find((candidate) => candidate.toUpperCase() === name.toUpperCase());
          return key === undefined ? undefined : env[key];
        }
      : (name) => env[name],
  };
}

function isExecutableFile(path: string): boolean {
  try {
    // X_OK alone accepts directories, which have the search bit set.
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
