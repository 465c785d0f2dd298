import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describeWith } from "@conch/test-config";
import { afterAll, beforeAll, expect, it } from "vitest";

const BIN = fileURLToPath(new URL("../dist/bin.js", import.meta.url));
let dir: string;
let home: string;

beforeAll(() => {
  // Not under /tmp: /tmp is writable inside the sandbox, so it could not show a denied write.
  dir = mkdtempSync("/var/tmp/conch-cli-sandbox-");
  // A home of its own, outside /tmp too: the sandbox gives commands a private /tmp, so a home (and the
  // state dir holding the snapshot script) under the host's /tmp would not be there to read.
  home = mkdtempSync("/var/tmp/conch-cli-sandbox-home-");
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(home, { recursive: true, force: true });
});

function conch(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const { status, stdout, stderr } = spawnSync(process.execPath, [BIN, ...args], {
    encoding: "utf8",
    cwd: dir,
    env: {
      ...process.env,
      HOME: home,
      XDG_CONFIG_HOME: join(home, ".config"),
      XDG_STATE_HOME: join(home, ".state"),
    },
  });
  return { status, stdout, stderr };
}

describeWith("bwrap", "conch sandbox", () => {
  it("says the sandbox works, and whether commands get the user's shell snapshot", () => {
    const result = conch("sandbox", "--check");
    expect(result).toEqual({ status: 0, stdout: expect.any(String), stderr: "" });
    expect(result.stdout).toMatch(
      /^conch sandbox: bwrap runs commands here \(sandbox_backend = "auto", and it works here\)\n(conch sandbox: limits: .*\n)+conch sandbox: bwrap works here \(namespaces and seccomp\)\nconch sandbox: \S+'s login environment is captured once, in the sandbox \(\S+\.sh\); commands run non-login with it\n$/,
    );
  });

  it("writes in the cwd but not outside it, with the command's exit code", () => {
    const outside = join(dir, "..", `conch-outside-${process.pid}`);
    const result = conch("sandbox", "--", "sh", "-c", `echo in > inside.txt && echo out > ${outside}`);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain("Read-only file system");
    expect(readFileSync(join(dir, "inside.txt"), "utf8")).toBe("in\n");
    expect(existsSync(outside)).toBe(false);
  });

  it("writes nowhere under read-only, and outside the cwd under danger-full-access", () => {
    expect(conch("sandbox", "--sandbox", "read-only", "--", "touch", "ro.txt").status).not.toBe(0);
    expect(existsSync(join(dir, "ro.txt"))).toBe(false);
    const outside = join(dir, "..", `conch-free-${process.pid}`);
    expect(conch("sandbox", "--policy", "danger-full-access", "--", "touch", outside).status).toBe(0);
    expect(existsSync(outside)).toBe(true);
    rmSync(outside);
  });

  it("times out and leaves nothing behind, even what left the session", () => {
    const token = `conch-sandbox-left-${process.pid}`;
    const { status } = spawnSync(
      process.execPath,
      [
        BIN,
        "sandbox",
        "--timeout-ms",
        "300",
        "--",
        "sh",
        "-c",
        "setsid sleep 300 & (sleep 301 &); sleep 302",
      ],
      { encoding: "utf8", cwd: dir, env: { ...process.env, LEFT_TOKEN: token } },
    );
    expect(status).toBe(124);
    const alive = readdirSync("/proc").filter((pid) => {
      if (!/^\d+$/.test(pid)) return false;
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
        return (
          stat.charAt(stat.lastIndexOf(")") + 2) !== "Z" &&
          readFileSync(`/proc/${pid}/environ`, "latin1").includes(`LEFT_TOKEN=${token}`)
        );
      } catch {
        return false;
      }
    });
    expect(alive).toEqual([]);
  });

  it("rejects a bad mode with a usage error, under either name of the option", () => {
    expect(conch("sandbox", "--sandbox", "open", "--", "true")).toEqual({
      status: 2,
      stdout: "",
      stderr:
        "conch sandbox: --sandbox: expected one of read-only, workspace-write, danger-full-access, received \"open\"\nRun 'conch sandbox --help' for usage.\n",
    });
    expect(conch("sandbox", "--sandbox", "read-only", "--policy", "read-only", "--", "true").stderr).toBe(
      "conch sandbox: --sandbox and --policy are the same option: give one\nRun 'conch sandbox --help' for usage.\n",
    );
    expect(conch("sandbox", "--policy", "open", "--", "true")).toEqual({
      status: 2,
      stdout: "",
      stderr:
        "conch sandbox: --policy: expected one of read-only, workspace-write, danger-full-access, received \"open\"\nRun 'conch sandbox --help' for usage.\n",
    });
  });
});
