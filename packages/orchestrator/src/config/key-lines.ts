function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * The 1-based line where top-level `key` is defined (`key = ...`, `key.x = ...`, `[key]`, `[[key]]`),
 * else 1. smol-toml keeps no positions, so lines are scanned; lines inside multi-line strings are skipped,
 * and `key = ...` only counts before the first table header, where top-level keys live.
 */
export function keyLine(text: string, key: string): number {
  const bare = `["']?${escapeRegExp(key)}["']?`;
  const assignment = new RegExp(`^\\s*${bare}\\s*[=.]`);
  const header = new RegExp(`^\\s*\\[{1,2}\\s*${bare}\\s*[\\].]`);
  let inside: string | null = null;
  let inTable = false;
  for (const [index, line] of text.split(/\r?\n/).entries()) {
    if (inside === null) {
      if (header.test(line)) return index + 1;
      if (/^\s*\[/.test(line)) inTable = true;
      else if (!inTable && assignment.test(line)) return index + 1;
    }
    for (const delimiter of line.match(/"""|'''/g) ?? []) {
      if (inside === null) inside = delimiter;
      else if (inside === delimiter) inside = null;
    }
  }
  return 1;
}
