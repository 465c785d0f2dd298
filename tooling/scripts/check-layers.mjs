#!/usr/bin/env node
// Enforces the layer table of DESIGN.md section 2 over every workspace package's package.json and
// imports: its src/ and test/, and the config files at its root (vitest.config.ts, build.mjs, …).
// Usage: node tooling/scripts/check-layers.mjs (from anywhere; paths are repo-relative).
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { checkLayers } from "./layers.mjs";
import { folderCycles, longFiles, MAX_SOURCE_LINES, sourceFiles } from "./structure.mjs";
import { workspacePackages } from "./workspace.mjs";

const root = fileURLToPath(new URL("../..", import.meta.url));
const SOURCE_DIRS = ["src", "test"];
const SOURCE_FILE = /\.[cm]?[jt]sx?$/;

/** @param {string} dir absolute */
function* walk(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === "node_modules" || entry.name.startsWith(".")) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(path);
    else if (entry.isFile() && SOURCE_FILE.test(entry.name)) yield path;
  }
}

const packages = workspacePackages(root).map(({ name, dir, manifest }) => {
  const abs = join(root, dir);
  const paths = readdirSync(abs, { withFileTypes: true })
    .filter((entry) => entry.isFile() && SOURCE_FILE.test(entry.name))
    .map((entry) => join(abs, entry.name));
  for (const sub of SOURCE_DIRS) if (existsSync(join(abs, sub))) paths.push(...walk(join(abs, sub)));
  const files = paths.map((path) => ({
    path: relative(abs, path).split(sep).join("/"),
    text: readFileSync(path, "utf8"),
  }));
  return { name, dir, manifest, files };
});

const violations = checkLayers({ packages });
// Within each package: no import cycle between the folders of src/, no source file over the limit.
for (const { name, dir } of packages) {
  const files = sourceFiles(join(root, dir));
  for (const cycle of folderCycles(files)) {
    violations.push(`${name}: the folders ${cycle.join(", ")} of src/ import each other (a cycle)`);
  }
  for (const { path, lines } of longFiles(files.map((file) => ({ ...file, path: `src/${file.path}` })))) {
    violations.push(`${name}: ${path} has ${lines} lines (at most ${MAX_SOURCE_LINES}): split it`);
  }
}
if (violations.length === 0) {
  console.log(
    `layers ok: ${packages.length} packages, no folder cycles, no source file over ${MAX_SOURCE_LINES} lines`,
  );
} else {
  for (const line of violations) console.error(line);
  console.error(
    `layers: ${violations.length} violation(s); the contract is the table in DESIGN.md section 2, no folder cycles, files of at most ${MAX_SOURCE_LINES} lines`,
  );
  process.exitCode = 1;
}
