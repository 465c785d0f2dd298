import { readFile } from "node:fs/promises";
import { homedir as osHomedir } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { OrchestratorError } from "../errors.js";
import { type ConfigFile, parseConfigFile } from "./config-file.js";
import { applyProjectConfig, applyUserConfig, type ConfigSettings, defaultSettings } from "./merge-config.js";

/** Where to look for config; `env` and `home` default to the real process. */
export interface LoadConfigOptions {
  /** The working directory; the project is the nearest ancestor (itself included) with `.conch/config.toml`. */
  readonly cwd: string;
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** The home directory; else `$HOME` when absolute, else `os.homedir()`. */
  readonly home?: string;
}

/** The effective config: the user file, tightened by the project file, over the defaults. */
export interface ConchConfig extends ConfigSettings {
  /** The directory holding `.conch/config.toml`, or null when none was found. */
  readonly projectDir: string | null;
  /** The config files read, user file first. */
  readonly sources: readonly string[];
  /** Project settings that would have loosened the user's and were ignored, one line each. */
  readonly warnings: readonly string[];
}

interface ConfigDirOptions {
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly home?: string;
}

function resolveHome(options: ConfigDirOptions): string {
  if (options.home !== undefined) return options.home;
  const envHome = (options.env ?? process.env).HOME;
  return envHome !== undefined && isAbsolute(envHome) ? envHome : osHomedir();
}

/**
 * `$XDG_CONFIG_HOME/conch`, else `~/.config/conch`. The XDG spec says a relative `XDG_CONFIG_HOME` is
 * invalid and must be ignored, so it is.
 */
export function conchConfigDir(options: ConfigDirOptions = {}): string {
  const xdg = (options.env ?? process.env).XDG_CONFIG_HOME;
  if (xdg !== undefined && isAbsolute(xdg)) return join(xdg, "conch");
  return join(resolveHome(options), ".config", "conch");
}

/** The file's text, or null when it does not exist. */
async function readIfPresent(path: string): Promise<string | null> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return null;
    throw new OrchestratorError("INVALID_CONFIG", `${path}: cannot read: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

/**
 * Loads `<config dir>/config.toml` and the nearest `<project>/.conch/config.toml` at or above `cwd`
 * (up to the filesystem root, not only the git root: a project config can only tighten, so finding one
 * in a parent is not less safe; its rules dirs still need the user's `trust_project_rules`). Relative
 * paths resolve against the project dir in a project file and against home in the user file; `~/` is
 * home in both. Missing files mean defaults; an unreadable or invalid file throws
 * `INVALID_CONFIG`; a project setting looser than the user's is ignored with a warning.
 */
export async function loadConfig(options: LoadConfigOptions): Promise<ConchConfig> {
  const home = resolveHome(options);
  const configDir = conchConfigDir({ ...options, home });

  const userPath = join(configDir, "config.toml");
  const userText = await readIfPresent(userPath);
  const userFile: ConfigFile | null =
    userText === null ? null : parseConfigFile(userPath, userText, { base: home, home });
  const sources: string[] = userFile === null ? [] : [userPath];
  let settings = applyUserConfig(defaultSettings(configDir), userFile);
  let warnings: string[] = [];

  let projectDir: string | null = null;
  for (let dir = resolve(options.cwd); ; dir = dirname(dir)) {
    const path = join(dir, ".conch", "config.toml");
    const text = await readIfPresent(path);
    if (text !== null) {
      projectDir = dir;
      const project = parseConfigFile(path, text, { base: dir, home });
      sources.push(path);
      ({ settings, warnings } = await applyProjectConfig(settings, userFile, project, dir));
      break;
    }
    if (dirname(dir) === dir) break;
  }

  return { ...settings, projectDir, sources, warnings };
}
