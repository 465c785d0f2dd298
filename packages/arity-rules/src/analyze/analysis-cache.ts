// The analyses of the scripts analysed last, for analyze(): the same script is often analysed several
// times in a row (the requirement for each policy, the safety check, the dangerous check). A script read
// as zsh reads it has an analysis of its own. The least recently used analysis is the one dropped.
//
// The analyses sit in a fixed array of slots, and the maps from script to slot hold only slot numbers.
// Kept in the maps themselves, every analysis ever cached was promoted to V8's old generation: once a
// Map is old, V8 allocates each hash table that replaces a full one in the old generation too, and the
// replaced table keeps its entries until the next full collection, so the young-generation collector
// took them all for live (scavenges of ~10 ms instead of ~1, ~15% of an analysis). A slot is overwritten
// when its analysis is dropped, so nothing keeps a dropped analysis.

export class AnalysisCache<T> {
  private readonly bash = new Map<string, number>();
  private readonly zsh = new Map<string, number>();
  private readonly scripts: string[];
  private readonly zshSlots: Uint8Array;
  private readonly values: (T | undefined)[];
  // The slots in order of use, a doubly linked list from the least recently used (oldest) to the most
  // recently used (newest); -1 ends it.
  private readonly newer: Int32Array;
  private readonly older: Int32Array;
  private oldest = -1;
  private newest = -1;
  private filled = 0;

  constructor(size: number) {
    this.scripts = Array.from({ length: size }, () => "");
    this.zshSlots = new Uint8Array(size);
    this.values = Array.from({ length: size }, () => undefined);
    this.newer = new Int32Array(size);
    this.older = new Int32Array(size);
  }

  get(script: string, zsh: boolean): T | undefined {
    const slot = (zsh ? this.zsh : this.bash).get(script);
    if (slot === undefined) return undefined;
    if (slot !== this.newest) {
      this.unlink(slot);
      this.append(slot);
    }
    return this.values[slot];
  }

  /** Adds the value of a script that is not in the cache, dropping the least recently used when full. */
  add(script: string, zsh: boolean, value: T): void {
    let slot = this.filled;
    if (slot < this.values.length) {
      this.filled += 1;
    } else {
      slot = this.oldest;
      this.unlink(slot);
      (this.zshSlots[slot] === 1 ? this.zsh : this.bash).delete(this.scripts[slot] as string);
    }
    this.scripts[slot] = script;
    this.zshSlots[slot] = zsh ? 1 : 0;
    this.values[slot] = value;
    this.append(slot);
    (zsh ? this.zsh : this.bash).set(script, slot);
  }

  private unlink(slot: number): void {
    const newer = this.newer[slot] as number;
    const older = this.older[slot] as number;
    if (older === -1) this.oldest = newer;
    else this.newer[older] = newer;
    if (newer === -1) this.newest = older;
    else this.older[newer] = older;
  }

  private append(slot: number): void {
    this.older[slot] = this.newest;
    this.newer[slot] = -1;
    if (this.newest === -1) this.oldest = slot;
    else this.newer[this.newest] = slot;
    this.newest = slot;
  }
}
