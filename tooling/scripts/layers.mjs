// The layer contract of DESIGN.md section 2, and the pure check behind check-layers.mjs: no file system
// here, so tests feed it in-memory packages.

const DESIGN = "DESIGN.md section 2";
const SELF = "tooling/scripts/layers.mjs";

// `allowed` is the "depends on (internal)" column; LOWER means every package of a lower layer.
const LOWER = "lower";
const APP = "app";

/** @typedef {{layer: number | "app", allowed: readonly string[] | "lower"}} Entry */
/** @type {ReadonlyMap<string, Entry>} */
const TABLE = new Map([
  ["@conch/protocol", { layer: 0, allowed: [] }],
  ["@conch/shell-detect", { layer: 1, allowed: ["@conch/protocol"] }],
  ["@conch/arity-rules", { layer: 1, allowed: ["@conch/protocol"] }],
  ["@conch/exec-core", { layer: 1, allowed: ["@conch/protocol"] }],
  ["@conch/approval", { layer: 2, allowed: ["@conch/protocol", "@conch/arity-rules"] }],
  ["@conch/sandbox-core", { layer: 2, allowed: ["@conch/protocol"] }],
  ["@conch/unified-exec", { layer: 2, allowed: ["@conch/protocol", "@conch/exec-core"] }],
  ["@conch/sandbox-linux", { layer: 3, allowed: ["@conch/sandbox-core"] }],
  ["@conch/sandbox-macos", { layer: 3, allowed: ["@conch/sandbox-core"] }],
  ["@conch/sandbox-windows", { layer: 3, allowed: ["@conch/sandbox-core"] }],
  ["@conch/orchestrator", { layer: 4, allowed: LOWER }],
  ["@conch/cli", { layer: APP, allowed: LOWER }],
  ["@conch/daemon", { layer: APP, allowed: LOWER }],
]);

// Apps sit above every layer: they may use any package, but not each other.
const APP_RANK = Math.max(...[...TABLE.values()].map(({ layer }) => (layer === APP ? 0 : layer))) + 1;
const rank = (/** @type {number | "app"} */ layer) => (layer === APP ? APP_RANK : layer);

const RUNTIME_FIELDS = ["dependencies", "peerDependencies", "optionalDependencies"];
const ALL_FIELDS = [...RUNTIME_FIELDS, "devDependencies"];

/**
 * @typedef {{path: string, text: string}} SourceFile  path is relative to the package dir, "/"-separated
 * @typedef {{name: string, dir: string, manifest: Record<string, unknown>, files: SourceFile[]}} WorkspacePackage
 *   dir is relative to the repository root, e.g. "packages/protocol"
 * @typedef {{specifier: string, typeOnly: boolean}} ImportRef
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
      const reason = layerReason(pkg.name, dep);
      if (reason !== undefined) {
        violations.add(
          `${manifestPath}: ${describe(pkg.name)} depends on ${describe(dep)} in ${fields.join(", ")}: ${reason}`,
        );
      }
    }
    for (const file of pkg.files) {
      const test = isTestFile(file.path);
      for (const { specifier, typeOnly } of findImports(file.text)) {
        const dep = conchPackageName(specifier);
        if (dep === undefined || dep === pkg.name) continue;
        const where = `${pkg.dir}/${file.path}: ${describe(pkg.name)} imports ${describe(dep)}`;
        const reason = layerReason(pkg.name, dep) ?? declarationReason(declared.get(dep), test, typeOnly);
        if (reason !== undefined) violations.add(`${where}: ${reason}`);
      }
    }
  }
  return [...violations].sort();
}

/** @param {string} name */
function describe(name) {
  const entry = TABLE.get(name);
  if (entry === undefined) return `${name} (unknown)`;
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
 * @param {string[] | undefined} fields the manifest fields declaring the imported package
 * @param {boolean} test
 * @param {boolean} typeOnly
 * @returns {string | undefined}
 */
function declarationReason(fields, test, typeOnly) {
  if (test) {
    return fields === undefined ? "not declared in package.json dependencies or devDependencies" : undefined;
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

/** @param {string} path relative to the package dir */
function isTestFile(path) {
  return path.startsWith("test/") || path.includes("/__tests__/") || /\.(?:test|spec)\.[cm]?tsx?$/.test(path);
}

// Run on the masked source (comments blanked, string contents blanked), so neither a commented-out
// import nor code quoted inside a string counts. Each pattern ends at the specifier's opening quote.
const IMPORT_FROM =
  /(?<![\w$.])import\s+(type\s+)?(?:[\w$]+\s*,?\s*)?(?:\{[^}]*\}\s*|\*\s*as\s+[\w$]+\s*)?from\s*(["'])/g;
const EXPORT_FROM = /(?<![\w$.])export\s+(type\s+)?(?:\*\s*(?:as\s+[\w$]+\s*)?|\{[^}]*\}\s*)from\s*(["'])/g;
const SIDE_EFFECT = /(?<![\w$.])import\s*(["'])/g;
const CALL = /(?<![\w$.])(typeof\s+)?(?:import|require)\s*\(\s*(["'])/g;
// `import("x").Name` in a type position; `.then`/`.catch`/`.finally` make it a runtime promise.
const TYPE_MEMBER = /^\s*\)\s*\.\s*(?!(?:then|catch|finally)\b)[A-Za-z_$]/;

/**
 * Every module specifier the file imports or re-exports. `import { type A } from "x"` is not type-only:
 * under verbatimModuleSyntax it still emits `import "x"`.
 * @param {string} text
 * @returns {ImportRef[]}
 */
function findImports(text) {
  const { code, strings } = maskSource(text);
  /** @type {ImportRef[]} */
  const found = [];
  /** @param {RegExpExecArray} match @param {boolean} typeOnly */
  const add = (match, typeOnly) => {
    const quote = match.index + match[0].length - 1;
    const specifier = strings.get(quote);
    if (specifier !== undefined) found.push({ specifier, typeOnly });
  };
  for (const match of code.matchAll(IMPORT_FROM)) add(match, match[1] !== undefined);
  for (const match of code.matchAll(EXPORT_FROM)) add(match, match[1] !== undefined);
  for (const match of code.matchAll(SIDE_EFFECT)) add(match, false);
  for (const match of code.matchAll(CALL)) {
    const quote = match.index + match[0].length - 1;
    const specifier = strings.get(quote);
    if (specifier === undefined) continue;
    const after = code.slice(quote + specifier.length + 2, quote + specifier.length + 64);
    add(match, match[1] !== undefined || (match[0].includes("import") && TYPE_MEMBER.test(after)));
  }
  return found;
}

const REGEX_AFTER_KEYWORD =
  /(?:^|[^\w$.])(?:return|typeof|instanceof|in|of|new|delete|void|throw|case|do|else|yield|await)$/;
const SPECIAL = /[/"'`{}]/g;
const TEMPLATE_STOP = /\\[\s\S]|`|\$\{/g;
const WHITESPACE = /\s/;

/**
 * Blanks comments and the contents of strings, templates and regex literals with spaces (newlines
 * kept), so the result has the same length as the input. `strings` maps the offset of each quoted
 * string's opening quote to its raw contents.
 * @param {string} text
 * @returns {{code: string, strings: Map<number, string>}}
 */
function maskSource(text) {
  const n = text.length;
  /** @type {string[]} */
  const parts = [];
  /** @type {Map<number, string>} */
  const strings = new Map();
  let copied = 0;
  const blank = (/** @type {number} */ from, /** @type {number} */ to) => {
    if (to <= from) return;
    parts.push(text.slice(copied, from), text.slice(from, to).replace(/[^\n]/g, " "));
    copied = to;
  };
  // Brace depth at each open `${`, to know which `}` resumes the template.
  /** @type {number[]} */
  const templates = [];
  let depth = 0;
  // The last significant character before `scanned`; comments are transparent.
  let prev = "";
  let scanned = 0;
  const prevBefore = (/** @type {number} */ i) => {
    for (let k = i - 1; k >= scanned; k--) {
      const c = /** @type {string} */ (text[k]);
      if (!WHITESPACE.test(c)) return c;
    }
    return prev;
  };
  /** @param {number} i just past a backtick or the `}` closing a substitution @returns {number} */
  const scanTemplate = (i) => {
    TEMPLATE_STOP.lastIndex = i;
    for (let m = TEMPLATE_STOP.exec(text); m !== null; m = TEMPLATE_STOP.exec(text)) {
      if (m[0] === "`") {
        blank(i, m.index);
        prev = "`";
        return m.index + 1;
      }
      if (m[0] === "${") {
        blank(i, m.index);
        templates.push(depth);
        depth++;
        prev = "{";
        return m.index + 2;
      }
    }
    blank(i, n);
    return n;
  };
  let i = 0;
  while (i < n) {
    SPECIAL.lastIndex = i;
    const m = SPECIAL.exec(text);
    if (m === null) break;
    const at = m.index;
    const c = m[0];
    const next = text[at + 1];
    if (c === "/" && next === "/") {
      prev = prevBefore(at);
      const end = text.indexOf("\n", at);
      i = end === -1 ? n : end;
      blank(at, i);
    } else if (c === "/" && next === "*") {
      prev = prevBefore(at);
      const end = text.indexOf("*/", at + 2);
      i = end === -1 ? n : end + 2;
      blank(at, i);
    } else if (c === '"' || c === "'") {
      let j = at + 1;
      while (j < n && text[j] !== c && text[j] !== "\n") j += text[j] === "\\" ? 2 : 1;
      strings.set(at, text.slice(at + 1, j));
      blank(at + 1, j);
      i = j + 1;
      prev = c;
    } else if (c === "`") {
      i = scanTemplate(at + 1);
    } else if (c === "/") {
      const end = regexAllowed(prevBefore(at), text, at) ? regexEnd(text, at) : -1;
      if (end !== -1) blank(at + 1, end);
      i = end === -1 ? at + 1 : end + 1;
      prev = "/";
    } else if (c === "{") {
      depth++;
      i = at + 1;
      prev = "{";
    } else {
      depth--;
      if (templates.length > 0 && templates[templates.length - 1] === depth) {
        templates.pop();
        i = scanTemplate(at + 1);
      } else {
        i = at + 1;
        prev = "}";
      }
    }
    scanned = i;
  }
  parts.push(text.slice(copied));
  return { code: parts.join(""), strings };
}

/** @param {string} prev last significant character @param {string} text @param {number} i */
function regexAllowed(prev, text, i) {
  if (prev === "" || "(,=:[!&|?{};+-*%<>~^".includes(prev)) return true;
  if (/[\w$]/.test(prev)) return REGEX_AFTER_KEYWORD.test(text.slice(Math.max(0, i - 16), i).trimEnd());
  return false;
}

/** @returns {number} offset of the closing `/`, or -1 when this is not a regex literal on one line */
function regexEnd(/** @type {string} */ text, /** @type {number} */ start) {
  let inClass = false;
  for (let j = start + 1; j < text.length; j++) {
    const c = text[j];
    if (c === "\n") return -1;
    if (c === "\\") j++;
    else if (c === "[") inClass = true;
    else if (c === "]") inClass = false;
    else if (c === "/" && !inClass) return j;
  }
  return -1;
}
