// Anything exported here is used by the workspace's tests (this package is private and dev-only).

export { cgroupEscapeScript } from "./cgroup-escape.js";
export { CORPORA, type CorpusName, readCorpus } from "./corpus.js";
export { eventually } from "./eventually.js";
export {
  CHROMIUM,
  describeWith,
  type Gate,
  gate,
  itWith,
  type Machine,
  NEEDS,
  type Need,
  whyMissing,
} from "./gate.js";
