// Step 4 of the one door: one run of a command, in the given sandbox or none, as a one-shot process or a
// live session. Each attempt says itself whether the sandbox denied it (step 5's check), where it knows.
import { Buffer } from "node:buffer";
import type { AddressInfo } from "node:net";
import type { EnvPolicy, ExecRequest, ExecResult, RunOptions, SpawnSpec } from "@conch/exec-core";
import type { AskAnswer, AskRequest, NetProxy, ProxyEndpoint } from "@conch/net-proxy";
import {
  type GitWatch,
  isLikelySandboxDenied,
  type PreparedSandbox,
  type ProcessHost,
  SandboxError,
  type SandboxRules,
} from "@conch/sandbox-core";
import { interactiveShell, type SessionResponse, type SessionStore } from "@conch/unified-exec";
import { OutputCollector } from "../output/output-collector.js";
import { type HostReaper, runMarkerOf } from "../sessions/host-reaper.js";
import type { RemoteLedger } from "../sessions/remote-ledger.js";
import type { SessionMonitor } from "../sessions/session-monitor.js";
import type { SpillStore } from "../spill/spill-store.js";
import type { Approvals } from "./approvals.js";
import type { AuditEvents } from "./audit-events.js";
import { repairGit } from "./git-repairs.js";
import { withHostGitGuard } from "./host-git-guard.js";
import { limitsNotice } from "./limits-notice.js";
import { type RemoteRunOptions, remoteSessionStart, runRemote } from "./remote-process.js";
import type { SpawnPlan } from "./spawn-plan.js";
import type { CommandRequest, Execute, RunContext, SessionRequest, SessionRunContext } from "./types.js";

// What the person asked about a denial sees of the output: its end, where the error usually is.
const DENIAL_EXCERPT_BYTES = 2048;

/** What the pipeline needs of any attempt. */
export interface Attempt {
  /** The backend it ran under (`bwrap`), or `none`. */
  readonly sandbox: string;
  /** The sandbox denied it (never true for an attempt outside the sandbox). */
  readonly denied: boolean;
  /**
   * It exited with a code other than 0 on its own (not killed at its timeout, not canceled); a session
   * only once it exited within the call.
   */
  readonly failed: boolean;
  /** The end of its output, for the person asked whether it may run outside the sandbox. */
  denialExcerpt(): string;
  /** The rules it ran under, or null outside a sandbox of this machine. */
  readonly rules: SandboxRules | null;
  /** Drops what it holds, before it is run again outside the sandbox. */
  discard(): Promise<void>;
  /**
   * What Conch did after it in the repository: a git control file the command made, moved aside
   * (`repairGit`), a line each.
   */
  readonly notices: readonly string[];
}

export interface OneShotAttempt extends Attempt {
  readonly result: ExecResult;
  readonly collected: OutputCollector;
  /**
   * Writes its execution line to the audit log, once its output is finished: with the spill file its
   * whole output went to, when the model's text was cut. A discarded attempt is recorded without one.
   */
  record(spill: string | null): void;
}

export interface SessionAttempt extends Attempt {
  readonly response: SessionResponse;
  /** Its way to the network proxy, for the refusals of its later calls; null without one. */
  readonly proxyEndpoint: ProxyEndpoint | null;
  /** What to check after each later call of the session (its sandbox's), or null outside one. */
  readonly gitWatch: GitWatch | null;
  /** What each later call's result says of where the session runs (a remote host's note), or null. */
  readonly hostNote: (() => readonly string[]) | null;
}

/**
 * The rules a command runs under, found now (throws `WRITABLE_ROOT_CHANGED`), kept so that what they
 * could not protect is checked once it has run; null when it runs in no local sandbox.
 */
function commandRules(sandbox: PreparedSandbox | null): SandboxRules | null {
  if (sandbox === null || sandbox.backend === null) return null;
  // A remote backend's too: the agent resolves them again on its side, and what the command made in a
  // repository's git dirs is checked here afterwards, the workspace being this machine's files too.
  return sandbox.workspace.rules();
}

export interface AttemptOptions {
  readonly env: EnvPolicy | undefined;
  /** Runs a session outside the sandbox under a keeper that ends it with this process; null: none. */
  readonly hostReaper: HostReaper | null;
  readonly execute: Execute;
  readonly spill: SpillStore | null;
  readonly audit: AuditEvents;
  /** Conch's network proxy for commands without the host's network (`ToolOrchestratorOptions`). */
  readonly networkProxy: NetProxy | null;
  /** Who is asked about a host the configuration does not list; null: nobody (it is blocked). */
  readonly approvals: Approvals | null;
  /** Commands run only on a remote backend's host (ToolOrchestratorOptions.remoteOnly). */
  readonly remoteOnly?: boolean;
  /** Where a remote session is noted as it starts, to be found again after a restart; null: nowhere. */
  readonly remoteLedger?: RemoteLedger | null;
  /** The remote processes sessions drive now (see RemoteRunOptions.live). */
  readonly remoteLive?: Set<{ detach(): void }>;
}

/**
 * A command's way to the network proxy: an endpoint of its own in the namespace the workspace's
 * commands share, and the variables that make proxy-aware tools use it. Null when it has the host's
 * network, no sandbox, or the backend gives no way out (the command then has none at all). A host the
 * configuration does not list is asked about through the call's approver (`Approvals.approveNetwork`);
 * each decision, and each allowed connection once closed, is an audit line.
 */
async function proxyEndpoint(
  options: AttemptOptions,
  sandbox: PreparedSandbox | null,
  rules: SandboxRules | null,
  request: CommandRequest,
  context: RunContext,
  tty: boolean,
): Promise<{
  endpoint: ProxyEndpoint;
  /** The endpoint's loopback port (a backend on the host's network lets the command reach it alone). */
  port: number;
  env: (base: Readonly<Record<string, string>>) => Record<string, string>;
  session: { id: number | null };
} | null> {
  const proxy = options.networkProxy;
  const backend = sandbox?.backend;
  if (proxy === null || rules === null || rules.network || backend == null || !("listenInside" in backend)) {
    return null;
  }
  const listen = backend.listenInside;
  if (listen === undefined) return null;
  const server = await listen.call(backend);
  const session: { id: number | null } = { id: null };
  const { approvals } = options;
  const endpoint = proxy.endpoint(request.tool, {
    onEvent: (event) => options.audit.network(request, event, session.id),
    ...(approvals === null
      ? {}
      : {
          ask: async (asked: AskRequest): Promise<AskAnswer> => {
            const { host, port, protocol } = asked;
            // A one-shot's call may be cancelled while its connection waits; a session's first call
            // ends long before its later connections, so only the wait itself bounds those.
            const signal =
              session.id === null && context.signal !== undefined
                ? AbortSignal.any([asked.signal, context.signal])
                : asked.signal;
            const { grant, answer } = await approvals.approveNetwork(
              request,
              { host, port, protocol, why: asked.why },
              { signal, tty, ...(context.approver === undefined ? {} : { approver: context.approver }) },
            );
            if (grant === "command") endpoint.grant(host, port);
            else if (grant === "session") proxy.grant(host, port);
            else if (grant === "always") proxy.grant(host);
            return answer;
          },
        }),
  });
  endpoint.attach(server);
  const port = (server.address() as AddressInfo).port;
  return { endpoint, port, env: (base) => proxyEnv(port, base), session };
}

/**
 * What ssh runs to reach `$1:$2` through the proxy at `port` (HTTP CONNECT), with nothing but bash:
 * `/dev/tcp` to the endpoint, the CONNECT, the proxy's answer (a refusal is said on stderr and ends it),
 * then bytes both ways. Kept in an environment variable so that no quoting of it passes through git's
 * and ssh's shells.
 */
function sshProxyScript(port: number): string {
  return [
    `exec 3<>/dev/tcp/127.0.0.1/${port} || exit 1`,
    String.raw`printf 'CONNECT %s:%s HTTP/1.1\r\nHost: %s:%s\r\n\r\n' "$1" "$2" "$1" "$2" >&3`,
    "IFS= read -r status <&3",
    String.raw`case "$status" in "HTTP/1."?" 200"*) ;; *) printf 'conch: the network proxy refused %s:%s (%s)\n' "$1" "$2" "$` +
      String.raw`{status%$'\r'}" >&2; exit 1 ;; esac`,
    String.raw`while IFS= read -r line <&3; do [ "$` + String.raw`{line%$'\r'}" = "" ] && break; done`,
    "cat <&3 & exec cat >&3",
  ].join("\n");
}

/**
 * The proxy variables, both cases, for the tools that read one or the other (curl reads only the
 * lower-case http_proxy), npm's, yarn's and pip's own; loopback goes direct (the namespace's own servers).
 * git over ssh goes through the proxy too (GIT_SSH_COMMAND, a ProxyCommand added to the command's own),
 * and the JVM's HTTP clients (JAVA_TOOL_OPTIONS, added to the command's own).
 */
function proxyEnv(port: number, base: Readonly<Record<string, string>>): Record<string, string> {
  const url = `http://127.0.0.1:${port}`;
  const direct = "localhost,127.0.0.1,::1";
  const java = [
    `-Dhttp.proxyHost=127.0.0.1 -Dhttp.proxyPort=${port}`,
    `-Dhttps.proxyHost=127.0.0.1 -Dhttps.proxyPort=${port}`,
    "-Dhttp.nonProxyHosts=localhost|127.0.0.1|[::1]",
    // IPv4 sockets: a dual-stack socket reaches 127.0.0.1 as ::ffff:127.0.0.1, which Seatbelt's rule for
    // the proxy's port (localhost:N) does not match.
    "-Djava.net.preferIPv4Stack=true",
  ].join(" ");
  return {
    HTTP_PROXY: url,
    HTTPS_PROXY: url,
    ALL_PROXY: url,
    http_proxy: url,
    https_proxy: url,
    all_proxy: url,
    NO_PROXY: direct,
    no_proxy: direct,
    npm_config_proxy: url,
    npm_config_https_proxy: url,
    YARN_HTTP_PROXY: url,
    YARN_HTTPS_PROXY: url,
    PIP_PROXY: url,
    CONCH_SSH_PROXY: sshProxyScript(port),
    GIT_SSH_COMMAND: `${base.GIT_SSH_COMMAND ?? "ssh"} -o 'ProxyCommand=bash -c "$CONCH_SSH_PROXY" conch-ssh-proxy %h %p'`,
    JAVA_TOOL_OPTIONS: base.JAVA_TOOL_OPTIONS === undefined ? java : `${base.JAVA_TOOL_OPTIONS} ${java}`,
  };
}

// What the model can do about a refused host, after each refusal line: a person who said no meant it; a
// host nobody was asked about can be added by the user; otherwise only a run with the host's network helps.
const REFUSED_ADVICE = "do not retry it unless the user asks you to";
const UNANSWERED_ADVICE = "ask the user to allow it when asked, or to add it to network_allow, then retry";
const ADD_ADVICE =
  'ask the user to add it to network_allow, or retry with sandbox_permissions "require_escalated"';
const ESCALATE_ADVICE = 'retry with sandbox_permissions "require_escalated" to ask the user';

/** An endpoint's refusals from `from` on, a line each, with what to do: `network: blocked HOST:PORT (…)`. */
export function networkRefusals(endpoint: ProxyEndpoint | undefined | null, from = 0): string[] {
  // A client that retries meets the same refusal again: said once.
  return [...new Set((endpoint?.refusals() ?? []).slice(from))].map((line) => {
    const advice = line.includes("the user said no")
      ? REFUSED_ADVICE
      : line.includes("did not answer") || line.includes("nobody answered")
        ? UNANSWERED_ADVICE
        : line.includes("not in network_allow")
          ? ADD_ADVICE
          : ESCALATE_ADVICE;
    return `${line.slice(0, -1)}; ${advice})`;
  });
}

/**
 * For a sandboxed command with no way out at all (no network, and no proxy: a one-command CLI under
 * `network = "off"`): tools that retry a failed request for a minute are told not to (npm waits 70 s on
 * a name that cannot resolve; pip and cargo retry too), unless the command's env says otherwise. The
 * failure they report names the host.
 */
const NO_ROUTE_ENV: Readonly<Record<string, string>> = {
  npm_config_fetch_retries: "0",
  PIP_RETRIES: "0",
  CARGO_NET_RETRY: "0",
};

/**
 * `prepare` with the proxy variables added to the spec it is given (`env`, over the command's), or with
 * no route out, NO_ROUTE_ENV under the command's own.
 */
function withEnv(
  prepare: ((spec: SpawnSpec) => Promise<SpawnSpec>) | null,
  env: ((base: Readonly<Record<string, string>>) => Record<string, string>) | undefined,
  rules: SandboxRules | null,
): ((spec: SpawnSpec) => Promise<SpawnSpec>) | null {
  if (prepare === null) return prepare;
  if (env !== undefined) return (spec) => prepare({ ...spec, env: { ...spec.env, ...env(spec.env) } });
  if (rules === null || rules.network) return prepare;
  return (spec) => prepare({ ...spec, env: { ...NO_ROUTE_ENV, ...spec.env } });
}

export async function runOneShot(
  options: AttemptOptions,
  request: CommandRequest,
  context: RunContext,
  sandbox: PreparedSandbox | null,
  plan: SpawnPlan,
): Promise<OneShotAttempt> {
  // The rules found now, before anything is collected or spawned (throws `WRITABLE_ROOT_CHANGED`).
  const rules = commandRules(sandbox);
  const network = await proxyEndpoint(options, sandbox, rules, request, context, false);
  const prepare = withEnv(
    sandbox?.spawnHook({
      reportLeftovers: true,
      ...(rules === null ? {} : { rules }),
      ...(network === null ? {} : { proxyPort: network.port }),
    }) ?? null,
    network?.env,
    rules,
  );
  const remote = remoteRun(options, sandbox, request.tool, { id: null }, rules);
  // Outside the sandbox, the keeper (as for a session): the command dies with this process.
  const reaper = prepare === null && remote === null ? options.hostReaper : null;
  let marker: string | undefined;
  const keep =
    reaper === null
      ? null
      : (spec: SpawnSpec): Promise<SpawnSpec> => {
          marker = runMarkerOf(spec.env);
          reaper.record(null, marker);
          return reaper.oneShotHook(spec);
        };
  const hook = prepare ?? keep;
  const exec: ExecRequest = { argv: [...plan.argv], cwd: request.cwd };
  if (request.timeoutMs !== undefined) exec.timeoutMs = request.timeoutMs;
  const env =
    plan.hostGitGuard === true ? withHostGitGuard(options.env, process.env, plan.gitRepository) : options.env;
  if (env !== undefined) exec.env = env;
  // Unless exec-core keeps its own copy, the output is read through one reused buffer: the collector
  // copies what it keeps, and a caller's onOutput gets a copy of its own.
  const transientChunks = request.keepExecOutput !== true;
  const collected = new OutputCollector({
    maxTokens: request.maxOutputTokens,
    spill: request.spill === false ? null : options.spill,
    label: request.tool,
    transientChunks,
    ...(request.modelText === false ? { sampleOnly: true } : {}),
  });
  const onOutput = context.onOutput;
  let result: ExecResult;
  try {
    const runOptions: RunOptions = {
      ...(context.signal === undefined ? {} : { signal: context.signal }),
      // The collector below is the one copy of the output, unless the caller reads exec-core's own.
      buffer: request.keepExecOutput === true,
      transientChunks,
      ...(request.stdoutFd === undefined || request.modelText !== false ? {} : { stdout: request.stdoutFd }),
      onOutput: (delta) => {
        const stored = collected.push(delta.data);
        const forwarded =
          onOutput === undefined
            ? undefined
            : onOutput(transientChunks ? { stream: delta.stream, data: Buffer.from(delta.data) } : delta);
        // The caller's promise pauses the stream too; any other value it returns is no promise.
        if (!isThenable(forwarded)) return stored;
        return stored === undefined ? forwarded : Promise.all([stored, forwarded]).then(() => undefined);
      },
      ...(hook === null ? {} : { prepare: hook }),
    };
    result =
      remote === null ? await options.execute(exec, runOptions) : await runRemote(remote, exec, runOptions);
  } catch (error) {
    await collected.discard();
    throw error;
  } finally {
    // Its whole tree is gone once the run returns: nothing of it is left for the ledger to name.
    reaper?.forget(marker);
    network?.endpoint.close();
  }
  // A remote host names its own when commands there ran without one of their own (`pod`).
  const sandboxName = remote?.host.sandboxName?.() ?? sandbox?.name ?? "none";
  const notices = [
    ...(remote === null ? [] : [ranOnNotice(remote.host)]),
    // Limits hold only in the sandbox; outside it nothing reports them but what the command could forge.
    ...(prepare === null ? [] : limitsNotice(result.limitsReached)),
    ...leftProcessesNotice(result.leftProcesses),
    ...networkRefusals(network?.endpoint),
    ...repairGit(rules?.gitWatch, request.cwd),
  ];
  const denied =
    (prepare !== null || remote !== null) &&
    !result.timedOut &&
    !result.canceled &&
    isLikelySandboxDenied(result.exitCode, collected.sampleText());
  let recorded = false;
  const record = (spill: string | null): void => {
    if (recorded) return;
    recorded = true;
    options.audit.execution(
      request,
      sandboxName,
      {
        exitCode: result.exitCode,
        durationMs: result.durationMs,
        timedOut: result.timedOut,
        canceled: result.canceled,
        denied,
      },
      { spill },
    );
  };
  return {
    result,
    collected,
    sandbox: sandboxName,
    denied,
    notices,
    failed: result.exitCode !== 0 && !result.timedOut && !result.canceled,
    rules,
    denialExcerpt: () => {
      const text = collected.sampleText();
      return text.length > DENIAL_EXCERPT_BYTES ? text.slice(text.length - DENIAL_EXCERPT_BYTES) : text;
    },
    record,
    discard: () => {
      record(null);
      return collected.discard();
    },
  };
}

/**
 * Starts a session and waits its yield window. Only a process that exited within the early-exit window
 * can be found denied: later exits report their code normally.
 */
export async function startSession(
  options: AttemptOptions,
  sessions: SessionStore,
  monitor: SessionMonitor,
  request: SessionRequest,
  context: SessionRunContext,
  sandbox: PreparedSandbox | null,
  plan: SpawnPlan,
): Promise<SessionAttempt> {
  const rules = commandRules(sandbox);
  const network = await proxyEndpoint(options, sandbox, rules, request, context, request.tty);
  const prepare = withEnv(
    sandbox?.spawnHook({
      tty: request.tty,
      ...(rules === null ? {} : { rules }),
      ...(network === null ? {} : { proxyPort: network.port }),
    }) ?? null,
    network?.env,
    rules,
  );
  const sandboxName = sandbox?.name ?? "none";
  const stored: { id: number | null } = { id: null };
  const remote = remoteRun(options, sandbox, request.tool, stored, rules);
  let remoteId: string | null = null;
  // Outside the sandbox, the keeper: the session dies with this process (bwrap's --die-with-parent's
  // part), and its ledger names it for the next Conch process should the keeper die first.
  const reaper = prepare === null && remote === null ? options.hostReaper : null;
  let marker: string | undefined;
  const keep =
    reaper === null
      ? null
      : (spec: SpawnSpec): Promise<SpawnSpec> => {
          marker = runMarkerOf(spec.env);
          return reaper.hook(spec);
        };
  const hook = prepare ?? keep;
  const started = performance.now();
  const command = request.script ?? request.argv.join(" ");
  const shell = request.tty ? interactiveShell(command) : null;
  const env =
    plan.hostGitGuard === true ? withHostGitGuard(options.env, process.env, plan.gitRepository) : options.env;
  const response = await sessions.start(
    {
      argv: [...plan.argv],
      command,
      cwd: request.cwd,
      tty: request.tty,
      ...(shell === null ? {} : { shell }),
      ...(env === undefined ? {} : { env }),
      ...(remote !== null
        ? {
            remote: remoteSessionStart(remote, (id) => {
              remoteId = id;
            }),
          }
        : hook === null
          ? {}
          : { prepare: hook, wrapped: true }),
    },
    request.yieldTimeMs,
    {
      ...(context.signal === undefined ? {} : { signal: context.signal }),
      ...(request.keepAfterExit === undefined ? {} : { keepAfterExit: request.keepAfterExit }),
      ...(request.unclampedYield === undefined ? {} : { unclampedYield: request.unclampedYield }),
      ...(request.settle === undefined ? {} : { settle: request.settle }),
      onStored: (id) => {
        stored.id = id;
        if (remoteId !== null && options.remoteLedger != null) {
          const info = sessions.list().find((session) => session.id === id);
          options.remoteLedger.add({
            sessionId: id,
            processId: remoteId,
            tool: request.tool,
            command,
            argv: [...plan.argv],
            cwd: request.cwd,
            tty: request.tty,
            cols: info?.cols ?? 80,
            rows: info?.rows ?? 24,
            keepAfterExit: request.keepAfterExit === true,
            client: request.client ?? null,
          });
        }
        if (network !== null) network.session.id = id;
        monitor.describe(id, {
          tool: request.tool,
          cwd: request.cwd,
          sandbox: sandboxName,
          client: request.client ?? null,
        });
        const pid = sessions.list().find((session) => session.id === id)?.pid;
        if (reaper !== null && pid !== undefined) reaper.record(pid, marker);
      },
    },
  );
  const denied =
    (prepare !== null || remote !== null) &&
    !response.running &&
    response.exitedAfterMs !== null &&
    isLikelySandboxDenied(response.exitCode, response.output, {
      session: true,
      sinceSpawnMs: response.exitedAfterMs,
      exited: false,
    });
  const ranIn = remote?.host.sandboxName?.() ?? sandboxName;
  options.audit.execution(
    request,
    ranIn,
    {
      exitCode: response.exitCode,
      durationMs: performance.now() - started,
      timedOut: false,
      canceled: context.signal?.aborted === true,
      denied,
    },
    {
      sessionId: response.sessionId,
      ...(remote === null || remoteId === null
        ? {}
        : { remote: { where: remote.host.where, processId: remoteId } }),
    },
  );
  const gitWatch = rules?.gitWatch ?? null;
  return {
    response,
    sandbox: ranIn,
    denied,
    notices: [
      ...(remote === null ? [] : [ranOnNotice(remote.host)]),
      ...networkRefusals(network?.endpoint),
      ...repairGit(gitWatch, request.cwd),
    ],
    gitWatch,
    hostNote: remote === null ? null : () => hostNoteLine(remote.host),
    proxyEndpoint: network?.endpoint ?? null,
    failed: !response.running && response.exitCode !== null && response.exitCode !== 0,
    rules,
    denialExcerpt: () => response.output.slice(-DENIAL_EXCERPT_BYTES),
    // A denied session that stays listed (terminal_open) would linger beside its retry.
    discard: async () => {
      network?.endpoint.close();
      if (sessions.has(response.sessionId)) await sessions.close(response.sessionId);
    },
  };
}

/**
 * How a command of a remote backend runs: on its host, under the session's rules as sandbox intent,
 * its output logged by range (for session `stored.id`) before it is acknowledged. Null for any other.
 */
export function remoteRun(
  options: AttemptOptions,
  sandbox: PreparedSandbox | null,
  tool: string,
  stored: { id: number | null },
  rules: SandboxRules | null = null,
): (RemoteRunOptions & { readonly host: ProcessHost }) | null {
  const host = sandbox?.host ?? null;
  if (sandbox === null || host === null) {
    if (options.remoteOnly === true) {
      throw new SandboxError(
        "SANDBOX_UNAVAILABLE",
        "commands run only on the remote agent (config `remote`), and this one would have run on conchd's own machine, outside any sandbox (an escalation, or a rule's sandbox = \"none\"): nothing ran",
      );
    }
    return null;
  }
  return {
    host,
    ...(options.remoteLive === undefined ? {} : { live: options.remoteLive }),
    rules: rules ?? sandbox.workspace.rules(),
    workspace: sandbox.workspace.cwd,
    record: (range) => options.audit.output(tool, stored.id, host.where, range),
    flushed: () => options.audit.flushed(),
  };
}

/** A remote host's note as a line of its own (a session's later results): none without one. */
function hostNoteLine(host: ProcessHost): string[] {
  const note = host.note?.() ?? null;
  return note === null ? [] : [`${note.charAt(0).toUpperCase()}${note.slice(1)}.`];
}

/** The line a remote command's result begins its notes with: where it ran. */
function ranOnNotice(host: ProcessHost): string {
  const note = host.note?.() ?? null;
  return note === null ? `Ran on ${host.where}.` : `Ran on ${host.where}; ${note}.`;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === "object" || typeof value === "function") &&
    value !== null &&
    typeof (value as { then?: unknown }).then === "function"
  );
}

/**
 * The processes a one-shot command left running, which Conch stopped, said once: the model learns why
 * its `cmd &` or `nohup` server is gone and where a long-lived process belongs.
 */
function leftProcessesNotice(names: readonly string[]): string[] {
  if (names.length === 0) return [];
  const counts = new Map<string, number>();
  for (const name of names) counts.set(name, (counts.get(name) ?? 0) + 1);
  const listed = [...counts.entries()]
    .slice(0, 6)
    .map(([name, count]) => (count > 1 ? `${name} \u00d7${count}` : name))
    .join(", ");
  const more = counts.size > 6 ? ", \u2026" : "";
  const n = names.length;
  return [
    `Conch stopped ${n} ${n === 1 ? "process" : "processes"} this command left running (${listed}${more}): a one-shot command cannot leave processes behind; start a server or a background job with exec_command, which keeps it running in a session.`,
  ];
}
