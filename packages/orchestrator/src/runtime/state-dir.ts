import { homedir as osHomedir } from "node:os";
import { isAbsolute, join } from "node:path";

/** Where to look for the state directory; both default to the real process. */
export interface StateDirOptions {
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly homedir?: () => string;
}

/**
 * `$XDG_STATE_HOME/conch`, else `$HOME/.local/state/conch`. The XDG spec says a relative
 * `XDG_STATE_HOME` is invalid and must be ignored, so it is.
 */
export function conchStateDir(options: StateDirOptions = {}): string {
  const env = options.env ?? process.env;
  const xdg = env.XDG_STATE_HOME;
  if (xdg !== undefined && isAbsolute(xdg)) return join(xdg, "conch");
  const envHome = env.HOME;
  const home = envHome !== undefined && isAbsolute(envHome) ? envHome : (options.homedir ?? osHomedir)();
  return join(home, ".local", "state", "conch");
}
