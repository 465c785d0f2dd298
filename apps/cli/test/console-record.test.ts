// `conch console` and `conch record`: the real binary against a real channel socket served by this test
// process (as a running conchd serves it), and real recordings in a state dir.
import { spawn } from "node:child_process";
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { PendingApprovals } from "@conch/approval";
import { type ApprovalChannel, serveApprovalChannel } from "@conch/orchestrator";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

const BIN = fileURLToPath(new URL("../dist/bin.js", import.meta.url));

let root: string;
let env: Record<string, string>;
let channel: ApprovalChannel | null;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "conch-console-"));
  env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: root, XDG_STATE_HOME: join(root, "state") };
  channel = null;
});
afterEach(async () => {
  await channel?.close();
  rmSync(root, { recursive: true, force: true });
});

function conch(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("conch console", () => {
  it("with no conchd, or none serving a console, says so and exits 5", async () => {
    expect(await conch("console")).toMatchObject({
      code: 5,
      stderr: "conch console: no conchd is running; start one with a console: conchd --http PORT\n",
    });
    channel = await serveApprovalChannel(new PendingApprovals(), { env });
    const none = await conch("console");
    expect(none.code).toBe(5);
    expect(none.stderr).toContain("no running conchd serves a console (1 running, none with --http)");
  });

  it("opens a fresh link with $BROWSER, or prints it when no browser can be opened", async () => {
    let minted = 0;
    channel = await serveApprovalChannel(new PendingApprovals(), {
      env,
      services: { consoleLink: () => `http://127.0.0.1:4000/#login=secret${++minted}` },
    });
    const printed = await conch("console");
    expect(printed).toMatchObject({
      code: 0,
      stdout:
        "conch console: open this link (it works once, for 15 minutes):\nhttp://127.0.0.1:4000/#login=secret1\n",
    });
    // The browser is given a page only this user can read, never the link: its command line is in
    // /proc/PID/cmdline for every user of the machine.
    const opened = join(root, "opened");
    const browser = join(root, "browser");
    writeFileSync(browser, `#!/bin/sh\nprintf '%s\\n' "$@" > '${opened}'\n`);
    chmodSync(browser, 0o755);
    env.BROWSER = browser;
    expect(await conch("console")).toMatchObject({
      code: 0,
      stdout: `conch console: opened conchd ${process.pid}'s console in a browser\n`,
    });
    const argv = readFileSync(opened, "utf8").trimEnd().split("\n");
    const pages = join(root, "state", "conch", "console");
    expect(argv).toEqual([expect.stringMatching(/^file:\/\/\/.+\/login-[A-Za-z0-9_-]{22}\.html$/)]);
    expect(argv.join(" ")).not.toContain("secret2");
    const page = fileURLToPath(argv[0] as string);
    expect(dirname(page)).toBe(pages);
    expect(statSync(pages).mode & 0o777).toBe(0o700);
    expect(statSync(page).mode & 0o777).toBe(0o600);
    expect(readFileSync(page, "utf8")).toContain(
      '<meta http-equiv="refresh" content="0;url=http://127.0.0.1:4000/#login=secret2">',
    );
    // A page whose link has lapsed (15 minutes) is swept at the next run; a browser that fails leaves
    // no page behind, and the link is printed instead.
    utimesSync(page, new Date(Date.now() - 16 * 60_000), new Date(Date.now() - 16 * 60_000));
    writeFileSync(browser, "#!/bin/sh\nexit 3\n");
    expect(await conch("console")).toMatchObject({
      code: 0,
      stdout:
        "conch console: open this link (it works once, for 15 minutes):\nhttp://127.0.0.1:4000/#login=secret3\n",
    });
    expect(readdirSync(pages)).toEqual([]);
    // A page is never written through a link planted where the directory should be.
    rmSync(pages, { recursive: true });
    symlinkSync(root, pages);
    expect(await conch("console")).toEqual({
      code: 0,
      stdout:
        "conch console: open this link (it works once, for 15 minutes):\nhttp://127.0.0.1:4000/#login=secret4\n",
      stderr: `conch console: no browser opened: cannot write its page (${pages} is not a directory of yours)\n`,
    });
    expect(readdirSync(root).filter((name) => name.startsWith("login-"))).toEqual([]);
    rmSync(pages);
    // A state directory under a folder other users may write (not sticky): they could swap the page's
    // folder between its check and the write, so no page is written and the link is printed instead.
    chmodSync(root, 0o777);
    expect(await conch("console")).toEqual({
      code: 0,
      stdout:
        "conch console: open this link (it works once, for 15 minutes):\nhttp://127.0.0.1:4000/#login=secret5\n",
      stderr: `conch console: no browser opened: cannot write its page (${root} can be written by other users, who could replace the page's folder (make it writable by its owner only: chmod go-w ${root}))\n`,
    });
    expect(readdirSync(pages)).toEqual([]);
    // Sticky, as /tmp is: nobody else can rename what is not theirs.
    chmodSync(root, 0o1777);
    writeFileSync(browser, `#!/bin/sh\nprintf '%s\\n' "$@" > '${opened}'\n`);
    expect((await conch("console")).stdout).toBe(
      `conch console: opened conchd ${process.pid}'s console in a browser\n`,
    );
    chmodSync(root, 0o700);
    expect((await conch("console", "--print")).stdout).toContain("#login=secret7");
    expect((await conch("console", "--pid", "1")).code).toBe(5);
    expect((await conch("console", "--pid", "x")).code).toBe(2);
  });
});

describe("conch record", () => {
  it("lists the recordings newest first and gives the path of a session's newest", async () => {
    expect(await conch("record", "list")).toMatchObject({
      code: 0,
      stdout: expect.stringContaining("no recordings in"),
    });
    const dir = join(env.XDG_STATE_HOME as string, "conch", "recordings");
    mkdirSync(dir, { recursive: true });
    const cast = (name: string, command: string) =>
      writeFileSync(
        join(dir, name),
        `${JSON.stringify({ version: 2, width: 80, height: 24, command })}\n[0.1,"o","hi"]\n`,
      );
    cast("4242-20261201T100000000Z.cast", "bash -i");
    cast("4242-20261202T100000000Z.cast", "python3\u001b[31m");
    cast("77-20261201T120000000Z.cast", "htop");
    writeFileSync(join(dir, "notes.txt"), "not a recording");
    const listed = await conch("record", "list");
    expect(listed.code).toBe(0);
    expect(
      listed.stdout
        .trim()
        .split("\n")
        .map((line) => line.split(/\s+/).slice(0, 2).join(" ")),
    ).toEqual([
      "4242 2026-12-02T10:00:00.000Z",
      "77 2026-12-01T12:00:00.000Z",
      "4242 2026-12-01T10:00:00.000Z",
    ]);
    expect(listed.stdout).toContain("python3\\u{1b}[31m");
    expect(listed.stdout).not.toContain("\u001b");
    const json = JSON.parse((await conch("record", "list", "--json")).stdout) as {
      recordings: { name: string }[];
    };
    expect(json.recordings.map((entry) => entry.name)).toHaveLength(3);
    expect(await conch("record", "path", "4242")).toMatchObject({
      code: 0,
      stdout: `${join(dir, "4242-20261202T100000000Z.cast")}\n`,
    });
    expect(await conch("record", "path", "5")).toMatchObject({
      code: 5,
      stderr: expect.stringContaining("no recording of session 5"),
    });
    expect((await conch("record", "path")).code).toBe(2);
    expect((await conch("record", "frob")).code).toBe(2);
  });
});
