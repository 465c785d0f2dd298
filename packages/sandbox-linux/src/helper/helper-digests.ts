// Written by tooling/scripts/build-sandbox-helper.mjs: the SHA-256 of each committed helper binary
// (bin/conch-sandbox-helper-linux-*), checked before one is run. Do not edit by hand.
export const HELPER_DIGESTS: Readonly<Record<string, string>> = {
  "linux-x64": "737b961f76f3cc11a425a3da8531c6daefe381b0b90c365eef2667d2bebf5706",
  "linux-arm64": "e87799931968b0c24282b4c05e2277317a793dc6d9f4ed59f26a0b8419dc78a8",
};
