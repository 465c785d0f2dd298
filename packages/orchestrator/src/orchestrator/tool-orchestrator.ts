// The one door (DESIGN.md §1): every command any tool runs goes through `ToolOrchestrator.run`, which
// alone knows every step — the approval requirement, asking, the sandbox, running, the denial check and
// the retry outside the sandbox. Codex's ToolOrchestrator (codex-rs/core/src/tools/orchestrator.rs).
import { realpathSync } from "node:fs";
import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import {
  ApprovalCache,
  type ApprovalRequest,
  type ApprovalRequirement,
  type Approver,
  allowPrefixRule,
  approvalRequirement,
  type ExecPolicy,
  loadPolicy,
  type ProgramLookup,
  storablePrefixRule,
} from "@conch/approval";
import { buildEnv, ExecError, type ExecRequest, type ExecResult, run as execRun } from "@conch/exec-core";
import {
  type ApprovalPolicy,
  isConchError,
  type RejectionKind,
  type ReviewDecision,
  type SandboxPermissions,
} from "@conch/protocol";
import {
  createSandboxWorkspace,
  isLikelySandboxDenied,
  type SandboxBackend,
  type SandboxPolicy,
  type SandboxRegistry,
  type SandboxRules,
  type SandboxWorkspace,
  type SandboxWorkspaceOptions,
  type SpawnSpec,
} from "@conch/sandbox-core";
import type { Shell, ShellRun } from "@conch/shell-detect";
import { type SessionResponse, SessionStore } from "@conch/unified-exec";
import type { AuditCommand, AuditDecider, AuditLog } from "../audit/audit-log.js";
import { OutputCollector } from "../output/output-collector.js";
import type { SpillStore } from "../spill/spill-store.js";
import { defaultSandboxRegistry } from "./default-registry.js";
import type {
  CommandOutcome,
  CommandRequest,
  Execute,
  FailedOutcome,
  RanOutcome,
  RejectedOutcome,
  RunContext,
  SessionOutcome,
  SessionRequest,
  SessionRunContext,
  ShellSnapshotSource,
  ToolOrchestratorOptions,
} from "./types.js";

/** Codex's words when the person says no (orchestrator.rs), so a model trained on Codex knows them. */
export const REJECTED_BY_USER = "rejected by user";
/** The reason of a command whose call was canceled while it waited for approval. */
const CANCELED_BEFORE_START = "canceled before the command started";
/** Why a command that a rule or the policy would run unasked is asked about: it wants out of the sandbox. */
const ESCALATION_REASON =
  "the command asks to run outside the sandbox (sandbox_permissions: require_escalated)";
/** Codex's question when a sandboxed command failed and running it outside the sandbox needs a yes. */
export const RETRY_WITHOUT_SANDBOX_REASON = "command failed; retry without sandbox?";
// What the person asked about a denial sees of the output: its end, where the error usually is.
const DENIAL_EXCERPT_BYTES = 2048;

/** What a command spawns as, decided once per call: its argv, and the PATH its programs resolve in. */
interface SpawnPlan {
  readonly argv: readonly string[];
  /** Null for a login shell whose profile sets PATH unread by Conch. */
  readonly path: string | null;
}

interface Attempt {
  readonly result: ExecResult;
  readonly collected: OutputCollector;
  readonly sandbox: string;
}

export class ToolOrchestrator {
  readonly cwd: string;
  readonly approvalPolicy: ApprovalPolicy;
  readonly sandboxPolicy: SandboxPolicy;
  readonly #approver: Approver | null;
  readonly #noApproverHint: string | null;
  readonly #registry: SandboxRegistry;
  readonly #spill: SpillStore | null;
  readonly #audit: AuditLog | null;
  readonly #env: ToolOrchestratorOptions["env"];
  readonly #rulesStorePath: string | null;
  readonly #execute: Execute;
  readonly #cache = new ApprovalCache();
  #sessions: SessionStore | null = null;
  #rules: ExecPolicy;
  readonly #workspaceOptions: SandboxWorkspaceOptions;
  // Resolved once, from the session's cwd and config, never from a call's workdir: its writable roots are
  // held by identity for the whole session.
  #workspace: SandboxWorkspace | null = null;
  #programRoots: string[] | null = null;
  readonly #shellSnapshots: ShellSnapshotSource | null;

  constructor(options: ToolOrchestratorOptions) {
    this.cwd = options.cwd;
    this.approvalPolicy = options.approvalPolicy;
    this.sandboxPolicy = options.sandbox;
    this.#rules = options.rules ?? loadPolicy([]);
    this.#approver = options.approver ?? null;
    this.#noApproverHint = options.noApproverHint ?? null;
    this.#registry = options.sandboxRegistry ?? defaultSandboxRegistry();
    this.#spill = options.spill ?? null;
    this.#audit = options.audit ?? null;
    this.#env = options.env;
    this.#rulesStorePath = options.rulesStorePath ?? null;
    this.#execute = options.execute ?? execRun;
    this.#workspaceOptions = { ...options.sandboxWorkspace, cwd: options.cwd };
    this.#shellSnapshots = options.shellSnapshots ?? null;
  }

  /** Where truncated output is saved, or null. */
  get spillStore(): SpillStore | null {
    return this.#spill;
  }

  /** The exec-policy rules in force, including those added by `approved_always` this session. */
  get rules(): ExecPolicy {
    return this.#rules;
  }

  /**
   * Runs one command through every step and says what happened. Never throws: a command that could not
   * start is a `failed` outcome carrying the error's code.
   */
  async run(request: CommandRequest, context: RunContext = {}): Promise<CommandOutcome> {
    return this.#guard(async () => {
      const done = await this.#pipeline(request, context.signal, {
        launch: (backend, plan) => this.#attempt(request, context, backend, plan),
        denied: (attempt) => this.#deniedBySandbox(attempt),
        excerpt: (attempt) => denialExcerpt(attempt),
        discard: (attempt) => attempt.collected.discard(),
      });
      return done.status === "done" ? this.#ran(done.value, done.escalated, done.hint) : done;
    });
  }

  /**
   * Starts a live session through the same steps and waits its yield window. A process that exits within
   * the early-exit window with a sandbox denial goes through the same retry path as a one-shot command;
   * later exits report their code normally.
   */
  async startSession(request: SessionRequest, context: SessionRunContext = {}): Promise<SessionOutcome> {
    return this.#guard(async () => {
      const done = await this.#pipeline(request, context.signal, {
        launch: (backend, plan) => this.#startSession(request, context, backend, plan),
        denied: ({ response }) =>
          !response.running &&
          response.exitedAfterMs !== null &&
          isLikelySandboxDenied(response.exitCode, response.output, {
            session: true,
            sinceSpawnMs: response.exitedAfterMs,
            exited: false,
          }),
        excerpt: ({ response }) => response.output.slice(-DENIAL_EXCERPT_BYTES),
        // A denied session that stays listed (terminal_open) would linger beside its retry.
        discard: async ({ response }) => {
          if (this.sessions.has(response.sessionId)) await this.sessions.close(response.sessionId);
        },
      });
      if (done.status !== "done") return done;
      const { response, sandbox } = done.value;
      return {
        status: "session",
        response,
        sandbox,
        denied: done.hint !== null,
        escalated: done.escalated,
        hint: done.hint,
      };
    });
  }

  /** The live sessions started through `startSession` (created on first use). */
  get sessions(): SessionStore {
    this.#sessions ??= new SessionStore();
    return this.#sessions;
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

  async #startSession(
    request: SessionRequest,
    context: SessionRunContext,
    backend: SandboxBackend | null,
    plan: SpawnPlan,
  ): Promise<{ response: SessionResponse; sandbox: string }> {
    const argv = [...plan.argv];
    const rules = backend === null ? null : this.#sandboxRulesNow();
    const sandbox = backend?.name ?? "none";
    const started = performance.now();
    const response = await this.sessions.start(
      {
        argv,
        command: request.script ?? request.argv.join(" "),
        cwd: request.cwd,
        tty: request.tty,
        ...(this.#env === undefined ? {} : { env: this.#env }),
        ...(backend === null || rules === null
          ? {}
          : { prepare: (spec) => backend.transform(spec, rules, { tty: request.tty }), wrapped: true }),
      },
      request.yieldTimeMs,
      {
        ...(context.signal === undefined ? {} : { signal: context.signal }),
        ...(request.keepAfterExit === undefined ? {} : { keepAfterExit: request.keepAfterExit }),
        ...(request.unclampedYield === undefined ? {} : { unclampedYield: request.unclampedYield }),
      },
    );
    this.#recordExecution(request, sandbox, {
      exitCode: response.exitCode,
      durationMs: performance.now() - started,
      timedOut: false,
      canceled: context.signal?.aborted === true,
      denied: false,
    });
    return { response, sandbox };
  }

  /**
   * The steps every command takes (DESIGN.md §1) around `launch`, which runs it once, in the given
   * sandbox or none: the requirement, asking, the sandbox choice, the denial check and the retry.
   */
  async #pipeline<T>(
    request: CommandRequest,
    signal: AbortSignal | undefined,
    trial: {
      launch: (backend: SandboxBackend | null, plan: SpawnPlan) => Promise<T>;
      denied: (value: T) => boolean;
      excerpt: (value: T) => string;
      discard: (value: T) => Promise<void>;
    },
  ): Promise<
    RejectedOutcome | FailedOutcome | { status: "done"; value: T; escalated: boolean; hint: string | null }
  > {
    // Checked first: nobody should be asked about a command that cannot start.
    if (!(await isDirectory(request.cwd))) {
      const message = `invalid request: cwd: no such directory: ${request.cwd}`;
      return {
        status: "failed",
        code: "CWD_NOT_FOUND",
        message,
        cause: new ExecError("CWD_NOT_FOUND", message),
      };
    }
    const permissions: SandboxPermissions = request.sandboxPermissions ?? "use_default";
    // What will spawn, before the approval: a login-shell command may run with the user's snapshot, whose
    // PATH is where its programs resolve.
    const plan = await this.#spawnPlan(request);
    const analysed = await approvalRequirement({
      argv: request.argv,
      execPolicy: this.#rules,
      approvalPolicy: this.approvalPolicy,
      sandboxMode: this.sandboxPolicy.mode,
      sandboxPermissions: permissions,
      prefixRule: request.prefixRule ?? null,
      programs: this.#programLookup(request.cwd, plan),
    });
    // Leaving a restricting sandbox takes a person's yes for this command, even when a rule lets it run
    // unasked inside the sandbox; only a rule that itself says `sandbox = "none"` lifts it.
    const restricting =
      this.sandboxPolicy.mode === "read-only" || this.sandboxPolicy.mode === "workspace-write";
    const requirement: ApprovalRequirement =
      analysed.type === "skip" &&
      permissions === "require_escalated" &&
      restricting &&
      !analysed.bypassSandbox
        ? { ...analysed, type: "needs-approval", reason: ESCALATION_REASON }
        : analysed;

    if (requirement.type === "forbidden") {
      this.#recordDecision(request, requirement, "forbidden", "policy");
      return rejected("forbidden", requirement.reason ?? "rejected by policy", "policy");
    }

    // An escalation a person approved, or a command every part of which a rule runs with `sandbox = "none"`,
    // runs outside the sandbox. The sandbox is checked before anyone is asked: nobody should approve what
    // cannot run.
    const unsandboxed = permissions === "require_escalated" || requirement.bypassSandbox;
    const backend = unsandboxed ? null : this.#registry.select(this.sandboxPolicy);
    if (backend !== null) {
      const availability = await backend.available();
      if (!availability.available) {
        return rejected(
          "sandbox-unavailable",
          `the sandbox (${backend.name}) cannot run here: ${availability.reason}; fix: ${availability.fix}. ` +
            "The command did not run.",
          "policy",
        );
      }
    }

    if (requirement.type === "needs-approval") {
      const answer = await this.#approve(request, requirement, permissions, {}, signal);
      if (answer.status === "rejected") return answer;
    } else {
      this.#recordDecision(request, requirement, "approved", requirement.bypassSandbox ? "rule" : "policy");
    }
    if (signal?.aborted) return rejected("canceled", CANCELED_BEFORE_START, "user");

    const first = await trial.launch(backend, plan);
    if (backend === null || !trial.denied(first)) {
      return { status: "done", value: first, escalated: false, hint: null };
    }

    // The sandbox denied it. It may run outside the sandbox only where a person can be asked first, and is
    // asked again even when the command itself was approved (that approval was for the sandbox), unless
    // this very retry was approved for the session.
    if (this.approvalPolicy === "never" || this.approvalPolicy === "on-request") {
      return { status: "done", value: first, escalated: false, hint: this.#denialHint(request) };
    }
    await trial.discard(first);
    const answer = await this.#approve(
      request,
      requirement,
      "require_escalated",
      { reason: RETRY_WITHOUT_SANDBOX_REASON, sandboxDenial: trial.excerpt(first) },
      signal,
    );
    if (answer.status === "rejected") return answer;
    if (signal?.aborted) return rejected("canceled", CANCELED_BEFORE_START, "user");
    return { status: "done", value: await trial.launch(null, plan), escalated: true, hint: null };
  }

  /** The cached answer, or the approver's; records the decision and applies `approved_always`. */
  async #approve(
    request: CommandRequest,
    requirement: ApprovalRequirement,
    permissions: SandboxPermissions,
    retry: { reason?: string; sandboxDenial?: string },
    signal: AbortSignal | undefined,
  ): Promise<RejectedOutcome | { status: "approved" }> {
    const tty = "tty" in request && request.tty === true;
    const key = { argv: request.argv, cwd: request.cwd, sandboxPermissions: permissions, tty };
    if (await this.#cache.isApprovedForSession(key)) {
      this.#recordDecision(request, requirement, "approved_for_session", "cache");
      return { status: "approved" };
    }
    if (this.#approver === null) {
      this.#recordDecision(request, requirement, "denied", "policy");
      return rejected(
        "no-approver",
        `${requirement.reason ?? "this command needs approval"}, and no one can be asked here; ` +
          `the command did not run${this.#noApproverHint === null ? "" : ` (${this.#noApproverHint})`}`,
        "policy",
      );
    }
    const proposed =
      this.#rulesStorePath === null || requirement.proposedRule === null
        ? null
        : storablePrefixRule(requirement.proposedRule);
    const ask: ApprovalRequest = {
      argv: request.argv,
      cwd: request.cwd,
      reason: retry.reason ?? requirement.reason,
      proposedRule: proposed,
      sandboxMode: this.sandboxPolicy.mode,
      sandboxPermissions: permissions,
      tty,
      ...(request.justification === undefined ? {} : { justification: request.justification }),
      ...(request.description === undefined ? {} : { description: request.description }),
      ...(retry.sandboxDenial === undefined ? {} : { sandboxDenial: retry.sandboxDenial }),
    };
    const decision: ReviewDecision = await this.#approver.request(
      ask,
      signal === undefined ? {} : { signal },
    );
    this.#recordDecision(request, requirement, decision, "user");
    await this.#cache.record(key, decision);
    if (decision === "denied") return rejected("denied-by-user", REJECTED_BY_USER, "user");
    if (decision === "abort") return rejected("aborted-by-user", REJECTED_BY_USER, "user");
    if (decision === "approved_always" && proposed !== null && this.#rulesStorePath !== null) {
      const allowed = allowPrefixRule(this.#rules, proposed, this.#rulesStorePath);
      this.#rules = allowed.rules;
      // The person said yes: a rules file that cannot be written costs the "always", not this run.
      await allowed.stored.catch((error: unknown) => {
        this.#recordDecision(
          request,
          requirement,
          `approved_always (not stored: ${(error as Error).message})`,
          "user",
        );
      });
    }
    return { status: "approved" };
  }

  async #attempt(
    request: CommandRequest,
    context: RunContext,
    backend: SandboxBackend | null,
    plan: SpawnPlan,
  ): Promise<Attempt> {
    const exec: ExecRequest = { argv: [...plan.argv], cwd: request.cwd };
    if (request.timeoutMs !== undefined) exec.timeoutMs = request.timeoutMs;
    if (this.#env !== undefined) exec.env = this.#env;
    const collected = new OutputCollector({
      maxTokens: request.maxOutputTokens,
      spill: request.spill === false ? null : this.#spill,
      label: request.tool,
    });
    const rules = backend === null ? null : this.#sandboxRulesNow();
    const onOutput = context.onOutput;
    let result: ExecResult;
    try {
      result = await this.#execute(exec, {
        ...(context.signal === undefined ? {} : { signal: context.signal }),
        onOutput: (delta) => {
          const stored = collected.push(delta.data);
          const forwarded = onOutput?.(delta);
          if (forwarded === undefined) return stored;
          return stored === undefined ? forwarded : Promise.all([stored, forwarded]).then(() => undefined);
        },
        ...(backend === null || rules === null ? {} : { prepare: (spec) => backend.transform(spec, rules) }),
      });
    } catch (error) {
      await collected.discard();
      throw error;
    }
    const sandbox = backend?.name ?? "none";
    this.#recordExecution(request, sandbox, {
      exitCode: result.exitCode,
      durationMs: result.durationMs,
      timedOut: result.timedOut,
      canceled: result.canceled,
      denied: backend !== null && this.#deniedBySandboxResult(result, collected),
    });
    return { result, collected, sandbox };
  }

  /**
   * What spawns: `argv`, or for a login-shell command the same script run non-login with the user's
   * shell snapshot (the profile's effect, captured once, in the sandbox), when there is one; and the
   * PATH its programs resolve in (null when a login shell's profile may set it: not known).
   */
  async #spawnPlan(request: CommandRequest): Promise<SpawnPlan> {
    const given: SpawnPlan = {
      argv: [...request.argv],
      path: request.loginShell === undefined ? this.#basePath() : null,
    };
    if (request.loginShell === undefined || request.script === undefined || this.#shellSnapshots === null) {
      return given;
    }
    // A shell the model named from the workspace is its own program, not the user's shell: no snapshot.
    if (this.#inSessionRoots(request.loginShell.path)) return given;
    const use = await this.#shellSnapshots.use(request.loginShell, request.script, {
      run: (argv, options) => this.#runCapture(argv, options),
      writableRoots: this.#sessionRoots(),
    });
    if (!use.ok) return given;
    return { argv: use.argv, path: use.pathVariable ?? this.#basePath() };
  }

  /**
   * Whether a login-shell command in `shell` runs with its snapshot (capturing it now if needed), or why
   * not: what `conch sandbox --check` reports.
   */
  async shellSnapshotStatus(
    shell: Shell,
  ): Promise<{ ok: true; file: string } | { ok: false; reason: string }> {
    if (this.#shellSnapshots === null)
      return { ok: false, reason: "shell snapshots are off (shell_snapshot = false)" };
    const use = await this.#shellSnapshots.use(shell, ":", {
      run: (argv, options) => this.#runCapture(argv, options),
      writableRoots: this.#sessionRoots(),
    });
    return use.ok ? { ok: true, file: use.file } : use;
  }

  /** The PATH a command starts with, as the environment policy builds it. */
  #basePath(): string {
    return buildEnv(this.#env).PATH ?? "";
  }

  /**
   * Runs a snapshot capture (the user's login shell, and the check that the snapshot loads) in the
   * sandbox, read-only but for the capture's own work directory, with no network: startup files run
   * programs a sandboxed command could have written. No sandbox only where the policy runs none.
   */
  async #runCapture(
    argv: readonly string[],
    options: {
      cwd: string;
      env: Readonly<Record<string, string>>;
      timeoutMs: number;
      output: boolean;
      writable: string;
    },
  ): Promise<ShellRun> {
    const backend = this.#registry.select(this.sandboxPolicy);
    let prepare: ((spec: SpawnSpec) => Promise<SpawnSpec>) | undefined;
    if (backend !== null) {
      const availability = await backend.available();
      if (!availability.available) return { outcome: "failed", error: new Error(availability.reason) };
      const session = this.#sandboxRulesNow();
      const rules: SandboxRules = {
        ...session,
        writableRoots: [{ root: realpathSync(options.writable), readOnlySubpaths: [] }],
        tmp: { kind: "empty", targets: ["/tmp"] },
        network: false,
      };
      prepare = (spec) => backend.transform(spec, rules);
    }
    try {
      const result = await execRun(
        {
          argv: [...argv],
          cwd: options.cwd,
          env: { inherit: "none", set: { ...options.env } },
          timeoutMs: options.timeoutMs,
        },
        prepare === undefined ? {} : { prepare },
      );
      if (result.timedOut) return { outcome: "timed-out" };
      return {
        outcome: "exited",
        code: result.signal === null ? result.exitCode : null,
        signal: result.signal as NodeJS.Signals | null,
        stdout: options.output ? result.stdout : "",
        stderr: options.output ? result.stderr : "",
      };
    } catch (error) {
      return { outcome: "failed", error: error as Error };
    }
  }

  #inSessionRoots(path: string): boolean {
    let real = path;
    try {
      real = realpathSync(path);
    } catch {
      // A shell that does not exist fails when it is spawned.
    }
    return [path, real].some((candidate) =>
      this.#sessionRoots().some(
        (root) => candidate === root || candidate.startsWith(root === "/" ? "/" : `${root}/`),
      ),
    );
  }

  /** The session's writable roots, canonical: what a sandboxed command could have written. */
  #sessionRoots(): string[] {
    this.#programRoots ??= [
      this.cwd,
      ...(this.sandboxPolicy.mode === "workspace-write" ? (this.sandboxPolicy.writableRoots ?? []) : []),
    ]
      .map((root) => resolve(this.cwd, root))
      .map((root) => {
        try {
          return realpathSync(root);
        } catch {
          return root;
        }
      });
    return this.#programRoots;
  }

  /**
   * Where the command's programs resolve, for the approval: the PATH it will run with, and what a
   * sandboxed command could have written (the session's writable roots). A program planted there
   * (`.venv/bin/cat`) is not the one the rules and the known-safe list mean. A login shell without a
   * snapshot gets its PATH from a profile Conch has not read: not known, so nothing leaves the sandbox.
   */
  #programLookup(cwd: string, plan: SpawnPlan): ProgramLookup {
    return {
      path: plan.path ?? this.#basePath(),
      cwd,
      writableRoots: this.#sessionRoots(),
      ...(plan.path === null ? { pathKnown: false } : {}),
    };
  }

  /**
   * The sandbox rules for the command about to start: the session's roots (checked to be the directories
   * they were), with protected and hidden paths found afresh. Throws `WRITABLE_ROOT_CHANGED`.
   */
  #sandboxRulesNow(): SandboxRules {
    this.#workspace ??= createSandboxWorkspace(this.sandboxPolicy, this.#workspaceOptions);
    return this.#workspace.rules();
  }

  #deniedBySandbox(attempt: Attempt): boolean {
    return this.#deniedBySandboxResult(attempt.result, attempt.collected);
  }

  #deniedBySandboxResult(result: ExecResult, collected: OutputCollector): boolean {
    if (result.timedOut || result.canceled) return false;
    return isLikelySandboxDenied(result.exitCode, collected.sampleText());
  }

  #denialHint(request: CommandRequest): string {
    const mode = this.sandboxPolicy.mode;
    if (this.approvalPolicy === "on-request" && request.sandboxPermissions !== undefined) {
      return (
        `The sandbox (${mode}) appears to have blocked this command. If it needs to write outside the ` +
        'writable roots or use the network, run it again with sandbox_permissions "require_escalated" ' +
        "and a justification, and the user will be asked."
      );
    }
    if (this.approvalPolicy === "on-request") {
      return (
        `The sandbox (${mode}) appears to have blocked this command, and this tool cannot ask to run ` +
        "outside it. Change the command to stay within the writable roots."
      );
    }
    return (
      `The sandbox (${mode}) appears to have blocked this command. The approval policy is never, so it ` +
      "cannot run outside the sandbox; change the command to stay within the writable roots."
    );
  }

  /** Kills every live session (daemon shutdown, end of a replay). */
  async terminateSessions(): Promise<void> {
    await this.#sessions?.terminateAll();
  }

  async #ran(attempt: Attempt, escalated: boolean, hint: string | null): Promise<RanOutcome> {
    const { result } = attempt;
    const maxTokens = attempt.collected.maxTokens;
    const output = await attempt.collected.finish(
      (collected, binary) => binary || collected.truncate(maxTokens).truncated,
    );
    return {
      status: "ran",
      exitCode: result.exitCode,
      signal: result.signal,
      durationMs: result.durationMs,
      timedOut: result.timedOut,
      canceled: result.canceled,
      sandbox: attempt.sandbox,
      denied: hint !== null,
      escalated,
      hint,
      output,
      result,
    };
  }

  #recordExecution(
    request: CommandRequest,
    sandbox: string,
    run: {
      exitCode: number | null;
      durationMs: number;
      timedOut: boolean;
      canceled: boolean;
      denied: boolean;
    },
  ): void {
    this.#audit?.record({
      type: "execution",
      tool: request.tool,
      ...auditCommand(request),
      cwd: request.cwd,
      sandbox,
      ...run,
      durationMs: Math.round(run.durationMs),
    });
  }

  #recordDecision(
    request: CommandRequest,
    requirement: ApprovalRequirement,
    decision: string,
    decidedBy: AuditDecider,
  ): void {
    this.#audit?.record({
      type: "decision",
      tool: request.tool,
      ...auditCommand(request),
      cwd: request.cwd,
      approvalPolicy: this.approvalPolicy,
      requirement: requirement.type,
      decision,
      decidedBy,
      sandbox: this.sandboxPolicy.mode,
    });
  }
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

function rejected(kind: RejectionKind, reason: string, decidedBy: AuditDecider): RejectedOutcome {
  return { status: "rejected", kind, reason, decidedBy };
}

function auditCommand(request: CommandRequest): AuditCommand {
  return request.script === undefined ? { argv: [...request.argv] } : { script: request.script };
}

function denialExcerpt(attempt: Attempt): string {
  const text = attempt.collected.sampleText();
  return text.length > DENIAL_EXCERPT_BYTES ? text.slice(text.length - DENIAL_EXCERPT_BYTES) : text;
}
