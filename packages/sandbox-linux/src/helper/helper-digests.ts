// Written by tooling/scripts/build-sandbox-helper.mjs: the SHA-256 of each committed helper binary
// (bin/conch-sandbox-helper-linux-*), checked before one is run. Do not edit by hand.
export const HELPER_DIGESTS: Readonly<Record<string, string>> = {
  "linux-x64": "b094e7292febf415de426227a196681a8837455d28857b76777197dc6463f71a",
  "linux-arm64": "c7ba8532610c62ee84f58bace98e9587b2547c960e39314d3fe0abf99fb360d7",
};
