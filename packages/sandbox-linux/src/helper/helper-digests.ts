// Written by tooling/scripts/build-sandbox-helper.mjs: the SHA-256 of each committed helper binary
// (bin/conch-sandbox-helper-linux-*), checked before one is run. Do not edit by hand.
export const HELPER_DIGESTS: Readonly<Record<string, string>> = {
  "linux-x64": "0e92e654bf6b1bd14e093c625c6edb2d519f9b2f862172d4df8a0cc88f4a3cee",
  "linux-arm64": "14d8b7b7cd91bf467668cc29572e81568efe1777b5279859f29fd9e0fc69513b",
};
