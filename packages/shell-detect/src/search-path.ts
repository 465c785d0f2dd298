import type { Host } from "./host.js";

/** The first `name` executable in PATH or the system's shell directories. */
export function findExecutable(name: string, host: Host): string | undefined {
  const file = host.windows && !/\.exe$/i.test(name) ? `${name}.exe` : name;
  for (const dir of searchDirs(host)) {
    const candidate = host.path.join(dir, file);
    if (host.exists(candidate)) {
      return candidate;
    }
  }
  return undefined;
}

/** Where findExecutable looks, as error messages name it. */
export function describeSearch(host: Host): string {
  return ["PATH", ...systemDirs(host)].join(", ");
}

function searchDirs(host: Host): string[] {
  const fromPath = (host.getEnv("PATH") ?? "")
    .split(host.path.delimiter)
    // Empty and relative entries resolve against the cwd, often an untrusted checkout: a `bash` planted
    // there must not become the shell every command runs in.
    .filter((dir) => host.path.isAbsolute(dir));
  return [...new Set([...fromPath, ...systemDirs(host)])];
}

// Searched after PATH because an agent's PATH is often stripped down, yet every system ships a shell here.
function systemDirs(host: Host): string[] {
  if (!host.windows) {
    return ["/bin", "/usr/bin"];
  }
  const system32 = host.path.join(host.getEnv("SystemRoot") ?? "C:\\Windows", "System32");
  return [system32, host.path.join(system32, "WindowsPowerShell", "v1.0")];
}
