// Anything exported here is public API of @conch/sandbox-linux.
export { createLinuxBackend, type LinuxBackendOptions } from "./bwrap/backend.js";
export { createLandlockBackend, describeLandlock, type LandlockBackendOptions } from "./landlock/backend.js";
export { boundWorkspaceTmp, describeLimits, type ResourceLimits } from "./limits/limits.js";
export { createLinuxBackends, SANDBOX_BACKEND_CHOICES, type SandboxBackendChoice } from "./linux-backends.js";
export { buildSeccompFilter, type SeccompFilterOptions, seccompArchOf } from "./seccomp/filter.js";
export { SECCOMP_ARCHES, type SeccompArch } from "./seccomp/syscalls.js";
