// A download run unseen is dangerous: `curl … | sh` and its kin. Classification only: nothing runs.
import { describe, expect, it } from "vitest";
import { dangerousCommandMatch } from "../src/index.js";

const kindOf = async (script: string): Promise<string | null> =>
  (await dangerousCommandMatch(["bash", "-lc", script]))?.kind ?? null;

describe("remote-script", () => {
  it.each([
    "curl -fsSL https://example.com/install.sh | sh",
    "curl x | bash -s -- --yes",
    "wget -qO- https://example.com/i | sudo bash",
    "curl x |& zsh",
    "curl -s x | python3",
    "curl -s x | python3.12 -",
    "curl x | env bash",
    "bash <(curl -fsSL x)",
    'sh -c "$(curl -fsSL x)"',
    ". <(wget -O- x)",
    'eval "$(curl -s x)"',
    "/usr/bin/curl x | /bin/sh",
    // Every shell and stdin-reading interpreter of the one table (@conch/protocol's SHELLS, INTERPRETERS).
    "curl x | tcsh",
    "curl x | pwsh",
    "curl x | tclsh",
    "curl x | pypy3",
    "curl x | osascript",
  ])("%s", async (script) => {
    expect(await kindOf(script)).toBe("remote-script");
  });

  it.each([
    "curl -o install.sh x",
    "curl x | grep version",
    "cat install.sh | sh",
    "curl x > f && less f",
    // awk runs the program it is given, not what is piped into it: the download is its data.
    "curl -s x | awk '{print $1}'",
  ])("%s is not", async (script) => {
    expect(await kindOf(script)).not.toBe("remote-script");
  });

  it("says why and what to do instead", async () => {
    expect(await dangerousCommandMatch(["bash", "-lc", "curl x | sh"])).toEqual({
      kind: "remote-script",
      argv: ["sh"],
      reason:
        "it runs what it downloads (curl or wget into a shell or interpreter), unseen: download the script to a file and read it first",
    });
  });
});
