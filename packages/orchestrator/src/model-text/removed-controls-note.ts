/**
 * The one line that tells the model its output was cleaned (see TerminalTextFilter), or null when
 * nothing was removed. A spill file holds the cleaned text too, so that its lines are the text's.
 */
export function removedControlsNote(removed: number): string | null {
  if (removed <= 0) return null;
  const codes = removed === 1 ? "1 terminal control code" : `${removed} terminal control codes`;
  return `[Conch removed ${codes} from this output]`;
}
