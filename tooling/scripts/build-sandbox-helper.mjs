// Builds conch-sandbox-helper (packages/sandbox-linux/helper/conch-sandbox-helper.c) for linux-x64 and
// linux-arm64, statically, and writes the binaries to packages/sandbox-linux/bin and their SHA-256 to
// packages/sandbox-linux/src/helper/helper-digests.ts, which the package checks before running one.
// The binaries are committed, so an install from the registry needs no compiler; `--check` builds them
// again in a temporary directory and fails unless they are byte for byte the committed ones (the build
// is reproducible: no build id, no paths, no dates). Needs Debian's musl-tools (x64, musl) and
// gcc-aarch64-linux-gnu (arm64, static glibc).
//   node tooling/scripts/build-sandbox-helper.mjs [--check]
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const PACKAGE = join(ROOT, "packages", "sandbox-linux");
const SOURCE_DIR = join(PACKAGE, "helper");
const SOURCE = "conch-sandbox-helper.c";
const DIGESTS = join(PACKAGE, "src", "helper", "helper-digests.ts");

const TARGETS = [
  { arch: "x64", compiler: "musl-gcc", install: "apt-get install musl-tools" },
  { arch: "arm64", compiler: "aarch64-linux-gnu-gcc", install: "apt-get install gcc-aarch64-linux-gnu" },
];
const FLAGS = [
  "-static",
  "-Os",
  "-s",
  "-std=c11",
  "-Wall",
  "-Wextra",
  "-Werror",
  "-fno-ident",
  "-ffile-prefix-map=.=.",
  "-Wl,--build-id=none",
];

const args = process.argv.slice(2);
if (args.some((arg) => arg !== "--check")) {
  console.error(
    `build-sandbox-helper: unknown argument; expected nothing or --check, received ${args.join(" ")}`,
  );
  process.exit(2);
}
const check = args.includes("--check");

function build(outDir) {
  const built = {};
  for (const target of TARGETS) {
    const out = join(outDir, `conch-sandbox-helper-linux-${target.arch}`);
    // Run in the source's directory with a relative name: nothing of this machine's paths gets in.
    const run = spawnSync(target.compiler, [...FLAGS, "-o", out, SOURCE], {
      cwd: SOURCE_DIR,
      encoding: "utf8",
      env: { ...process.env, LC_ALL: "C", SOURCE_DATE_EPOCH: "0" },
    });
    if (run.error !== undefined) {
      console.error(`build-sandbox-helper: ${target.compiler} is not installed: ${target.install}`);
      process.exit(1);
    }
    if (run.status !== 0) {
      console.error(`build-sandbox-helper: ${target.compiler} failed:\n${run.stderr}`);
      process.exit(1);
    }
    built[target.arch] = createHash("sha256").update(readFileSync(out)).digest("hex");
  }
  return built;
}

function digestsSource(digests) {
  const lines = Object.entries(digests).map(([arch, digest]) => `  "linux-${arch}": "${digest}",`);
  return `// Written by tooling/scripts/build-sandbox-helper.mjs: the SHA-256 of each committed helper binary
// (bin/conch-sandbox-helper-linux-*), checked before one is run. Do not edit by hand.
export const HELPER_DIGESTS: Readonly<Record<string, string>> = {
${lines.join("\n")}
};
`;
}

if (check) {
  const dir = mkdtempSync(join(tmpdir(), "conch-helper-"));
  try {
    const fresh = build(dir);
    let failed = false;
    for (const target of TARGETS) {
      const name = `conch-sandbox-helper-linux-${target.arch}`;
      let committed = null;
      try {
        committed = readFileSync(join(PACKAGE, "bin", name));
      } catch {}
      const digest = committed === null ? null : createHash("sha256").update(committed).digest("hex");
      if (digest !== fresh[target.arch]) {
        console.error(
          `build-sandbox-helper: bin/${name} is not what its source builds to (committed ${digest}, built ${fresh[target.arch]})`,
        );
        failed = true;
      }
    }
    if (readFileSync(DIGESTS, "utf8") !== digestsSource(fresh)) {
      console.error("build-sandbox-helper: src/helper/helper-digests.ts does not match the built helpers");
      failed = true;
    }
    if (failed) {
      console.error(
        "build-sandbox-helper: run node tooling/scripts/build-sandbox-helper.mjs and commit the result",
      );
      process.exit(1);
    }
    console.log("build-sandbox-helper: the committed helpers are what their source builds to");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
} else {
  const out = join(PACKAGE, "bin");
  mkdirSync(out, { recursive: true });
  mkdirSync(dirname(DIGESTS), { recursive: true });
  const digests = build(out);
  writeFileSync(DIGESTS, digestsSource(digests));
  console.log(
    `build-sandbox-helper: built ${Object.keys(digests)
      .map((arch) => `linux-${arch}`)
      .join(", ")}`,
  );
}
