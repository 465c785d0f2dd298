import { describe, expect, it } from "vitest";
import type { CaptureRecords } from "./records.js";
import { renderSnapshot } from "./render.js";

const HEADER = (path: string): string =>
  `# Conch shell snapshot of "${path}": loaded before each command; written by a capture, never edited.`;

function records(overrides: Partial<CaptureRecords>): CaptureRecords {
  return {
    options: "",
    env: [],
    functions: [],
    fpath: [],
    zdotdir: undefined,
    histfile: undefined,
    aliases: "",
    ...overrides,
  };
}

const keepAll = (): boolean => true;

describe("renderSnapshot", () => {
  it("writes bash's variables, options, functions and aliases in that order", () => {
    const text = renderSnapshot(
      "bash",
      "/bin/bash",
      records({
        options: [
          "shopt -s extglob",
          "shopt -s login_shell",
          "shopt -s expand_aliases",
          "shopt -u restricted_shell",
          "set -o noclobber",
          "set -o histexpand",
          "set -o xtrace",
          "set +o posix",
          "set -o monitor",
          "set -o emacs",
          "echo injected",
          "",
        ].join("\n"),
        env: [{ name: "EDITOR", value: "vim" }],
        functions: [
          { name: "greet", body: "greet () \n{ \n    echo hi\n}\n" },
          { name: "_git", body: "_git () \n{ \n    :\n}\n" },
          { name: "__git_ps1", body: "__git_ps1 () \n{ \n    :\n}\n" },
          { name: "command_not_found_handle", body: "command_not_found_handle () \n{ \n    :\n}\n" },
        ],
        aliases: "alias ll='ls -l'\n",
      }),
      keepAll,
    );
    expect(text).toBe(
      [
        HEADER("/bin/bash"),
        "unset BASH_ENV",
        "export EDITOR='vim'",
        "shopt -s extglob",
        "set -o noclobber",
        "greet () \n{ \n    echo hi\n}",
        "__git_ps1 () \n{ \n    :\n}",
        "if [[ -n ${CONCH_SNAPSHOT_PROBE+x} ]]; then builtin unset CONCH_SNAPSHOT_PROBE; builtin printf '%s\\n' \"conch-snapshot-loaded\" >&2; fi",
        "alias ll='ls -l'",
        "shopt -s expand_aliases",
        "",
      ].join("\n"),
    );
  });

  it("quotes every value as one word, byte for byte", () => {
    const value = 'it\'s "$HOME" `id` \\ \n\t* ;&|';
    const text = renderSnapshot("sh", "/bin/sh", records({ env: [{ name: "TRICKY", value }] }), keepAll);
    expect(text.split("\n").slice(1, 3).join("\n")).toBe(
      `export TRICKY='it'\\''s "$HOME" \`id\` \\ \n\t* ;&|'`,
    );
  });

  it("asks keep about each variable, with its value decoded, and skips the shell's own", () => {
    const asked: [string, string][] = [];
    const text = renderSnapshot(
      "bash",
      "/bin/bash",
      records({
        env: [
          { name: "PWD", value: "/x" },
          { name: "OLDPWD", value: "/y" },
          { name: "SHLVL", value: "2" },
          { name: "_", value: "/usr/bin/env" },
          { name: "SHELLOPTS", value: "braceexpand" },
          { name: "UID", value: "0" },
          { name: "CONCH_SNAPSHOT_PROBE", value: "1" },
          { name: "BAD-NAME", value: "1" },
          { name: "OPENAI_API_KEY", value: "sk-1" },
          { name: "GREETING", value: Buffer.from("héllo").toString("latin1") },
        ],
      }),
      (name, value) => {
        asked.push([name, value]);
        return !name.endsWith("_KEY");
      },
    );
    expect(asked).toEqual([
      ["OPENAI_API_KEY", "sk-1"],
      ["GREETING", "héllo"],
    ]);
    expect(text).not.toContain("sk-1");
    expect(Buffer.from(text, "latin1").toString("utf8")).toContain("export GREETING='héllo'");
  });

  it("lets zsh keep UID but not bash", () => {
    const env = [{ name: "UID", value: "0" }];
    expect(renderSnapshot("zsh", "/bin/zsh", records({ env }), keepAll)).toContain("export UID='0'");
    expect(renderSnapshot("bash", "/bin/bash", records({ env }), keepAll)).not.toContain("UID");
  });

  it("writes zsh's functions, then its options, then its aliases", () => {
    const text = renderSnapshot(
      "zsh",
      "/bin/zsh",
      records({
        options: [
          "extendedglob",
          "interactive",
          "login",
          "noaliases",
          "nounset",
          "NO_CLOBBER",
          "shinstdin",
          "zle",
          "",
        ].join("\n"),
        env: [{ name: "EDITOR", value: "vim" }],
        functions: [
          { name: "greet", body: "greet () {\n\techo hi\n}\n" },
          { name: "_git", body: "_git () {\n\t# undefined\n\tbuiltin autoload -XU\n}\n" },
          { name: "command_not_found_handler", body: "command_not_found_handler () {\n\t:\n}\n" },
        ],
        fpath: ["/usr/share/zsh/functions", "/home/u/it's"],
        aliases: "alias -g G='| grep'\nalias ll='ls -l'\n",
      }),
      keepAll,
    );
    expect(text).toBe(
      [
        HEADER("/bin/zsh"),
        "unset ZDOTDIR",
        "\\builtin unalias -a; \\builtin unalias -as",
        "export EDITOR='vim'",
        "fpath=('/usr/share/zsh/functions' '/home/u/it'\\''s')",
        "greet () {\n\techo hi\n}",
        "setopt extendedglob",
        "setopt noclobber",
        'if [[ -n ${CONCH_SNAPSHOT_PROBE+x} ]]; then \\builtin unset CONCH_SNAPSHOT_PROBE; \\builtin print -r -- "conch-snapshot-loaded" >&2; fi',
        "alias -g G='| grep'",
        "alias ll='ls -l'",
        "\\builtin :",
        "",
      ].join("\n"),
    );
  });

  it("writes only variables for sh and dash", () => {
    const input = records({
      options: "set -o noclobber\n",
      env: [{ name: "A", value: "1" }],
      functions: [{ name: "greet", body: "greet() { :; }\n" }],
      aliases: "alias ll='ls -l'\n",
    });
    for (const type of ["sh", "dash"] as const) {
      expect(renderSnapshot(type, "/bin/sh", input, keepAll)).toBe(
        [
          HEADER("/bin/sh"),
          "export A='1'",
          `if [ -n "\${CONCH_SNAPSHOT_PROBE+x}" ]; then unset CONCH_SNAPSHOT_PROBE; printf '%s\\n' "conch-snapshot-loaded" >&2; fi`,
          "",
        ].join("\n"),
      );
    }
  });
});
