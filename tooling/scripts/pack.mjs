// Packing the public packages and judging the tarballs: what is in them (tarEntries, contentProblems),
// publint and attw on them (lintTarball), and the size table. Shared by check-pack.mjs (pnpm verify)
// and check-release.mjs (CI's release dry run).
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { publint } from "publint";
import { formatMessage } from "publint/utils";

/** @param {string} name @param {string} version @returns {string} the file `pnpm pack` writes */
export function tarballName(name, version) {
  return `${name.replace(/^@/, "").replace("/", "-")}-${version}.tgz`;
}

/**
 * The regular files of a .tgz (ustar, with pax or GNU long names), paths without npm's `package/`.
 * @param {Uint8Array} tgz
 * @returns {{path: string, size: number}[]}
 */
export function tarEntries(tgz) {
  const tar = gunzipSync(tgz);
  /** @type {{path: string, size: number}[]} */
  const entries = [];
  /** @type {string | undefined} */
  let longName;
  let offset = 0;
  while (offset + 512 <= tar.length) {
    const header = tar.subarray(offset, offset + 512);
    if (header.every((byte) => byte === 0)) break;
    const field = (/** @type {number} */ start, /** @type {number} */ length) =>
      header
        .subarray(start, start + length)
        .toString("utf8")
        .replace(/\0[\s\S]*$/, "");
    const size = Number.parseInt(field(124, 12).trim() || "0", 8);
    const type = field(156, 1);
    const body = tar.subarray(offset + 512, offset + 512 + size).toString("utf8");
    const prefix = field(345, 155);
    if (type === "x") longName = /(?:^|\n)\d+ path=([^\n]*)\n/.exec(body)?.[1] ?? longName;
    else if (type === "L") longName = body.replace(/\0[\s\S]*$/, "");
    else {
      const name = longName ?? (prefix === "" ? field(0, 100) : `${prefix}/${field(0, 100)}`);
      longName = undefined;
      if (type === "0" || type === "") entries.push({ path: name.replace(/^package\//, ""), size });
    }
    offset += 512 + Math.ceil(size / 512) * 512;
  }
  return entries;
}

/**
 * What a registry page needs of a manifest to be found and followed: a description, keywords, a
 * homepage, where to report bugs, and the repository with the package's directory in it.
 * @param {Record<string, unknown>} manifest
 * @param {string} dir
 * @returns {string[]}
 */
export function manifestProblems(manifest, dir) {
  const problems = [];
  const text = (/** @type {unknown} */ value) => typeof value === "string" && value.trim() !== "";
  if (!text(manifest.description)) problems.push('package.json: no "description"');
  const keywords = manifest.keywords;
  if (!Array.isArray(keywords) || keywords.length === 0 || !keywords.every(text)) {
    problems.push('package.json: "keywords" must be a non-empty list of words');
  }
  if (!text(manifest.homepage)) problems.push('package.json: no "homepage"');
  const bugs = /** @type {{url?: unknown} | string | undefined} */ (manifest.bugs);
  if (!(text(bugs) || (typeof bugs === "object" && bugs !== null && text(bugs.url)))) {
    problems.push('package.json: no "bugs" (an issues URL)');
  }
  const repository = /** @type {{url?: unknown, directory?: unknown} | undefined} */ (manifest.repository);
  if (typeof repository !== "object" || repository === null || !text(repository.url)) {
    problems.push('package.json: no "repository" with a "url"');
  } else if (repository.directory !== dir) {
    problems.push(
      `package.json: "repository.directory" is ${JSON.stringify(repository.directory)}, expected ${JSON.stringify(dir)}`,
    );
  }
  return problems;
}

/**
 * What a tarball lacks or should not carry. `changelog`: the package has a CHANGELOG.md to ship.
 * @param {Record<string, unknown>} manifest
 * @param {{path: string}[]} entries
 * `dir`: the package's directory in the repository, which `repository.directory` must name.
 * @param {{changelog: boolean, dir: string}} options
 * @returns {string[]}
 */
export function contentProblems(manifest, entries, { changelog, dir }) {
  const paths = new Set(entries.map((entry) => entry.path));
  const problems = manifestProblems(manifest, dir);
  for (const required of ["package.json", "README.md", "LICENSE"]) {
    if (!paths.has(required)) problems.push(`no ${required} in the tarball`);
  }
  if (changelog && !paths.has("CHANGELOG.md")) {
    problems.push('CHANGELOG.md is not in the tarball: add it to "files"');
  }
  const files = Array.isArray(manifest.files) ? manifest.files : [];
  if (files.includes("dist") && ![...paths].some((path) => path.startsWith("dist/"))) {
    problems.push("no dist/ in the tarball: packed without a build (the prepack script builds)");
  }
  const tests = [...paths].filter((path) => /\.(?:test|spec)\.[cm]?[jt]sx?$/.test(path));
  if (tests.length > 0) problems.push(`ships tests: ${tests.join(", ")}`);
  const shipsSource = [...paths].some((path) => path.startsWith("src/"));
  const maps = [...paths].filter((path) => path.endsWith(".map"));
  if (!shipsSource && maps.length > 0) {
    problems.push(`ships ${maps.length} source map(s) without the sources they map (e.g. ${maps[0]})`);
  }
  return problems;
}

/**
 * The workspace packages `name` needs installed at runtime, transitively (its tarball alone is not
 * enough without them): dependencies, optionalDependencies and non-optional peerDependencies.
 * @param {string} name
 * @param {{name: string, manifest: Record<string, unknown>}[]} packages
 * @returns {string[]} sorted, without `name`
 */
export function internalRuntimeDeps(name, packages) {
  const byName = new Map(packages.map((pkg) => [pkg.name, pkg.manifest]));
  /** @param {Record<string, unknown>} manifest */
  const direct = (manifest) => {
    const meta = /** @type {Record<string, {optional?: boolean}>} */ (manifest.peerDependenciesMeta ?? {});
    const peers = Object.keys(/** @type {object} */ (manifest.peerDependencies ?? {})).filter(
      (dep) => meta[dep]?.optional !== true,
    );
    return [
      ...Object.keys(/** @type {object} */ (manifest.dependencies ?? {})),
      ...Object.keys(/** @type {object} */ (manifest.optionalDependencies ?? {})),
      ...peers,
    ].filter((dep) => byName.has(dep));
  };
  const seen = new Set();
  const queue = [name];
  while (queue.length > 0) {
    const manifest = byName.get(/** @type {string} */ (queue.shift()));
    if (manifest === undefined) continue;
    for (const dep of direct(manifest)) {
      if (!seen.has(dep) && dep !== name) {
        seen.add(dep);
        queue.push(dep);
      }
    }
  }
  return [...seen].sort();
}

/** @param {number} bytes */
const kb = (bytes) => `${(bytes / 1024).toFixed(1)} kB`;

/**
 * @param {{name: string, packed: number, unpacked: number, files: number, installed?: number}[]} rows
 * @returns {string[]} an aligned table
 */
export function formatSizes(rows) {
  const header = [
    "package",
    "tarball",
    "unpacked",
    "files",
    ...(rows.some((r) => r.installed !== undefined) ? ["installed"] : []),
  ];
  const body = rows.map((row) => [
    row.name,
    kb(row.packed),
    kb(row.unpacked),
    String(row.files),
    ...(row.installed === undefined ? [] : [`${(row.installed / 1024 / 1024).toFixed(1)} MB`]),
  ]);
  const widths = header.map((_, column) =>
    Math.max(...[header, ...body].map((cells) => (cells[column] ?? "").length)),
  );
  return [header, ...body].map((cells) =>
    cells
      .map((cell, column) =>
        column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0),
      )
      .join("  "),
  );
}

/**
 * Runs a command, resolving with its exit code and output, stdout and stderr apart and interleaved
 * (never rejects on a non-zero exit).
 * @param {string} file
 * @param {readonly string[]} args
 * @param {import("node:child_process").SpawnOptions & {input?: string, timeoutMs?: number}} [options]
 * @returns {Promise<{code: number | null, output: string, stdout: string, stderr: string}>}
 */
export function run(file, args, options = {}) {
  const { input, timeoutMs = 300_000, ...spawnOptions } = options;
  return new Promise((resolve) => {
    const child = spawn(file, args, { ...spawnOptions, stdio: ["pipe", "pipe", "pipe"] });
    let output = "";
    let stdout = "";
    let stderr = "";
    child.stdout?.on("data", (/** @type {Buffer} */ data) => {
      output += data.toString();
      stdout += data.toString();
    });
    child.stderr?.on("data", (/** @type {Buffer} */ data) => {
      output += data.toString();
      stderr += data.toString();
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("error", (error) => {
      clearTimeout(timer);
      resolve({
        code: null,
        output: `${output}${error.message}`,
        stdout,
        stderr: `${stderr}${error.message}`,
      });
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, output, stdout, stderr });
    });
    child.stdin?.on("error", () => {});
    child.stdin?.end(input ?? "");
  });
}

/**
 * `pnpm pack` one package into `dest`; its prepack script builds first.
 * @param {string} root the repository (or its copy)
 * @param {{dir: string, name: string, manifest: Record<string, unknown>}} pkg
 * @param {string} dest
 * @returns {Promise<{tarball: string} | {error: string}>}
 */
export async function packPackage(root, pkg, dest) {
  const { code, output } = await run("pnpm", ["pack", "--pack-destination", dest], {
    cwd: join(root, pkg.dir),
  });
  if (code !== 0) return { error: `pnpm pack failed (exit ${code}):\n${output.trim()}` };
  return { tarball: join(dest, tarballName(pkg.name, String(pkg.manifest.version))) };
}

/**
 * publint (strict) and attw (`--profile esm-only`: the packages are ESM only, said in each README) on
 * one tarball. attw only where there are types to check.
 * @param {string} root where node_modules/.bin/attw is
 * @param {string} tarball
 * @param {Record<string, unknown>} manifest
 * @returns {Promise<{ok: boolean, lines: string[]}>}
 */
export async function lintTarball(root, tarball, manifest) {
  const bytes = readFileSync(tarball);
  const lines = [];
  let ok = true;
  const { messages, pkg } = await publint({
    pack: { tarball: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) },
    strict: true,
  });
  for (const message of messages) {
    if (message.type === "error") ok = false;
    lines.push(`publint ${message.type}: ${formatMessage(message, pkg)}`);
  }
  if (hasTypes(manifest)) {
    const attw = await run(
      join(root, "node_modules/.bin/attw"),
      [tarball, "--profile", "esm-only", "--format", "ascii", "--no-color", "--no-emoji"],
      { env: { ...process.env, NO_UPDATE_NOTIFIER: "1" } },
    );
    if (attw.code !== 0) {
      ok = false;
      lines.push(`attw (esm-only) failed:\n${attw.output.trim()}`);
    }
  }
  return { ok, lines };
}

/** @param {Record<string, unknown>} manifest */
function hasTypes(manifest) {
  const exports = /** @type {Record<string, unknown>} */ (
    /** @type {Record<string, unknown>} */ manifest.publishConfig?.exports ?? manifest.exports ?? {}
  );
  return JSON.stringify(exports).includes('"types"');
}

/**
 * Runs `work` over `items`, `limit` at a time, keeping the order of results.
 * @template T, R
 * @param {readonly T[]} items
 * @param {number} limit
 * @param {(item: T) => Promise<R>} work
 * @returns {Promise<R[]>}
 */
export async function mapLimit(items, limit, work) {
  /** @type {R[]} */
  const results = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const index = next++;
        results[index] = await work(/** @type {T} */ (items[index]));
      }
    }),
  );
  return results;
}
