import { type ChildProcess, spawn } from "node:child_process";
import { lstatSync, readFileSync, realpathSync, statSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import type { Readable, Writable } from "node:stream";
import type { LocalSandboxBackend, SandboxRules, SpawnSpec, WritableRoot } from "@conch/sandbox-core";

// sandbox-core's resolver is being rewritten; these tests build the rules it would produce by hand.

/** `.git` (and the gitdirs a `.git` file names), `.conch` and `.agents` that exist directly in `root`. */
export function protectedIn(root: string): string[] {
  const paths: string[] = [];
  for (const name of [".git", ".conch", ".agents"]) {
    const path = join(root, name);
    if (lstatSync(path, { throwIfNoEntry: false }) === undefined) continue;
    paths.push(realpathSync(path));
    if (name !== ".git" || !statSync(path).isFile()) continue;
    const gitdir = /^gitdir:\s*(.+?)\s*$/m.exec(readFileSync(path, "utf8"))?.[1];
    if (gitdir === undefined) continue;
    const real = realpathSync(resolve(root, gitdir));
    paths.push(real);
    const common = readFileSync(join(real, "commondir"), "utf8").trim();
    paths.push(realpathSync(isAbsolute(common) ? common : resolve(real, common)));
  }
  return paths.sort();
}

/** Writable roots as the resolver makes them: each protected path goes to the root that holds it. */
export function writableRoots(...roots: string[]): WritableRoot[] {
  const all = roots.flatMap(protectedIn);
  return roots.map((root) => ({
    root,
    readOnlySubpaths: all.filter((path) => path.startsWith(`${root}/`)).sort(),
  }));
}

export function rules(partial: Partial<SandboxRules>): SandboxRules {
  return {
    mode: "workspace-write",
    readableRoots: ["/"],
    writableRoots: [],
    tmp: { kind: "empty", targets: ["/tmp"] },
    hidden: [],
    network: false,
    ...partial,
  };
}

/** Spawns a transformed spec the way exec-core does: stdin closed, pipes for output and extra fds. */
export function start(spec: SpawnSpec): ChildProcess {
  const [file, ...args] = spec.argv as [string, ...string[]];
  const child = spawn(file, args, {
    cwd: spec.cwd,
    env: spec.env,
    stdio: ["ignore", "pipe", "pipe", ...spec.extraFds.map(() => "pipe" as const)],
  });
  spec.extraFds.forEach((data, i) => {
    const pipe = child.stdio[3 + i] as Writable;
    pipe.on("error", () => {});
    pipe.end(data);
  });
  return child;
}

export interface Outcome {
  code: number | null;
  output: string;
}

/** Runs `argv` under `backend` and `rules` in `cwd`; stdout and stderr merged in arrival order. */
export async function runSandboxed(
  backend: LocalSandboxBackend,
  sandboxRules: SandboxRules,
  cwd: string,
  argv: string[],
  env: Record<string, string> = {},
): Promise<Outcome> {
  const spec = await backend.transform(
    { argv, cwd, env: { PATH: process.env.PATH ?? "", ...env }, extraFds: [] },
    sandboxRules,
  );
  const child = start(spec);
  let output = "";
  child.stdout?.on("data", (d: Buffer) => {
    output += d.toString();
  });
  child.stderr?.on("data", (d: Buffer) => {
    output += d.toString();
  });
  const code = await new Promise<number | null>((done) => child.on("close", done));
  return { code, output };
}

/** Runs `script` one-shot under `backend`, asking for the report: its exit code, output and report. */
export async function oneShot(
  backend: LocalSandboxBackend,
  cwd: string,
  script: string,
  sandboxRules: SandboxRules = rules({ writableRoots: writableRoots(cwd) }),
  inherit?: string,
): Promise<{ code: number | null; output: string; report: string }> {
  const spec: SpawnSpec = await backend.transform(
    { argv: ["bash", "-c", script], cwd, env: { PATH: process.env.PATH ?? "" }, extraFds: [] },
    sandboxRules,
    { reportLeftovers: true },
  );
  if (spec.reportFd !== 3 + spec.extraFds.length) throw new Error(`no report descriptor: ${spec.reportFd}`);
  // `inherit`: a directory the spawn hands on as descriptor 240 without close-on-exec, as a careless
  // caller (an IDE, a shell's `exec 240<dir`) would.
  const argv =
    inherit === undefined ? spec.argv : ["bash", "-c", 'exec 240<"$0"; exec "$@"', inherit, ...spec.argv];
  const [file, ...args] = argv as [string, ...string[]];
  const child = spawn(file, args, {
    cwd: spec.cwd,
    env: spec.env,
    detached: true,
    stdio: ["ignore", "pipe", "pipe", ...spec.extraFds.map(() => "pipe" as const), "pipe"],
  });
  spec.extraFds.forEach((data, index) => {
    const pipe = child.stdio[3 + index] as Writable;
    pipe.on("error", () => {});
    pipe.end(data);
  });
  let output = "";
  let report = "";
  child.stdout?.on("data", (data: Buffer) => {
    output += data.toString();
  });
  child.stderr?.on("data", (data: Buffer) => {
    output += data.toString();
  });
  (child.stdio[spec.reportFd as number] as Readable).on("data", (data: Buffer) => {
    report += data.toString();
  });
  const code = await new Promise<number | null>((done) => child.on("close", done));
  return { code, output, report };
}
