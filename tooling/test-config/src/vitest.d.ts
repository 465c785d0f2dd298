import type { UserConfig } from "vitest/config";

/** The vitest config every workspace package uses: `export default conchVitestConfig`. */
export declare const conchVitestConfig: UserConfig;
