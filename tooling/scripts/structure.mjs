// The shape of the code, package by package: source files over the line limit, and import cycles
// between the folders of a package's src/ (a folder is src/'s first level; the files at src/'s root,
// the entry and what every folder shares such as errors.ts, are no folder). Type-only imports count: a
// cycle of types is still two folders that cannot be read apart. Used by check-layers.mjs (which fails on either) and by `node tooling/scripts/structure.mjs`,
// which prints the report, with each package's runtime exports when its dist/ is built.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, posix, relative, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { workspacePackages } from "./workspace.mjs";

/** No source file (tests excepted) may be longer. */
export const MAX_SOURCE_LINES = 750;

const SOURCE_FILE = /\.[cm]?tsx?$/;
const TEST_FILE = /\.test\.[cm]?tsx?$/;
const IMPORT =
  /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+["'](\.{1,2}\/[^"']+)["']|import\(\s*["'](\.{1,2}\/[^"']+)["']\s*\)/g;

/** @param {string} dir absolute */
function* walk(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === "node_modules" || entry.name.startsWith(".")) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(path);
    else if (entry.isFile() && SOURCE_FILE.test(entry.name) && !entry.name.endsWith(".d.ts")) yield path;
  }
}

/** The folder of a src-relative path: its first segment, or "." for a file at src/'s root. */
function folderOf(path) {
  const slash = path.indexOf("/");
  return slash === -1 ? "." : path.slice(0, slash);
}

/**
 * @param {{ path: string, text: string }[]} files paths relative to src/, "/"-separated
 * @returns {string[][]} each cycle's folders (a strongly connected set of two or more)
 */
export function folderCycles(files) {
  /** @type {Map<string, Set<string>>} */
  const edges = new Map();
  for (const { path, text } of files) {
    if (TEST_FILE.test(path)) continue;
    const from = folderOf(path);
    if (from === ".") continue;
    if (!edges.has(from)) edges.set(from, new Set());
    for (const match of text.matchAll(IMPORT)) {
      const spec = match[1] ?? match[2];
      const target = posix.normalize(posix.join(posix.dirname(path), spec));
      if (target.startsWith("..")) continue;
      const to = folderOf(target);
      if (to !== from && to !== ".") /** @type {Set<string>} */ (edges.get(from)).add(to);
    }
  }
  // Tarjan's strongly connected components.
  let index = 0;
  const indexes = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const cycles = [];
  const visit = (node) => {
    indexes.set(node, index);
    low.set(node, index);
    index++;
    stack.push(node);
    onStack.add(node);
    for (const next of edges.get(node) ?? []) {
      if (!indexes.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node), low.get(next)));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node), indexes.get(next)));
      }
    }
    if (low.get(node) === indexes.get(node)) {
      const component = [];
      let member;
      do {
        member = stack.pop();
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) cycles.push(component.sort());
    }
  };
  for (const node of [...edges.keys()].sort()) if (!indexes.has(node)) visit(node);
  return cycles;
}

/**
 * @param {{ path: string, text: string }[]} files paths relative to the package, "/"-separated
 * @returns {{ path: string, lines: number }[]} source files (not tests) over MAX_SOURCE_LINES
 */
export function longFiles(files) {
  return files
    .filter(({ path }) => !TEST_FILE.test(path) && !path.startsWith("test/"))
    .map(({ path, text }) => ({ path, lines: text.split("\n").length - (text.endsWith("\n") ? 1 : 0) }))
    .filter(({ lines }) => lines > MAX_SOURCE_LINES);
}

/** The src/ files of the package at `abs`, relative to src/. */
export function sourceFiles(abs) {
  const src = join(abs, "src");
  if (!existsSync(src)) return [];
  return [...walk(src)].map((path) => ({
    path: relative(src, path).split(sep).join("/"),
    text: readFileSync(path, "utf8"),
  }));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = fileURLToPath(new URL("../..", import.meta.url));
  const rows = [];
  for (const { name, dir, manifest } of workspacePackages(root)) {
    const abs = join(root, dir);
    const files = sourceFiles(abs);
    const cycles = folderCycles(files);
    const long = longFiles(files.map((file) => ({ ...file, path: `src/${file.path}` })));
    let exports = "";
    const entry = manifest.exports?.["."]?.default ?? manifest.exports?.["."]?.import;
    if (typeof entry === "string" && existsSync(join(abs, entry))) {
      try {
        exports = String(Object.keys(await import(pathToFileURL(join(abs, entry)).href)).length);
      } catch {
        exports = "?";
      }
    }
    const largest = files
      .filter(({ path }) => !TEST_FILE.test(path))
      .map(({ path, text }) => ({ path, lines: text.split("\n").length }))
      .sort((a, b) => b.lines - a.lines)[0];
    rows.push({ name, exports, largest, cycles, long });
  }
  for (const { name, exports, largest, cycles, long } of rows) {
    console.log(
      `${name}: ${exports === "" ? "" : `${exports} runtime exports; `}largest ${largest ? `${largest.path} (${largest.lines})` : "-"}; ${cycles.length} folder cycle(s)${cycles.length ? ` ${cycles.map((c) => c.join("↔")).join(", ")}` : ""}${long.length ? `; over ${MAX_SOURCE_LINES}: ${long.map((f) => `${f.path} (${f.lines})`).join(", ")}` : ""}`,
    );
  }
}
