import { conchVitestConfig } from "@conch/test-config/vitest";

export default conchVitestConfig;
