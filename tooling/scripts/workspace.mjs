// The workspace's packages as pnpm sees them: the `packages:` globs of pnpm-workspace.yaml (a
// directory or `dir/*`), each directory with a package.json.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * The `packages:` list of a pnpm-workspace.yaml (only the forms this repository uses).
 * @param {string} yaml
 * @returns {string[]}
 */
export function workspaceGlobs(yaml) {
  const globs = [];
  let inPackages = false;
  for (const line of yaml.split("\n")) {
    if (/^\S/.test(line)) inPackages = /^packages:\s*$/.test(line);
    else if (inPackages) {
      const match = /^\s+-\s+["']?([^"'#\s]+)["']?\s*(?:#.*)?$/.exec(line);
      if (match !== null) globs.push(/** @type {string} */ (match[1]));
    }
  }
  return globs;
}

/**
 * @typedef {{name: string, dir: string, manifest: Record<string, unknown>}} Package
 *   dir relative to the repository root, "/"-separated
 * @param {string} root
 * @returns {Package[]} sorted by dir
 */
export function workspacePackages(root) {
  const dirs = workspaceGlobs(readFileSync(join(root, "pnpm-workspace.yaml"), "utf8")).flatMap((glob) => {
    if (!glob.endsWith("/*")) return [glob];
    const parent = glob.slice(0, -2);
    if (!existsSync(join(root, parent))) return [];
    return readdirSync(join(root, parent), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => `${parent}/${entry.name}`);
  });
  return dirs
    .filter((dir) => existsSync(join(root, dir, "package.json")))
    .sort()
    .map((dir) => {
      const manifest = JSON.parse(readFileSync(join(root, dir, "package.json"), "utf8"));
      return { name: String(manifest.name), dir, manifest };
    });
}
