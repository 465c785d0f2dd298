// The macOS backend: each command under `/usr/bin/sandbox-exec` with a profile made from the resolved
// rules (profile.ts). Only that sandbox-exec is ever run: one found on PATH could be anyone's (Codex
// does the same). It fails closed: off macOS, without sandbox-exec, or inside a sandbox already (a
// Seatbelt profile cannot be applied twice), nothing runs.
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { accessSync, constants, realpathSync } from "node:fs";
import { createServer, type Server } from "node:net";
import {
  type Availability,
  type LocalSandboxBackend,
  SandboxError,
  type SandboxRules,
  type SpawnSpec,
  sandboxEnv,
} from "@conch/sandbox-core";
import { seatbeltArgs, seatbeltProfile } from "./profile.js";

export const SANDBOX_EXEC = "/usr/bin/sandbox-exec";

/** What a probe of sandbox-exec says when the caller already runs under a Seatbelt profile. */
const NESTED = /sandbox_apply: Operation not permitted/;

/** Whether Seatbelt can sandbox here, and if not why and how to fix it. */
export function probeSeatbelt(platform: NodeJS.Platform = process.platform): Availability {
  if (platform !== "darwin") {
    return {
      available: false,
      reason: `Seatbelt (sandbox-exec) exists only on macOS, and this is ${platform}`,
      fix: "use the Linux backend (bubblewrap or Landlock) on Linux",
    };
  }
  try {
    accessSync(SANDBOX_EXEC, constants.X_OK);
  } catch {
    return {
      available: false,
      reason: `${SANDBOX_EXEC} is missing or not executable`,
      fix: "restore macOS's own /usr/bin/sandbox-exec (it ships with every macOS release)",
    };
  }
  const probe = spawnSync(SANDBOX_EXEC, ["-p", "(version 1)(allow default)", "--", "/usr/bin/true"], {
    encoding: "utf8",
    timeout: 10_000,
  });
  if (probe.status === 0) return { available: true };
  const stderr = `${probe.stderr ?? ""}`.trim();
  if (NESTED.test(stderr)) {
    return {
      available: false,
      reason: "this process already runs inside a Seatbelt sandbox, and a profile cannot be applied twice",
      fix: "run Conch outside the other sandbox (not from a sandboxed terminal or app)",
    };
  }
  return {
    available: false,
    reason: `${SANDBOX_EXEC} failed to apply a profile (${probe.error?.message ?? (stderr || `exit ${probe.status}`)})`,
    fix: "check that sandbox-exec runs for this user: /usr/bin/sandbox-exec -p '(version 1)(allow default)' /usr/bin/true",
  };
}

/**
 * `rules` with the host's /tmp and $TMPDIR as Seatbelt sees them: it matches the path a file has once
 * its links are resolved (/private/tmp, /private/var/folders/…), and bwrap's mount targets are given as
 * the command would spell them (/tmp). The other paths of the rules are canonical already.
 */
function withCanonicalTmp(rules: SandboxRules): SandboxRules {
  if (rules.tmp.kind === "host") return rules;
  const userTmp = darwinUserTempDir();
  const targets = [...new Set([...rules.tmp.targets, ...(userTmp === null ? [] : [userTmp])].map(canonical))];
  return { ...rules, tmp: { ...rules.tmp, targets } };
}

let userTempDir: string | null | undefined;

/**
 * The per-user temporary directory macOS gives programs that ask confstr (xcrun, clang, Apple's
 * frameworks) rather than read $TMPDIR: the host's, like /tmp. Null where there is none.
 */
function darwinUserTempDir(): string | null {
  if (userTempDir !== undefined) return userTempDir;
  const ran = spawnSync("/usr/bin/getconf", ["DARWIN_USER_TEMP_DIR"], { encoding: "utf8", timeout: 5_000 });
  const dir = ran.status === 0 ? ran.stdout.trim().replace(/\/+$/, "") : "";
  userTempDir = dir.startsWith("/") ? dir : null;
  return userTempDir;
}

function canonical(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/**
 * The Seatbelt backend. Its commands share the host's network stack: under an allowlist each reaches
 * Conch's proxy through a loopback listener of its own (`listenInside`), the only port its profile lets
 * it connect to.
 */
export function createSeatbeltBackend(): LocalSandboxBackend & { listenInside(): Promise<Server> } {
  let probed: Availability | null = null;
  const backend = {
    name: "seatbelt",
    platform: "darwin" as const,
    async available(): Promise<Availability> {
      probed ??= probeSeatbelt();
      return probed;
    },
    async transform(
      spec: SpawnSpec,
      rules: SandboxRules,
      options: { tty?: boolean; reportLeftovers?: boolean; proxyPort?: number } = {},
    ): Promise<SpawnSpec> {
      const availability = await backend.available();
      if (!availability.available) {
        throw new SandboxError(
          "SANDBOX_UNAVAILABLE",
          `cannot sandbox: ${availability.reason}; fix: ${availability.fix}`,
        );
      }
      const profile = seatbeltProfile(withCanonicalTmp(rules), {
        tag: randomBytes(8).toString("hex"),
        ...(options.proxyPort === undefined ? {} : { proxyPort: options.proxyPort }),
      });
      const env: Record<string, string> = { ...spec.env, ...sandboxEnv("seatbelt", rules) };
      // No mounts on macOS: the workspace's own /tmp is named by TMPDIR (the host's /tmp is unreadable
      // and unwritable); read-only mode has none.
      if (rules.tmp.kind === "private") env.TMPDIR = rules.tmp.source;
      else if (rules.tmp.kind === "empty") delete env.TMPDIR;
      return {
        argv: [SANDBOX_EXEC, ...seatbeltArgs(profile, spec.argv)],
        cwd: spec.cwd,
        env,
        extraFds: [...spec.extraFds],
      };
    },
    /** A listener on this host's loopback, for one command's proxy endpoint (its port is in the profile). */
    async listenInside(): Promise<Server> {
      const server = createServer();
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(0, "127.0.0.1", () => resolve());
      });
      return server;
    },
  };
  return backend;
}
