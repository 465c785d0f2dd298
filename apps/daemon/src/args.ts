import { isIP } from "node:net";
import { type HttpAddress, type ServeOptions, serveOptionsFromFlags } from "@conch/mcp";
import { expectedReceived } from "@conch/protocol";
import { UsageError } from "./errors.js";

/** What conchd was asked to do: print something and exit, or serve. */
export type DaemonArgs =
  | { readonly action: "help" }
  | { readonly action: "version" }
  | {
      readonly action: "serve";
      /** How to serve, as the flags say (the server's options but its version). */
      readonly options: Omit<ServeOptions, "version">;
      /** Where `--http` listens. Without `--http`, conchd serves stdio. */
      readonly http?: HttpAddress;
    };

const VALUE_OPTIONS = ["cwd", "profile", "approval", "sandbox", "http", "config"] as const;
type ValueOption = (typeof VALUE_OPTIONS)[number];
const FLAG_OPTIONS = ["allow-remote"] as const;
type FlagOption = (typeof FLAG_OPTIONS)[number];

const HTTP_SHAPE = /^(?:\[([^\]]*)\]|([^:[\]]+)):(\d+)$|^(\d+)$/;

/** Whether `host` (as `httpAddress` keeps it) is reachable from this machine only. */
function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || (isIP(host) === 4 && host.startsWith("127."));
}

/** `--http [HOST:]PORT`: HOST is an IP address (IPv6 in brackets) or localhost; 127.0.0.1 by default. */
function httpAddress(value: string, allowRemote: boolean): HttpAddress {
  const match = HTTP_SHAPE.exec(value);
  if (match === null) {
    throw new UsageError(expectedReceived("--http", "[HOST:]PORT", value));
  }
  const [, bracketed, plain, hostPort, barePort] = match;
  const port = Number(hostPort ?? barePort);
  if (port > 65_535) {
    throw new UsageError(expectedReceived("--http", "a port from 0 to 65535", value));
  }
  const given = bracketed ?? plain ?? "127.0.0.1";
  const family = isIP(given);
  // A zone (fe80::1%eth0) has no place in an http:// URL, so a client could not name the address.
  const valid =
    given === "localhost" || (bracketed === undefined ? family === 4 : family === 6 && !given.includes("%"));
  if (!valid) {
    throw new UsageError(
      expectedReceived("--http", "HOST to be an IP address ([\u2026] for IPv6) or localhost", value),
    );
  }
  // One spelling per address (0:0::1 is ::1), so the URL conchd prints is the one it checks Host against.
  const host = family === 6 ? new URL(`http://[${given}]`).hostname.slice(1, -1) : given;
  const loopback = isLoopback(host);
  if (!loopback && !allowRemote) {
    throw new UsageError(
      `--http: ${JSON.stringify(host)} is not a loopback address: other machines could connect; pass ` +
        "--allow-remote to listen there anyway (clients still need the token)",
    );
  }
  return { host, port, loopback };
}

/**
 * conchd's arguments (without node and the script). `--name value` and `--name=value`; `-h` is `--help`;
 * anything else is a UsageError naming the argument as it was given. `--help` and `--version` win over
 * everything after them, as they do in most tools, but a mistake before them is still reported.
 */
export function parseDaemonArgs(args: readonly string[]): DaemonArgs {
  const values: Partial<Record<ValueOption, string>> = Object.create(null);
  const flags = new Set<FlagOption>();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === "--help" || arg === "-h") return { action: "help" };
    if (arg === "--version") return { action: "version" };
    if (!arg.startsWith("-") || arg === "-") {
      throw new UsageError(`unexpected argument ${JSON.stringify(arg)} (conchd takes only options)`);
    }
    const equals = arg.indexOf("=");
    const name = arg.slice(2, equals === -1 ? undefined : equals);
    if (arg.startsWith("--") && (FLAG_OPTIONS as readonly string[]).includes(name)) {
      if (equals !== -1) throw new UsageError(`--${name}: takes no value, received ${JSON.stringify(arg)}`);
      flags.add(name as FlagOption);
      continue;
    }
    if (!arg.startsWith("--") || !(VALUE_OPTIONS as readonly string[]).includes(name)) {
      throw new UsageError(`unknown option ${equals === -1 ? arg : arg.slice(0, equals)}`);
    }
    let value: string | undefined;
    if (equals === -1) {
      value = args[i + 1];
      i++;
    } else {
      value = arg.slice(equals + 1);
    }
    if (value === undefined || value === "") {
      throw new UsageError(`--${name}: expected a value${value === undefined ? "" : ', received ""'}`);
    }
    if (values[name as ValueOption] !== undefined) throw new UsageError(`--${name}: given more than once`);
    values[name as ValueOption] = value;
  }
  const options = serveOptionsFromFlags(
    values,
    () => process.cwd(),
    (message) => {
      throw new UsageError(message);
    },
  );
  if (values.http === undefined) {
    if (flags.has("allow-remote")) throw new UsageError("--allow-remote: only with --http");
    return { action: "serve", options };
  }
  return { action: "serve", options, http: httpAddress(values.http, flags.has("allow-remote")) };
}
