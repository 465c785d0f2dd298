import { describe, expect, it } from "vitest";
import * as api from "./index.js";

describe("@conch/sandbox-kubernetes public surface", () => {
  it("exports exactly these names", () => {
    expect(Object.keys(api).sort()).toEqual([
      "AGENT_PORT_NAME",
      "KUBERNETES_ERROR_CODES",
      "KubernetesError",
      "OWNER_LABEL",
      "WORKSPACE_LABEL",
      "isKubernetesError",
      "kubernetesSandbox",
    ]);
  });
});
