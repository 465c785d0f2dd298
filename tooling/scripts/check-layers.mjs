#!/usr/bin/env node
// Enforces the layer table of DESIGN.md section 2 over every workspace package's package.json and
// imports. Usage: node tooling/scripts/check-layers.mjs (from anywhere; paths are repo-relative).
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { checkLayers } from "./layers.mjs";

const root = fileURLToPath(new URL("../..", import.meta.url));
const SOURCE_DIRS = ["src", "test"];
const SOURCE_FILE = /\.[cm]?tsx?$/;

/** @param {string} dir absolute */
function* walk(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === "node_modules" || entry.name.startsWith(".")) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(path);
    else if (entry.isFile() && SOURCE_FILE.test(entry.name)) yield path;
  }
}

function readWorkspace() {
  const packages = [];
  for (const group of ["packages", "apps"]) {
    const groupDir = join(root, group);
    if (!existsSync(groupDir)) continue;
    for (const entry of readdirSync(groupDir, { withFileTypes: true })) {
      const dir = join(groupDir, entry.name);
      const manifestPath = join(dir, "package.json");
      // A folder without package.json is not a workspace package (pnpm skips it too).
      if (!entry.isDirectory() || !existsSync(manifestPath)) continue;
      const manifest = JSON.parse(readFileSync(manifestPath, "utf8"));
      const files = [];
      for (const sub of SOURCE_DIRS) {
        if (!existsSync(join(dir, sub))) continue;
        for (const path of walk(join(dir, sub))) {
          files.push({ path: relative(dir, path).split(sep).join("/"), text: readFileSync(path, "utf8") });
        }
      }
      packages.push({ name: String(manifest.name), dir: `${group}/${entry.name}`, manifest, files });
    }
  }
  return packages;
}

const packages = readWorkspace();
const violations = checkLayers({ packages });
if (violations.length === 0) {
  console.log(`layers ok: ${packages.length} packages`);
} else {
  for (const line of violations) console.error(line);
  console.error(
    `layers: ${violations.length} violation(s); the contract is the table in DESIGN.md section 2`,
  );
  process.exitCode = 1;
}
