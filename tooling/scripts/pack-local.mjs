// `pnpm pack:local [DIR]`: until the packages are on npm, the way to install them elsewhere. Packs every
// public package of this checkout into DIR (default `packed/`), each built by its prepack, and prints,
// per package, the `npm install` line that installs it with the tarballs of the workspace packages it
// needs at runtime (npm takes them from the files instead of the registry).
import { mkdirSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { internalRuntimeDeps, packPackage } from "./pack.mjs";
import { workspacePackages } from "./workspace.mjs";

const root = fileURLToPath(new URL("../..", import.meta.url));
const args = process.argv.slice(2);
if (args.length > 1 || args.some((arg) => arg.startsWith("-"))) {
  process.stderr.write("usage: pnpm pack:local [DIR]   (DIR: where the tarballs go, default packed/)\n");
  process.exit(2);
}
const dest = resolve(process.env.INIT_CWD ?? process.cwd(), args[0] ?? "packed");
mkdirSync(dest, { recursive: true });

const packages = workspacePackages(root).filter((pkg) => pkg.manifest.private !== true);
/** @type {Map<string, string>} */
const tarballs = new Map();
for (const pkg of packages) {
  process.stderr.write(`packing ${pkg.name}...\n`);
  const packed = await packPackage(root, pkg, dest);
  if ("error" in packed) {
    process.stderr.write(`${pkg.name}: ${packed.error}\n`);
    process.exit(1);
  }
  tarballs.set(pkg.name, packed.tarball);
}
process.stdout.write(
  `\nThe tarballs are in ${dest}. In your project, install a package with what it needs:\n\n`,
);
for (const pkg of packages) {
  const needs = [pkg.name, ...internalRuntimeDeps(pkg.name, packages)];
  const files = [...new Set(needs)].map((name) => tarballs.get(name)).join(" ");
  const global = pkg.manifest.bin === undefined ? "" : "-g ";
  process.stdout.write(`${pkg.name}:\n  npm install ${global}${files}\n`);
}
