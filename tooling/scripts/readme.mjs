// A package README's example as a consumer would paste it: the first ```ts (or ```js) block, and the
// JavaScript Node runs from it (types stripped, nothing else changed).
import ts from "typescript";

const FIRST_EXAMPLE = /```(ts|js)\n([\s\S]*?)```/;

/**
 * @param {string} readme
 * @returns {{lang: "ts" | "js", code: string} | null}
 */
export function firstExample(readme) {
  const match = FIRST_EXAMPLE.exec(readme);
  if (match === null) return null;
  return { lang: /** @type {"ts" | "js"} */ (match[1]), code: /** @type {string} */ (match[2]) };
}

const INSTALL_LINE = /^\s*(?:pnpm add|npm i|npm install|yarn add)\s+([^#\n]+)/gm;

/**
 * The packages a README tells its reader to install (`pnpm add A B # why`, or npm's and yarn's words),
 * options left out, in the order written.
 * @param {string} readme
 * @returns {string[]}
 */
export function installedPackages(readme) {
  const names = [];
  for (const match of readme.matchAll(INSTALL_LINE)) {
    for (const word of /** @type {string} */ (match[1]).trim().split(/\s+/)) {
      if (word !== "" && !word.startsWith("-") && !names.includes(word)) names.push(word);
    }
  }
  return names;
}

/** @param {string} code TypeScript or JavaScript @returns {string} an ES module */
export function stripTypes(code) {
  return ts.transpileModule(code, {
    compilerOptions: {
      module: ts.ModuleKind.ESNext,
      target: ts.ScriptTarget.ES2022,
      verbatimModuleSyntax: false,
    },
  }).outputText;
}
