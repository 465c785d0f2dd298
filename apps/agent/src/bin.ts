#!/usr/bin/env node
// conch-agent: runs processes for a conchd over conch-exec/1. Usage:
//   conch-agent (--stdio | --listen ws://HOST:PORT | --listen unix:PATH) --agent-id ID --binding-key FILE
//               [--keep-ms MS]
// --binding-key: conchd's Ed25519 public key (PEM); `initialize` refuses a binding it did not sign.
// --stdio: the protocol on stdin and stdout, one message a line; the agent ends with its stdin.
// --listen: WebSocket, one message a frame; the agent keeps its processes for --keep-ms after a
// connection goes (10 minutes by default), so that a conchd that restarts finds them again.
// What the agent says of itself goes to stderr, the address it listens on first.
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { AgentError, DEFAULT_KEEP_MS, ExecAgent } from "./agent.js";
import { bindingKey } from "./binding.js";
import { listen, parseListen } from "./listen.js";
import { lineChannel, type RpcFailure, serveChannel } from "./rpc.js";

const USAGE =
  "usage: conch-agent (--stdio | --listen ws://HOST:PORT | --listen unix:PATH) --agent-id ID --binding-key FILE [--keep-ms MS]\n";

export function failure(error: unknown): RpcFailure {
  return {
    rpcCode: (error as { rpcCode?: number }).rpcCode ?? -32000,
    message: (error as Error).message,
    code: error instanceof AgentError ? error.code : "internal",
  };
}

function usage(message: string): number {
  process.stderr.write(`conch-agent: ${message}\n${USAGE}`);
  return 2;
}

async function main(): Promise<number> {
  let values: {
    stdio?: boolean;
    listen?: string;
    "agent-id"?: string;
    "binding-key"?: string;
    "keep-ms"?: string;
    help?: boolean;
  };
  try {
    ({ values } = parseArgs({
      options: {
        stdio: { type: "boolean" },
        listen: { type: "string" },
        "agent-id": { type: "string" },
        "binding-key": { type: "string" },
        "keep-ms": { type: "string" },
        help: { type: "boolean" },
      },
    }));
  } catch (error) {
    return usage((error as Error).message);
  }
  if (values.help === true) {
    process.stdout.write(USAGE);
    return 0;
  }
  if ((values.stdio === true) === (values.listen !== undefined)) {
    return usage("give exactly one of --stdio and --listen");
  }
  const missing = (["agent-id", "binding-key"] as const).filter((name) => values[name] === undefined);
  if (missing.length > 0) return usage(`missing --${missing.join(", --")}`);
  let keepMs = DEFAULT_KEEP_MS;
  if (values["keep-ms"] !== undefined) {
    keepMs = Number(values["keep-ms"]);
    if (!/^\d+$/.test(values["keep-ms"]) || !Number.isSafeInteger(keepMs)) {
      return usage(
        `--keep-ms: expected milliseconds (an integer of 0 or more), received ${values["keep-ms"]}`,
      );
    }
  }
  let address: ReturnType<typeof parseListen> | null = null;
  if (values.listen !== undefined) {
    try {
      address = parseListen(values.listen);
    } catch (error) {
      return usage((error as Error).message);
    }
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
  const agent = new ExecAgent({
    agentId: values["agent-id"] as string,
    bindingKey: key,
    version: "0.0.0",
    keepMs,
  });
  if (address === null) {
    const channel = lineChannel(process.stdin, process.stdout);
    const connection = agent.connect((method, params) =>
      channel.send(JSON.stringify({ jsonrpc: "2.0", method, params })),
    );
    await serveChannel(channel, (method, params) => connection.call(method, params), failure);
    // stdin closed: conchd is gone, and nothing can reach this agent again.
    await agent.close();
    return 0;
  }
  const server = await listen(address, agent, failure);
  process.stderr.write(`conch-agent: listening on ${server.url}\n`);
  await new Promise<void>((resolve) => {
    const stop = (): void => resolve();
    process.once("SIGTERM", stop);
    process.once("SIGINT", stop);
  });
  await server.close();
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
