import { RuleProblem } from "./problem.js";

/** Rule decisions, least to most severe. */
export const DECISIONS: readonly ["allow", "prompt", "forbidden"] = ["allow", "prompt", "forbidden"] as const;

export type Decision = (typeof DECISIONS)[number];

export function parseDecision(raw: string): Decision {
  if ((DECISIONS as readonly string[]).includes(raw)) return raw as Decision;
  throw new RuleProblem(`invalid decision: ${raw}`);
}

/** The most severe of the decisions given; undefined for none. */
export function strictestDecision(decisions: Iterable<Decision>): Decision | undefined {
  let strictest: Decision | undefined;
  for (const decision of decisions) {
    if (strictest === undefined || DECISIONS.indexOf(decision) > DECISIONS.indexOf(strictest)) {
      strictest = decision;
    }
  }
  return strictest;
}
