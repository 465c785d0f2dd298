import { readFileSync } from "node:fs";

/** The package's version, read from its manifest (beside dist/ and src/ alike). */
export function daemonVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
    version: string;
  };
  return manifest.version;
}
