import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir, totalmem } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isOrchestratorError, OrchestratorError } from "../errors.js";
import { conchConfigDir, loadConfig, trustProject } from "./load-config.js";

// The default limits: memory is three quarters of this machine's.
const DEFAULT_LIMITS = {
  memoryMb: Math.max(256, Math.floor((totalmem() * 0.75) / (1024 * 1024))),
  processes: 8192,
  fileMb: 16384,
};

let root: string;
let home: string;
let project: string;
let userFile: string;
let projectFile: string;

async function write(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, text);
}

function load(cwd: string = project): ReturnType<typeof loadConfig> {
  return loadConfig({ cwd, env: {}, home });
}

async function loadError(cwd: string = project): Promise<OrchestratorError> {
  const error = await load(cwd).then(
    () => null,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof OrchestratorError))
    throw new Error(`expected a OrchestratorError, got ${String(error)}`);
  return error;
}

beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), "conch-config-")));
  home = join(root, "home");
  project = join(root, "work", "project");
  userFile = join(home, ".config", "conch", "config.toml");
  projectFile = join(project, ".conch", "config.toml");
  await mkdir(home, { recursive: true });
  await mkdir(project, { recursive: true });
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("conchConfigDir", () => {
  it("honours an absolute XDG_CONFIG_HOME and ignores a relative one", () => {
    expect(conchConfigDir({ env: { XDG_CONFIG_HOME: "/xdg" }, home: "/h" })).toBe("/xdg/conch");
    expect(conchConfigDir({ env: { XDG_CONFIG_HOME: "xdg" }, home: "/h" })).toBe("/h/.config/conch");
    expect(conchConfigDir({ env: { HOME: "/env-home" } })).toBe("/env-home/.config/conch");
  });
});

describe("loadConfig", () => {
  it("returns the defaults when no file exists", async () => {
    expect(await load()).toEqual({
      approvalPolicy: "on-request",
      sandbox: "workspace-write",
      sandboxBackend: "auto",
      remote: null,
      writableRoots: [],
      networkAccess: false,
      network: "off",
      networkAllow: [],
      networkDeny: [],
      networkAllowAddresses: [],
      networkResolve: {},
      envInherit: "all",
      envExclude: [],
      envAllow: [],
      denyRead: [],
      allowRead: [],
      toolProfile: "codex",
      maxOutputTokens: 10000,
      oneShotOutputTokens: 2000,
      spillRetentionDays: 7,
      rulesDirs: [join(home, ".config", "conch", "rules")],
      durableOneShot: false,
      shellSnapshot: true,
      shellSnapshotTtlS: 3600,
      homeWorkspace: false,
      auditLog: null,
      approvalTimeoutS: 300,
      sessionIdleTtlS: 3600,
      sessionExitGraceS: 600,
      record: true,
      recordMaxMb: 16,
      settleMs: 100,
      limits: DEFAULT_LIMITS,
      projectDir: null,
      sources: [],
      warnings: [],
      rules: [],
    });
  });

  it("reads every key of the user file, relative paths against home", async () => {
    await write(
      userFile,
      [
        'approval_policy = "never"',
        'sandbox = "danger-full-access"',
        'sandbox_backend = "landlock"',
        'writable_roots = ["cache", "~/tmp", "/abs"]',
        "network_access = true",
        'env_inherit = "core"',
        'env_exclude = ["*_TOKEN", "AWS_*"]',
        'env_allow = ["DATABASE_URL"]',
        'deny_read = ["~/private", "secrets/*.pem"]',
        'allow_read = ["~/.ssh/known_hosts"]',
        'tool_profile = "bash"',
        "max_output_tokens = 2000",
        "one_shot_output_tokens = 1500",
        "spill_retention_days = 3",
        'rules_dirs = ["rules", "/etc/conch/rules"]',
        "durable_one_shot = true",
        "shell_snapshot = false",
        "shell_snapshot_ttl_s = 60",
        "home_workspace = true",
        'audit_log = "logs/audit.jsonl"',
        "approval_timeout_s = 120",
        "session_idle_ttl_s = 600",
        "session_exit_grace_s = 1200",
        "record = false",
        "record_max_mb = 4",
        "settle_ms = 0",
        "limits = { memory_mb = 2048, processes = 512, cpu_percent = 150, tmp_mb = 64, file_mb = 100 }",
        'remote = "podman"',
        'remote_rootfs = "rootfs"',
        'remote_agent_id = "ci-7"',
        'remote_agent_command = ["/usr/bin/node", "/opt/conch/agent.js"]',
        'remote_mounts = ["/usr", "opt"]',
      ].join("\n"),
    );
    expect(await load()).toEqual({
      approvalPolicy: "never",
      sandbox: "danger-full-access",
      sandboxBackend: "landlock",
      remote: {
        engine: "podman",
        url: null,
        command: null,
        agentId: "ci-7",
        image: null,
        rootfs: join(home, "rootfs"),
        agentCommand: ["/usr/bin/node", "/opt/conch/agent.js"],
        mounts: ["/usr", join(home, "opt")],
        bindingKey: null,
        podIsSandbox: false,
        kubeconfig: null,
        context: null,
        namespace: null,
        warmPool: "conch",
        claimTtlS: 900,
      },
      writableRoots: [join(home, "cache"), join(home, "tmp"), "/abs"],
      networkAccess: true,
      network: "on",
      networkAllow: [],
      networkDeny: [],
      networkAllowAddresses: [],
      networkResolve: {},
      envInherit: "core",
      envExclude: ["*_TOKEN", "AWS_*"],
      envAllow: ["DATABASE_URL"],
      denyRead: [join(home, "private"), join(home, "secrets", "*.pem")],
      allowRead: [join(home, ".ssh", "known_hosts")],
      toolProfile: "bash",
      maxOutputTokens: 2000,
      oneShotOutputTokens: 1500,
      spillRetentionDays: 3,
      rulesDirs: [join(home, "rules"), "/etc/conch/rules"],
      durableOneShot: true,
      shellSnapshot: false,
      shellSnapshotTtlS: 60,
      homeWorkspace: true,
      auditLog: join(home, "logs", "audit.jsonl"),
      approvalTimeoutS: 120,
      sessionIdleTtlS: 600,
      sessionExitGraceS: 1200,
      record: false,
      recordMaxMb: 4,
      settleMs: 0,
      limits: { memoryMb: 2048, processes: 512, cpuPercent: 150, tmpMb: 64, fileMb: 100 },
      projectDir: null,
      sources: [userFile],
      warnings: [],
      rules: [],
    });
  });

  it("reads another user file when asked (conchd --config), and refuses one that is missing", async () => {
    const other = join(root, "elsewhere", "conchd.toml");
    await write(other, 'approval_policy = "never"\nmax_output_tokens = 123\n');
    await write(userFile, 'approval_policy = "untrusted"\n');
    const config = await loadConfig({ cwd: project, env: {}, home, userConfigPath: other });
    expect(config).toMatchObject({ approvalPolicy: "never", maxOutputTokens: 123, sources: [other] });
    expect(config.rulesDirs).toEqual([join(home, ".config", "conch", "rules")]);
    await expect(
      loadConfig({ cwd: project, env: {}, home, userConfigPath: join(root, "missing.toml") }),
    ).rejects.toThrow(`config file not found: ${join(root, "missing.toml")}`);
  });

  it("reads the user file from $XDG_CONFIG_HOME/conch and defaults rules_dirs there", async () => {
    const xdg = join(root, "xdg");
    await write(join(xdg, "conch", "config.toml"), 'sandbox = "read-only"\n');
    const config = await loadConfig({ cwd: project, env: { XDG_CONFIG_HOME: xdg }, home });
    expect(config.sandbox).toBe("read-only");
    expect(config.rulesDirs).toEqual([join(xdg, "conch", "rules")]);
    expect(config.sources).toEqual([join(xdg, "conch", "config.toml")]);
  });

  it("finds the nearest project file above cwd and lets it tighten everything", async () => {
    await write(
      userFile,
      [
        'approval_policy = "never"',
        'sandbox = "danger-full-access"',
        'writable_roots = ["/abs"]',
        "network_access = true",
        'env_exclude = ["*_TOKEN"]',
        "max_output_tokens = 2000",
        "approval_timeout_s = 600",
      ].join("\n"),
    );
    await write(
      projectFile,
      [
        'approval_policy = "untrusted"',
        'sandbox = "read-only"',
        'writable_roots = ["build", "./out/../dist"]',
        "network_access = false",
        'env_inherit = "none"',
        'env_exclude = ["*_TOKEN", "NPM_*"]',
        'tool_profile = "argv"',
        "max_output_tokens = 500",
        "spill_retention_days = 1",
        "durable_one_shot = true",
        "approval_timeout_s = 60",
        "session_idle_ttl_s = 99999",
      ].join("\n"),
    );
    const cwd = join(project, "src", "deep");
    await mkdir(cwd, { recursive: true });
    expect(await load(cwd)).toEqual({
      approvalPolicy: "untrusted",
      sandbox: "read-only",
      sandboxBackend: "auto",
      remote: null,
      writableRoots: ["/abs", join(project, "build"), join(project, "dist")],
      networkAccess: false,
      network: "off",
      networkAllow: [],
      networkDeny: [],
      networkAllowAddresses: [],
      networkResolve: {},
      envInherit: "none",
      envExclude: ["*_TOKEN", "NPM_*"],
      envAllow: [],
      denyRead: [],
      allowRead: [],
      toolProfile: "argv",
      maxOutputTokens: 500,
      oneShotOutputTokens: 2000,
      spillRetentionDays: 1,
      rulesDirs: [join(home, ".config", "conch", "rules")],
      durableOneShot: true,
      shellSnapshot: true,
      shellSnapshotTtlS: 3600,
      homeWorkspace: false,
      auditLog: null,
      // Shorter only: the project's 60 s wins over the user's 600, its longer idle TTL does not.
      approvalTimeoutS: 60,
      sessionIdleTtlS: 3600,
      sessionExitGraceS: 600,
      record: true,
      recordMaxMb: 16,
      settleMs: 100,
      limits: DEFAULT_LIMITS,
      projectDir: project,
      sources: [userFile, projectFile],
      warnings: [],
      rules: [],
    });
  });

  it("lets a project shorten session_exit_grace_s, never lengthen it", async () => {
    await write(userFile, "session_exit_grace_s = 1200\n");
    await write(projectFile, "session_exit_grace_s = 60\n");
    expect((await load()).sessionExitGraceS).toBe(60);
    await write(projectFile, "session_exit_grace_s = 99999\n");
    const config = await load();
    expect([config.sessionExitGraceS, config.warnings]).toEqual([1200, []]);
    await write(userFile, "session_exit_grace_s = 0\n");
    await expect(load()).rejects.toThrow(
      `${userFile}:1: session_exit_grace_s: expected a positive integer, received 0`,
    );
  });

  it("leaves recording to the user: a project can neither turn it off nor resize it", async () => {
    await write(projectFile, "record = false\nrecord_max_mb = 1\nsettle_ms = 5000\n");
    const config = await load();
    expect([config.record, config.recordMaxMb, config.settleMs]).toEqual([true, 16, 100]);
    expect(config.warnings).toEqual([
      `${projectFile}:1: record = false ignored: only the user config can turn session recording on or off`,
      `${projectFile}:2: record_max_mb = 1 ignored: only the user config can size session recordings`,
      `${projectFile}:3: settle_ms = 5000 ignored: only the user config sets how long calls wait for output to settle`,
    ]);
  });

  it("limits: a project may only lower each, and a bad key or value is named", async () => {
    await write(userFile, "limits = { memory_mb = 4096, processes = 100 }\n");
    await write(projectFile, "limits = { memory_mb = 8192, processes = 50, cpu_percent = 100 }\n");
    expect((await load()).limits).toEqual({
      ...DEFAULT_LIMITS,
      memoryMb: 4096,
      processes: 50,
      cpuPercent: 100,
    });
    // tmp_mb turns the workspace's /tmp into memory: a project may lower the user's, never set one.
    await write(projectFile, "limits = { tmp_mb = 64 }\n");
    expect((await load()).limits.tmpMb).toBeUndefined();
    await write(userFile, "limits = { tmp_mb = 128 }\n");
    expect((await load()).limits.tmpMb).toBe(64);
    await write(userFile, "limits = { memory = 1 }\n");
    await expect(load()).rejects.toThrow(
      /config\.toml:1: limits\.memory: expected one of the keys memory_mb, processes, cpu_percent, tmp_mb, file_mb/,
    );
    await write(userFile, "limits = { file_mb = -1 }\n");
    await expect(load()).rejects.toThrow(
      /config\.toml:1: limits\.file_mb: expected a positive integer, received -1/,
    );
  });

  it("leaves where commands run to the user, and names what a remote engine is missing", async () => {
    await write(projectFile, 'remote = "agent"\nremote_url = "unix:/run/x.sock"\n');
    const config = await load();
    expect(config.remote).toBeNull();
    expect(config.warnings).toEqual([
      `${projectFile}:1: remote = "agent" ignored: only the user config chooses where commands run`,
      `${projectFile}:2: remote_url = "unix:/run/x.sock" ignored: only the user config chooses where commands run`,
    ]);
    await write(projectFile, "");
    await write(
      userFile,
      'remote = "agent"\nremote_url = "unix:/run/x.sock"\nremote_command = ["ssh", "h", "conch-agent", "--stdio"]\n',
    );
    await expect(load()).rejects.toThrow(
      /config\.toml: remote = "agent": expected exactly one of remote_url \(ws:\/\/HOST:PORT or unix:\/PATH\) and remote_command/,
    );
    await write(userFile, 'remote_url = "unix:/run/x.sock"\n');
    await expect(load()).rejects.toThrow(
      /remote_url is set without remote: expected remote = "agent", "podman", "docker" or "kubernetes" beside it/,
    );
    await write(userFile, 'remote = "docker"\n');
    await expect(load()).rejects.toThrow(
      /remote = "docker": expected exactly one of remote_image .* and remote_rootfs/,
    );
    await write(userFile, 'remote = "agent"\nremote_url = "http://x:1"\n');
    await expect(load()).rejects.toThrow(
      /config\.toml:2: remote_url: expected ws:\/\/HOST:PORT or unix:\/ABSOLUTE\/PATH, received "http:\/\/x:1"/,
    );
    await write(userFile, 'remote = "agent"\nremote_command = ["ssh", "h", "-o", "x", "-o", "y"]\n');
    expect((await load()).remote).toEqual({
      engine: "agent",
      url: null,
      command: ["ssh", "h", "-o", "x", "-o", "y"],
      agentId: "conch",
      image: null,
      rootfs: null,
      agentCommand: ["conch-agent"],
      mounts: [],
      bindingKey: null,
      podIsSandbox: false,
      kubeconfig: null,
      context: null,
      namespace: null,
      warmPool: "conch",
      claimTtlS: 900,
    });
    await write(projectFile, 'remote_kubeconfig = "/k"\nremote_pod_is_sandbox = true\n');
    expect((await load()).warnings).toEqual([
      `${projectFile}:1: remote_kubeconfig = "/k" ignored: only the user config chooses where commands run`,
      `${projectFile}:2: remote_pod_is_sandbox = true ignored: only the user config chooses where commands run`,
    ]);
    await write(projectFile, "");
  });

  it("reads remote = kubernetes and its keys, and refuses another engine's keys beside it", async () => {
    await write(
      userFile,
      [
        'remote = "kubernetes"',
        'remote_kubeconfig = "kube/config"',
        'remote_context = "prod"',
        'remote_namespace = "agents"',
        'remote_warm_pool = "conch-gvisor"',
        "remote_claim_ttl_s = 1800",
        'remote_binding_key = "/etc/conch/binding/binding.key"',
        "remote_pod_is_sandbox = true",
      ].join("\n"),
    );
    expect((await load()).remote).toEqual({
      engine: "kubernetes",
      url: null,
      command: null,
      agentId: "conch",
      image: null,
      rootfs: null,
      agentCommand: ["conch-agent"],
      mounts: [],
      bindingKey: "/etc/conch/binding/binding.key",
      podIsSandbox: true,
      kubeconfig: join(home, "kube", "config"),
      context: "prod",
      namespace: "agents",
      warmPool: "conch-gvisor",
      claimTtlS: 1800,
    });
    await write(userFile, 'remote = "kubernetes"\nremote_image = "conch-agent:1"\n');
    await expect(load()).rejects.toThrow(
      /config\.toml: remote = "kubernetes": remote_image is for remote = "podman" or "docker", and would do nothing here/,
    );
    await write(userFile, 'remote = "podman"\nremote_rootfs = "/r"\nremote_warm_pool = "conch"\n');
    await expect(load()).rejects.toThrow(
      /remote = "podman": remote_warm_pool is for remote = "kubernetes", and would do nothing here/,
    );
    await write(userFile, 'remote = "kubernetes"\nremote_namespace = "Agents"\n');
    await expect(load()).rejects.toThrow(
      /config\.toml:2: remote_namespace: expected a namespace's name \(lower case letters, digits, '-'; at most 63\), received "Agents"/,
    );
    await write(userFile, 'remote = "kubernetes"\nremote_pod_is_sandbox = "yes"\n');
    await expect(load()).rejects.toThrow(
      /config\.toml:2: remote_pod_is_sandbox: expected a boolean, received "yes"/,
    );
    await write(userFile, 'remote_warm_pool = "conch"\n');
    await expect(load()).rejects.toThrow(
      /remote_warm_pool is set without remote: expected remote = "agent", "podman", "docker" or "kubernetes" beside it/,
    );
  });

  it("leaves the sandbox backend to the user, and names the choices for a bad one", async () => {
    await write(projectFile, 'sandbox_backend = "landlock"\n');
    const config = await load();
    expect(config.sandboxBackend).toBe("auto");
    expect(config.warnings).toEqual([
      `${projectFile}:1: sandbox_backend = "landlock" ignored: only the user config chooses the sandbox backend`,
    ]);
    await write(userFile, 'sandbox_backend = "seatbelt"\n');
    await expect(load()).rejects.toThrow(
      /config.toml:1: sandbox_backend: expected one of "auto", "bwrap", "landlock", received "seatbelt"/,
    );
  });

  it("moves each ordered setting one step stricter", async () => {
    await write(userFile, 'approval_policy = "on-request"\nsandbox = "danger-full-access"\n');
    await write(
      projectFile,
      'approval_policy = "on-failure"\nsandbox = "workspace-write"\nenv_inherit = "core"\n',
    );
    const config = await load();
    expect([config.approvalPolicy, config.sandbox, config.envInherit]).toEqual([
      "on-failure",
      "workspace-write",
      "core",
    ]);
    expect(config.warnings).toEqual([]);
  });

  it("ignores each loosening with a warning naming file, line, key and value", async () => {
    await write(
      userFile,
      [
        'approval_policy = "untrusted"',
        'sandbox = "read-only"',
        'env_inherit = "none"',
        "max_output_tokens = 100",
      ].join("\n"),
    );
    await write(
      projectFile,
      [
        'approval_policy = "never"',
        'sandbox = "danger-full-access"',
        "network_access = true",
        'env_inherit = "all"',
        "max_output_tokens = 100000",
        "spill_retention_days = 30",
        'writable_roots = ["/etc", "../sibling", "inside"]',
        'rules_dirs = ["rules"]',
        "trust_project_rules = true",
        'audit_log = "/dev/null"',
        'allow_read = ["~/.ssh"]',
        'env_allow = ["AWS_SECRET_ACCESS_KEY"]',
        'deny_read = ["~/notes"]',
      ].join("\n"),
    );
    const config = await load();
    expect(config.warnings).toEqual([
      `${projectFile}:1: approval_policy = "never" ignored: looser than the user config's "untrusted"`,
      `${projectFile}:2: sandbox = "danger-full-access" ignored: looser than the user config's "read-only"`,
      `${projectFile}:3: network_access = true ignored: looser than the default false`,
      `${projectFile}:4: env_inherit = "all" ignored: looser than the user config's "none"`,
      `${projectFile}:5: max_output_tokens = 100000 ignored: looser than the user config's 100`,
      `${projectFile}:6: spill_retention_days = 30 ignored: looser than the default 7`,
      `${projectFile}:7: writable_roots = "/etc" ignored: outside the project directory ${project}`,
      `${projectFile}:7: writable_roots = "${join(root, "work", "sibling")}" ignored: outside the project directory ${project}`,
      `${projectFile}:8: rules_dirs = ["${join(project, "rules")}"] ignored: the project is not trusted (review its .conch, then run \`conch trust ${project}\`)`,
      `${projectFile}:9: trust_project_rules = true ignored: only \`conch trust\` can trust project rules`,
      `${projectFile}:10: audit_log = "/dev/null" ignored: only the user config can move the audit log`,
      `${projectFile}:11: allow_read = ["${join(home, ".ssh")}"] ignored: only the user config can loosen what is hidden`,
      `${projectFile}:12: env_allow = ["AWS_SECRET_ACCESS_KEY"] ignored: only the user config can loosen what is hidden`,
    ]);
    expect(config).toMatchObject({
      approvalPolicy: "untrusted",
      sandbox: "read-only",
      networkAccess: false,
      envInherit: "none",
      maxOutputTokens: 100,
      spillRetentionDays: 7,
      writableRoots: [join(project, "inside")],
      rulesDirs: [join(home, ".config", "conch", "rules")],
      auditLog: null,
      denyRead: [join(home, "notes")],
      allowRead: [],
      envAllow: [],
    });
  });

  it.each([
    ["untrusted", "on-request"],
    ["untrusted", "never"],
    ["on-failure", "on-request"],
    ["on-request", "never"],
  ])("does not let a project turn approval_policy %s into %s", async (user, wanted) => {
    await write(userFile, `approval_policy = "${user}"\n`);
    await write(projectFile, `approval_policy = "${wanted}"\n`);
    const config = await load();
    expect(config.approvalPolicy).toBe(user);
    expect(config.warnings).toEqual([
      `${projectFile}:1: approval_policy = "${wanted}" ignored: looser than the user config's "${user}"`,
    ]);
  });

  it("refuses a project writable root that escapes through a symlink", async () => {
    const outside = join(root, "outside");
    await mkdir(outside);
    await symlink(outside, join(project, "link"));
    await write(projectFile, 'writable_roots = ["link/sub"]\n');
    const config = await load();
    expect(config.writableRoots).toEqual([]);
    expect(config.warnings).toEqual([
      `${projectFile}:1: writable_roots = "${join(project, "link", "sub")}" ignored: outside the project directory ${project}`,
    ]);
  });

  it("adds project rules dirs only once `conch trust` pinned them, and drops them when they change", async () => {
    await write(projectFile, 'rules_dirs = [".conch/rules"]\n');
    await write(join(project, ".conch", "rules", "a.toml"), "");
    expect((await load()).rulesDirs).toEqual([join(home, ".config", "conch", "rules")]);

    expect(await trustProject({ cwd: join(project, "sub"), env: {}, home })).toEqual({
      projectDir: project,
      digest: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    const trusted = await load();
    expect(trusted.rulesDirs).toEqual([
      join(home, ".config", "conch", "rules"),
      join(project, ".conch", "rules"),
    ]);
    expect(trusted.warnings).toEqual([]);
    expect(trusted.rules).toEqual([{ path: join(project, ".conch", "rules", "a.toml"), text: "" }]);

    // A rules file added afterwards (by an agent, say) is not what the person trusted.
    await write(join(project, ".conch", "rules", "b.toml"), "");
    const changed = await load();
    expect(changed.rulesDirs).toEqual([join(home, ".config", "conch", "rules")]);
    expect(changed.rules).toEqual([]);
    expect(changed.warnings).toEqual([
      `${projectFile}:1: rules_dirs = ["${join(project, ".conch", "rules")}"] ignored: the project's config or rules changed since \`conch trust\` (review them, then run \`conch trust ${project}\` again)`,
    ]);

    await trustProject({ cwd: project, env: {}, home, revoke: true });
    expect((await load()).warnings[0]).toContain("the project is not trusted");
  });

  it("reads every project file above cwd: a nearer one (an agent's) cannot loosen an outer one", async () => {
    await write(projectFile, 'approval_policy = "untrusted"\ndeny_read = ["~/outer"]\n');
    const sub = join(project, "sub");
    await write(join(sub, ".conch", "config.toml"), 'approval_policy = "never"\n');
    const config = await load(sub);
    expect(config.approvalPolicy).toBe("untrusted");
    expect(config.denyRead).toEqual([join(home, "outer")]);
    expect(config.projectDir).toBe(sub);
    expect(config.sources).toEqual([projectFile, join(sub, ".conch", "config.toml")]);
    expect(config.warnings).toEqual([
      `${join(sub, ".conch", "config.toml")}:1: approval_policy = "never" ignored: looser than ${projectFile}'s "untrusted"`,
    ]);
  });

  it("says that trust_project_rules in the user config no longer trusts anything", async () => {
    await write(userFile, "trust_project_rules = true\n");
    await write(projectFile, 'rules_dirs = [".conch/rules"]\n');
    const config = await load();
    expect(config.rulesDirs).toEqual([join(home, ".config", "conch", "rules")]);
    expect(config.warnings[0]).toBe(
      `${userFile}:1: trust_project_rules ignored: project rules now load per project, pinned as they were, after \`conch trust DIR\``,
    );
  });

  it("refuses to trust where there is no project file", async () => {
    await expect(trustProject({ cwd: project, env: {}, home })).rejects.toThrow(
      `no project config (.conch/config.toml) at or above ${project}: nothing to trust`,
    );
  });

  it("stops at the filesystem root when no project file exists", async () => {
    const config = await load(join(project, "a"));
    expect(config.projectDir).toBeNull();
  });

  it.each([
    [
      'sandbox = "yolo"',
      'sandbox: expected one of "read-only", "workspace-write", "danger-full-access", received "yolo"',
    ],
    [
      "approval_policy = 1",
      'approval_policy: expected one of "untrusted", "on-failure", "on-request", "never", received 1',
    ],
    ['network_access = "yes"', 'network_access: expected a boolean, received "yes"'],
    ["max_output_tokens = 0", "max_output_tokens: expected a positive integer, received 0"],
    ["spill_retention_days = 1.5", "spill_retention_days: expected a positive integer, received 1.5"],
    ['writable_roots = "/tmp"', 'writable_roots: expected an array of paths, received "/tmp"'],
    ['env_exclude = ["A", 3]', "env_exclude[1]: expected a non-empty glob, received 3"],
    ['rules_dirs = [""]', 'rules_dirs[0]: expected a non-empty path, received ""'],
    [
      "[sandbox]\ntype = 1",
      'sandbox: expected one of "read-only", "workspace-write", "danger-full-access", received an object',
    ],
  ])("rejects %j", async (line, message) => {
    await write(userFile, `# user config\n\n${line}\n`);
    const error = await loadError();
    expect(error.message).toBe(`${userFile}:3: ${message}`);
    expect(error.code).toBe("INVALID_CONFIG");
    expect(isOrchestratorError(error)).toBe(true);
  });

  it('reads the network keys, each bad entry named; network_access = true is network = "on"', async () => {
    await write(
      userFile,
      [
        'network = "allowlist"',
        'network_allow = ["registry.npmjs.org", "*.pythonhosted.org", "github.com:443"]',
        'network_deny = ["evil.example"]',
        'network_allow_addresses = ["127.0.0.1"]',
        'network_resolve = { "registry.test" = "127.0.0.1" }',
      ].join("\n"),
    );
    expect(await load()).toMatchObject({
      network: "allowlist",
      networkAccess: false,
      networkAllow: ["registry.npmjs.org", "*.pythonhosted.org", "github.com:443"],
      networkDeny: ["evil.example"],
      networkAllowAddresses: ["127.0.0.1"],
      networkResolve: { "registry.test": "127.0.0.1" },
    });
    await write(userFile, "network_access = true\n");
    expect(await load()).toMatchObject({ network: "on", networkAccess: true });
    for (const [line, message] of [
      ['network = "some"', 'network: expected one of "off", "allowlist", "on", received "some"'],
      [
        'network_allow = ["ok.test", "*.com"]',
        "network_allow[1]: expected a wildcard over a name with a dot",
      ],
      ['network_deny = ["http://x.test"]', "network_deny[0]: expected a host pattern without a scheme"],
      ['network_allow_addresses = ["localhost"]', "network_allow_addresses[0]: expected an IP address"],
      ['network_resolve = { "x.test" = "nope" }', "network_resolve.x.test: expected an IP address"],
    ]) {
      await write(userFile, `${line}\n`);
      expect((await loadError()).message).toContain(`${userFile}:1: ${message}`);
    }
  });

  it("a project narrows the network: a stricter mode and more denied hosts, never more allowed", async () => {
    await write(userFile, 'network = "allowlist"\nnetwork_allow = ["registry.npmjs.org"]\n');
    await write(
      projectFile,
      'network_allow = ["evil.example"]\nnetwork_deny = ["registry.npmjs.org"]\nnetwork_resolve = { "a.test" = "127.0.0.1" }\nnetwork = "on"\n',
    );
    const config = await load();
    expect(config).toMatchObject({
      network: "allowlist",
      networkAllow: ["registry.npmjs.org"],
      networkDeny: ["registry.npmjs.org"],
      networkResolve: {},
    });
    expect(config.warnings).toEqual([
      `${projectFile}:1: network_allow = ["evil.example"] ignored: only the user config can allow hosts`,
      `${projectFile}:3: network_resolve = an object ignored: only the user config can name addresses`,
      `${projectFile}:4: network = "on" ignored: looser than the user config's "allowlist"`,
    ]);
    await write(projectFile, 'network = "off"\n');
    expect(await load()).toMatchObject({ network: "off", networkAccess: false });
  });

  it("rejects an unknown key in the project file, at its line", async () => {
    await write(projectFile, 'sandbox = "read-only"\nsandbox_mode = "x"\n');
    expect((await loadError()).message).toBe(
      `${projectFile}:2: sandbox_mode: expected one of the keys approval_policy, sandbox, sandbox_backend, writable_roots, network_access, network, network_allow, network_deny, network_allow_addresses, network_resolve, env_inherit, env_exclude, env_allow, deny_read, allow_read, tool_profile, max_output_tokens, one_shot_output_tokens, spill_retention_days, rules_dirs, durable_one_shot, shell_snapshot, shell_snapshot_ttl_s, home_workspace, trust_project_rules, audit_log, approval_timeout_s, session_idle_ttl_s, session_exit_grace_s, record, record_max_mb, settle_ms, limits, remote, remote_url, remote_command, remote_agent_id, remote_image, remote_rootfs, remote_agent_command, remote_mounts, remote_binding_key, remote_pod_is_sandbox, remote_kubeconfig, remote_context, remote_namespace, remote_warm_pool, remote_claim_ttl_s, received an unknown key`,
    );
  });

  it("rejects invalid TOML at its line", async () => {
    await write(userFile, 'sandbox = "read-only"\nnetwork_access = \n');
    expect((await loadError()).message).toBe(`${userFile}:2: invalid TOML: invalid value`);
  });

  it("rejects a config path that is a directory", async () => {
    await mkdir(userFile, { recursive: true });
    expect((await loadError()).message).toBe(`${userFile}: cannot read: not a regular file`);
  });

  it("never follows a symlink planted at the project config or its .conch", async () => {
    const secret = join(root, "secret.toml");
    await write(secret, 'sandbox = "sk-conch-test-secret"\n');
    await mkdir(dirname(projectFile), { recursive: true });
    await symlink(secret, projectFile);
    const error = await loadError();
    expect(error.message).toBe(
      `${projectFile}: cannot read: a symbolic link; Conch reads only a regular file there (a sandboxed command could have planted the link): replace it with the file`,
    );
    await rm(join(project, ".conch"), { recursive: true });
    await mkdir(join(root, "elsewhere", ".conch"), { recursive: true });
    await symlink(join(root, "elsewhere", ".conch"), join(project, ".conch"));
    expect((await loadError()).message).toContain(`${join(project, ".conch")}: a symbolic link;`);
  });

  it("rejects a FIFO planted where the project config would be, without waiting on it", async () => {
    await mkdir(dirname(projectFile), { recursive: true });
    execFileSync("mkfifo", [projectFile]);
    expect((await loadError()).message).toBe(`${projectFile}: cannot read: not a regular file`);
  });
});
