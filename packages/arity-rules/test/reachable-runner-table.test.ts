import { describe, expect, it } from "vitest";
import { reachableCommands, type UnreadPart } from "../src/index.js";
import { COMMAND_INPUT_TABLE, RUNNER_TABLE } from "../src/safety/runner-table.js";

// Classification only: nothing here runs. Issue 20 §4: runners and programs with shell escapes that
// reading a command line did not know.

const script = (text: string): string[] => ["bash", "-lc", text];
const reached = async (argv: string[]): Promise<string[][]> =>
  (await reachableCommands(argv)).commands.map((command) => command.argv);
const reasons = async (argv: string[]): Promise<UnreadPart["reason"][]> =>
  (await reachableCommands(argv)).unread.map((part) => part.reason);

describe("runners of runner-table.ts: the command they run is reached", () => {
  it.each<[string, string[]]>([
    ["npm exec -- rm -f x", ["rm", "-f", "x"]],
    ["npm x -y rm x", ["rm", "x"]],
    ["npm exe -- rm x", ["rm", "x"]],
    ["npm explore left-pad -- rm x", ["rm", "x"]],
    ["npx --package=foo rm x", ["rm", "x"]],
    ["pnpm exec rm x", ["rm", "x"]],
    ["pnpm -C sub exec rm x", ["rm", "x"]],
    ["pnpm dlx rm x", ["rm", "x"]],
    ["pnpm echo x", ["echo", "x"]],
    ["pnpm --silent git push", ["git", "push"]],
    ["pnpm exec -c 'cd a && rm x'", ["rm", "x"]],
    ["pnpx rm x", ["rm", "x"]],
    ["yarn exec 'rm x'", ["rm", "x"]],
    ["yarn dlx -p foo rm x", ["rm", "x"]],
    ["bunx rm x", ["rm", "x"]],
    ["bun x rm x", ["rm", "x"]],
    ["uvx rm x", ["rm", "x"]],
    ["uv run --with requests rm x", ["rm", "x"]],
    ["uv tool run rm x", ["rm", "x"]],
    ["poetry run rm x", ["rm", "x"]],
    ["pipx run rm x", ["rm", "x"]],
    ["pdm run rm x", ["rm", "x"]],
    ["pipenv run rm x", ["rm", "x"]],
    ["hatch run rm x", ["rm", "x"]],
    ["conda run -n env rm x", ["rm", "x"]],
    ["micromamba run -n env rm x", ["rm", "x"]],
    ["pixi run rm x", ["rm", "x"]],
    ["mise exec node@20 -- rm x", ["rm", "x"]],
    ["asdf exec rm x", ["rm", "x"]],
    ["rbenv exec rm x", ["rm", "x"]],
    ["bundle exec rm x", ["rm", "x"]],
    ["opam exec -- rm x", ["rm", "x"]],
    ["direnv exec . rm x", ["rm", "x"]],
    ["ip netns exec ns rm x", ["rm", "x"]],
    ["ssh-agent rm x", ["rm", "x"]],
    ["ssh-agent -s -t 60 rm x", ["rm", "x"]],
    ["dbus-run-session -- rm x", ["rm", "x"]],
    ["dbus-run-session --config-file=c rm x", ["rm", "x"]],
    ["dbus-launch --exit-with-session rm x", ["rm", "x"]],
    ["screen -dmS name rm x", ["rm", "x"]],
    ["screen -dm sh -c 'rm x'", ["rm", "x"]],
    ["daemonize -c / /bin/rm x", ["/bin/rm", "x"]],
    ["dtach -n sock rm x", ["rm", "x"]],
    ["abduco -c name rm x", ["rm", "x"]],
    ["start-stop-daemon --start --exec /bin/rm -- x", ["/bin/rm", "x"]],
    ["start-stop-daemon -S -x /bin/true --startas /bin/rm -- x", ["/bin/rm", "x"]],
    ["start-stop-daemon -S --exec=/bin/rm", ["/bin/rm"]],
    ["start-stop-daemon -Sx /bin/rm -- x", ["/bin/rm", "x"]],
    ["start-stop-daemon -Sx/bin/rm -- x", ["/bin/rm", "x"]],
    ["start-stop-daemon -S -p pidfile -bx /bin/rm -- x", ["/bin/rm", "x"]],
    ["tini -s -- rm x", ["rm", "x"]],
    ["dumb-init rm x", ["rm", "x"]],
    ["systemd-cat -t tag rm x", ["rm", "x"]],
    ["systemd-inhibit --why=x rm x", ["rm", "x"]],
    ["run0 -u root rm x", ["rm", "x"]],
    ["setuidgid user rm x", ["rm", "x"]],
    ["envdir ./env rm x", ["rm", "x"]],
    ["softlimit -m 100 rm x", ["rm", "x"]],
    ["chpst -u user rm x", ["rm", "x"]],
    ["gosu root rm x", ["rm", "x"]],
    ["su-exec root rm x", ["rm", "x"]],
    ["runcon -t type rm x", ["rm", "x"]],
    ["runcon user_u:role_r:type_t rm x", ["rm", "x"]],
    ["setarch x86_64 -R rm x", ["rm", "x"]],
    ["linux32 rm x", ["rm", "x"]],
    ["fstab-decode rm x", ["rm", "x"]],
    ["eatmydata rm x", ["rm", "x"]],
    ["faketime '2020-01-01' rm x", ["rm", "x"]],
    ["proot -r / rm x", ["rm", "x"]],
    ["podman unshare rm x", ["rm", "x"]],
    ["buildah unshare rm x", ["rm", "x"]],
    ["chronic -e rm x", ["rm", "x"]],
    ["ifne rm x", ["rm", "x"]],
    ["lckdo lock rm x", ["rm", "x"]],
    ["pee 'rm x' cat", ["rm", "x"]],
    ["mispipe 'rm x' cat", ["rm", "x"]],
    ["nq rm x", ["rm", "x"]],
    ["watchexec -w src -- rm x", ["rm", "x"]],
    ["entr -r rm x", ["rm", "x"]],
    ["entr -s 'rm x'", ["rm", "x"]],
    ["concurrently 'true' 'rm x'", ["rm", "x"]],
    ["toybox rm x", ["rm", "x"]],
    ["capsh --caps=x -- -c 'rm x'", ["rm", "x"]],
    ["flatpak-spawn --host rm x", ["rm", "x"]],
    ["host-spawn rm x", ["rm", "x"]],
    ["distrobox-host-exec rm x", ["rm", "x"]],
    ["toolbox run -c box rm x", ["rm", "x"]],
    ["coreutils --coreutils-prog=rm x", ["rm", "x"]],
    ["coreutils rm x", ["rm", "x"]],
    ["/lib64/ld-linux-x86-64.so.2 /bin/rm x", ["/bin/rm", "x"]],
    ["/lib/ld-musl-x86_64.so.1 --argv0 ls /bin/rm x", ["/bin/rm", "x"]],
    ["bwrap --ro-bind / / --dev /dev --setenv A B --unshare-all rm x", ["rm", "x"]],
    ["bwrap --bind / / -- rm x", ["rm", "x"]],
  ])("%s reaches %j", async (line, command) => {
    expect(await reached(script(line))).toContainEqual(command);
  });

  it.each<[string, string[]]>([
    ["rg --pre 'rm x' pattern", ["rm", "x"]],
    ["echo a | split --filter='rm x'", ["rm", "x"]],
    ["nc -e /bin/rm 127.0.0.1 9", ["/bin/rm"]],
    ["nc -c 'rm x' 127.0.0.1 9", ["rm", "x"]],
    ["ncat --sh-exec 'rm x' 127.0.0.1 9", ["rm", "x"]],
    ["socat - EXEC:'rm x'", ["rm", "x"]],
    ["socat - system:'rm x'", ["rm", "x"]],
    ["dbus-run-session --dbus-daemon='rm x' true", ["rm", "x"]],
    ["screen -X exec rm x", ["rm", "x"]],
    ["capsh --shell=/bin/rm -- x", ["/bin/rm"]],
  ])("%s: the command its option gives is reached (%j)", async (line, command) => {
    expect(await reached(script(line))).toContainEqual(command);
    expect(await reasons(script(line))).toContain("command-option");
  });

  it.each<[string, string[]]>([
    ["fd -e txt -x rm", ["rm"]],
    ["fdfind . -X rm -f ';' -d 1", ["rm", "-f"]],
  ])("%s: fd runs the command after -x or -X as written (%j)", async (line, command) => {
    expect(await reached(script(line))).toContainEqual(command);
  });

  it.each([
    "npm exec rm x",
    "npx rm x",
    "pnpm exec rm x",
    "uv run rm x",
    "poetry run rm x",
    "bundle exec rm x",
  ])("%s puts a project's bin directory first on PATH (program-path)", async (line) => {
    expect(await reasons(script(line))).toContain("program-path");
  });

  it("make --eval gives make text that runs commands", async () => {
    expect(await reasons(script("make --eval='x: ; @rm f' x"))).toContain("command-option");
  });

  it.each([
    // An option the table does not list may take a value: where the command starts is not known.
    ["ssh-agent -Z x rm y", "command-option"],
    ["npm exec --weird x rm y", "command-option"],
    ["npm --loglevel silent exec rm y", "command-option"],
  ])("%s is unread (%s)", async (line, reason) => {
    expect(await reasons(script(line))).toContain(reason);
  });

  it.each(["screen", "newgrp staff", "mise exec node@20", "npm explore left-pad"])(
    "%s with no command is a shell reading input",
    async (line) => {
      expect(await reasons(script(line))).toContain("shell-input");
    },
  );

  it.each([
    "npm install",
    "npm run build",
    "pnpm install",
    "uv sync",
    "poetry install",
    "start-stop-daemon --stop --exec /bin/rm",
  ])("%s is no runner", async (line) => {
    const reach = await reachableCommands(script(line));
    expect(reach.commands.map((command) => command.argv[0])).not.toContain("rm");
    expect(reach.unread).toEqual([]);
  });
});

describe("programs that run commands typed or fed into them are unread", () => {
  it.each([
    "ed notes",
    "printf '!rm x\\n' | ed -s",
    "red notes",
    "vi notes",
    "nvim notes",
    "emacs notes",
    "nano notes",
    "less notes",
    "more notes",
    "pager notes",
    "dc",
    "psql db",
    "mysql db",
    "sqlite3 db",
    "sqlite3 -separator , db",
    "gdb -q -nx",
    "sftp host",
    "lftp host",
    "mail someone",
    "mutt",
    "w3m notes",
    "tig",
    "expect script.exp",
    "tmux attach",
    "crontab jobs",
  ])("%s", async (line) => {
    const found = await reasons(script(line));
    if (line.startsWith("red ")) {
      // red, restricted ed, runs no shell command.
      expect(found).toEqual([]);
      return;
    }
    expect(found).toContain("command-input");
  });

  it.each(["sqlite3 db 'select 1'", "bc -l", "cat notes", "man ls", "git log"])(
    "%s is read completely",
    async (line) => {
      expect(await reasons(script(line))).toEqual([]);
    },
  );
});

describe("the tables", () => {
  it("name where every entry comes from", () => {
    for (const entry of [...RUNNER_TABLE, ...COMMAND_INPUT_TABLE]) expect(entry.source).not.toBe("");
  });

  it("list a program once among the runners, subcommands aside", () => {
    const names = RUNNER_TABLE.map((entry) => entry.name);
    expect(names.filter((name, index) => names.indexOf(name) !== index)).toEqual([]);
  });
});
