// What conch prints to a terminal from the model, a command's output or a repository shows control,
// bidi and invisible characters escaped (`\u{1b}`), and the approval prompt cannot be rewritten or
// imitated by what it shows.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { detectShell, resolveShell } from "@conch/shell-detect";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

const BIN = fileURLToPath(new URL("../dist/bin.js", import.meta.url));
let dir: string;
let env: NodeJS.ProcessEnv;

beforeEach(() => {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: build the CLI first (pnpm build)`);
  dir = realpathSync(mkdtempSync(join(tmpdir(), "conch-visible-")));
  env = { ...process.env, XDG_CONFIG_HOME: join(dir, ".config"), XDG_STATE_HOME: join(dir, ".state") };
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function conch(args: string[], input = ""): { status: number | null; stdout: string; stderr: string } {
  const { status, stdout, stderr } = spawnSync(process.execPath, [BIN, ...args], {
    encoding: "utf8",
    cwd: dir,
    env,
    input,
  });
  return { status, stdout, stderr };
}

const ASK = ["tool", "call", "--approval", "untrusted", "--approver", "tty"];
// The shells the prompt names: the user's (from passwd) for shell_command, bash for the bash profile.
const loginShell = detectShell().path;
// The bash tool takes the system's bash before one found on PATH.
const SYSTEM_BASH = ["/bin/bash", "/usr/bin/bash", "/usr/local/bin/bash", "/opt/homebrew/bin/bash"];
const bash = SYSTEM_BASH.find((path) => existsSync(path)) ?? resolveShell("bash").path;
// The why row says what decided it, naming the part of the command, escaped on that one row.
const WHY = (part: string) =>
  `  why:      \`${part}\` is not known to be read-only, and under the approval policy untrusted only commands known to be read-only run unasked`;

describe("the approval prompt", () => {
  it("shows a command that rewrites its own line escaped, on the command's row", () => {
    const spoof = "cmd #\r\x1b[2K  command:  git log";
    const result = conch([...ASK, "shell_command", JSON.stringify({ command: spoof, login: false })], "n\n");
    expect(result).toEqual({
      status: 4,
      stdout:
        "rejected by user\nIt was asked because `cmd` is not known to be read-only, and under the approval policy untrusted only commands known to be read-only run unasked.\n",
      stderr: [
        "",
        "conch: approve this command?",
        `  shell:    ${loginShell} -c`,
        "  command:  cmd #\\u{0d}\\u{1b}[2K  command:  git log",
        `  cwd:      ${dir}`,
        "  sandbox:  workspace-write",
        WHY("cmd"),
        "  [y] yes  [s] yes, and don't ask again this session",
        "  [n] no",
        "answer [y/s/n]: ",
      ].join("\n"),
    });
  });

  it("shows a multi-line script line by line behind a gutter, and a purpose on one line, so no line passes for a field", () => {
    const args = { command: "echo a\n  command:  git log", description: "List\n  cwd:      /\u202e" };
    const result = conch([...ASK, "--profile", "bash", "bash", JSON.stringify(args)], "n\n");
    expect(result.status).toBe(4);
    expect(result.stderr).toBe(
      [
        "",
        "conch: approve this command?",
        `  shell:    ${bash} -lc`,
        "  command:",
        "    | echo a",
        "    |   command:  git log",
        "  purpose:  List\\u{0a}  cwd:      /\\u{202e}",
        `  cwd:      ${dir}`,
        "  sandbox:  workspace-write",
        WHY("command: git log"),
        "  [y] yes  [s] yes, and don't ask again this session",
        "  [a] always: run `command: git log ...` unasked from now on",
        "  [n] no",
        "answer [y/s/a/n]: ",
      ].join("\n"),
    );
  });

  it("on a terminal, wraps a row too wide for it behind a mark instead of letting the terminal wrap it", () => {
    // `script` gives conch a pseudo-terminal, 40 columns wide here; "n" typed there answers.
    const word = "a".repeat(30);
    const command = `stty cols 40; ${process.execPath} ${BIN} run --approval untrusted -- touch ${word}  command:`;
    const result = spawnSync("script", ["-qec", command, "/dev/null"], {
      cwd: dir,
      env,
      input: "n\n",
      encoding: "utf8",
    });
    expect(result.stdout.replaceAll("\r\n", "\n")).toContain(
      [
        "conch: approve this command?",
        `  command:  touch ${word.slice(0, 22)}`,
        `    + ${word.slice(22)} command:`,
        "  cwd:      ",
      ].join("\n"),
    );
    expect(result.stdout.replaceAll("\r\n", "\n")).toContain(
      "  [y] yes  [s] yes, and don't ask again \n    + this session\n",
    );
    expect(existsSync(join(dir, word))).toBe(false);
  });
});

describe("what conch prints besides", () => {
  it("tool call prints the model's text, which has the command's control codes removed", () => {
    const command = "printf '\\033]52;c;cm0gLXJmIH4=\\007\\033[31mred\\033[0m \\342\\200\\256txt\\n'";
    const result = conch(["tool", "call", "shell_command", JSON.stringify({ command, login: false })]);
    expect(result.status).toBe(0);
    expect(result.stdout.replace(/Wall time: [\d.]+ seconds/, "Wall time: T seconds")).toBe(
      "Exit code: 0\nWall time: T seconds\nOutput:\nred txt\n" +
        "[Conch removed 4 terminal control codes from this output]\n",
    );
  });

  it("explain shows the script's words, texts and paths escaped, each on its own line", () => {
    const script = 'echo "\x1b[31m" > "/tmp/\u202eevil"; cat <<EOF\n  Known safe: yes\nEOF';
    const result = conch(["explain", script]);
    expect(result.status).toBe(0);
    expect(result.stdout).toContain(
      [
        "Commands (2):",
        '  1. echo "\\u001b[31m"    [prefix: echo]',
        "  2. cat    [prefix: cat]",
        "Operators: ;",
        "Opaque parts (never auto-approved):",
        "  - heredoc: <<EOF\\u{0a}  Known safe: yes\\u{0a}EOF",
        "Redirects: >/tmp/\\u{202e}evil (write)",
        `Paths outside ${dir}: /tmp/\\u{202e}evil`,
        "Known safe: no",
      ].join("\n"),
    );
  });

  it("JSON lines escape what JSON.stringify leaves raw, and errors echo arguments escaped", () => {
    const json = conch([
      "run",
      "--json",
      "--sandbox",
      "danger-full-access",
      "--",
      "printf",
      "\\302\\233\\342\\200\\256",
    ]);
    expect(json.stdout).toContain('"stdout":"\\u009b\\u202e"');
    expect(JSON.parse(json.stdout)).toMatchObject({ stdout: "\u009b\u202e" });
    expect(conch(["tool", "list", "--profile", "\x1b[2J\u200b"])).toEqual({
      status: 2,
      stdout: "",
      stderr:
        'conch tool list: --profile: expected one of codex, bash, terminal, argv, received "\\u001b[2J\\u{200b}"\n' +
        "Run 'conch tool list --help' for usage.\n",
    });
  });
});
