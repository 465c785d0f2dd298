import { describe, expect, it } from "vitest";
import { gate, gateHere, type Machine, NEEDS, type Need, whyMissing } from "./gate.js";

function machine(overrides: Partial<Machine> & { absent?: Partial<Record<Need, string>> } = {}): Machine {
  const { absent = {}, ...rest } = overrides;
  return {
    platform: "linux",
    ci: false,
    missing: (need) => absent[need] ?? null,
    fix: (need) => `install ${need}`,
    platforms: (need) => (need === "bwrap" || need === "linux" ? ["linux"] : "any"),
    optional: (need) => need === "zsh" || need === "less" || need === "chromium",
    ...rest,
  };
}

describe("gate", () => {
  it("runs a suite whose needs are all met, on CI or not", () => {
    expect(gate(["bwrap", "pty"], machine())).toEqual({ action: "run" });
    expect(gate("zsh", machine({ ci: true }))).toEqual({ action: "run" });
  });

  it("fails on CI when a need is missing on its own platform, naming every reason and fix", () => {
    expect(
      gate(
        ["bwrap", "pty", "zsh"],
        machine({ ci: true, absent: { bwrap: "bwrap is not installed", zsh: "zsh is not installed" } }),
      ),
    ).toEqual({
      action: "fail",
      message:
        "CI must run this suite, but bwrap is not installed (fix: install bwrap); zsh is not installed (fix: install zsh)",
    });
  });

  it("skips on CI too when only optional programs are missing, with the reason", () => {
    expect(gate(["pty", "zsh"], machine({ ci: true, absent: { zsh: "zsh is not installed" } }))).toEqual({
      action: "skip",
      message: "zsh is not installed (fix: install zsh)",
    });
    expect(
      gate(["git", "chromium"], machine({ ci: true, absent: { git: "no git", chromium: "no chromium" } })),
    ).toEqual({
      action: "fail",
      message: "CI must run this suite, but no git (fix: install git); no chromium (fix: install chromium)",
    });
  });

  it("skips off CI, with the reason", () => {
    expect(gate("pty", machine({ absent: { pty: "no pty" } }))).toEqual({
      action: "skip",
      message: "no pty (fix: install pty)",
    });
  });

  it("skips a suite that is not for this platform, even on CI, without probing", () => {
    const probedNeeds: Need[] = [];
    const mac = machine({
      platform: "darwin",
      ci: true,
      missing: (need) => {
        probedNeeds.push(need);
        return "absent";
      },
    });
    expect(gate(["linux", "bwrap", "pty"], mac)).toEqual({
      action: "skip",
      message: "needs linux, bwrap: not on darwin",
    });
    expect(probedNeeds).toEqual([]);
  });
});

describe.runIf(process.platform === "linux")("the probes on this machine", () => {
  it("finds bash here, and on CI (which installs them) no required need of this platform is missing", () => {
    expect(whyMissing("bash")).toBeNull();
    // Off-platform needs (seatbelt on Linux) skip their suites, and optional programs (java) may be absent.
    const failing = NEEDS.flatMap((need) => {
      const decision = gateHere(need);
      return decision.action === "fail" ? [decision.message] : [];
    });
    if (process.env.CI) expect(failing).toEqual([]);
    expect(gateHere("seatbelt").action).toBe("skip");
  });
});
