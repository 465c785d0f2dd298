// The one door (DESIGN.md §1): every command any tool runs goes through `ToolOrchestrator.run` or
// `startSession`, and all input sent to a live session through `writeSession`, `sendToSession` and
// `signalSession`. The class coordinates the steps, each in a module of its own: the pipeline
// (pipeline.ts), the approval and stored rules (approvals.ts), the spawn plan (spawn-plan.ts), the
// one-shot and session attempts (attempts.ts) and the audit lines (audit-events.ts). Codex's
// ToolOrchestrator (codex-rs/core/src/tools/orchestrator.rs).
import { realpathSync } from "node:fs";
import { sessionInputNeedsApproval } from "@conch/approval";
import { run as execRun } from "@conch/exec-core";
import { type ExecPolicy, loadExecPolicy } from "@conch/exec-policy";
import type { ProxyEndpoint } from "@conch/net-proxy";
import { type ApprovalPolicy, expectedReceived, isConchError, visibleText } from "@conch/protocol";
import {
  createSandboxRegistry,
  type GitWatch,
  type PreparedSandbox,
  type SandboxPolicy,
  type SandboxRules,
} from "@conch/sandbox-core";
import type { Shell } from "@conch/shell-detect";
import { clampYield, type SessionResponse, SessionStore } from "@conch/unified-exec";
import { OrchestratorError } from "../errors.js";
import { SessionOutputs } from "../output/session-output.js";
import { SessionFates } from "../sessions/session-fates.js";
import { SessionMonitor } from "../sessions/session-monitor.js";
import type { SpillStore } from "../spill/spill-store.js";
import { Approvals, type InputTarget } from "./approvals.js";
import {
  type AttemptOptions,
  networkRefusals,
  type OneShotAttempt,
  runOneShot,
  startSession,
} from "./attempts.js";
import { AuditEvents, type SessionActor } from "./audit-events.js";
import { blockedHint, blockedPaths } from "./blocked-paths.js";
import { repairGit } from "./git-repairs.js";
import { escalationWords, type PipelineSteps, runPipeline } from "./pipeline.js";
import { resumeRemoteSessions } from "./remote-resume.js";
import { sessionSandbox } from "./session-sandbox.js";
import { SpawnPlanner } from "./spawn-plan.js";
import type {
  CommandOutcome,
  CommandRequest,
  FailedOutcome,
  RanOutcome,
  RejectedOutcome,
  RunContext,
  SessionOutcome,
  SessionReply,
  SessionRequest,
  SessionRunContext,
  ToolOrchestratorOptions,
} from "./types.js";

// Characters of what a person typed that the model's answer shows; the rest is counted.
const PERSON_INPUT_CHARS = 500;
// A person's keys are one audit row once they pause this long, or at a line end.
const PERSON_LINE_IDLE_MS = 1000;
const PERSON_LINE_MAX_CHARS = 4096;
// Keys that end a person's line: Enter, Ctrl-C, Ctrl-D.
// biome-ignore lint/suspicious/noControlCharactersInRegex: Ctrl-C and Ctrl-D are the point
const LINE_END_KEYS = /[\r\n\u0003\u0004]/;

export class ToolOrchestrator {
  readonly cwd: string;
  readonly approvalPolicy: ApprovalPolicy;
  readonly sandboxPolicy: SandboxPolicy;
  readonly #spill: SpillStore | null;
  readonly #audit: AuditEvents;
  readonly #approvals: Approvals;
  readonly #planner: SpawnPlanner;
  readonly #steps: PipelineSteps;
  readonly #attempts: AttemptOptions;
  readonly #settleMs: number | undefined;
  readonly #exitGraceMs: number;
  #sessions: SessionState | null = null;
  /** Shutting down with remote sessions let go (terminateSessions' keepRemote). */
  #keepingRemote = false;
  // Sessions outside the sandbox whose typed input a person approves first, by id.
  readonly #guarded = new Map<number, InputTarget>();
  /** What each sandboxed session's sandbox could not protect, checked after each of its calls. */
  readonly #gitWatches = new Map<number, GitWatch>();
  // The rules each sandboxed session runs under: what its later output says was blocked is read by them.
  readonly #sessionRules = new Map<number, { rules: SandboxRules; cwd: string; sandbox: string }>();
  // What a person typed into each session (the console's take-over) that the model has not been told of.
  readonly #personTyped = new Map<number, string>();
  // What a person typed into each session since its last audit row (a row per line, not per key).
  readonly #personLines = new Map<
    number,
    { tool: string; text: string; running: boolean; actor: SessionActor; timer: NodeJS.Timeout }
  >();
  /** Each sandboxed session's way to the network proxy, and how many of its refusals were said. */
  readonly #proxyEndpoints = new Map<number, { readonly endpoint: ProxyEndpoint; reported: number }>();
  readonly #closingIdle = new Set<Promise<unknown>>();
  /** What each remote session's later results say of where it runs (the pod as its only sandbox). */
  readonly #hostNotes = new Map<number, () => readonly string[]>();

  constructor(options: ToolOrchestratorOptions) {
    this.cwd = options.cwd;
    this.approvalPolicy = options.approvalPolicy;
    this.sandboxPolicy = options.sandbox;
    this.#spill = options.spill ?? null;
    this.#exitGraceMs = options.sessionExitGraceMs ?? DEFAULT_SESSION_EXIT_GRACE_MS;
    this.#settleMs = options.settleMs;
    const sandbox = checkedSandbox(
      options.sandbox,
      options.cwd,
      // No registry given, no backend: a sandboxed mode fails closed with SANDBOX_UNAVAILABLE.
      options.sessionSandbox ?? sessionSandbox(options.sandbox, options.cwd, createSandboxRegistry(), {}),
    );
    this.#audit = new AuditEvents(options.audit ?? null, options.approvalPolicy, options.sandbox.mode);
    this.#approvals = new Approvals({
      approvalPolicy: options.approvalPolicy,
      sandboxPolicy: options.sandbox,
      rules: options.rules ?? loadExecPolicy([]),
      approver: options.approver ?? null,
      noApproverHint: options.noApproverHint ?? null,
      rulesStorePath: options.rulesStorePath ?? null,
      audit: this.#audit,
    });
    this.#planner = new SpawnPlanner({
      cwd: options.cwd,
      sandboxPolicy: options.sandbox,
      sandbox,
      env: options.env,
      shellSnapshots: options.shellSnapshots ?? null,
    });
    this.#steps = {
      approvalPolicy: options.approvalPolicy,
      sandboxPolicy: options.sandbox,
      sandbox,
      approvals: this.#approvals,
      planner: this.#planner,
      audit: this.#audit,
      liveSessions: () => this.#sessions?.store.list().filter((session) => session.running).length ?? 0,
      remoteOnly: options.remoteOnly === true,
    };
    this.#attempts = {
      env: options.env,
      hostReaper: options.hostReaper ?? null,
      execute: options.execute ?? execRun,
      spill: this.#spill,
      audit: this.#audit,
      networkProxy: options.networkProxy ?? null,
      approvals: this.#approvals,
      remoteOnly: options.remoteOnly === true,
      remoteLedger: options.remoteLedger ?? null,
      remoteLive: new Set(),
    };
  }

  /**
   * After a restart: the remote sessions a conchd before this one had, found again on the agent and
   * listed with the ids the model knows (see `resumeRemoteSessions`). A line for each, for conchd's log.
   */
  async resumeRemoteSessions(): Promise<string[]> {
    const ledger = this.#attempts.remoteLedger;
    if (ledger == null) return [];
    const { store, monitor } = this.#sessionState();
    return resumeRemoteSessions({
      ledger,
      prepared: await this.#steps.sandbox(),
      store,
      monitor,
      attempts: this.#attempts,
    });
  }

  /** Sandboxed commands reach allowed hosts through Conch's proxy (`network = "allowlist"`). */
  get networkAllowlist(): boolean {
    const proxy = this.#attempts.networkProxy;
    return proxy !== null && !proxy.closed;
  }

  /** Where truncated output is saved, or null. */
  get spillStore(): SpillStore | null {
    return this.#spill;
  }

  /** The exec-policy rules in force, including those added by `approved_always` this session. */
  get rules(): ExecPolicy {
    return this.#approvals.rules;
  }

  /** The live sessions started through `startSession` (created on first use). */
  get sessions(): SessionStore {
    return this.#sessionState().store;
  }

  /**
   * What a person supervising sees of the live sessions: where each came from, its last line, its
   * recent output and every chunk as it comes (the console).
   */
  get monitor(): SessionMonitor {
    return this.#sessionState().monitor;
  }

  /** Every session's output, cleaned and counted as it comes: each call's window, each spill file. */
  get sessionOutputs(): SessionOutputs {
    return this.#sessionState().outputs;
  }

  #sessionState(): SessionState {
    if (this.#sessions === null) {
      const store = new SessionStore(this.#settleMs === undefined ? {} : { settleMs: this.#settleMs });
      const monitor = new SessionMonitor(store);
      // A session's spill file is named after the tool that started it.
      const label = (id: number): string => monitor.list().find((view) => view.id === id)?.tool ?? "session";
      const ledger = this.#attempts.remoteLedger;
      if (ledger != null) {
        store.observe((event) => {
          // Let go at shutdown, a remote session stays listed for the next conchd.
          if (event.type === "removed" && !this.#keepingRemote) ledger.remove(event.id);
        });
      }
      this.#sessions = {
        store,
        monitor,
        outputs: new SessionOutputs(store, this.#spill, label),
        fates: new SessionFates(store, this.#exitGraceMs),
      };
    }
    return this.#sessions;
  }

  /**
   * Runs one command through every step and says what happened. Never throws: a command that could not
   * start is a `failed` outcome carrying the error's code.
   */
  async run(given: CommandRequest, context: RunContext = {}): Promise<CommandOutcome> {
    return this.#guard(async () => {
      const request = withRealCwd(withClient(given, context.client));
      const done = await runPipeline(this.#steps, request, context, (prepared, plan) =>
        runOneShot(this.#attempts, request, context, prepared, plan),
      );
      return done.status === "done" ? ran(done.value, done.escalated, done.denied, done.hint) : done;
    });
  }

  /**
   * Starts a live session through the same steps and waits its yield window. A process that exits within
   * the early-exit window with a sandbox denial goes through the same retry path as a one-shot command;
   * later exits report their code normally.
   */
  async startSession(given: SessionRequest, context: SessionRunContext = {}): Promise<SessionOutcome> {
    return this.#guard(async () => {
      const request = withRealCwd(withClient(given, context.client));
      const { store, monitor, fates } = this.#sessionState();
      const done = await runPipeline(this.#steps, request, context, (prepared, plan) =>
        startSession(this.#attempts, store, monitor, request, context, prepared, plan),
      );
      if (done.status !== "done") return done;
      const { response, sandbox, gitWatch, proxyEndpoint } = done.value;
      if (response.pruned !== null) fates.pruned(response.pruned);
      // What the session's sandbox could not protect is checked again after each of its calls.
      if (gitWatch !== null && response.running) this.#gitWatches.set(response.sessionId, gitWatch);
      if (done.value.hostNote !== null && response.running)
        this.#hostNotes.set(response.sessionId, done.value.hostNote);
      if (done.value.rules !== null && response.running) {
        this.#sessionRules.set(response.sessionId, { rules: done.value.rules, cwd: request.cwd, sandbox });
      }
      if (proxyEndpoint !== null) {
        if (response.running) {
          this.#proxyEndpoints.set(response.sessionId, {
            endpoint: proxyEndpoint,
            reported: proxyEndpoint.refusals().length,
          });
        } else {
          proxyEndpoint.close();
        }
      }
      // A person's yes to start a program outside the sandbox is not a yes to whatever is typed into it
      // later (less's `!cmd`, a shell's next line): that input is asked, input by input. A session without
      // a terminal takes no input but Ctrl-C (its stdin is /dev/null).
      if (
        request.tty &&
        sandbox === "none" &&
        sessionInputNeedsApproval(this.sandboxPolicy.mode, this.approvalPolicy)
      ) {
        this.#guarded.set(response.sessionId, {
          id: response.sessionId,
          argv: request.argv,
          ...(request.script === undefined ? {} : { script: request.script }),
          cwd: request.cwd,
          tty: request.tty,
          line: "",
        });
      } else {
        this.#guarded.delete(response.sessionId);
      }
      return {
        status: "session",
        response,
        sandbox,
        denied: done.denied,
        escalated: done.escalated,
        hint: done.hint,
      };
    });
  }

  /**
   * Writes `chars` to a session (write_stdin) and waits for its output; empty `chars` only polls. Text
   * written is recorded in the audit log, as a command is. Text for a session outside the sandbox is
   * asked first (`approveInput`): a "no" is the rejection returned, and nothing is written. Throws the
   * store's errors (`UNKNOWN_SESSION`, saying what became of the session, `STDIN_CLOSED`), before
   * anything is asked, written or recorded.
   */
  async writeSession(
    tool: string,
    id: number,
    chars: string,
    yieldTimeMs: number,
    context: SessionRunContext = {},
  ): Promise<SessionReply | RejectedOutcome> {
    const options = context.signal === undefined ? {} : { signal: context.signal };
    if (chars === "") {
      const response = await this.sessions
        .write(id, chars, yieldTimeMs, options)
        .catch((error: unknown) => this.#rethrow(id, error));
      return this.#afterCall(id, response);
    }
    const approved = await this.#inputApproved(tool, id, chars, context);
    if (approved !== null) return approved;
    // Written first, recorded once it was taken, then the output of the same wait a write gets.
    try {
      this.sessions.send(id, chars);
    } catch (error) {
      this.#rethrow(id, error);
    }
    this.#typed(id, chars);
    this.#flushPersonLine(id);
    this.#audit.input(tool, id, this.#isRunning(id), { text: chars }, modelActor(context.client));
    return this.readSession(id, clampYield(yieldTimeMs), context, chars);
  }

  /**
   * A session's output since the last call, waiting up to `waitMs` for more (terminal_read). Throws the
   * store's `UNKNOWN_SESSION`, saying what became of the session.
   */
  async readSession(
    id: number,
    waitMs: number,
    context: SessionRunContext = {},
    written = "",
  ): Promise<SessionReply> {
    const options = context.signal === undefined ? {} : { signal: context.signal };
    const response = await this.sessions
      .read(id, waitMs, options, written)
      .catch((error: unknown) => this.#rethrow(id, error));
    return this.#afterCall(id, response);
  }

  /**
   * A session's response with what Conch moved aside after it in the repository (`repairGit`): a
   * sandboxed session may have made a git control file since its last call. Its last call checks once more.
   */
  #afterCall(id: number, response: SessionResponse): SessionReply {
    const notices = [
      ...this.#personInput(id),
      ...this.#newRefusals(id),
      ...repairGit(this.#gitWatches.get(id), this.cwd),
      ...this.#blocked(id, response.output),
      ...(this.#hostNotes.get(id)?.() ?? []),
    ];
    if (!response.running) this.#afterEnd(id);
    return { ...response, notices };
  }

  /**
   * What the sandbox kept session `id`'s command from, said for what it was, from the output this call
   * returns (a hidden secret, a path only its owner reads, a read-only path); nothing when none.
   */
  #blocked(id: number, output: string): string[] {
    const session = this.#sessionRules.get(id);
    if (session === undefined) return [];
    const { rules, cwd, sandbox } = session;
    // Typed input asks to leave the sandbox through exec_command, not through this session.
    const hint = blockedHint(
      blockedPaths(output, rules, cwd, { sandbox }),
      rules,
      escalationWords(this.approvalPolicy, true),
      { sandbox },
    );
    return hint === null ? [] : [hint];
  }

  /** The network refusals of session `id` not said yet, a line each. */
  #newRefusals(id: number): string[] {
    const proxy = this.#proxyEndpoints.get(id);
    if (proxy === undefined) return [];
    const fresh = networkRefusals(proxy.endpoint, proxy.reported);
    proxy.reported = proxy.endpoint.refusals().length;
    return fresh;
  }

  /** The last check of a session that is gone (closed, idle, shut down); nobody is left to tell. */
  #afterEnd(id: number): void {
    this.#hostNotes.delete(id);
    this.#flushPersonLine(id);
    repairGit(this.#gitWatches.get(id), this.cwd);
    this.#gitWatches.delete(id);
    this.#sessionRules.delete(id);
    this.#personTyped.delete(id);
    this.#proxyEndpoints.get(id)?.endpoint.close();
    this.#proxyEndpoints.delete(id);
  }

  /**
   * The model's `text` for a session, without waiting (terminal_write): asked first when the session
   * runs outside the sandbox, as in `writeSession`. Says whether the session runs, or the rejection.
   */
  async typeIntoSession(
    tool: string,
    id: number,
    text: string,
    context: SessionRunContext = {},
  ): Promise<boolean | RejectedOutcome> {
    const approved = await this.#inputApproved(tool, id, text, context);
    if (approved !== null) return approved;
    const running = this.#send(tool, id, text, modelActor(context.client));
    this.#typed(id, text);
    return running;
  }

  /**
   * Keeps the line the model's text leaves in a session outside the sandbox: what follows its last line
   * end, added to what came before when it has none. Ctrl-C (not asked) is kept too: whether it clears
   * the line is the program's choice, and the person sees that it was typed.
   */
  #typed(id: number, text: string): void {
    const target = this.#guarded.get(id);
    if (target === undefined) return;
    const end = Math.max(text.lastIndexOf("\r"), text.lastIndexOf("\n"));
    const line = end === -1 ? target.line + text : text.slice(end + 1);
    this.#guarded.set(id, { ...target, line });
  }

  /**
   * Writes `text` to a session without waiting (a person typing in the console), recorded in the audit
   * log as `actor`'s input; says whether it runs. The model's text goes through `typeIntoSession`: given
   * here for a session outside the sandbox, it is refused.
   */
  sendToSession(tool: string, id: number, text: string, actor: SessionActor = MODEL): boolean {
    if (actor.by !== "person" && this.#needsInputApproval(id, text)) {
      throw new OrchestratorError(
        "INVALID_REQUEST",
        `session ${id} runs outside the sandbox: the model's input to it must be approved (typeIntoSession)`,
      );
    }
    return this.#send(tool, id, text, actor);
  }

  #send(tool: string, id: number, text: string, actor: SessionActor): boolean {
    try {
      this.sessions.send(id, text);
    } catch (error) {
      this.#rethrow(id, error);
    }
    const running = this.#isRunning(id);
    if (actor.by === "person") {
      // The model is told, in its next answer from this session, what a person typed into it.
      this.#personTyped.set(id, (this.#personTyped.get(id) ?? "") + text);
      this.#personKeys(tool, id, text, running, actor);
    } else {
      this.#flushPersonLine(id);
      this.#audit.input(tool, id, running, { text }, actor);
    }
    return running;
  }

  /**
   * A person types key by key: their keys are one audit row per line (at its Enter, a Ctrl-C or Ctrl-D,
   * or once they paused PERSON_LINE_IDLE_MS), not a row per key.
   */
  #personKeys(tool: string, id: number, text: string, running: boolean, actor: SessionActor): void {
    const line = this.#personLines.get(id);
    if (line !== undefined) clearTimeout(line.timer);
    const typed = (line?.text ?? "") + text;
    const timer = setTimeout(() => this.#flushPersonLine(id), PERSON_LINE_IDLE_MS);
    timer.unref();
    this.#personLines.set(id, { tool, text: typed, running, actor, timer });
    if (LINE_END_KEYS.test(text) || typed.length >= PERSON_LINE_MAX_CHARS) this.#flushPersonLine(id);
  }

  /** Writes the audit row of what a person typed into session `id` and has not been recorded yet. */
  #flushPersonLine(id: number): void {
    const line = this.#personLines.get(id);
    if (line === undefined) return;
    clearTimeout(line.timer);
    this.#personLines.delete(id);
    this.#audit.input(line.tool, id, line.running, { text: line.text }, line.actor);
  }

  /** What a person typed into session `id` since the model's last call, as its next answer says it. */
  #personInput(id: number): string[] {
    const typed = this.#personTyped.get(id);
    if (typed === undefined) return [];
    this.#personTyped.delete(id);
    const shown = visibleText(typed.replace(/\r\n?|\n/g, "\u23ce"));
    const cut =
      shown.length > PERSON_INPUT_CHARS
        ? `${shown.slice(0, PERSON_INPUT_CHARS)}… (${shown.length} characters)`
        : shown;
    return [`a person typed into this session since your last call: \`${cut}\``];
  }

  /**
   * Whether `text` for session `id` needs a person's yes: the session runs outside the sandbox, and it is
   * more than Ctrl-C (which only interrupts, as on a pipe session) or nothing.
   */
  #needsInputApproval(id: number, text: string): boolean {
    return text !== "" && text !== CTRL_C && this.#guarded.has(id) && this.#isRunning(id);
  }

  /** Null when `text` may be typed into session `id` now; else the rejection (nothing is typed). */
  async #inputApproved(
    tool: string,
    id: number,
    text: string,
    context: SessionRunContext,
  ): Promise<RejectedOutcome | null> {
    // An unknown id fails as it would without the question (the store's error, explained).
    if (!this.sessions.has(id)) {
      try {
        this.sessions.send(id, "");
      } catch (error) {
        this.#rethrow(id, error);
      }
    }
    const target = this.#guarded.get(id);
    if (target === undefined || !this.#needsInputApproval(id, text)) return null;
    const answer = await this.#approvals.approveInput(tool, target, text, context);
    return answer.status === "rejected" ? answer : null;
  }

  /**
   * Sends `signal` to a session's process group (terminal_signal, the console's Interrupt), recorded in
   * the audit log as `actor`'s; says whether it ran. On a terminal, SIGINT is a Ctrl-C written to it:
   * that reaches the foreground job, which a shell runs in a group of its own.
   */
  signalSession(tool: string, id: number, signal: NodeJS.Signals, actor: SessionActor = MODEL): boolean {
    const info = this.sessions.list().find((session) => session.id === id);
    try {
      if (signal === "SIGINT" && info?.tty === true) this.sessions.send(id, "\u0003");
      else this.sessions.signal(id, signal);
    } catch (error) {
      this.#rethrow(id, error);
    }
    const running = info?.running === true;
    this.#flushPersonLine(id);
    this.#audit.input(tool, id, running, { signal }, actor);
    return running;
  }

  /**
   * Kills a session's process tree and forgets it (terminal_close, the console's Kill), recorded in the
   * audit log as `actor`'s doing. Throws `UNKNOWN_SESSION` for an id not listed.
   */
  async closeSession(tool: string, id: number, actor: SessionActor = MODEL): Promise<void> {
    const command = this.sessions.list().find((session) => session.id === id)?.command ?? "";
    await this.sessions.close(id).catch((error: unknown) => this.#rethrow(id, error));
    this.#afterEnd(id);
    this.#sessionState().fates.closed(id, actor.by === "person" ? "by a person" : null);
    this.#audit.sessionKilled(tool, id, command, actor);
  }

  /**
   * Whether a login-shell command in `shell` runs with its snapshot (capturing it now if needed), or why
   * not: what `conch sandbox --check` reports.
   */
  async shellSnapshotStatus(
    shell: Shell,
  ): Promise<{ ok: true; file: string } | { ok: false; reason: string }> {
    return this.#planner.snapshotStatus(shell);
  }

  /**
   * Kills every live session (daemon shutdown, end of a replay). `keepRemote`: a remote session's
   * process is let go rather than ended, and stays in the ledger, for the next conchd to find (a
   * restart); the agent ends it if none comes within its keep time.
   */
  async terminateSessions(options: { readonly keepRemote?: boolean } = {}): Promise<void> {
    for (const id of [...this.#personLines.keys()]) this.#flushPersonLine(id);
    if (options.keepRemote === true) {
      this.#keepingRemote = true;
      for (const process of [...(this.#attempts.remoteLive ?? [])]) process.detach();
    }
    await this.#sessions?.store.terminateAll();
    for (const id of new Set([...this.#gitWatches.keys(), ...this.#proxyEndpoints.keys()]))
      this.#afterEnd(id);
    // Every spill file a text named is complete before the process may end.
    await this.#sessions?.outputs.close();
    // An idle sweep still killing its sessions records them once done: before the audit log is flushed.
    await Promise.allSettled(this.#closingIdle);
  }

  /**
   * Kills every live session nobody has polled or written to for `idleS` seconds, and records each in
   * the audit log. Resolves with their ids.
   */
  async closeIdleSessions(idleS: number): Promise<number[]> {
    if (this.#sessions === null) return [];
    const closing = this.#sessions.store.closeIdle(idleS * 1000);
    this.#closingIdle.add(closing);
    try {
      const closed = await closing;
      for (const session of closed) {
        this.#afterEnd(session.id);
        this.#sessions.fates.closed(session.id, `after ${idleS} s without a call`);
        this.#audit.sessionClosed(session.id, session.command, idleS);
      }
      return closed.map((session) => session.id);
    } finally {
      this.#closingIdle.delete(closing);
    }
  }

  /** Throws `error`; the store's `UNKNOWN_SESSION` for session `id` says what became of it. */
  #rethrow(id: number, error: unknown): never {
    throw this.#sessionState().fates.explain(id, error);
  }

  #isRunning(id: number): boolean {
    return this.sessions.list().some((session) => session.id === id && session.running);
  }

  async #guard<T>(body: () => Promise<T>): Promise<T | FailedOutcome> {
    try {
      return await body();
    } catch (error) {
      const code = isConchError(error) ? error.code : "INTERNAL";
      const message = error instanceof Error ? error.message : String(error);
      return { status: "failed", code, message, cause: error };
    }
  }
}

/**
 * `prepared`, refusing a sandbox prepared for another mode, cwd or network setting than the
 * orchestrator's own (one for danger-full-access under a workspace-write policy would run every command
 * unsandboxed; one for another cwd or with network would give commands what the policy does not).
 * Writable roots beyond the cwd are the caller's to keep equal: createRuntime builds both from one policy.
 */
function checkedSandbox(
  policy: SandboxPolicy,
  cwd: string,
  prepared: () => Promise<PreparedSandbox>,
): () => Promise<PreparedSandbox> {
  const mismatch = (what: string, expected: unknown, received: unknown): OrchestratorError =>
    new OrchestratorError(
      "INVALID_REQUEST",
      expectedReceived(
        "sessionSandbox",
        `a sandbox prepared for ${what} ${String(expected)} (as the orchestrator's)`,
        received,
      ),
    );
  // Checked once per sandbox: the session's is prepared once and kept, and none of this changes.
  const checked = new WeakSet<PreparedSandbox>();
  return async () => {
    const sandbox = await prepared();
    if (checked.has(sandbox)) return sandbox;
    const { workspace } = sandbox;
    if (workspace.mode !== policy.mode) throw mismatch("the mode", policy.mode, workspace.mode);
    if (realOrSelf(workspace.cwd) !== realOrSelf(cwd)) throw mismatch("the cwd", cwd, workspace.cwd);
    if (sandbox.backend !== null) {
      const network = workspace.network;
      const expected = policy.mode === "workspace-write" && policy.networkAccess === true;
      if (network !== expected) throw mismatch("network", expected ? "on" : "off", network ? "on" : "off");
    }
    checked.add(sandbox);
    return sandbox;
  };
}

function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

async function ran(
  attempt: OneShotAttempt,
  escalated: boolean,
  denied: boolean,
  hint: string | null,
): Promise<RanOutcome> {
  const { result } = attempt;
  // The collector decides whether its spill file is kept: when the model's text will be cut.
  const output = await attempt.collected.finishForModel(result.timedOut, result.durationMs);
  attempt.record(output.spill?.path ?? null);
  return {
    status: "ran",
    exitCode: result.exitCode,
    signal: result.signal,
    durationMs: result.durationMs,
    timedOut: result.timedOut,
    canceled: result.canceled,
    sandbox: attempt.sandbox,
    denied,
    escalated,
    hint,
    output,
    result,
  };
}

const CTRL_C = "\u0003";

/** How long an exited, pruned or closed session's fate is told (config `session_exit_grace_s`). */
const DEFAULT_SESSION_EXIT_GRACE_MS = 10 * 60 * 1000;

interface SessionState {
  readonly store: SessionStore;
  readonly monitor: SessionMonitor;
  readonly outputs: SessionOutputs;
  readonly fates: SessionFates;
}

/** The model's doing, through a call of `client` when known. */
const MODEL: SessionActor = { by: "model" };

function modelActor(client: string | undefined): SessionActor {
  return client === undefined ? MODEL : { by: "model", client };
}

/** The request, naming the client whose call it is (from the call's context), when known. */
function withClient<T extends CommandRequest>(request: T, client: string | undefined): T {
  return client === undefined ? request : { ...request, client };
}

/**
 * The request with its cwd as the kernel resolves it now: a person approves, and an approval is kept
 * for, the directory the command really starts in, never a symlink the model can point elsewhere
 * between the question and a retry. A cwd that cannot be resolved is left for the pipeline to refuse.
 */
function withRealCwd<T extends CommandRequest>(request: T): T {
  try {
    const cwd = realpathSync.native(request.cwd);
    return cwd === request.cwd ? request : { ...request, cwd };
  } catch {
    return request;
  }
}
