// Calls that return once the answer is complete, with real PTYs and processes: a shell back at its
// prompt (bash, zsh, sh, dash), a REPL that went quiet, a poll that got new output; nothing lost or
// reordered across early returns. A call that did not settle would run to its 30 s window and hit the
// test's timeout: that, not a timing, is what fails here.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describeWith, itWith } from "@conch/test-config";
import { afterEach, beforeEach, expect, it } from "vitest";
import type { SessionSpec } from "../src/session/session.js";
import { interactiveShell } from "../src/session/shell-prompt.js";
import { SessionStore } from "../src/store/session-store.js";

let dir: string;
let stores: SessionStore[];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "conch-settle-"));
  stores = [];
});
afterEach(async () => {
  await Promise.all(stores.map((store) => store.terminateAll()));
  await rm(dir, { recursive: true, force: true });
});

function store(settleMs?: number): SessionStore {
  const made = new SessionStore(settleMs === undefined ? {} : { settleMs });
  stores.push(made);
  return made;
}

function spec(argv: string[], tty: boolean, extra: Partial<SessionSpec> = {}): SessionSpec {
  return {
    argv,
    command: argv.join(" "),
    cwd: dir,
    tty,
    env: { set: { HOME: dir, PS1: "prompt$ " } },
    ...extra,
  };
}

const WINDOW = 30_000;
const QUICK = 15_000;

describeWith(["linux", "pty"], "settled returns", () => {
  it(
    "a write to bash -i returns at the prompt: builtins, a loop, a command that takes a while",
    async () => {
      const sessions = store();
      const started = await sessions.start(
        spec(["bash", "--norc", "--noprofile", "-i"], true, { shell: "bash" }),
        WINDOW,
      );
      expect(started.running).toBe(true);
      const id = started.sessionId;
      const hi = await sessions.write(id, "echo hi\n", WINDOW, { raw: true });
      expect(hi.output).toMatch(/hi\r\n.*prompt\$ $/s);
      const loop = await sessions.write(id, "for i in 1 2 3; do echo n$i; done\n", WINDOW, { raw: true });
      expect(loop.output).toMatch(/n1\r\nn2\r\nn3\r\n.*prompt\$ $/s);
      // Not at the echo of the command line: the shell runs sleep, then prints, then prompts.
      const slow = await sessions.write(id, "sleep 0.5; echo slept\n", WINDOW, { raw: true });
      expect(slow.output).toMatch(/slept\r\n.*prompt\$ $/s);
      expect(slow.running).toBe(true);
      // Nor when the shell is back at its prompt before what it printed has come through the terminal
      // (a loaded machine's kernel worker moves it late): again and again, to meet that moment.
      for (let round = 0; round < 10; round++) {
        const after = await sessions.write(id, `sleep 0.02; echo slept-$((${round}*7))\n`, WINDOW, {
          raw: true,
        });
        expect(after.output).toMatch(new RegExp(`slept-${round * 7}\\r\\n.*prompt\\$ $`, "s"));
      }
      // Nor while it reads a command substitution, whose subshell never takes the terminal.
      const sub = await sessions.write(id, 'echo "[$(sleep 0.5; echo sub)]"\n', WINDOW, { raw: true });
      expect(sub.output).toMatch(/\[sub\]\r\n.*prompt\$ $/s);
    },
    QUICK,
  );

  for (const [name, argv] of [
    ["zsh", ["zsh", "-f", "-i"]],
    ["sh", ["sh", "-i"]],
    ["dash", ["dash", "-i"]],
  ] as const) {
    itWith(
      name,
      `${name} -i settles at its prompt too`,
      async () => {
        const sessions = store();
        const started = await sessions.start(
          spec([...argv], true, {
            shell: name,
            env: { set: { HOME: dir, PS1: "prompt$ ", PROMPT: "prompt$ " } },
          }),
          WINDOW,
        );
        const id = started.sessionId;
        // A shell without a line editor (sh, dash) lets the terminal echo the line before it wakes to read
        // it: still sleeping in that read, it looks back at its prompt, but the output ends a line (the
        // echo), so the call waits for the answer and the prompt after it. Again and again, as a loaded
        // machine would catch it sooner or later.
        for (let round = 0; round < 20; round++) {
          const answer = await sessions.write(id, `echo from-$((40+${round}))\n`, WINDOW, { raw: true });
          expect(answer.output).toContain(`from-${40 + round}\r\n`);
          // The prompt last, whatever terminal modes the shell sets after it (zsh turns bracketed paste on).
          // biome-ignore lint/suspicious/noControlCharactersInRegex: the escape sequences are the point
          expect(answer.output).toMatch(/prompt\$ (\u001b\[[0-9?;]*[A-Za-z])*$/);
        }
      },
      QUICK,
    );
  }

  it(
    "a line a background job prints at the prompt returns once quiet, not at the deadline",
    async () => {
      const sessions = store();
      const started = await sessions.start(
        spec(["bash", "--norc", "--noprofile", "-i"], true, { shell: "bash" }),
        WINDOW,
      );
      await sessions.write(started.sessionId, "(sleep 0.3; echo bg-done) &\n", WINDOW, { raw: true });
      let polled = "";
      while (!polled.includes("bg-done")) {
        polled += (await sessions.write(started.sessionId, "", WINDOW, { raw: true })).output;
      }
      expect(polled).toMatch(/bg-done\r\n$/);
    },
    QUICK,
  );

  for (const [late, split] of [
    ["all it prints", false],
    ["the last three bytes of each piece it prints", true],
  ] as const) {
    itWith(
      "python3",
      `a shell whose output comes through its terminal late (${late}): the call waits for the output and the prompt`,
      async () => {
        // bash on a terminal of its own, behind a relay that hands on (part of) what it prints 40 ms
        // late: the shell is back at its prompt well before its answer has come, as under a loaded
        // machine's kernel (40 ms: far past the 5 ms a prompt is confirmed in, within the 100 ms an
        // output that does not end as the prompt does waits). Split, what has come ends mid-line
        // ("...promp").
        const relay = [
          "import os, pty, select, time, tty",
          `SPLIT = ${split ? "True" : "False"}`,
          "pid, fd = pty.fork()",
          "if pid == 0:",
          "    os.execvpe('bash', ['bash', '--norc', '--noprofile', '-i'], dict(os.environ, PS1='prompt$ '))",
          "tty.setraw(0)",
          "late = []",
          "while True:",
          "    wait = max(0, late[0][0] - time.monotonic()) if late else None",
          "    ready = select.select([0, fd], [], [], wait)[0]",
          "    if fd in ready:",
          "        try:",
          "            data = os.read(fd, 65536)",
          "        except OSError:",
          "            break",
          "        now = time.monotonic()",
          "        half = max(0, len(data) - 3) if SPLIT else 0",
          "        late.append((now, data[:half]))",
          "        late.append((now + 0.04, data[half:]))",
          "    if 0 in ready:",
          "        os.write(fd, os.read(0, 65536))",
          "    while late and late[0][0] <= time.monotonic():",
          "        os.write(1, late.pop(0)[1])",
        ].join("\n");
        const sessions = store();
        const started = await sessions.start(
          spec(["python3", "-c", relay], true, { shell: "bash" }),
          WINDOW,
          {
            raw: true,
          },
        );
        expect(started.output).toMatch(/prompt\$ $/);
        for (let round = 0; round < 3; round++) {
          const command = `sleep 0.3; echo late-$((${round}*7))\n`;
          const answer = await sessions.write(started.sessionId, command, WINDOW, { raw: true });
          expect(answer.output).toMatch(new RegExp(`late-${round * 7}\\r\\n.*prompt\\$ $`, "s"));
        }
      },
      QUICK,
    );
  }

  itWith(
    "python3",
    "a REPL's answer returns once it went quiet",
    async () => {
      const sessions = store();
      const started = await sessions.start(spec(["python3", "-i", "-q"], true), WINDOW);
      const answer = await sessions.write(started.sessionId, "print(6 * 7)\n", WINDOW, { raw: true });
      expect(answer.output).toMatch(/42\r\n>>> $/);
    },
    QUICK,
  );

  it(
    "a start returns once the first output settled: a server's banner, then it keeps running",
    async () => {
      const sessions = store();
      const started = await sessions.start(
        spec(["sh", "-c", "sleep 0.1; echo listening on 8080; sleep 60"], false),
        WINDOW,
      );
      expect(started.running).toBe(true);
      expect(started.output).toBe("listening on 8080\n");
    },
    QUICK,
  );

  it(
    "an empty poll returns once new output came and settled; one with nothing new waits its window",
    async () => {
      const sessions = store();
      const started = await sessions.start(spec(["sh", "-c", "sleep 1; echo late; sleep 60"], false), 250);
      const polled = await sessions.write(started.sessionId, "", WINDOW);
      expect(polled.output).toBe("late\n");
      const quiet = await sessions.write(started.sessionId, "", 5_000);
      expect(quiet.output).toBe("");
      expect(quiet.wallTimeMs).toBeGreaterThanOrEqual(4_900);
    },
    QUICK,
  );

  it(
    "a window that ends while a terminal program draws lets the drawing finish",
    async () => {
      const sessions = store();
      // Draws 20 rows, 30 ms apart (closer than the settle time), once a line comes, then waits.
      const draw =
        'import sys,time\ninput()\nfor i in range(20):\n  print("row", i, flush=True); time.sleep(0.03)\nprint("drawn", flush=True)\ntime.sleep(30)';
      const started = await sessions.start(spec(["python3", "-c", draw], true), 1000);
      const answer = await sessions.write(started.sessionId, "\n", 250, { raw: true });
      // The 250 ms window ends mid-draw; the answer waits on for the rest, not a cut screen.
      expect(answer.output).toContain("row 19");
      expect(answer.output).toContain("drawn");
    },
    QUICK,
  );

  it("settleMs 0 waits the whole window, as before", async () => {
    const sessions = store(0);
    const started = await sessions.start(
      spec(["bash", "--norc", "--noprofile", "-i"], true, { shell: "bash" }),
      250,
    );
    const answer = await sessions.write(started.sessionId, "echo hi\n", 1_000, { raw: true });
    expect(answer.output).toContain("hi");
    expect(answer.wallTimeMs).toBeGreaterThanOrEqual(990);
  });

  it("a start asked not to settle waits its window", async () => {
    const sessions = store();
    const started = await sessions.start(spec(["sh", "-c", "echo banner; sleep 60"], false), 1_000, {
      settle: false,
    });
    expect(started.output).toBe("banner\n");
    expect(started.wallTimeMs).toBeGreaterThanOrEqual(990);
  });

  it("100,000 numbered lines through a session polled every few ms arrive whole and in order", async () => {
    const sessions = store();
    // Bursts of 5,000 lines with pauses between: polls return early at the pauses and mid-burst.
    const script =
      "awk 'BEGIN { for (i = 1; i <= 100000; i++) { print i; if (i % 5000 == 0) { fflush(); system(\"sleep 0.12\") } } }'";
    const started = await sessions.start(spec(["sh", "-c", script], false), 250);
    let text = started.output;
    let response = started;
    let polls = 0;
    while (response.running) {
      response = await sessions.read(started.sessionId, 3);
      text += response.output;
      polls++;
    }
    expect(polls).toBeGreaterThan(20);
    const lines = text.split("\n").filter((line) => line !== "");
    expect(lines.length).toBe(100_000);
    expect(lines.every((line, index) => line === String(index + 1))).toBe(true);
  }, 60_000);
});

it("tells an interactive shell from a shell running a script", () => {
  expect(
    ["bash", "bash -i", "/bin/bash --norc --noprofile -i", "zsh -l", "fish", "  dash  ", "sh -i"].map(
      interactiveShell,
    ),
  ).toEqual(["bash", "bash", "bash", "zsh", "fish", "dash", "sh"]);
  expect(
    [
      "bash -c 'ls'",
      "bash -lc ls",
      "bash script.sh",
      "python3",
      "fish --command=ls",
      "env bash",
      "bash -ic x",
      "",
    ].map(interactiveShell),
  ).toEqual([null, null, null, null, null, null, null, null]);
});
