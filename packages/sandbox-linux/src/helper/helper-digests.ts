// Written by tooling/scripts/build-sandbox-helper.mjs: the SHA-256 of each committed helper binary
// (bin/conch-sandbox-helper-linux-*), checked before one is run. Do not edit by hand.
export const HELPER_DIGESTS: Readonly<Record<string, string>> = {
  "linux-x64": "d44abbe6825f2e08c6906d5572087efffea00213f243df404639d018cae25ea2",
  "linux-arm64": "358c36fe86440d5b1fb9f58523976885b582b6dbd72f3ebe37a1192a844059e0",
};
