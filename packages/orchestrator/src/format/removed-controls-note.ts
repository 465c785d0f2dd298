/**
 * The one line that tells the model its output was cleaned (see TerminalTextFilter), or null when
 * nothing was removed. `spilled`: the spill file the text points to still holds the raw bytes.
 */
export function removedControlsNote(removed: number, spilled: boolean): string | null {
  if (removed <= 0) return null;
  const codes = removed === 1 ? "1 terminal control code" : `${removed} terminal control codes`;
  return `[Conch removed ${codes} from this output${spilled ? "; the saved file keeps them" : ""}]`;
}
