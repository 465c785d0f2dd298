#!/usr/bin/env node
// Lints what each public workspace package would publish: publint packs it with `pnpm pack` (so the
// file list is the real one) and reads `publishConfig.exports`, which pnpm swaps in at pack time.
// Needs a built dist; `pnpm check:pack` builds first.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { publint } from "publint";
import { formatMessage } from "publint/utils";

const root = fileURLToPath(new URL("../..", import.meta.url));
const CONCURRENCY = 4;

function publicPackages() {
  const found = [];
  for (const group of ["packages", "apps"]) {
    const groupDir = join(root, group);
    if (!existsSync(groupDir)) continue;
    for (const entry of readdirSync(groupDir, { withFileTypes: true })) {
      const manifestPath = join(groupDir, entry.name, "package.json");
      if (!entry.isDirectory() || !existsSync(manifestPath)) continue;
      const manifest = JSON.parse(readFileSync(manifestPath, "utf8"));
      if (manifest.private === true) continue;
      found.push({ name: String(manifest.name), dir: `${group}/${entry.name}`, manifest });
    }
  }
  return found;
}

/** @param {{name: string, dir: string, manifest: Record<string, unknown>}} pkg */
async function lint(pkg) {
  const pkgDir = join(root, pkg.dir);
  const files = Array.isArray(pkg.manifest.files) ? pkg.manifest.files : [];
  if (files.includes("dist") && !existsSync(join(pkgDir, "dist"))) {
    return {
      ok: false,
      lines: ["error: no dist/ to pack: build first (`pnpm check:pack` builds everything)"],
    };
  }
  try {
    const { messages, pkg: manifest } = await publint({ pkgDir, pack: "pnpm", strict: true });
    const lines = messages.map((message) => `${message.type}: ${formatMessage(message, manifest)}`);
    return { ok: messages.every((message) => message.type !== "error"), lines };
  } catch (error) {
    return { ok: false, lines: [`error: ${error instanceof Error ? error.message : String(error)}`] };
  }
}

const packages = publicPackages();
const results = new Array(packages.length);
let next = 0;
await Promise.all(
  Array.from({ length: Math.min(CONCURRENCY, packages.length) }, async () => {
    while (next < packages.length) {
      const index = next++;
      results[index] = await lint(/** @type {(typeof packages)[number]} */ (packages[index]));
    }
  }),
);

let failed = 0;
packages.forEach((pkg, index) => {
  const { ok, lines } = results[index];
  if (!ok) failed++;
  console.log(`${ok ? "ok  " : "FAIL"} ${pkg.name} (${pkg.dir})`);
  for (const line of lines) console.log(`     ${line}`);
});
if (failed > 0) {
  console.log(`pack: ${failed} of ${packages.length} packages failed publint`);
  process.exitCode = 1;
} else {
  console.log(`pack ok: ${packages.length} packages`);
}
