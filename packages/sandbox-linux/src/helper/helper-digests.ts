// Written by tooling/scripts/build-sandbox-helper.mjs: the SHA-256 of each committed helper binary
// (bin/conch-sandbox-helper-linux-*), checked before one is run. Do not edit by hand.
export const HELPER_DIGESTS: Readonly<Record<string, string>> = {
  "linux-x64": "4e214370c76b876af60f216b24dc8376add079888f4e7f1d81bf792a8812f93a",
  "linux-arm64": "05320dd797d30f9a155a783d294d2938a97860534091a8aab7017c7232ce0f51",
};
