import { homedir } from "node:os";
import { posix } from "node:path";
import { RuleProblem } from "./problem.js";

/**
 * The executable name of a command's first token, as Rust's `Path::file_name` reads it: the last
 * component, ignoring trailing slashes and `.` components; null for `/`, `..` endings and empty input.
 */
export function executableName(program: string): string | null {
  const components = program.split("/").filter((component) => component !== "" && component !== ".");
  const last = components.at(-1);
  return last === undefined || last === ".." ? null : last;
}

/** Lexically normalises an absolute path: no `.`, `..`, repeated or trailing slashes. */
export function normalizeAbsolutePath(path: string): string {
  const normalized = posix.normalize(path);
  return normalized.length > 1 && normalized.endsWith("/") ? normalized.slice(0, -1) : normalized;
}

export function validateHostExecutableName(name: string): void {
  if (name === "") throw new RuleProblem("invalid rule: host_executable name cannot be empty");
  if (name.includes("/") || name === "." || name === "..") {
    throw new RuleProblem(`invalid rule: host_executable name must be a bare executable name (got ${name})`);
  }
}

/** Checks one `host_executable` path and returns it normalised, with `~/` expanded as Codex does. */
export function parseHostExecutablePath(name: string, raw: string): string {
  const expanded = raw === "~" ? homedir() : raw.startsWith("~/") ? `${homedir()}${raw.slice(1)}` : raw;
  if (!expanded.startsWith("/")) {
    throw new RuleProblem(
      `invalid rule: host_executable paths must be absolute or use \`~/...\` home-relative syntax (got ${raw}): path is not absolute: ${raw}`,
    );
  }
  const path = normalizeAbsolutePath(expanded);
  if (executableName(path) !== name) {
    throw new RuleProblem(`invalid rule: host_executable path \`${raw}\` must have basename \`${name}\``);
  }
  return path;
}
