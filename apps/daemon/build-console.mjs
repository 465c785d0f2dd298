// Builds the web console into dist/console-ui: the page, its one script (console/src bundled with
// xterm.js by esbuild: no framework, nothing loaded from anywhere but this server) and its styles.
import { copyFileSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const out = here("./dist/console-ui/");
mkdirSync(out, { recursive: true });

await build({
  entryPoints: [here("./console/src/main.ts")],
  outfile: `${out}app.js`,
  bundle: true,
  format: "esm",
  platform: "browser",
  target: ["chrome120", "firefox120", "safari17"],
  minify: true,
  legalComments: "eof",
  logLevel: "warning",
});
copyFileSync(here("./console/index.html"), `${out}index.html`);
copyFileSync(here("./console/app.css"), `${out}app.css`);
copyFileSync(createRequire(import.meta.url).resolve("@xterm/xterm/css/xterm.css"), `${out}xterm.css`);
