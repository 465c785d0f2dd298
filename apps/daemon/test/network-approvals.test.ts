// A connection to a host network_allow does not list is asked about through the routes a command is:
// the form of a client that can show one, and for every client the pending list (`conch pending`,
// `conch approve`, the console), while the proxy holds the connection. Real conchd over stdio, real
// SDK clients, real bwrap and curl; the origin is on 127.0.0.1, named by the config's network_resolve.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { answerPendingApproval, listPendingApprovals } from "@conch/orchestrator";
import { describeWith } from "@conch/test-config";
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from "vitest";
import {
  type ClientKind,
  type Connection,
  connect,
  type ElicitParams,
  makeWorkspace,
  textOf,
  type Workspace,
} from "./harness.js";

let ws: Workspace;
let open: Connection[];
let origin: Server;
let port: number;

beforeAll(async () => {
  origin = createServer((request, response) => response.end(`origin ${request.url}\n`));
  await new Promise<void>((resolve) => origin.listen(0, "127.0.0.1", resolve));
  port = (origin.address() as AddressInfo).port;
});
afterAll(() => new Promise((resolve) => origin.close(resolve)));
beforeEach(() => {
  ws = makeWorkspace("/var/tmp");
  open = [];
  const config = join(ws.env.XDG_CONFIG_HOME as string, "conch");
  mkdirSync(join(config, "rules"), { recursive: true });
  writeFileSync(
    join(config, "config.toml"),
    [
      'network = "allowlist"',
      'network_allow_addresses = ["127.0.0.1"]',
      'network_resolve = { "asked.test" = "127.0.0.1" }',
    ].join("\n"),
  );
});
afterEach(async () => {
  for (const connection of open) await connection.close();
  ws.remove();
});

const CURL = () => ({ command: `curl -sS --max-time 40 http://asked.test:${port}/x`, login: false });

describeWith("bwrap", "a host not listed, asked through conchd's routes", () => {
  it("a form: it names the connection; always stores the network_rule and nothing is asked again", async () => {
    const forms: ElicitParams[] = [];
    const client = await connect("v2 (2025-11-25)", ws, ["--approval", "on-request"], {
      elicit: async (params) => {
        forms.push(params);
        return { action: "accept", content: { decision: "approve_always" } };
      },
    });
    open.push(client);
    const first = await client.callTool("shell_command", CURL());
    expect(textOf(first)).toContain("origin /x");
    expect(forms).toHaveLength(1);
    const [form] = forms as [ElicitParams];
    expect(form.message.split("\n")[0]).toBe(
      `conchd: a command of conchd-test connects to asked.test:${port}, which network_allow does not list; the connection waits for your answer. Allow it?`,
    );
    expect(form.message).toContain(`\nnetwork: asked.test:${port} (http)\n`);
    expect(JSON.stringify(form.requestedSchema)).toContain(
      'Always allow asked.test: store `network_rule(host=\\"asked.test\\", protocol=\\"http\\", decision=\\"allow\\")`',
    );
    const rules = join(ws.env.XDG_CONFIG_HOME as string, "conch", "rules", "default.rules");
    expect(readFileSync(rules, "utf8")).toBe(
      'network_rule(host="asked.test", protocol="http", decision="allow")\n',
    );
    const again = await client.callTool("shell_command", CURL());
    expect(textOf(again)).toContain("origin /x");
    expect(forms).toHaveLength(1);
  });

  it.each([
    ["v2 (2025-11-25)", false],
    ["v2 (2026-07-28)", true],
  ] as [ClientKind, boolean][])(
    "%s (form: %s): the pending list holds the question while the connection waits; conch approve answers it",
    async (kind, elicits) => {
      const forms: ElicitParams[] = [];
      const client = await connect(
        kind,
        ws,
        ["--approval", "on-request"],
        elicits
          ? {
              elicit: async (params) => {
                forms.push(params);
                return { action: "decline" };
              },
            }
          : {},
      );
      open.push(client);
      const call = client.callTool("shell_command", CURL());
      let id: string | undefined;
      for (let tries = 0; tries < 200 && id === undefined; tries++) {
        const listed = await listPendingApprovals({ env: ws.env });
        const entry = listed.pending.find((pending) => pending.network !== null);
        if (entry !== undefined) {
          expect(entry.network).toEqual({ host: "asked.test", port, protocol: "http" });
          expect(entry.route).toBe("out-of-band");
          expect(entry.fields[0]).toEqual({ label: "network", value: `asked.test:${port} (http)` });
          id = entry.id;
        } else await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(id).toBeDefined();
      const answered = await answerPendingApproval(
        { op: "approve", id: id as string, scope: "once" },
        { env: ws.env },
      );
      expect(answered.found).toBe(true);
      expect(textOf(await call)).toContain("origin /x");
      // A 2026-07-28 round cannot show a form while the call runs: only the pending list asks.
      expect(forms).toHaveLength(0);
    },
  );

  it("a person's no through conch deny is the line the model reads", async () => {
    const client = await connect("v2 (2025-11-25)", ws, ["--approval", "on-request"]);
    open.push(client);
    const call = client.callTool("shell_command", CURL());
    let id: string | undefined;
    for (let tries = 0; tries < 200 && id === undefined; tries++) {
      id = (await listPendingApprovals({ env: ws.env })).pending.find(
        (pending) => pending.network !== null,
      )?.id;
      if (id === undefined) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await answerPendingApproval({ op: "deny", id: id as string }, { env: ws.env });
    expect(textOf(await call)).toContain(
      `network: blocked asked.test:${port} (not in network_allow; the user said no; do not retry it unless the user asks you to)`,
    );
  });
});
