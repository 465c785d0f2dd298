import { lstatSync } from "node:fs";
import { homedir as osHomedir } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";
import type { RulesFile } from "@conch/exec-policy";
import { OrchestratorError } from "../errors.js";
import { conchStateDir } from "../runtime/state-dir.js";
import { type ConfigFile, parseConfigFile } from "./config-file.js";
import { keyLine } from "./key-lines.js";
import { applyProjectConfig, applyUserConfig, type ConfigSettings, defaultSettings } from "./merge-config.js";
import { projectDigest, recordTrust, trustedAt, wasTrusted } from "./project-trust.js";
import { readConfigText } from "./read-config-text.js";
import { readRulesDir } from "./read-rules-dir.js";

/** Where to look for config; `env` and `home` default to the real process. */
export interface LoadConfigOptions {
  /** The working directory; the project is the nearest ancestor (itself included) with `.conch/config.toml`. */
  readonly cwd: string;
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** The home directory; else `$HOME` when absolute, else `os.homedir()`. */
  readonly home?: string;
  /**
   * The user config file to read instead of `<config dir>/config.toml` (conchd's `--config`); it must
   * exist. The rules, state and the rest stay where they are.
   */
  readonly userConfigPath?: string;
}

/** The effective config: the user file, tightened by each project file, over the defaults. */
export interface ConchConfig extends ConfigSettings {
  /** The nearest directory holding `.conch/config.toml`, or null when none was found. */
  readonly projectDir: string | null;
  /** The config files read, user file first. */
  readonly sources: readonly string[];
  /** Project settings that would have loosened the user's and were ignored, one line each. */
  readonly warnings: readonly string[];
  /**
   * Every rules file `rulesDirs` holds, in order, each read once while the config loaded: a trusted
   * project's are the very texts its digest matched. The policy is parsed from these, never re-read.
   */
  readonly rules: readonly RulesFile[];
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

/** Every `<dir>/.conch/config.toml` at or above `cwd`, parsed, nearest first. */
/** Whether `path` is a symbolic link; false when it is missing or cannot be looked at. */
function isSymbolicLink(path: string): boolean {
  try {
    return lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink() === true;
  } catch {
    return false;
  }
}

async function findProjectFiles(cwd: string, home: string): Promise<{ dir: string; file: ConfigFile }[]> {
  const found: { dir: string; file: ConfigFile }[] = [];
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    const path = join(dir, ".conch", "config.toml");
    if (isSymbolicLink(join(dir, ".conch"))) {
      throw new OrchestratorError(
        "INVALID_CONFIG",
        `${join(dir, ".conch")}: a symbolic link; Conch reads a project's config only from a real .conch directory (a sandboxed command could have planted the link): replace it with the directory`,
      );
    }
    const text = await readConfigText(path);
    if (text !== null) found.push({ dir, file: parseConfigFile(path, text, { base: dir, home }) });
    if (dirname(dir) === dir) return found;
  }
}

/** A project's rules dirs as read for its trust check, and whether they may load. */
interface ProjectRules {
  /** Null when trusted; else why not, for the warning. */
  readonly refusal: string | null;
  /** Each of its rules dirs' files, as read. */
  readonly dirs: ReadonlyMap<string, readonly RulesFile[]>;
}

/** Each of `dirs` read once (a project's: never through a symlink), and all their files in order. */
async function readProjectRules(
  dirs: readonly string[],
): Promise<{ byDir: Map<string, readonly RulesFile[]>; files: RulesFile[] }> {
  const byDir = new Map<string, readonly RulesFile[]>();
  const files: RulesFile[] = [];
  for (const dir of dirs) {
    let read = byDir.get(dir);
    if (read === undefined) {
      read = await readRulesDir(dir, { followSymlinks: false });
      byDir.set(dir, read);
    }
    files.push(...read);
  }
  return { byDir, files };
}

/**
 * Whether a project's rules may load: the person ran `conch trust` on it, and neither its config nor any
 * of its rules files changed since. The files are read once, here: what was digested is what loads.
 */
async function projectRules(stateDir: string, dir: string, file: ConfigFile): Promise<ProjectRules> {
  const { byDir, files } = await readProjectRules(file.values.rulesDirs ?? []);
  const digest = projectDigest(file.text, files);
  if ((await trustedAt(stateDir, dir, digest)) !== null) return { refusal: null, dirs: byDir };
  return {
    refusal: (await wasTrusted(stateDir, dir))
      ? `the project's config or rules changed since \`conch trust\` (review them, then run \`conch trust ${dir}\` again)`
      : `the project is not trusted (review its .conch, then run \`conch trust ${dir}\`)`,
    dirs: byDir,
  };
}

/**
 * The rules files of `dirs`, in order: a trusted project's dirs as read for its trust check, the others
 * (the user's own, which no sandboxed command can write) read now, following symlinks.
 */
async function rulesOf(
  dirs: readonly string[],
  pinned: ReadonlyMap<string, readonly RulesFile[]>,
): Promise<RulesFile[]> {
  const files: RulesFile[] = [];
  for (const dir of dirs) {
    files.push(...(pinned.get(dir) ?? (await readRulesDir(dir, { followSymlinks: true }))));
  }
  return files;
}

/**
 * Loads `<config dir>/config.toml` and every `<project>/.conch/config.toml` at or above `cwd`, the
 * outermost first (up to the filesystem root, not only the git root: a project config can only
 * tighten, so reading one in a parent is not less safe; its rules dirs load only for a project trusted
 * with `conch trust`, as it was then). Relative paths resolve against the project dir in a project file and against home in the
 * user file; `~/` is home in both. Missing files mean defaults; an unreadable or invalid file throws
 * `INVALID_CONFIG`; a project setting looser than the user's is ignored with a warning.
 */
export async function loadConfig(options: LoadConfigOptions): Promise<ConchConfig> {
  const home = resolveHome(options);
  const configDir = conchConfigDir({ ...options, home });

  const userPath = options.userConfigPath ?? join(configDir, "config.toml");
  const userText = await readConfigText(userPath);
  if (userText === null && options.userConfigPath !== undefined) {
    throw new OrchestratorError("INVALID_CONFIG", `config file not found: ${userPath}`);
  }
  const userFile: ConfigFile | null =
    userText === null ? null : parseConfigFile(userPath, userText, { base: home, home });
  const sources: string[] = userFile === null ? [] : [userPath];
  let settings = applyUserConfig(defaultSettings(configDir), userFile);
  let warnings: string[] = [];
  if (userFile?.values.trustProjectRules !== undefined) {
    warnings.push(
      `${userPath}:${keyLine(userFile.text, "trust_project_rules")}: trust_project_rules ignored: ` +
        "project rules now load per project, pinned as they were, after `conch trust DIR`",
    );
  }

  // Every project file from the outermost in: each can only tighten what it is given, so a nearer one (one
  // a sandboxed command made in a subdirectory, say) never loosens what an outer one set.
  const projects = await findProjectFiles(options.cwd, home);
  const stateDir = conchStateDir({ env: options.env ?? process.env, homedir: () => home });
  const origins = new Map<string, string>(
    [...(userFile?.keys ?? [])].map((key) => [key, "the user config's"]),
  );
  const originOf = (key: string): string => origins.get(key) ?? "the default";
  const pinned = new Map<string, readonly RulesFile[]>();
  for (const project of [...projects].reverse()) {
    sources.push(project.file.path);
    const rules =
      project.file.values.rulesDirs === undefined
        ? null
        : await projectRules(stateDir, project.dir, project.file);
    const refusal = rules?.refusal ?? null;
    // A dir an outer trusted project named too keeps that project's read: both were trusted with theirs.
    for (const [dir, files] of refusal === null ? (rules?.dirs ?? []) : []) {
      if (!pinned.has(dir)) pinned.set(dir, files);
    }
    let projectWarnings: string[];
    ({ settings, warnings: projectWarnings } = await applyProjectConfig(
      settings,
      originOf,
      project.file,
      project.dir,
      refusal,
    ));
    warnings = [...warnings, ...projectWarnings];
    for (const key of project.file.keys) origins.set(key, `${project.file.path}'s`);
  }

  return {
    ...settings,
    projectDir: projects[0]?.dir ?? null,
    sources,
    warnings,
    rules: await rulesOf(settings.rulesDirs, pinned),
  };
}

/** What `trustProject` pinned. */
export interface TrustedProject {
  readonly projectDir: string;
  readonly digest: string;
}

/**
 * Trusts the project holding `cwd` (nearest `.conch/config.toml` at or above it) as it is now: its rules
 * load until its config or a rules file changes. `revoke` forgets it instead. Throws `INVALID_CONFIG`
 * when there is no project file.
 */
export async function trustProject(
  options: LoadConfigOptions & { revoke?: boolean },
): Promise<TrustedProject> {
  const home = resolveHome(options);
  const [project] = await findProjectFiles(options.cwd, home);
  if (project === undefined) {
    throw new OrchestratorError(
      "INVALID_CONFIG",
      `no project config (.conch/config.toml) at or above ${resolve(options.cwd)}: nothing to trust`,
    );
  }
  const stateDir = conchStateDir({ env: options.env ?? process.env, homedir: () => home });
  const { files } = await readProjectRules(project.file.values.rulesDirs ?? []);
  const digest = projectDigest(project.file.text, files);
  await recordTrust(stateDir, project.dir, options.revoke === true ? null : digest);
  return { projectDir: project.dir, digest };
}
