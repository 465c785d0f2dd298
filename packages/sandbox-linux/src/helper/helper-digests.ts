// Written by tooling/scripts/build-sandbox-helper.mjs: the SHA-256 of each committed helper binary
// (bin/conch-sandbox-helper-linux-*), checked before one is run. Do not edit by hand.
export const HELPER_DIGESTS: Readonly<Record<string, string>> = {
  "linux-x64": "35c36fca9b6884fb45f214d0a7b6dee76bfc26c4cfe5d85d45647548da1f2a95",
  "linux-arm64": "fb2287b95b283fd76d63e3388750b3a920dcb125b157f409fe1cb416ed128242",
};
