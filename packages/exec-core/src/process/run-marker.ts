/** The environment variable that marks every process of one run, so strays can be found and killed. */
export const RUN_MARKER_VAR = "CONCH_RUN_ID";

let runCount = 0;

/** A value unique to one run (this process, a counter, randomness), to put in `RUN_MARKER_VAR`. */
export function createRunMarker(): { readonly value: string; readonly entry: string } {
  runCount++;
  const value = `${process.pid}.${runCount}.${Math.random().toString(36).slice(2, 10)}`;
  return { value, entry: `${RUN_MARKER_VAR}=${value}` };
}
