import { conchVitestConfig } from "../../tooling/vitest.base.ts";

export default conchVitestConfig;
