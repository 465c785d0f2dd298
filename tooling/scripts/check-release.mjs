#!/usr/bin/env node
// The release, rehearsed on a throwaway copy of the working tree, then each package installed the way a
// consumer installs it from npm:
//  1. copy (unbuilt: dist/ is ignored), install offline from the store, `changeset version`;
//  2. `pnpm pack` every public package (its prepack builds), then what is in each tarball, publint
//     (strict) and attw (esm-only) on it;
//  3. each tarball alone, with only the tarballs of the workspace packages it needs at runtime, into an
//     empty project with an empty HOME and npm cache (third-party dependencies from the registry,
//     `@conch/*` never): its README's first example run by Node (types stripped), a `tsc --noEmit`
//     consumer under `strict` and NodeNext (the example as TypeScript, and the whole public API), or for a
//     bin its smoke commands; the size of everything.
// Usage: node tooling/scripts/check-release.mjs [--keep] (--keep leaves the temp directory and says where)
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  contentProblems,
  formatSizes,
  internalRuntimeDeps,
  lintTarball,
  mapLimit,
  packPackage,
  run,
  tarEntries,
} from "./pack.mjs";
import { firstExample, installedPackages, stripTypes } from "./readme.mjs";
import { commitAll, copyWorkingTree } from "./working-tree.mjs";
import { workspacePackages } from "./workspace.mjs";

const root = fileURLToPath(new URL("../..", import.meta.url));
const keep = process.argv.includes("--keep");
const started = Date.now();
const elapsed = () => `${((Date.now() - started) / 1000).toFixed(0)} s`;

// What a consumer of a bin runs first; each must exit 0 and print what is given. They load every
// external the bundle leaves to node_modules: tree-sitter (explain), the spawner (run), node-pty and
// @xterm/headless (a PTY session through replay).
/** @type {Record<string, {args: string[], input?: string, prints: string}[]>} */
const SMOKE = {
  "@conch/cli": [
    { args: ["--version"], prints: "{version}" },
    { args: ["explain", "ls -la | head -n 3"], prints: "Known safe: yes" },
    { args: ["run", "--", "echo", "conch-run-ok"], prints: "conch-run-ok" },
    {
      args: ["replay", "-"],
      input: `${JSON.stringify({ tool: "exec_command", arguments: { cmd: "echo conch-pty-ok", tty: true, yield_time_ms: 2000 } })}\n`,
      prints: "conch-pty-ok",
    },
  ],
};

/**
 * The packages an example imports that are neither Node's nor among `installed` (a subpath counts as its
 * package): with npm's flat node_modules a dependency's dependency resolves anyway, with pnpm it does not.
 * @param {string} code
 * @param {readonly string[]} installed
 */
function undeclared(code, installed) {
  const specifiers = [...code.matchAll(/\bfrom\s+"([^"]+)"|\bimport\s*\(\s*"([^"]+)"\s*\)/g)].map(
    (match) => /** @type {string} */ (match[1] ?? match[2]),
  );
  const packageOf = (spec) =>
    spec
      .split("/")
      .slice(0, spec.startsWith("@") ? 2 : 1)
      .join("/");
  return [
    ...new Set(
      specifiers
        .filter((spec) => !spec.startsWith("node:") && !spec.startsWith("."))
        .map(packageOf)
        .filter((name) => !installed.includes(name)),
    ),
  ];
}

/** @param {string} path */
function duBytes(path) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path, { throwIfNoEntry: false });
  if (stat === undefined || stat.isSymbolicLink()) return 0;
  if (!stat.isDirectory()) return stat.size;
  return readdirSync(path).reduce((sum, name) => sum + duBytes(join(path, name)), 0);
}

/** The workspace catalog (pnpm-workspace.yaml): package name to range. */
const catalog = new Map(
  [
    ...(readFileSync(join(root, "pnpm-workspace.yaml"), "utf8")
      .split(/^catalog:\s*$/m)[1]
      ?.split(/^\S/m)[0]
      ?.matchAll(/^\s+"?([^":\s]+)"?:\s*"?([^"\n]+?)"?\s*$/gm) ?? []),
  ].map((match) => [/** @type {string} */ (match[1]), /** @type {string} */ (match[2])]),
);

/** The `@types/node` range of the workspace catalog: what the consumer compiles against. */
function typesNodeRange() {
  const range = catalog.get("@types/node");
  if (range === undefined) throw new Error("pnpm-workspace.yaml: no @types/node in the catalog");
  return range;
}

const CONSUMER_TSCONFIG = {
  compilerOptions: {
    strict: true,
    module: "nodenext",
    moduleResolution: "nodenext",
    target: "es2022",
    lib: ["es2023"],
    types: ["node"],
    noEmit: true,
    skipLibCheck: false,
  },
};

/**
 * @param {{name: string, dir: string, manifest: Record<string, unknown>}} pkg
 * @param {Map<string, string>} tarballs by package name
 * @param {{name: string, manifest: Record<string, unknown>}[]} packages
 * @param {string} base
 * @param {string} repoDir the copy the tarballs were packed from
 */
async function installAlone(pkg, tarballs, packages, base, repoDir) {
  const short = pkg.name.replace("@conch/", "");
  const project = join(base, short);
  const home = join(base, `${short}.home`);
  // One npm cache for the whole rehearsal: empty when it starts, shared by the consumers (npm's cache is
  // safe for concurrent installs), so each third-party package is downloaded once.
  const cache = join(base, "npm-cache");
  const work = join(project, "work");
  for (const dir of [project, home, cache, work]) mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(project, "package.json"),
    `${JSON.stringify({ name: `consumer-of-${short}`, version: "0.0.0", private: true, type: "module" }, null, 2)}\n`,
  );
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_STATE_HOME: join(home, ".local", "state"),
    LANG: "C.UTF-8",
    npm_config_cache: cache,
    npm_config_update_notifier: "false",
    npm_config_fund: "false",
    npm_config_audit: "false",
  };
  const lines = [];
  // What the README tells its reader to install beside the package (an optional peer, another layer its
  // example imports): @conch/* from their tarballs, anything else at the workspace catalog's range.
  const readme = join(repoDir, pkg.dir, "README.md");
  const told = existsSync(readme) ? installedPackages(readFileSync(readme, "utf8")) : [];
  const unknown = told.filter((name) => name.startsWith("@conch/") && !tarballs.has(name));
  if (unknown.length > 0) {
    return {
      ok: false,
      installed: 0,
      lines: [`its README installs ${unknown.join(", ")}: no such public package`],
    };
  }
  const conch = [pkg.name, ...told.filter((name) => name.startsWith("@conch/") && name !== pkg.name)];
  const needs = [...new Set(conch.flatMap((name) => [name, ...internalRuntimeDeps(name, packages)]))].filter(
    (name) => name !== pkg.name,
  );
  const others = told
    .filter((name) => !name.startsWith("@conch/"))
    .map((name) => (catalog.has(name) ? `${name}@${catalog.get(name)}` : name));
  const specs = [
    ...[pkg.name, ...needs].map((name) => /** @type {string} */ (tarballs.get(name))),
    ...others,
  ];
  const bin = pkg.manifest.bin !== undefined;
  const install = await run(
    "npm",
    [
      "install",
      "--no-package-lock",
      "--loglevel=error",
      // Every @conch/* comes from a tarball here; asking the registry for one is a failure, not a fallback.
      "--@conch:registry=http://127.0.0.1:9/",
      // npm still asks that dead registry about every @conch/* dependency before it takes the tarball,
      // and its retries back off for minutes (10 s to 60 s each): retry fast instead.
      "--fetch-retry-mintimeout=50",
      "--fetch-retry-maxtimeout=200",
      ...specs,
      ...(bin ? [] : [`@types/node@${typesNodeRange()}`]),
    ],
    { cwd: project, env, timeoutMs: 600_000 },
  );
  const installed = duBytes(join(project, "node_modules")) - duBytes(join(project, "node_modules", "@types"));
  if (install.code !== 0) {
    return {
      ok: false,
      installed,
      lines: [`npm install failed (exit ${install.code}):\n${install.output.trim()}`],
    };
  }
  lines.push(
    `installed with ${needs.length === 0 ? "no other tarball" : needs.join(", ")}${others.length === 0 ? "" : ` and ${others.join(", ")}`}`,
  );
  let ok = true;

  if (bin) {
    const version = String(pkg.manifest.version);
    for (const smoke of SMOKE[pkg.name] ?? []) {
      const expected = smoke.prints.replace("{version}", version);
      const binName = Object.keys(/** @type {object} */ (pkg.manifest.bin))[0] ?? short;
      const result = await run(join(project, "node_modules", ".bin", binName), smoke.args, {
        cwd: work,
        env,
        timeoutMs: 60_000,
        ...(smoke.input === undefined ? {} : { input: smoke.input }),
      });
      const passed = result.code === 0 && result.stdout.includes(expected);
      if (!passed) ok = false;
      lines.push(
        `${passed ? "ran" : "FAILED"}: ${binName} ${smoke.args.join(" ")}${passed ? "" : ` (exit ${result.code}, expected "${expected}"):\n${result.output.trim()}`}`,
      );
    }
    if ((SMOKE[pkg.name] ?? []).length === 0) {
      ok = false;
      lines.push(`no smoke commands for the bin of ${pkg.name} in ${"tooling/scripts/check-release.mjs"}`);
    }
    return { ok, installed, lines };
  }

  const readmePath = join(project, "node_modules", ...pkg.name.split("/"), "README.md");
  const example = existsSync(readmePath) ? firstExample(readFileSync(readmePath, "utf8")) : null;
  if (example === null) {
    ok = false;
    lines.push("its README (as published) has no ```ts example");
  } else if (undeclared(example.code, [pkg.name, ...told]).length > 0) {
    ok = false;
    lines.push(
      `its README example imports ${undeclared(example.code, [pkg.name, ...told]).join(", ")}, which its install line does not name`,
    );
  } else {
    writeFileSync(join(project, "example.mjs"), stripTypes(example.code));
    const result = await run(process.execPath, [join(project, "example.mjs")], {
      cwd: work,
      env,
      timeoutMs: 60_000,
    });
    const passed = result.code === 0 && !/Error|error:/.test(result.stderr);
    if (!passed) ok = false;
    lines.push(
      passed ? "README example ran" : `README example FAILED (exit ${result.code}):\n${result.output.trim()}`,
    );
  }

  writeFileSync(
    join(project, "api.ts"),
    [
      `// Every public export of ${pkg.name}, as a strict NodeNext consumer sees them.`,
      `import * as api from "${pkg.name}";`,
      "export const names: readonly string[] = Object.keys(api);",
      "",
    ].join("\n"),
  );
  const files = ["api.ts"];
  if (example?.lang === "ts") {
    writeFileSync(join(project, "readme.ts"), example.code);
    files.push("readme.ts");
  }
  writeFileSync(
    join(project, "tsconfig.json"),
    `${JSON.stringify({ ...CONSUMER_TSCONFIG, files }, null, 2)}\n`,
  );
  const tsc = await run(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", project], {
    cwd: project,
    env,
  });
  if (tsc.code !== 0) ok = false;
  lines.push(
    tsc.code === 0
      ? `tsc --noEmit (strict, NodeNext, skipLibCheck off): ${files.join(", ")} ok`
      : `tsc --noEmit (strict, NodeNext, skipLibCheck off) FAILED on ${files.join(", ")}:\n${tsc.output.trim()}`,
  );
  return { ok, installed, lines };
}

const base = mkdtempSync(join(tmpdir(), "conch-release-"));
const repo = join(base, "repo");
const consumers = join(base, "consumers");
mkdirSync(repo);
mkdirSync(consumers);
let failed = 0;
try {
  copyWorkingTree(root, repo);
  commitAll(repo);
  const pnpmEnv = { ...process.env, TURBO_TELEMETRY_DISABLED: "1", TURBO_NO_UPDATE_NOTIFIER: "1" };
  const install = await run("pnpm", ["install", "--frozen-lockfile", "--prefer-offline"], {
    cwd: repo,
    env: pnpmEnv,
  });
  if (install.code !== 0) throw new Error(`pnpm install in the copy failed:\n${install.output}`);

  const before = new Map(workspacePackages(repo).map((pkg) => [pkg.name, String(pkg.manifest.version)]));
  const version = await run("pnpm", ["exec", "changeset", "version"], { cwd: repo, env: pnpmEnv });
  if (version.code !== 0) throw new Error(`changeset version failed:\n${version.output}`);
  const packages = workspacePackages(repo).filter(({ manifest }) => manifest.private !== true);
  console.log(`release dry run in ${repo} (${elapsed()}): changeset version`);
  for (const pkg of packages) {
    const from = before.get(pkg.name);
    const to = String(pkg.manifest.version);
    console.log(`  ${pkg.name} ${from === to ? `${to} (unchanged)` : `${from} -> ${to}`}`);
  }
  // Unpublished (0.0.0): the release is each package's first, and its CHANGELOG says only that version.
  const firstProblems = packages.flatMap((pkg) => {
    if (before.get(pkg.name) !== "0.0.0") return [];
    const changelog = join(repo, pkg.dir, "CHANGELOG.md");
    const headings = existsSync(changelog) ? (readFileSync(changelog, "utf8").match(/^## .*$/gm) ?? []) : [];
    const version = String(pkg.manifest.version);
    if (version === "0.1.0" && headings.length === 1 && headings[0] === "## 0.1.0") return [];
    return [
      `${pkg.name}: a first release must be 0.1.0 with one CHANGELOG entry, got ${version} and ${JSON.stringify(headings)} (see .changeset/README.md)`,
    ];
  });
  if (firstProblems.length > 0) throw new Error(firstProblems.join("\n"));

  const dest = join(base, "tarballs");
  mkdirSync(dest);
  /** @type {Map<string, string>} */
  const tarballs = new Map();
  const packed = [];
  for (const pkg of packages) {
    const result = await packPackage(repo, pkg, dest);
    if ("tarball" in result) tarballs.set(pkg.name, result.tarball);
    packed.push({ pkg, result });
  }
  console.log(`packed ${tarballs.size} of ${packages.length} (${elapsed()}; prepack built the unbuilt copy)`);

  const results = await mapLimit(packed, 2, async ({ pkg, result }) => {
    if ("error" in result) return { pkg, ok: false, lines: [result.error], size: undefined };
    const bytes = readFileSync(result.tarball);
    const entries = tarEntries(bytes);
    const problems = contentProblems(pkg.manifest, entries, {
      changelog: existsSync(join(repo, pkg.dir, "CHANGELOG.md")),
      dir: pkg.dir,
    });
    const lint = await lintTarball(root, result.tarball, pkg.manifest);
    const alone = await installAlone(pkg, tarballs, packages, consumers, repo);
    return {
      pkg,
      ok: problems.length === 0 && lint.ok && alone.ok,
      lines: [...problems, ...lint.lines, ...alone.lines],
      size: {
        name: pkg.name,
        packed: bytes.length,
        unpacked: entries.reduce((sum, entry) => sum + entry.size, 0),
        files: entries.length,
        installed: alone.installed,
      },
    };
  });
  for (const { pkg, ok, lines } of results) {
    if (!ok) failed++;
    console.log(`${ok ? "ok  " : "FAIL"} ${pkg.name}`);
    for (const line of lines) console.log(`     ${line.replaceAll("\n", "\n     ")}`);
  }
  console.log("");
  console.log(
    "sizes (installed: the project's node_modules with only this package and what it needs, @types aside)",
  );
  for (const line of formatSizes(results.flatMap(({ size }) => (size === undefined ? [] : [size])))) {
    console.log(`  ${line}`);
  }
  if (failed > 0) console.log(`release: ${failed} of ${packages.length} packages failed (${elapsed()})`);
  else
    console.log(`release ok: ${packages.length} packages packed, linted and installed alone (${elapsed()})`);
} catch (error) {
  failed++;
  console.log(`release: ${error instanceof Error ? error.message : String(error)}`);
} finally {
  if (keep) console.log(`kept ${base}`);
  else rmSync(base, { recursive: true, force: true });
  if (failed > 0) process.exitCode = 1;
}
