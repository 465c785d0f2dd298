// Written by tooling/scripts/build-sandbox-helper.mjs: the SHA-256 of each committed helper binary
// (bin/conch-sandbox-helper-linux-*), checked before one is run. Do not edit by hand.
export const HELPER_DIGESTS: Readonly<Record<string, string>> = {
  "linux-x64": "281d42094e3578c120122e7ebe7eb1521e5acde253409a03e17f74bee6cb9f90",
  "linux-arm64": "11b03e91b5633159486d39ca3e5f6c8c5c988e56327d4115cee16d0d40a9a333",
};
