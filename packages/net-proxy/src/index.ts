// Anything exported here is public API of @conch/net-proxy: the allowlisting proxy a sandbox routes its
// commands' network through, and the policy it applies.
export { type AddressClass, addressClass } from "./address.js";
export { isNetProxyError, NET_PROXY_ERROR_CODES, NetProxyError, type NetProxyErrorCode } from "./errors.js";
export {
  canonicalHost,
  type HostDecision,
  type HostPattern,
  NetworkPolicy,
  type NetworkPolicyInput,
  parseHostPattern,
} from "./policy.js";
export {
  type Ask,
  type AskAnswer,
  type AskRequest,
  type EndpointOptions,
  NetProxy,
  ProxyEndpoint,
  type ProxyEvent,
  type ProxyOptions,
  type ProxyProtocol,
} from "./proxy.js";
