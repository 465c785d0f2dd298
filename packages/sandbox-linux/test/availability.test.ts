import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isSandboxError, type SandboxRules } from "@conch/sandbox-core";
import { itWith } from "@conch/test-config";
import { afterAll, describe, expect, it } from "vitest";
import { probeBwrap, userNamespaceCause } from "../src/bwrap/availability.js";
import { findProgram } from "../src/bwrap/find-program.js";
import { createLinuxBackend } from "../src/index.js";

// Fakes live in a directory of their own and reach the backend only through its `bwrap` option or a
// test's PATH: none is ever installed where the real lookup searches.
const dir = mkdtempSync(join(tmpdir(), "conch-fake-bwrap-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A `bwrap` that answers --version with `version`; any other run leaves `<path>.ran` and fails. */
function fakeBwrap(name: string, version: string): string {
  mkdirSync(join(dir, name));
  const path = join(dir, name, "bwrap");
  writeFileSync(
    path,
    `#!/bin/sh\nif [ "$1" = --version ]; then echo "${version}"; exit 0; fi\ntouch "$0.ran"\necho "bwrap: setting up uid map: Permission denied" >&2\nexit 1\n`,
  );
  chmodSync(path, 0o755);
  return path;
}

const bash = findProgram("bash", process.env);
const UPGRADE_FIX =
  "upgrade bubblewrap to 0.8 or later: Debian 12, Ubuntu 24.04, Fedora 39, Arch and their successors ship it (`apt-get install bubblewrap`, `dnf install bubblewrap`, `pacman -S bubblewrap`); on an older release (Debian 11 and RHEL 9 ship 0.4, Ubuntu 22.04 ships 0.6) install a backported package where your distribution offers one, or remove the distribution's package and install bubblewrap 0.8+ built from https://github.com/containers/bubblewrap into /usr/local/bin";
const tooOld = (version: string, path: string): string =>
  `bubblewrap ${version} at ${path} is too old: the sandbox needs 0.8 or later, whose --disable-userns keeps a sandboxed command from undoing its read-only mounts`;

describe("probeBwrap fails closed with the reason and the fix", () => {
  itWith(["bwrap", "bash"], "finds the system bubblewrap usable here", async () => {
    expect(await probeBwrap("/usr/bin/bwrap", bash)).toEqual({
      available: true,
      bwrap: "/usr/bin/bwrap",
      shell: bash,
    });
  });

  it("when bwrap is missing", async () => {
    const probed = await probeBwrap(null, "/bin/bash");
    expect(probed).toMatchObject({ available: false, reason: "bubblewrap (bwrap) is not installed" });
    expect(probed.available === false && probed.fix).toMatch(
      /^install bubblewrap .*apt-get install bubblewrap/,
    );
  });

  it("when the program is not bubblewrap", async () => {
    const fake = fakeBwrap("impostor", "firejail version 0.9.72");
    const probed = await probeBwrap(fake, "/bin/bash");
    expect(probed.available === false && probed.reason).toBe(
      `${fake} --version did not answer as bubblewrap: firejail version 0.9.72`,
    );
    expect(existsSync(`${fake}.ran`)).toBe(false);
  });

  it.each([
    ["0.4.0", "bubblewrap 0.4.0"],
    ["0.7.1", "bubblewrap 0.7.1"],
    ["0.6", "bubblewrap 0.6"],
  ])(
    "when bubblewrap is older than 0.8 (%s), naming the version and how to upgrade",
    async (version, says) => {
      const fake = fakeBwrap(`old-${version}`, says);
      expect(await probeBwrap(fake, "/bin/bash")).toEqual({
        available: false,
        reason: tooOld(version, fake),
        fix: UPGRADE_FIX,
      });
      expect(existsSync(`${fake}.ran`)).toBe(false);
    },
  );

  it("when a recent bubblewrap cannot create the namespaces", async () => {
    const fake = fakeBwrap("no-userns", "bubblewrap 0.10.0");
    const probed = await probeBwrap(fake, "/bin/bash");
    // The cause is this host's (AppArmor, a sysctl, a container, or the kernel), said with its fix.
    expect(probed).toMatchObject({
      available: false,
      reason: expect.stringMatching(
        /^bubblewrap cannot create the sandbox's namespaces here \(.+\): bwrap: setting up uid map: Permission denied$/,
      ),
      namespaces: true,
    });
    expect(probed.available === false && probed.fix).toMatch(/user namespaces|userns|seccomp|Landlock/);
  });

  it("when bash is missing", async () => {
    const fake = fakeBwrap("no-bash", "bubblewrap 0.8.0");
    expect(await probeBwrap(fake, null)).toEqual({
      available: false,
      reason: "bash is not installed; the sandbox runs it to close inherited descriptors before the command",
      fix: "install bash: `apt-get install bash`, `dnf install bash`, `pacman -S bash`, `apk add bash`",
    });
  });
});

describe("createLinuxBackend refuses an old bubblewrap", () => {
  const rules: SandboxRules = {
    mode: "read-only",
    readableRoots: ["/"],
    writableRoots: [],
    tmp: { kind: "empty", targets: ["/tmp"] },
    hidden: [],
    network: false,
  };

  it.runIf(process.platform === "linux")(
    "given as its bwrap option: unavailable, and transform runs nothing",
    async () => {
      const fake = fakeBwrap("option", "bubblewrap 0.7.0");
      const backend = createLinuxBackend({ bwrap: fake });
      expect(await backend.available()).toEqual({
        available: false,
        reason: tooOld("0.7.0", fake),
        fix: UPGRADE_FIX,
      });
      const refused = await backend
        .transform({ argv: ["true"], cwd: "/", env: {}, extraFds: [] }, rules)
        .catch((error: unknown) => error);
      expect(isSandboxError(refused) && refused.code).toBe("SANDBOX_UNAVAILABLE");
      expect((refused as Error).message).toBe(
        `cannot sandbox: ${tooOld("0.7.0", fake)}; fix: ${UPGRADE_FIX}`,
      );
      expect(existsSync(`${fake}.ran`)).toBe(false);
    },
  );

  it("rejects a bwrap option that is not an absolute path, naming it", () => {
    expect(() => createLinuxBackend({ bwrap: "bwrap" })).toThrow(
      'invalid options: bwrap: expected an absolute path, received "bwrap"',
    );
    expect(() => createLinuxBackend({ bwrap: 7 as unknown as string })).toThrow(
      "invalid options: bwrap: expected an absolute path, received 7",
    );
  });
});

describe("findProgram", () => {
  itWith("bwrap", "prefers the system bwrap over one earlier on PATH", () => {
    const fake = fakeBwrap("on-path", "bubblewrap 0.4.0");
    expect(findProgram("bwrap", { PATH: `${join(dir, "on-path")}:/usr/bin` })).toBe("/usr/bin/bwrap");
    expect(fake).not.toBe("/usr/bin/bwrap");
  });

  it("falls back to an absolute PATH entry, never a relative one", () => {
    fakeBwrap("fallback", "bubblewrap 0.8.0");
    const name = "conch-test-program";
    const path = join(dir, "fallback", name);
    writeFileSync(path, "#!/bin/sh\n");
    chmodSync(path, 0o755);
    expect(findProgram(name, { PATH: `fallback:${join(dir, "fallback")}` })).toBe(path);
    expect(findProgram(name, { PATH: "fallback" })).toBeNull();
  });
});

describe("the cause of a refusal to make user namespaces, from the host", () => {
  const host =
    (files: Record<string, string>) =>
    (path: string): string | null =>
      files[path] ?? null;
  it("names each cause with its own fix", () => {
    expect(
      userNamespaceCause("bwrap: Creating new namespace failed: ... (ENOSPC)", host({}), 1000).cause,
    ).toMatch(/^no more user namespaces may be made here/);
    const apparmor = userNamespaceCause(
      "",
      host({ "/proc/sys/kernel/apparmor_restrict_unprivileged_userns": "1" }),
      1000,
    );
    expect(apparmor.cause).toMatch(/^AppArmor restricts unprivileged user namespaces/);
    expect(apparmor.fix).toContain("apparmor");
    expect(userNamespaceCause("", host({ "/proc/sys/user/max_user_namespaces": "0" }), 0).cause).toMatch(
      /user\.max_user_namespaces=0/,
    );
    expect(
      userNamespaceCause("", host({ "/proc/sys/kernel/unprivileged_userns_clone": "0" }), 1000).cause,
    ).toMatch(/kernel\.unprivileged_userns_clone=0/);
    const container = userNamespaceCause("", host({ "/proc/1/cgroup": "0::/kubepods/besteffort/pod1" }), 0);
    expect(container.cause).toMatch(/looks like a container/);
    expect(container.fix).toContain("seccomp");
    expect(userNamespaceCause("", host({}), 1000).cause).toBe("the kernel refused to make a user namespace");
  });
});
