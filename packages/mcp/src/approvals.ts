// Who is asked about a tool call's command: the person behind the MCP client, through a form
// (elicitation), when the client can show one; otherwise a person out of band (`conch approve ID`).
// Both answer through the orchestrator's Approver seam, so the session cache, stored rules and audit
// log are the same whichever route answered. Nothing here treats silence as a yes.
import { createHash, randomBytes } from "node:crypto";
import {
  type ApprovalAnswer,
  type ApprovalRequest,
  type Approver,
  approvalFields,
  approvalQuestionKey,
  networkTarget,
  type PendingApprovals,
  type PendingAsked,
  proposedRuleText,
} from "@conch/approval";
import { type ApprovalPolicy, expectedReceived, type ReviewDecision, visibleText } from "@conch/protocol";
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  type ClientCapabilities,
  createRequestStateCodec,
  type ElicitRequestFormParams,
  type InputRequiredResult,
  inputRequired,
  inputResponse,
  type McpServer,
  PROTOCOL_VERSION_META_KEY,
  type RequestStateCodec,
  type ServerContext,
} from "@modelcontextprotocol/server";

const NOTE_MAX_CHARS = 2000;
// Past this many characters in its rows, a form says where else the whole question can be read.
const LONG_FORM_CHARS = 2000;
// The key of the one embedded request a 2026-07-28 round carries.
const APPROVAL_INPUT = "approval";

/** The choices of the form, as sent (`const`) and as shown (`title`). */
const CHOICES = {
  approve: "approved",
  approve_session: "approved_for_session",
  approve_always: "approved_always",
  deny: "denied",
} as const satisfies Record<string, ReviewDecision>;
type Choice = keyof typeof CHOICES;

/** Where the tool call came from, as far as approvals care. */
interface CallClient {
  /** The client's name (untrusted: shown escaped). */
  readonly name: string;
  /** It can show a form (elicitation, form mode). */
  readonly canElicit: boolean;
  /** The request is 2026-07-28's: input is asked by returning input_required, not by a request. */
  readonly modern: boolean;
}

function clientOf(ctx: ServerContext, server: McpServer): CallClient {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const modern = typeof envelope?.[PROTOCOL_VERSION_META_KEY] === "string";
  const capabilities = (
    modern ? envelope?.[CLIENT_CAPABILITIES_META_KEY] : server.server.getClientCapabilities()
  ) as ClientCapabilities | undefined;
  const info = (modern ? envelope?.[CLIENT_INFO_META_KEY] : server.server.getClientVersion()) as
    | { name?: unknown }
    | undefined;
  const elicitation = capabilities?.elicitation as { form?: unknown; url?: unknown } | undefined;
  // `elicitation: {}` is form mode (the 2025-06-18 capability, kept by later revisions).
  const canElicit =
    elicitation !== undefined && (elicitation.form !== undefined || elicitation.url === undefined);
  return { name: typeof info?.name === "string" ? info.name : "unknown client", canElicit, modern };
}

/** The form: the question as the CLI prompt shows it, and a required decision. */
function approvalForm(
  request: ApprovalRequest,
  policy: ApprovalPolicy,
  client: string,
  pendingId: string | null,
): ElicitRequestFormParams {
  const fields = approvalFields(request, policy);
  const rows = fields.map(({ label, value }) =>
    value.includes("\n") ? `${label}:\n${value.replace(/^/gm, "  | ")}` : `${label}: ${value}`,
  );
  // A client may show only part of a long message: the person is told where the whole of it is.
  const chars = fields.reduce((sum, field) => sum + field.value.length, 0);
  if (chars > LONG_FORM_CHARS && pendingId !== null) {
    rows.push(
      `length: this question is ${chars} characters long; if this form shows less, see all of it with \`conch pending --full ${pendingId}\` or in conchd's web console before answering`,
    );
  }
  const rule = proposedRuleText(request);
  const { network } = request;
  const choices: { const: Choice; title: string }[] = [
    { const: "approve", title: network === undefined ? "Run once" : "Allow for this command" },
    { const: "approve_session", title: "Allow for this session" },
    ...(rule === null
      ? []
      : [
          {
            const: "approve_always" as const,
            title:
              network === undefined
                ? `Always allow: run \`${rule} ...\` unasked from now on`
                : `Always allow ${visibleText(network.host)}: store \`${rule}\``,
          },
        ]),
    { const: "deny", title: "Deny" },
  ];
  const question =
    network !== undefined
      ? `conchd: a command of ${visibleText(client)} connects to ${visibleText(networkTarget(network.host, network.port))}, which network_allow does not list; the connection waits for your answer. Allow it?`
      : request.input === undefined
        ? `conchd: ${visibleText(client)} asks to run this command. Approve it?`
        : `conchd: ${visibleText(client)} asks to type this into a terminal outside the sandbox. Approve it?`;
  return {
    mode: "form",
    message: [question, ...rows].join("\n"),
    requestedSchema: {
      type: "object",
      properties: {
        decision: { type: "string", title: "Decision", oneOf: choices },
        note: {
          type: "string",
          title: "Note to the agent (optional)",
          description: "Read by the model with your answer, e.g. what to do instead.",
          maxLength: NOTE_MAX_CHARS,
        },
      },
      required: ["decision"],
    },
  };
}

/**
 * The answer in an accepted form, checked: the client's content is untrusted, and only an explicit
 * approve runs anything. "Always" is refused when no rule may be stored.
 */
function acceptedAnswer(content: unknown, request: ApprovalRequest): ApprovalAnswer {
  const fields = typeof content === "object" && content !== null ? (content as Record<string, unknown>) : {};
  const { decision, note } = fields;
  const allowed = Object.keys(CHOICES).filter(
    (choice) => choice !== "approve_always" || request.proposedRule !== null,
  );
  if (typeof decision !== "string" || !allowed.includes(decision)) {
    return notApproved(
      `the answer was not one of the choices (${visibleText(expectedReceived("decision", `one of ${allowed.join(", ")}`, decision))})`,
    );
  }
  if (note !== undefined && (typeof note !== "string" || note.length > NOTE_MAX_CHARS)) {
    return notApproved(`the answer's note was not a string of at most ${NOTE_MAX_CHARS} characters`);
  }
  const chosen = CHOICES[decision as Choice];
  if (chosen !== "denied") return { decision: chosen, decidedBy: "elicitation" };
  return { decision: "denied", decidedBy: "elicitation", reason: rejectedText(note) };
}

/** A form's answer: accepted (checked), declined (a no), or dismissed (nobody said yes). */
function formAnswer(action: string, content: unknown, request: ApprovalRequest): ApprovalAnswer {
  if (action === "accept") return acceptedAnswer(content, request);
  if (action === "decline") return { decision: "denied", decidedBy: "elicitation" };
  return notApproved("the person dismissed the question without answering");
}

function rejectedText(note: unknown): string {
  return typeof note === "string" && note.trim() !== ""
    ? `rejected by user: ${visibleText(note.trim())}`
    : "rejected by user";
}

function notApproved(why: string): ApprovalAnswer {
  return {
    decision: "denied",
    outcome: "not-approved",
    decidedBy: "elicitation",
    reason: `not approved: ${why}; the command did not run`,
  };
}

/** What the model reads while an out-of-band approval waits: why it is asked, and how it gets an answer. */
function pendingText(request: ApprovalRequest, id: string, asked: PendingAsked, waitedMs = 0): string {
  const why = request.explanation?.why ?? request.reason;
  const lapses = `${Math.max(1, Math.round(asked.lapsesInMs / 60_000))} min`;
  const state = asked.again
    ? `approval ${id} is still pending (asked ${Math.round(asked.askedMsAgo / 1000)} s ago, lapses in ${lapses}), and the command did not run.`
    : `approval ${id} is pending, and the command did not run.`;
  const waited =
    waitedMs > 0 ? ` Nobody answered in the ${Math.round(waitedMs / 1000)} s this call waited.` : "";
  return (
    "this command needs a person's approval, and this client cannot ask a person: " +
    `${state}${waited}${why === null ? "" : ` Why: ${why.replace(/\.$/, "")}.`} ` +
    `Tell the user, in these words: "Please run \`conch approve ${id}\` on this machine, or approve it in conchd's web console (\`conch console\` opens it)." ` +
    `(A person can also refuse it with \`conch deny ${id}\`; \`conch pending\` lists what waits.) Once it is ` +
    "granted, retry this same call with the same arguments; give wait_for_approval_ms to wait for the answer in one call. " +
    `Do not retry before; the approval lapses in ${lapses}.`
  );
}

/**
 * A 2025-era client's form, asked with the call's signal and conchd's own timeout. The question is also
 * listed with the pending approvals, so a person elsewhere (the console, `conch approve`) may answer it
 * first: the first answer wins and the other route's question is withdrawn (the form is cancelled).
 */
function elicitingApprover(
  ctx: ServerContext,
  client: CallClient,
  policy: ApprovalPolicy,
  timeoutMs: number,
  pending: PendingApprovals,
): Approver {
  return {
    async request(request, options = {}) {
      const signal = options.signal ?? ctx.mcpReq.signal;
      const form = new AbortController();
      const onAbort = (): void => form.abort();
      signal.addEventListener("abort", onAbort, { once: true });
      const elsewhere = pending.open(request, client.name);
      try {
        const asked = ctx.mcpReq
          .elicitInput(approvalForm(request, policy, client.name, elsewhere.id), {
            timeout: timeoutMs,
            signal: form.signal,
          })
          .then((result) => ({ result }));
        const first = await Promise.race([asked, elsewhere.answered.then((answer) => ({ answer }))]);
        if ("answer" in first) {
          // Answered elsewhere: the client's form is withdrawn (its request cancelled).
          asked.catch(() => {});
          form.abort();
          return first.answer;
        }
        return formAnswer(first.result.action, first.result.content, request);
      } catch (error) {
        if (signal.aborted) return { decision: "abort", decidedBy: "elicitation" };
        const message = error instanceof Error ? error.message : String(error);
        if (/timed? ?out/i.test(message))
          return notApproved(`no answer within ${Math.round(timeoutMs / 1000)} s`);
        return notApproved(`the question could not be asked (${visibleText(message)})`);
      } finally {
        elsewhere.close();
        signal.removeEventListener("abort", onAbort);
      }
    },
  };
}

/**
 * A connection's question: the network proxy holds the connection until a person answers (or the wait
 * ends: `signal`), so it is asked where an answer can come while the call or session runs: the client's
 * form when it can show one (a 2025-era request still in flight), and always on the pending list (the
 * console, `conch approve`). The first answer counts; the other route's question is withdrawn.
 */
function networkApprover(
  ctx: ServerContext,
  client: CallClient,
  policy: ApprovalPolicy,
  pending: PendingApprovals,
): Approver {
  return {
    async request(request, options = {}) {
      const signal = options.signal ?? ctx.mcpReq.signal;
      const form = new AbortController();
      const onAbort = (): void => form.abort();
      signal.addEventListener("abort", onAbort, { once: true });
      const canAsk = client.canElicit && !client.modern;
      const elsewhere = pending.open(request, client.name, canAsk ? "elicitation" : "out-of-band");
      const stopped = new Promise<ApprovalAnswer>((resolve) => {
        const stop = (): void =>
          resolve({ decision: "abort", outcome: "not-approved", decidedBy: "out-of-band" });
        if (signal.aborted) stop();
        else signal.addEventListener("abort", stop, { once: true });
      });
      const asked: Promise<ApprovalAnswer> = canAsk
        ? ctx.mcpReq
            .elicitInput(approvalForm(request, policy, client.name, elsewhere.id), { signal: form.signal })
            .then((result) => formAnswer(result.action, result.content, request))
            // The form could not be shown (the call has returned): the pending list still can be answered.
            .catch(() => new Promise<ApprovalAnswer>(() => {}))
        : new Promise<ApprovalAnswer>(() => {});
      try {
        return await Promise.race([asked, elsewhere.answered, stopped]);
      } finally {
        form.abort();
        elsewhere.close();
        signal.removeEventListener("abort", onAbort);
      }
    },
  };
}

/** The command a 2026-07-28 round asked about, signed into requestState: minted only once asked. */
interface RoundState {
  readonly key: string;
  readonly askedAt: number;
}

/** The question a round asks, as its signed state names it (see approvalQuestionKey). */
function requestKey(request: ApprovalRequest): string {
  return createHash("sha256").update(approvalQuestionKey(request)).digest("base64url");
}

/**
 * A 2026-07-28 round. The first round finds no answer: it remembers the question, and the call returns
 * input_required with a signed state naming the command. The client's retry re-runs the call, which
 * asks the same question again; it is answered from the retry's input responses only when the verified
 * state names this very command and the answer came within the timeout.
 */
class RoundApprover implements Approver {
  asked: { request: ApprovalRequest; key: string; pendingId: string | null } | null = null;
  readonly #ctx: ServerContext;
  readonly #timeoutMs: number;
  readonly #pending: PendingApprovals;
  readonly #client: string;

  constructor(ctx: ServerContext, timeoutMs: number, pending: PendingApprovals, client: string) {
    this.#ctx = ctx;
    this.#timeoutMs = timeoutMs;
    this.#pending = pending;
    this.#client = client;
  }

  async request(request: ApprovalRequest): Promise<ApprovalAnswer> {
    const key = requestKey(request);
    const state = this.#ctx.mcpReq.requestState<RoundState>();
    if (state !== undefined && state.key === key && this.asked === null) {
      if (Date.now() - state.askedAt > this.#timeoutMs) {
        this.#pending.withdraw(request);
        return notApproved(`no answer within ${Math.round(this.#timeoutMs / 1000)} s`);
      }
      // A person who answered elsewhere (the console) before this retry came answered first.
      const elsewhere = this.#pending.take(request);
      if (elsewhere !== null) return elsewhere;
      const view = inputResponse(this.#ctx.mcpReq.inputResponses, APPROVAL_INPUT);
      if (view.kind === "elicit") {
        this.#pending.withdraw(request);
        return formAnswer(view.action, view.content, request);
      }
    }
    // Listed while the client's form asks it, so a person elsewhere may answer first.
    let pendingId: string | null = null;
    this.#pending.ask(
      request,
      this.#client,
      (id) => {
        pendingId = id;
        return "";
      },
      "elicitation",
    );
    this.asked = { request, key, pendingId };
    return {
      decision: "abort",
      outcome: "pending",
      decidedBy: "elicitation",
      reason: "waiting for a person's answer",
    };
  }
}

/** How conchd asks: one per daemon, a fresh approver per call. */
export interface CallApprovals {
  /** The McpServer options the round state needs (its verifier). */
  readonly serverOptions: {
    readonly requestState: { readonly verify: RequestStateCodec<RoundState>["verify"] };
  };
  /**
   * The approver for one call, the client's name (as it gave it: untrusted), and afterwards what the
   * call must return instead of its result, if anything.
   */
  forCall(
    ctx: ServerContext,
    server: McpServer,
  ): { approver: Approver; client: string; inputRequired(): Promise<InputRequiredResult | null> };
}

export function createCallApprovals(options: {
  readonly pending: PendingApprovals;
  readonly policy: ApprovalPolicy;
  readonly timeoutS: number;
}): CallApprovals {
  const timeoutMs = options.timeoutS * 1000;
  const codec = createRequestStateCodec<RoundState>({
    key: randomBytes(32),
    // The state outlives the question by a margin, so a late answer reads "no answer within …" rather than
    // the protocol's "Invalid or expired requestState".
    ttlSeconds: options.timeoutS + 600,
  });
  return {
    serverOptions: { requestState: { verify: codec.verify } },
    forCall(ctx, server) {
      const client = clientOf(ctx, server);
      const connections = networkApprover(ctx, client, options.policy, options.pending);
      // A connection's question goes its own way; a command's, by the client's kind.
      const routed = (commands: Approver): Approver => ({
        request: (request, given) =>
          request.network === undefined
            ? commands.request(request, given)
            : connections.request(request, given),
      });
      if (!client.canElicit) {
        const approver: Approver = routed({
          request: async (request, given = {}) => {
            const first = options.pending.ask(request, client.name, (id, asked) =>
              pendingText(request, id, asked),
            );
            const waitMs = given.waitMs ?? 0;
            if (first.outcome !== "pending" || waitMs <= 0) return first;
            // The model asked to wait: a person's answer in time is the answer; else still pending.
            const answered = await options.pending.waitForAnswer(request, waitMs, given.signal);
            return (
              answered ??
              options.pending.ask(request, client.name, (id, asked) =>
                pendingText(request, id, asked, waitMs),
              )
            );
          },
        });
        return { approver, client: client.name, inputRequired: async () => null };
      }
      if (!client.modern) {
        return {
          approver: routed(elicitingApprover(ctx, client, options.policy, timeoutMs, options.pending)),
          client: client.name,
          inputRequired: async () => null,
        };
      }
      const round = new RoundApprover(ctx, timeoutMs, options.pending, client.name);
      return {
        approver: routed(round),
        client: client.name,
        async inputRequired() {
          if (round.asked === null) return null;
          return inputRequired({
            inputRequests: {
              [APPROVAL_INPUT]: inputRequired.elicit(
                approvalForm(round.asked.request, options.policy, client.name, round.asked.pendingId),
              ),
            },
            requestState: await codec.mint({ key: round.asked.key, askedAt: Date.now() }),
          });
        },
      };
    },
  };
}
