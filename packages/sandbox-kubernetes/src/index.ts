export {
  AGENT_PORT_NAME,
  type KubernetesSandbox,
  type KubernetesSandboxOptions,
  kubernetesSandbox,
  OWNER_LABEL,
  WORKSPACE_LABEL,
} from "./claim-endpoint.js";
export type { ClusterOptions } from "./cluster.js";
export {
  isKubernetesError,
  KUBERNETES_ERROR_CODES,
  KubernetesError,
  type KubernetesErrorCode,
} from "./errors.js";
