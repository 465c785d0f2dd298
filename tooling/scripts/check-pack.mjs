#!/usr/bin/env node
// Packs every public workspace package as it would publish (`pnpm pack`: its prepack builds, pnpm
// swaps in publishConfig and rewrites workspace: ranges) and judges each tarball: what is in it, publint
// (strict) and attw (esm-only). Prints the size of each. Usage: node tooling/scripts/check-pack.mjs
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { contentProblems, formatSizes, lintTarball, mapLimit, packPackage, tarEntries } from "./pack.mjs";
import { workspacePackages } from "./workspace.mjs";

const root = fileURLToPath(new URL("../..", import.meta.url));
const packages = workspacePackages(root).filter(({ manifest }) => manifest.private !== true);
const dest = mkdtempSync(join(tmpdir(), "conch-pack-"));
try {
  const packed = [];
  // One at a time: each prepack runs turbo, and two turbo builds of one package would race on dist/.
  for (const pkg of packages) packed.push({ pkg, result: await packPackage(root, pkg, dest) });
  const judged = await mapLimit(packed, 2, async ({ pkg, result }) => {
    if ("error" in result) return { pkg, ok: false, lines: [result.error], size: undefined };
    const bytes = readFileSync(result.tarball);
    const entries = tarEntries(bytes);
    const problems = contentProblems(pkg.manifest, entries, {
      changelog: existsSync(join(root, pkg.dir, "CHANGELOG.md")),
      dir: pkg.dir,
    });
    const lint = await lintTarball(root, result.tarball, pkg.manifest);
    return {
      pkg,
      ok: problems.length === 0 && lint.ok,
      lines: [...problems, ...lint.lines],
      size: {
        name: pkg.name,
        packed: bytes.length,
        unpacked: entries.reduce((sum, entry) => sum + entry.size, 0),
        files: entries.length,
      },
    };
  });
  let failed = 0;
  for (const { pkg, ok, lines } of judged) {
    if (!ok) failed++;
    console.log(`${ok ? "ok  " : "FAIL"} ${pkg.name} (${pkg.dir})`);
    for (const line of lines) console.log(`     ${line.replaceAll("\n", "\n     ")}`);
  }
  console.log("");
  for (const line of formatSizes(judged.flatMap(({ size }) => (size === undefined ? [] : [size])))) {
    console.log(line);
  }
  if (failed > 0) {
    console.log(`pack: ${failed} of ${packages.length} packages failed`);
    process.exitCode = 1;
  } else {
    console.log(`pack ok: ${packages.length} packages (publint strict, attw esm-only)`);
  }
} finally {
  rmSync(dest, { recursive: true, force: true });
}
