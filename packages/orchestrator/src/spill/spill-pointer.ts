import type { SpillGap } from "./spill-writer.js";

/** Where the whole of a cut output is, as the marker that stands for the cut says. */
export type SpillPointer =
  | { readonly kind: "file"; readonly path: string; readonly gap: SpillGap | null }
  | { readonly kind: "failed"; readonly reason: string }
  | { readonly kind: "unsaved" };

export const UNSAVED: SpillPointer = { kind: "unsaved" };

/** The pointer to a spill file written (or that failed with `error`), or to none. */
export function spillPointer(
  spill: { readonly path: string; readonly gap: SpillGap | null } | null,
  error: string | null,
): SpillPointer {
  if (spill !== null) return { kind: "file", path: spill.path, gap: spill.gap };
  return error === null ? UNSAVED : { kind: "failed", reason: error };
}
