// An agent that vanishes without closing anything (a node powered off, a partition): it answered
// initialize, then answers nothing, not even WebSocket pings. conchd must find out, not wait for ever.
import { generateKeyPairSync } from "node:crypto";
import { expect, it } from "vitest";
import { WebSocketServer } from "ws";
import { isRemoteError } from "../src/errors.js";
import { createAgentBackend } from "../src/index.js";

it("takes an agent that stops answering (no pong) for lost, after two silent heartbeats", async () => {
  const server = new WebSocketServer({ host: "127.0.0.1", port: 0, autoPong: false });
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  let connections = 0;
  server.on("connection", (socket) => {
    connections++;
    socket.on("message", (data) => {
      const message = JSON.parse(data.toString()) as { id: number; method: string };
      if (message.method !== "initialize") return;
      socket.send(
        JSON.stringify({
          jsonrpc: "2.0",
          id: message.id,
          result: {
            sessionId: "s1",
            agentVersion: "0",
            capabilities: { pty: true, bwrap: true, landlock: false, seccomp: true },
            resumed: false,
            keepMs: 600_000,
          },
        }),
      );
    });
  });
  const { port } = server.address() as { port: number };
  const backend = createAgentBackend({
    endpoint: `ws://127.0.0.1:${port}`,
    agentId: "silent",
    bindingKey: generateKeyPairSync("ed25519").privateKey,
  });
  try {
    const error = await backend.host.list().catch((caught: unknown) => caught);
    expect(isRemoteError(error)).toBe(true);
    // The pings found it out (a call's own deadline, 60 s, would have said "had no answer"), on the first
    // connection and on the one made again to resume.
    expect((error as Error).message).toContain("stopped answering (nothing in 30 s)");
    expect(connections).toBe(2);
  } finally {
    backend.close();
    for (const client of server.clients) client.terminate();
    server.close();
  }
}, 200_000);
