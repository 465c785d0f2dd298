#!/usr/bin/env node
// conch-agent: runs processes for a conchd over conch-exec/1. Usage:
//   conch-agent --stdio --agent-id ID --binding-key FILE
// --binding-key: conchd's Ed25519 public key (PEM); `initialize` refuses a binding it did not sign.
// The protocol is on stdin and stdout; what the agent says of itself goes to stderr.
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { AgentError, ExecAgent } from "./agent.js";
import { bindingKey } from "./binding.js";
import { serveLines } from "./rpc.js";

const USAGE = "usage: conch-agent --stdio --agent-id ID --binding-key FILE\n";

async function main(): Promise<number> {
  let values: { stdio?: boolean; "agent-id"?: string; "binding-key"?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      options: {
        stdio: { type: "boolean" },
        "agent-id": { type: "string" },
        "binding-key": { type: "string" },
        help: { type: "boolean" },
      },
    }));
  } catch (error) {
    process.stderr.write(`conch-agent: ${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  if (values.help === true) {
    process.stdout.write(USAGE);
    return 0;
  }
  const missing = (["agent-id", "binding-key"] as const).filter((name) => values[name] === undefined);
  if (values.stdio !== true || missing.length > 0) {
    process.stderr.write(
      `conch-agent: ${values.stdio !== true ? "--stdio is the only transport yet" : `missing --${missing.join(", --")}`}\n${USAGE}`,
    );
    return 2;
  }
  let key: ReturnType<typeof bindingKey>;
  try {
    key = bindingKey(readFileSync(values["binding-key"] as string, "utf8"));
  } catch (error) {
    process.stderr.write(
      `conch-agent: --binding-key ${values["binding-key"]}: ${(error as Error).message}\n`,
    );
    return 2;
  }
  const agent = new ExecAgent({ agentId: values["agent-id"] as string, bindingKey: key, version: "0.0.0" });
  const methods: Record<string, (params: never) => unknown> = {
    initialize: (params) => agent.initialize(params),
    "process/start": (params) => agent.start(params),
    "process/read": (params) => agent.read(params),
    "process/write": (params) => agent.write(params),
    "process/signal": (params) => agent.signal(params),
    "process/resize": (params) => agent.resize(params),
    "process/terminate": (params) => agent.terminate(params),
    "process/ack": (params) => agent.ack(params),
    "process/list": () => agent.list(),
  };
  await serveLines(
    process.stdin,
    process.stdout,
    async (method, params) => {
      const run = methods[method];
      if (run === undefined)
        throw Object.assign(new AgentError("method_not_found", `no method ${method}`), { rpcCode: -32601 });
      if (typeof params !== "object" || params === null)
        throw new AgentError("invalid_params", "params: expected an object");
      return run(params as never);
    },
    (error) => ({
      rpcCode: (error as { rpcCode?: number }).rpcCode ?? -32000,
      message: (error as Error).message,
      code: error instanceof AgentError ? error.code : "internal",
    }),
  );
  // stdin closed: conchd is gone. (Keeping processes for a reconnect is the next step.)
  await agent.close();
  return 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`conch-agent: ${(error as Error).stack ?? String(error)}\n`);
    process.exitCode = 1;
  },
);
