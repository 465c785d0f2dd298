import { ConchError, type ConchErrorCode, conchErrorGuard } from "@conch/protocol";

export const NET_PROXY_ERROR_CODES: readonly ["INVALID_NETWORK_POLICY"] = [
  "INVALID_NETWORK_POLICY",
] as const satisfies readonly ConchErrorCode[];

export type NetProxyErrorCode = (typeof NET_PROXY_ERROR_CODES)[number];

/**
 * The one error class of @conch/net-proxy. `INVALID_NETWORK_POLICY`: a host pattern, an address or a
 * resolve entry is not one; the message names the field and what was expected.
 */
export class NetProxyError extends ConchError<NetProxyErrorCode> {
  override readonly name: "NetProxyError" = "NetProxyError";
}

/** True for a NetProxyError from any copy of this package. */
export const isNetProxyError: (value: unknown) => value is NetProxyError = conchErrorGuard(
  NetProxyError,
  "net-proxy",
  NET_PROXY_ERROR_CODES,
);
