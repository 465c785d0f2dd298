// The write ids an agent has typed, so that a write sent again (a reconnecting conchd) is typed once.
// The most recent ones are kept: a retry comes soon after its first try.

export class WriteIds {
  readonly #seen = new Set<string>();
  readonly #max: number;

  constructor(max: number = 4096) {
    this.#max = max;
  }

  /** True the first time `id` is seen (then remembered), false after. */
  first(id: string): boolean {
    if (this.#seen.has(id)) return false;
    this.#seen.add(id);
    if (this.#seen.size > this.#max) this.#seen.delete(this.#seen.values().next().value as string);
    return true;
  }
}
