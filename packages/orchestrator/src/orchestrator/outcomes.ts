import type { RejectionKind } from "@conch/protocol";
import type { AuditDecider } from "../audit/audit-log.js";
import type { RejectedOutcome } from "./types.js";

export function rejected(kind: RejectionKind, reason: string, decidedBy: AuditDecider): RejectedOutcome {
  return { status: "rejected", kind, reason, decidedBy };
}
