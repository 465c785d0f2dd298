// Written by tooling/scripts/build-sandbox-helper.mjs: the SHA-256 of each committed helper binary
// (bin/conch-sandbox-helper-linux-*), checked before one is run. Do not edit by hand.
export const HELPER_DIGESTS: Readonly<Record<string, string>> = {
  "linux-x64": "5a229487ae461c615aabda0effc65570105c7b3abbaa42650baeae308d3883fa",
  "linux-arm64": "82dd903ebb83173c88d8bc085e1189a8e0640ec05423341dedf61e4fe5fbe993",
};
