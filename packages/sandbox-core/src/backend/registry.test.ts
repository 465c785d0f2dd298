import { describe, expect, it } from "vitest";
import { SandboxError } from "../errors.js";
import type { SandboxBackend } from "../types.js";
import { createSandboxRegistry } from "./registry.js";

function backend(name: string, platform: NodeJS.Platform): SandboxBackend {
  return {
    name,
    platform,
    available: async () => ({ available: true }),
    transform: async (spec) => spec,
  };
}

function errorOf(fn: () => unknown): { code: string; message: string } {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(SandboxError);
    const { code, message } = error as SandboxError;
    return { code, message };
  }
  throw new Error("expected a SandboxError");
}

describe("createSandboxRegistry", () => {
  it("selects the platform's backend for sandboxed modes and none for the others", () => {
    const registry = createSandboxRegistry();
    const linux = backend("bwrap", "linux");
    const mac = backend("seatbelt", "darwin");
    registry.register(linux);
    registry.register(mac);
    registry.register(linux);
    expect(registry.select({ mode: "workspace-write" }, "linux")).toBe(linux);
    expect(registry.select({ mode: "read-only" }, "darwin")).toBe(mac);
    expect(registry.select({ mode: "danger-full-access" }, "linux")).toBe(null);
    expect(registry.select({ mode: "external-sandbox" }, "win32")).toBe(null);
  });

  it("fails closed when no backend is registered for the platform", () => {
    const registry = createSandboxRegistry();
    registry.register(backend("bwrap", "linux"));
    expect(errorOf(() => registry.select({ mode: "read-only" }, "win32"))).toEqual({
      code: "SANDBOX_UNAVAILABLE",
      message:
        "no sandbox backend for platform win32: policy read-only cannot be enforced here; use danger-full-access or external-sandbox to run without Conch's sandbox",
    });
    expect(errorOf(() => registry.select({ mode: "nope" } as never, "linux")).code).toBe(
      "INVALID_SANDBOX_POLICY",
    );
  });

  it("rejects malformed and conflicting backends", () => {
    const registry = createSandboxRegistry();
    registry.register(backend("bwrap", "linux"));
    expect(errorOf(() => registry.register(backend("bwrap", "linux")))).toEqual({
      code: "INVALID_SANDBOX_BACKEND",
      message: "a sandbox backend named bwrap is already registered for linux",
    });
    expect(errorOf(() => registry.register({ ...backend("x", "linux"), name: "" }))).toEqual({
      code: "INVALID_SANDBOX_BACKEND",
      message: 'invalid sandbox backend: name: expected a non-empty string, received ""',
    });
    expect(errorOf(() => registry.register({ ...backend("x", "aix"), transform: 1 } as never))).toEqual({
      code: "INVALID_SANDBOX_BACKEND",
      message: "invalid sandbox backend: transform: expected a function, received 1",
    });
    expect(errorOf(() => registry.register(null as never))).toEqual({
      code: "INVALID_SANDBOX_BACKEND",
      message: "invalid sandbox backend: expected an object, received null",
    });
  });

  it("takes a local backend (transform) or a remote one (host), exactly one of the two", () => {
    const registry = createSandboxRegistry();
    const host = {
      where: "agent t at unix:/nowhere",
      start: async () => Promise.reject(new Error("not here")),
      attach: async () => null,
      list: async () => [],
    };
    const local = backend("both", "linux");
    expect(errorOf(() => registry.register({ ...local, host } as never))).toEqual({
      code: "INVALID_SANDBOX_BACKEND",
      message:
        "invalid sandbox backend: both: expected either transform (a local backend) or host (a remote one), received both",
    });
    const { transform: _, ...neither } = backend("neither", "linux");
    expect(errorOf(() => registry.register(neither as never))).toEqual({
      code: "INVALID_SANDBOX_BACKEND",
      message:
        "invalid sandbox backend: neither: expected either transform (a local backend) or host (a remote one), received neither",
    });
    expect(errorOf(() => registry.register({ ...neither, host: {} } as never))).toEqual({
      code: "INVALID_SANDBOX_BACKEND",
      message: "invalid sandbox backend: host: expected an object with start(), received an object",
    });
    registry.register({ ...neither, name: "agent", host });
    expect(registry.select({ mode: "workspace-write" }, "linux")?.name).toBe("agent");
  });

  it("starts with the backends it is given, and each registry is its own", () => {
    const linux = backend("bwrap", "linux");
    const registry = createSandboxRegistry([linux, backend("seatbelt", "darwin")]);
    expect(registry.select({ mode: "read-only" }, "linux")).toBe(linux);
    expect(registry.select({ mode: "read-only" }, "darwin")?.name).toBe("seatbelt");
    expect(errorOf(() => createSandboxRegistry().select({ mode: "read-only" }, "linux")).code).toBe(
      "SANDBOX_UNAVAILABLE",
    );
    expect(errorOf(() => createSandboxRegistry([linux, backend("bwrap", "linux")])).message).toBe(
      "a sandbox backend named bwrap is already registered for linux",
    );
    expect(errorOf(() => createSandboxRegistry(linux as never))).toEqual({
      code: "INVALID_SANDBOX_BACKEND",
      message: "invalid sandbox backends: expected an array, received an object",
    });
  });

  it("keeps each platform's backends in the order registered, the first preferred", () => {
    const bwrap = backend("bwrap", "linux");
    const landlock = backend("landlock", "linux");
    const registry = createSandboxRegistry([bwrap, backend("seatbelt", "darwin")]);
    registry.register(landlock);
    registry.register(bwrap);
    expect(registry.candidates({ mode: "workspace-write" }, "linux")).toEqual([bwrap, landlock]);
    expect(registry.select({ mode: "workspace-write" }, "linux")).toBe(bwrap);
    expect(registry.candidates({ mode: "danger-full-access" }, "linux")).toEqual([]);
  });
});
