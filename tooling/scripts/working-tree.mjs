// A throwaway copy of the working tree: every file git tracks or would track (ignored ones, such as
// node_modules, dist and .turbo, left out), as it is on disk now, committed or not.
import { execFileSync } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";

/** @param {string} root a git checkout @param {string} dest an existing, empty directory */
export function copyWorkingTree(root, dest) {
  const listed = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    cwd: root,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  // --cached lists files deleted from the working tree but not yet from the index.
  const files = listed.split("\0").filter((file) => file !== "" && existsSync(join(root, file)));
  const archive = join(dest, ".working-tree.tar");
  execFileSync("tar", ["-cf", archive, "--null", "-T", "-"], { cwd: root, input: files.join("\0") });
  execFileSync("tar", ["-xf", archive], { cwd: dest });
  rmSync(archive);
}

/** Makes `dir` a git repository with everything in it committed: tools that hash through git expect one. */
export function commitAll(/** @type {string} */ dir) {
  const git = (/** @type {string[]} */ ...args) =>
    execFileSync("git", ["-c", "user.name=ci", "-c", "user.email=ci@localhost", ...args], {
      cwd: dir,
      stdio: "ignore",
    });
  git("init", "-q", "-b", "main");
  git("add", "-A");
  git("commit", "-q", "--no-verify", "-m", "snapshot");
}
