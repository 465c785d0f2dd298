// The layer contract of DESIGN.md section 2, and the pure check behind check-layers.mjs: no file system
// here, so tests feed it in-memory packages. Imports are read with TypeScript's own parser, so a comment,
// a string or a regex that looks like an import is never one, and every form of import is one.
import { posix } from "node:path";
import ts from "typescript";

const DESIGN = "DESIGN.md section 2";
const SELF = "tooling/scripts/layers.mjs";

// `allowed` is the "depends on (internal)" column; LOWER means every package of a lower layer.
const LOWER = "lower";
const APP = "app";
// Not a layer: the private test config (vitest config, corpora, CI gate) every package's tests and
// config files use. It sits outside the table's order: anything may devDepend on it, it on nothing.
const DEV = "dev";
const TEST_CONFIG = "@conch/test-config";

/**
 * @typedef {{layer: number | "app" | "dev", allowed: readonly string[] | "lower", bundled?: boolean}} Entry
 *   bundled: an app whose build bundles the workspace packages it imports, so they are devDependencies
 */
/** @type {ReadonlyMap<string, Entry>} */
const TABLE = new Map([
  ["@conch/protocol", { layer: 0, allowed: [] }],
  ["@conch/shell-detect", { layer: 1, allowed: ["@conch/protocol"] }],
  ["@conch/arity-rules", { layer: 1, allowed: ["@conch/protocol"] }],
  ["@conch/exec-core", { layer: 1, allowed: ["@conch/protocol"] }],
  ["@conch/exec-policy", { layer: 1, allowed: ["@conch/protocol"] }],
  ["@conch/net-proxy", { layer: 1, allowed: ["@conch/protocol"] }],
  ["@conch/approval", { layer: 2, allowed: ["@conch/protocol", "@conch/arity-rules", "@conch/exec-policy"] }],
  ["@conch/sandbox-core", { layer: 2, allowed: ["@conch/protocol"] }],
  ["@conch/unified-exec", { layer: 2, allowed: ["@conch/protocol", "@conch/exec-core"] }],
  ["@conch/sandbox-linux", { layer: 3, allowed: ["@conch/protocol", "@conch/sandbox-core"] }],
  ["@conch/sandbox-macos", { layer: 3, allowed: ["@conch/sandbox-core"] }],
  ["@conch/sandbox-remote", { layer: 3, allowed: ["@conch/protocol", "@conch/sandbox-core"] }],
  ["@conch/sandbox-kubernetes", { layer: 3, allowed: ["@conch/protocol"] }],
  ["@conch/sandbox-windows", { layer: 3, allowed: ["@conch/sandbox-core"] }],
  ["@conch/orchestrator", { layer: 4, allowed: LOWER }],
  ["@conch/mcp", { layer: 5, allowed: ["@conch/protocol", "@conch/approval", "@conch/orchestrator"] }],
  ["@conch/cli", { layer: APP, allowed: LOWER, bundled: true }],
  ["@conch/daemon", { layer: APP, allowed: LOWER }],
  ["@conch/agent", { layer: APP, allowed: LOWER }],
  [TEST_CONFIG, { layer: DEV, allowed: [] }],
]);

// Apps sit above every layer: they may use any package, but not each other.
const APP_RANK =
  Math.max(...[...TABLE.values()].map(({ layer }) => (typeof layer === "number" ? layer : 0))) + 1;
const rank = (/** @type {number | "app"} */ layer) => (layer === APP ? APP_RANK : layer);

const RUNTIME_FIELDS = ["dependencies", "peerDependencies", "optionalDependencies"];
const ALL_FIELDS = [...RUNTIME_FIELDS, "devDependencies"];

/**
 * @typedef {{path: string, text: string}} SourceFile  path is relative to the package dir, "/"-separated
 * @typedef {{name: string, dir: string, manifest: Record<string, unknown>, files: SourceFile[]}} WorkspacePackage
 *   dir is relative to the repository root, e.g. "packages/protocol"
 * @typedef {"import" | "url"} RefKind  url: `new URL("…", import.meta.url)`, a file the code reads
 * @typedef {{specifier: string, typeOnly: boolean, kind: RefKind}} ImportRef
 */

/**
 * Checks every package against the layer table; returns one line per violation, sorted.
 * @param {{packages: WorkspacePackage[]}} workspace
 * @returns {string[]}
 */
export function checkLayers({ packages }) {
  /** @type {Set<string>} */
  const violations = new Set();
  for (const pkg of packages) {
    const manifestPath = `${pkg.dir}/package.json`;
    const entry = TABLE.get(pkg.name);
    if (entry === undefined) {
      violations.add(
        `${manifestPath}: ${pkg.name} is not in the layer table: add it to ${DESIGN} and ${SELF}`,
      );
      continue;
    }
    const declared = declaredConchDeps(pkg.manifest);
    for (const [dep, fields] of declared) {
      if (dep === pkg.name) continue;
      const reason = layerReason(pkg.name, dep) ?? manifestReason(entry, dep, fields);
      if (reason !== undefined) {
        violations.add(
          `${manifestPath}: ${describe(pkg.name)} depends on ${describe(dep)} in ${fields.join(", ")}: ${reason}`,
        );
      }
    }
    for (const line of scriptEscapes(pkg)) violations.add(line);
    for (const file of pkg.files) {
      const dev = isDevFile(file.path);
      for (const ref of findImports(file.path, file.text)) {
        const where = `${pkg.dir}/${file.path}: ${describe(pkg.name)}`;
        const leaves = relativeEscape(pkg, file.path, ref, packages);
        if (leaves !== undefined) {
          violations.add(`${where} ${leaves.line}`);
          if (leaves.into === undefined) continue;
          const reason = layerReason(pkg.name, leaves.into);
          if (reason !== undefined) violations.add(`${where} imports ${describe(leaves.into)}: ${reason}`);
          continue;
        }
        if (ref.kind === "url") continue;
        const dep = conchPackageName(ref.specifier);
        if (dep === undefined || dep === pkg.name) continue;
        const reason =
          layerReason(pkg.name, dep) ?? declarationReason(entry, dep, declared.get(dep), dev, ref.typeOnly);
        if (reason !== undefined) violations.add(`${where} imports ${describe(dep)}: ${reason}`);
      }
    }
  }
  for (const line of cycles(packages)) violations.add(line);
  return [...violations].sort();
}

/** @param {string} name */
function describe(name) {
  const entry = TABLE.get(name);
  if (entry === undefined) return `${name} (unknown)`;
  if (entry.layer === DEV) return `${name} (dev-only)`;
  return entry.layer === APP ? `${name} (app)` : `${name} (layer ${entry.layer})`;
}

/**
 * @param {string} from a package in the table
 * @param {string} to
 * @returns {string | undefined}
 */
function layerReason(from, to) {
  const source = /** @type {Entry} */ (TABLE.get(from));
  const target = TABLE.get(to);
  if (target === undefined) return `${to} is not in the layer table: add it to ${DESIGN} and ${SELF}`;
  if (source.layer === DEV) {
    return `${TEST_CONFIG} is not a layer: every package's tests use it, so it depends on no workspace package`;
  }
  if (target.layer === DEV) return undefined;
  const diff = rank(target.layer) - rank(source.layer);
  if (diff === 0 && target.layer === APP) return `apps must not depend on each other (${DESIGN})`;
  if (diff === 0) return `packages in the same layer must not depend on each other (${DESIGN})`;
  if (diff > 0) return `a package may depend only on lower layers (${DESIGN})`;
  if (source.allowed !== LOWER && !source.allowed.includes(to)) {
    const allowed = source.allowed.map((name) => name.replace("@conch/", "")).join(", ") || "none";
    return `not among its allowed internal dependencies (${allowed}) in ${DESIGN}`;
  }
  return undefined;
}

/**
 * What is wrong with the fields a package declares a layer-valid dependency in.
 * @param {Entry} source
 * @param {string} dep
 * @param {string[]} fields
 * @returns {string | undefined}
 */
function manifestReason(source, dep, fields) {
  const runtime = fields.some((field) => RUNTIME_FIELDS.includes(field));
  if (dep === TEST_CONFIG && runtime) {
    return `${TEST_CONFIG} is dev-only (tests and config files): declare it in devDependencies`;
  }
  if (source.bundled === true && runtime) {
    return "this app's build bundles it into dist, so a consumer must not install it: declare it in devDependencies";
  }
  return undefined;
}

/**
 * @param {Entry} source
 * @param {string} dep
 * @param {string[] | undefined} fields the manifest fields declaring the imported package
 * @param {boolean} dev a test or a config file
 * @param {boolean} typeOnly
 * @returns {string | undefined}
 */
function declarationReason(source, dep, fields, dev, typeOnly) {
  if (dev) {
    return fields === undefined ? "not declared in package.json dependencies or devDependencies" : undefined;
  }
  if (dep === TEST_CONFIG) {
    return `${TEST_CONFIG} is dev-only: only tests and config files may import it, never the package's source`;
  }
  if (source.bundled === true) {
    // Bundled: what the source imports ends up inside dist, whichever field declares it.
    return fields === undefined ? "not declared in package.json devDependencies (it is bundled)" : undefined;
  }
  if (fields === undefined) return "not declared in package.json dependencies";
  if (!typeOnly && !fields.some((field) => RUNTIME_FIELDS.includes(field))) {
    return "imported at runtime by non-test source but declared only in devDependencies: move it to dependencies";
  }
  return undefined;
}

/**
 * @param {Record<string, unknown>} manifest
 * @returns {Map<string, string[]>} each `@conch/*` dependency with the fields that declare it
 */
function declaredConchDeps(manifest) {
  /** @type {Map<string, string[]>} */
  const declared = new Map();
  for (const field of ALL_FIELDS) {
    const deps = manifest[field];
    if (deps === null || typeof deps !== "object") continue;
    for (const name of Object.keys(deps)) {
      if (!name.startsWith("@conch/")) continue;
      const fields = declared.get(name) ?? [];
      fields.push(field);
      declared.set(name, fields);
    }
  }
  return declared;
}

/** @param {string} specifier */
function conchPackageName(specifier) {
  const match = /^@conch\/[^/]+/.exec(specifier);
  return match?.[0];
}

/**
 * Tests, and the config files at the package root (vitest.config.ts, build.mjs): both may use
 * devDependencies, and neither ships.
 * @param {string} path relative to the package dir
 */
function isDevFile(path) {
  return (
    !path.includes("/") ||
    path.startsWith("test/") ||
    path.includes("/__tests__/") ||
    /\.(?:test|spec)\.[cm]?[jt]sx?$/.test(path)
  );
}

const RELATIVE = /^\.\.?(?:\/|$)/;

/**
 * Whether `target` is a bin that app `owner` declares, read from app `pkg`.
 * @param {WorkspacePackage} pkg
 * @param {WorkspacePackage} owner
 * @param {string} target
 */
function isAppBin(pkg, owner, target) {
  if (TABLE.get(pkg.name)?.layer !== APP || TABLE.get(owner.name)?.layer !== APP) return false;
  const bin = /** @type {string | Record<string, string> | undefined} */ (owner.manifest.bin);
  const paths = bin === undefined ? [] : typeof bin === "string" ? [bin] : Object.values(bin);
  return paths.some((path) => posix.join(owner.dir, path) === target);
}

/**
 * Where a relative (or absolute) specifier lands when it leaves the package, as a violation line
 * without its `file: package` prefix; `into` is the workspace package it lands in, if any.
 * @param {WorkspacePackage} pkg
 * @param {string} path the importing file, relative to the package dir
 * @param {ImportRef} ref
 * @param {WorkspacePackage[]} packages
 * @returns {{line: string, into?: string} | undefined}
 */
function relativeEscape(pkg, path, ref, packages) {
  const verb = ref.kind === "url" ? "reads" : "imports";
  const quoted = JSON.stringify(ref.specifier);
  if (ref.specifier.startsWith("/") || ref.specifier.startsWith("file:")) {
    return {
      line: `${verb} ${quoted}, an absolute path: a package reaches only its own files and its dependencies`,
    };
  }
  if (!RELATIVE.test(ref.specifier)) return undefined;
  const target = posix.normalize(posix.join(pkg.dir, posix.dirname(path), ref.specifier));
  if (isInside(target, pkg.dir)) return undefined;
  const owner = packages.find((other) => isInside(target, other.dir));
  if (owner !== undefined && ref.kind === "url" && isDevFile(path) && isAppBin(pkg, owner, target)) {
    // An app's end-to-end test runs another app's built program (conchd's tests drive `conch console`
    // and `conch pending` against a real conchd): a process it starts, not code it imports.
    return undefined;
  }
  if (owner !== undefined) {
    return {
      line: `${verb} ${quoted} (${target}) by a relative path into ${describe(owner.name)}: another package is imported only by name, through its exports`,
      ...(ref.kind === "import" ? { into: owner.name } : {}),
    };
  }
  if (isInside(target, "tooling")) {
    return {
      line: `${verb} ${quoted} (${target}) in tooling/: packages never reach into tooling/; what tests share is ${TEST_CONFIG}, imported by name`,
    };
  }
  return {
    line: `${verb} ${quoted} (${target}) by a relative path that leaves the package: a package reaches only its own files and its dependencies`,
  };
}

/** @param {string} path @param {string} dir both repo-relative and normalized */
function isInside(path, dir) {
  return path === dir || path.startsWith(`${dir}/`);
}

const SCRIPT_PATH = /(?:^|[\s=:"'])(\.\.\/[^\s"';&|)]*)/g;

/**
 * package.json scripts that run something outside the package (`node ../../tooling/x.mjs`).
 * @param {WorkspacePackage} pkg
 * @returns {string[]}
 */
function scriptEscapes(pkg) {
  const scripts = pkg.manifest.scripts;
  if (scripts === null || typeof scripts !== "object") return [];
  return Object.entries(scripts).flatMap(([name, command]) =>
    [...String(command).matchAll(SCRIPT_PATH)].flatMap((match) => {
      const target = posix.normalize(posix.join(pkg.dir, /** @type {string} */ (match[1])));
      if (isInside(target, pkg.dir)) return [];
      return [
        `${pkg.dir}/package.json: ${describe(pkg.name)} script "${name}" reaches ${target}, outside the package: run a dependency's bin instead`,
      ];
    }),
  );
}

/**
 * Dependency cycles among workspace packages (every field: pnpm and turbo order by devDependencies
 * too), one line per strongly connected component, naming one cycle through it.
 * @param {WorkspacePackage[]} packages
 * @returns {string[]}
 */
function cycles(packages) {
  const names = new Set(packages.map((pkg) => pkg.name));
  /** @type {Map<string, string[]>} */
  const edges = new Map(
    packages.map((pkg) => [
      pkg.name,
      [...declaredConchDeps(pkg.manifest).keys()].filter((dep) => dep !== pkg.name && names.has(dep)).sort(),
    ]),
  );
  /** @type {string[]} */
  const lines = [];
  for (const component of stronglyConnected([...names].sort(), edges)) {
    if (component.length < 2) continue;
    const members = new Set(component);
    const start = /** @type {string} */ (component.slice().sort()[0]);
    const path = cycleFrom(start, edges, members);
    lines.push(`dependency cycle among workspace packages: ${path.join(" -> ")} (in package.json)`);
  }
  return lines;
}

/**
 * Tarjan's algorithm.
 * @param {string[]} nodes
 * @param {Map<string, string[]>} edges
 * @returns {string[][]}
 */
function stronglyConnected(nodes, edges) {
  let index = 0;
  /** @type {Map<string, {index: number, low: number}>} */
  const seen = new Map();
  /** @type {string[]} */
  const stack = [];
  const onStack = new Set();
  /** @type {string[][]} */
  const components = [];
  /** @param {string} node */
  const visit = (node) => {
    const state = { index, low: index };
    index++;
    seen.set(node, state);
    stack.push(node);
    onStack.add(node);
    for (const next of edges.get(node) ?? []) {
      const other = seen.get(next);
      if (other === undefined) {
        visit(next);
        state.low = Math.min(state.low, /** @type {{low: number}} */ (seen.get(next)).low);
      } else if (onStack.has(next)) {
        state.low = Math.min(state.low, other.index);
      }
    }
    if (state.low === state.index) {
      /** @type {string[]} */
      const component = [];
      let member;
      do {
        member = /** @type {string} */ (stack.pop());
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      components.push(component);
    }
  };
  for (const node of nodes) if (!seen.has(node)) visit(node);
  return components;
}

/**
 * A shortest cycle from `start` back to itself inside one component (breadth first, edges sorted).
 * @param {string} start
 * @param {Map<string, string[]>} edges
 * @param {Set<string>} members
 * @returns {string[]}
 */
function cycleFrom(start, edges, members) {
  /** @type {Map<string, string>} */
  const parent = new Map();
  const queue = [start];
  while (queue.length > 0) {
    const node = /** @type {string} */ (queue.shift());
    for (const next of edges.get(node) ?? []) {
      if (!members.has(next)) continue;
      if (next === start) {
        const path = [node];
        while (path[0] !== start)
          path.unshift(/** @type {string} */ (parent.get(/** @type {string} */ (path[0]))));
        return [...path, start];
      }
      if (!parent.has(next)) {
        parent.set(next, node);
        queue.push(next);
      }
    }
  }
  return [start];
}

const SCRIPT_KINDS = /** @type {const} */ ({
  ts: ts.ScriptKind.TS,
  mts: ts.ScriptKind.TS,
  cts: ts.ScriptKind.TS,
  tsx: ts.ScriptKind.TSX,
  js: ts.ScriptKind.JS,
  mjs: ts.ScriptKind.JS,
  cjs: ts.ScriptKind.JS,
  jsx: ts.ScriptKind.JSX,
});

// vitest's module mocks name a module as an import does.
const VI_MODULE_CALLS = new Set(["mock", "doMock", "unmock", "doUnmock", "importActual", "importMock"]);

/**
 * Every module the file imports, re-exports, requires, resolves or mocks, and every file it reads by
 * `new URL("…", import.meta.url)`. Type-only: `import type`, `export type`, `import("x").T`,
 * `typeof import("x")` and JSDoc types. `import { type A } from "x"` is not type-only: under
 * verbatimModuleSyntax it still emits `import "x"`.
 * @param {string} path decides how the file is parsed (TypeScript or JavaScript)
 * @param {string} text
 * @returns {ImportRef[]}
 */
export function findImports(path, text) {
  const extension = /** @type {keyof typeof SCRIPT_KINDS} */ (path.slice(path.lastIndexOf(".") + 1));
  const kind = SCRIPT_KINDS[extension] ?? ts.ScriptKind.TS;
  const javascript = kind === ts.ScriptKind.JS || kind === ts.ScriptKind.JSX;
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, kind);
  /** @type {ImportRef[]} */
  const found = [];
  /** @param {ts.Node | undefined} node @param {boolean} typeOnly @param {RefKind} [refKind] */
  const add = (node, typeOnly, refKind = "import") => {
    if (node !== undefined && (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node))) {
      found.push({ specifier: node.text, typeOnly, kind: refKind });
    }
  };
  /** @param {ts.Node} node */
  const visit = (node) => {
    if (ts.isImportDeclaration(node)) {
      add(node.moduleSpecifier, node.importClause?.isTypeOnly === true);
    } else if (ts.isExportDeclaration(node)) {
      add(node.moduleSpecifier, node.isTypeOnly);
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      add(node.moduleReference.expression, node.isTypeOnly);
    } else if (ts.isImportTypeNode(node)) {
      const argument = node.argument;
      if (ts.isLiteralTypeNode(argument)) add(argument.literal, true);
    } else if (ts.isJSDocImportTag(node)) {
      add(node.moduleSpecifier, true);
    } else if (ts.isCallExpression(node)) {
      const callee = node.expression;
      const first = node.arguments[0];
      if (
        callee.kind === ts.SyntaxKind.ImportKeyword ||
        isNamed(callee, "require") ||
        isResolveCall(callee)
      ) {
        add(first, false);
      } else if (
        ts.isPropertyAccessExpression(callee) &&
        isNamed(callee.expression, "vi") &&
        VI_MODULE_CALLS.has(callee.name.text)
      ) {
        add(first, false);
      }
    } else if (ts.isNewExpression(node) && isNamed(node.expression, "URL")) {
      const [first, base] = node.arguments ?? [];
      if (base !== undefined && isImportMetaUrl(base)) add(first, false, "url");
    }
    // JSDoc types are types only in JavaScript; TypeScript reads them as comments.
    const docs = /** @type {{jsDoc?: ts.Node[]}} */ (/** @type {unknown} */ (node)).jsDoc;
    if (javascript && docs !== undefined) for (const doc of docs) ts.forEachChild(doc, visit);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** @param {ts.Node} node @param {string} name */
function isNamed(node, name) {
  return ts.isIdentifier(node) && node.text === name;
}

/** `require.resolve(…)`, `import.meta.resolve(…)` and `createRequire(…).resolve(…)`. */
function isResolveCall(/** @type {ts.Expression} */ callee) {
  if (!ts.isPropertyAccessExpression(callee) || callee.name.text !== "resolve") return false;
  const target = callee.expression;
  return (
    isNamed(target, "require") ||
    (ts.isMetaProperty(target) && target.keywordToken === ts.SyntaxKind.ImportKeyword) ||
    (ts.isCallExpression(target) && isNamed(target.expression, "createRequire"))
  );
}

/** `import.meta.url` */
function isImportMetaUrl(/** @type {ts.Expression} */ node) {
  return (
    ts.isPropertyAccessExpression(node) &&
    node.name.text === "url" &&
    ts.isMetaProperty(node.expression) &&
    node.expression.keywordToken === ts.SyntaxKind.ImportKeyword
  );
}
