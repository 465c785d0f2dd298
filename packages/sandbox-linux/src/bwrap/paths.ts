import { realpathSync } from "node:fs";

/** True when `path` is `root` or lies below it (both absolute and canonical). */
export function isAtOrInside(path: string, root: string): boolean {
  return path === root || path.startsWith(root === "/" ? "/" : `${root}/`);
}

/** The directories strictly between `root` and `path` (which lies inside it), outermost first. */
export function dirsBetween(root: string, path: string): string[] {
  const prefix = root === "/" ? "/" : `${root}/`;
  if (!path.startsWith(prefix)) return [];
  const parts = path.slice(prefix.length).split("/").slice(0, -1);
  return parts.map((_, i) => prefix + parts.slice(0, i + 1).join("/"));
}

/** `path` with its symlinks resolved, or as given when it does not resolve. */
export function canonicalPath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
