import { describe, expect, it } from "vitest";
import * as api from "./index.js";

describe("@conch/net-proxy public surface", () => {
  it("exports exactly these names", () => {
    expect(Object.keys(api).sort()).toEqual([
      "NET_PROXY_ERROR_CODES",
      "NetProxy",
      "NetProxyError",
      "NetworkPolicy",
      "ProxyEndpoint",
      "addressClass",
      "canonicalHost",
      "isNetProxyError",
      "parseHostPattern",
    ]);
  });
});
