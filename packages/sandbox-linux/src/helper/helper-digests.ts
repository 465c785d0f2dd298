// Written by tooling/scripts/build-sandbox-helper.mjs: the SHA-256 of each committed helper binary
// (bin/conch-sandbox-helper-linux-*), checked before one is run. Do not edit by hand.
export const HELPER_DIGESTS: Readonly<Record<string, string>> = {
  "linux-x64": "2ec36210a2217e82274aaa91c8f968d2287251b3f30cf2c97654068b9c27d9c6",
  "linux-arm64": "719f8d3bf874eed834ef4d9e047d7af245016d61b250749a391d721adfe03c11",
};
