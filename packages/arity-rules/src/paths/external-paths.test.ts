import { describe, expect, it } from "vitest";
import type { Analysis, Redirect, SimpleCommand } from "../types.js";
import { externalPaths } from "./external-paths.js";

function command(argv: string[], redirects: Redirect[] = [], nested: Analysis | null = null): SimpleCommand {
  return { argv, redirects, text: argv.join(" "), nested };
}
function script(...commands: SimpleCommand[]): Analysis {
  return { commands, operators: commands.slice(1).map(() => "&&" as const), redirects: [], opaque: [] };
}
const write = (target: string): Redirect => ({ kind: "write", operator: ">", fd: null, target });

const options = { cwd: "/work/repo", home: "/home/me" };

describe("externalPaths", () => {
  it("finds file arguments and write targets outside the workspace", () => {
    const analysis = script(
      command(["rm", "-rf", "--", "/etc/x", "build"]),
      command(["cp", "a", "../other/b"]),
      command(["echo", "hi"], [write("/tmp/out.txt")]),
      command(["cat", "~/.ssh/id_rsa"]),
      command(["chmod", "600", "/srv/key", "local"]),
    );
    expect(externalPaths(analysis, ["/work/repo"], options)).toEqual([
      "/etc/x",
      "/work/other/b",
      "/tmp/out.txt",
      "/home/me/.ssh/id_rsa",
      "/srv/key",
    ]);
  });

  it("follows literal cd, including into nested scripts", () => {
    const nested = script(command(["touch", "marker"]));
    const analysis = script(
      command(["cd", ".."]),
      command(["mkdir", "x"]),
      command(["bash", "-c", "touch marker"], [], nested),
    );
    expect(externalPaths(analysis, ["/work/repo"], options)).toEqual(["/work", "/work/x", "/work/marker"]);
  });

  it("is empty for work inside the workspace, reads, and device files", () => {
    const analysis = script(
      command(["ls", "/etc"]),
      command(["cat", "src/a.ts", "./b"]),
      command(["grep", "x", "/etc/passwd"], [write("/dev/null")]),
      command(["tee", "/work/repo/log"]),
    );
    expect(externalPaths(analysis, ["/work/repo", "/tmp"], options)).toEqual([]);
  });

  it("looks through runners and finds target directories given as options", () => {
    const analysis = script(
      command(["sudo", "rm", "/etc/x"]),
      command(["timeout", "5", "touch", "/srv/y"]),
      command(["cp", "-t", "/opt/a", "f"]),
      command(["cp", "--target-directory=/opt/b", "f"]),
      command(["mv", "-vt/opt/c", "f"]),
    );
    expect(externalPaths(analysis, ["/work/repo"], options)).toEqual([
      "/etc/x",
      "/srv/y",
      "/opt/a",
      "/opt/b",
      "/opt/c",
    ]);
  });

  it("treats `cd -` and `cat -` as naming no path", () => {
    const analysis = script(command(["cd", "-"]), command(["cat", "-"]), command(["touch", "x"]));
    expect(externalPaths(analysis, ["/work/repo"], options)).toEqual([]);
  });

  it("does not treat a sibling directory with a common prefix as inside", () => {
    expect(externalPaths(script(command(["touch", "/work/repo-old/x"])), ["/work/repo"], options)).toEqual([
      "/work/repo-old/x",
    ]);
  });
});
