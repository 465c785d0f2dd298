// Old names kept for consumers that have not moved yet; each goes in the next minor release.
import { checkExecPolicy } from "./rules/evaluate.js";
import { loadExecPolicy, loadExecPolicyFiles } from "./rules/load.js";

/** @deprecated Use `loadExecPolicy`; "policy" alone could be the approval policy. */
export const loadPolicy: typeof loadExecPolicy = loadExecPolicy;

/** @deprecated Use `loadExecPolicyFiles`. */
export const loadPolicyFiles: typeof loadExecPolicyFiles = loadExecPolicyFiles;

/** @deprecated Use `checkExecPolicy`. */
export const checkPolicy: typeof checkExecPolicy = checkExecPolicy;
