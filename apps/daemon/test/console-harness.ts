/// <reference lib="dom" />
// The console's tests drive Debian's chromium (never a downloaded browser) with playwright-core, headless,
// with the flags that keep it off the network this machine does not have.
import { mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { CHROMIUM } from "@conch/test-config";
import { type Browser, chromium, type Page } from "playwright-core";

/** Where the console tests save their screenshots (not committed). */
const SCREENSHOTS: string = fileURLToPath(new URL("../test-output/console/", import.meta.url));

export interface LaunchedBrowser {
  readonly browser: Browser;
  close(): Promise<void>;
}

export async function launchBrowser(): Promise<LaunchedBrowser> {
  // playwright starts the browser with a new empty profile of its own.
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  return { browser, close: () => browser.close() };
}

/**
 * Records every Content-Security-Policy violation the page reports, from before its own scripts run:
 * `violations()` reads them.
 */
export async function watchCsp(page: Page): Promise<() => Promise<string[]>> {
  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { cspViolations: string[] }).cspViolations = seen;
    document.addEventListener("securitypolicyviolation", (event) => {
      seen.push(`${event.violatedDirective}: ${event.blockedURI} ${event.sample}`);
    });
  });
  return () => page.evaluate(() => (window as unknown as { cspViolations?: string[] }).cspViolations ?? []);
}

const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/** axe-core's serious and critical violations on the page as it is now. */
export async function accessibilityProblems(page: Page): Promise<string[]> {
  // Evaluated by the browser's debugger protocol: the page's CSP (no inline script) does not apply to it.
  await page.evaluate(AXE);
  const result = (await page.evaluate(() =>
    (window as unknown as { axe: { run(): Promise<unknown> } }).axe.run(),
  )) as { violations: { id: string; impact: string | null; help: string; nodes: { target: unknown }[] }[] };
  return result.violations
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map(
      (violation) =>
        `${violation.id} (${violation.impact}): ${violation.help} at ${JSON.stringify(violation.nodes.map((node) => node.target))}`,
    );
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/** The text in the page's open terminal (its buffer, scrollback included). */
export function terminalText(page: Page): Promise<string> {
  return page.evaluate(() =>
    (window as unknown as { conchConsole: { terminalText(): string } }).conchConsole.terminalText(),
  );
}

/** Polls `read` until `check` holds, or fails after `timeoutMs` naming `what` and the last value. */
export async function eventually<T>(
  read: () => Promise<T>,
  check: (value: T) => boolean,
  what: string,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await read();
  while (!check(value)) {
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    value = await read();
  }
  return value;
}
