// `conch console`: opens the web console of a running conchd (one served with --http) in a browser, with
// a fresh one-time login link asked of the daemon over its 0600 channel socket; prints the link when no
// browser can be opened. The browser is never given the link itself: its command line is anyone's to
// read. It is given a page only this user can read, which leads it on to the link.
import { spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { conchStateDir, consoleLinks } from "@conch/orchestrator";
import { expectedReceived, visibleText } from "@conch/protocol";
import { parseArgs } from "../args.js";
import { UsageError } from "../errors.js";
import { EXIT_NONE_FOUND } from "../exit-codes.js";
import { CONSOLE_HELP } from "../help.js";
import { writeLinkPage } from "./console-link-file.js";

const SPECS = { print: { type: "boolean" }, pid: { type: "string" }, help: { type: "boolean" } } as const;
// How long the opener may take to say whether it opened the page.
const OPEN_TIMEOUT_MS = 10_000;

/**
 * What opens a URL in a browser here: `$BROWSER` (the convention xdg-open and Python's webbrowser share),
 * else xdg-open where a display is, else `open` on macOS; null when nothing can.
 */
function opener(env: NodeJS.ProcessEnv): string | null {
  const browser = env.BROWSER?.split(":")[0]?.trim();
  if (browser !== undefined && browser !== "") return browser;
  if (process.platform === "darwin") return "open";
  if (env.DISPLAY !== undefined || env.WAYLAND_DISPLAY !== undefined) return "xdg-open";
  return null;
}

function open(program: string, url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn(program, [url], { stdio: "ignore", detached: true });
    const timer = setTimeout(() => {
      child.unref();
      resolve(true);
    }, OPEN_TIMEOUT_MS);
    child.once("error", () => {
      clearTimeout(timer);
      resolve(false);
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolve(code === 0);
    });
  });
}

export async function consoleCommand(args: readonly string[]): Promise<number> {
  const { options, positionals } = parseArgs(args, SPECS, "console", false);
  if (options.help) {
    process.stdout.write(CONSOLE_HELP);
    return 0;
  }
  if (positionals.length > 0) throw new UsageError("takes no arguments", "console");
  let pid: number | null = null;
  if (options.pid !== undefined) {
    pid = Number(options.pid);
    if (!Number.isSafeInteger(pid) || pid < 1) {
      throw new UsageError(expectedReceived("--pid", "a process id", options.pid), "console");
    }
  }
  const { daemons, links } = await consoleLinks();
  const chosen = pid === null ? links : links.filter((link) => link.daemon === pid);
  if (chosen.length === 0) {
    process.stderr.write(
      daemons === 0
        ? "conch console: no conchd is running; start one with a console: conchd --http PORT\n"
        : pid !== null
          ? `conch console: no running conchd with pid ${pid} serves a console\n`
          : `conch console: no running conchd serves a console (${daemons} running, none with --http); start one with conchd --http PORT\n`,
    );
    return EXIT_NONE_FOUND;
  }
  if (chosen.length > 1) {
    process.stdout.write(
      `conch console: ${chosen.length} conchd serve a console; each link works once, for 15 minutes (--pid PID opens one):\n${chosen
        .map((link) => `  pid ${link.daemon}: ${visibleText(link.url)}\n`)
        .join("")}`,
    );
    return 0;
  }
  const [link] = chosen as [{ daemon: number; url: string }];
  const program = options.print === true ? null : opener(process.env);
  if (program !== null) {
    let page: string | null = null;
    try {
      page = writeLinkPage(join(conchStateDir(), "console"), link.url);
    } catch (error) {
      process.stderr.write(
        `conch console: no browser opened: cannot write its page (${visibleText((error as Error).message)})\n`,
      );
    }
    if (page !== null) {
      if (await open(program, pathToFileURL(page).href)) {
        process.stdout.write(`conch console: opened conchd ${link.daemon}'s console in a browser\n`);
        return 0;
      }
      rmSync(page, { force: true });
    }
  }
  process.stdout.write(
    `conch console: open this link (it works once, for 15 minutes):\n${visibleText(link.url)}\n`,
  );
  return 0;
}
