// Port of Codex's `generate_chunk_id` (codex-rs/core/src/unified_exec/mod.rs): six random lowercase hex digits.

export const CHUNK_ID_LENGTH = 6;

/** `random` returns a float in [0, 1), like `Math.random`; inject it to make ids deterministic. */
export function generateChunkId(random: () => number = Math.random): string {
  let id = "";
  for (let i = 0; i < CHUNK_ID_LENGTH; i++) {
    id += Math.min(15, Math.floor(random() * 16)).toString(16);
  }
  return id;
}
