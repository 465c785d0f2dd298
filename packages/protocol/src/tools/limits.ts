/** The longest delay a Node timer can hold; a larger timeout would fire at once instead of never. */
export const MAX_TIMER_MS = 2_147_483_647;

/**
 * Codex-compatible numbers shared by the schemas' descriptions and the runtime that honours them
 * (DESIGN.md §3). Yields are clamped, not rejected: a model that asks for 60000 gets 30000, as in Codex.
 */
export const TOOL_LIMITS = {
  shellCommandTimeoutMs: 10_000,
  bashTimeoutMs: 120_000,
  argvTimeoutSeconds: 10,
  execYieldTimeMs: 10_000,
  writeYieldTimeMs: 250,
  minYieldTimeMs: 250,
  maxYieldTimeMs: 30_000,
  emptyPollMinMs: 5_000,
  emptyPollMaxMs: 300_000,
  maxOutputTokens: 10_000,
} as const;
