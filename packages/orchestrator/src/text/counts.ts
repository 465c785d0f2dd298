// How counts and sizes read in every text Conch writes for a model: the same in every locale.

/** `line 7` or `lines 4,212–1,997,500`. */
export function lineRange(first: number, last: number): string {
  return first === last ? `line ${formatCount(first)}` : `lines ${formatCount(first)}–${formatCount(last)}`;
}

/** A count with thousands separators (`1,997,500`), the same in every locale. */
export function formatCount(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

const SIZE_UNITS = ["kB", "MB", "GB", "TB"] as const;

/** `1 byte`, `812 bytes`, `40.2 kB`, `14.8 MB`: decimal units, one decimal. */
export function formatSize(bytes: number): string {
  if (bytes < 1000) return bytes === 1 ? "1 byte" : `${bytes} bytes`;
  let value = bytes;
  for (const unit of SIZE_UNITS) {
    value /= 1000;
    // Rounded up to 1000.0 of a unit, the next unit reads better.
    if (Number(value.toFixed(1)) < 1000 || unit === "TB") return `${value.toFixed(1)} ${unit}`;
  }
  return `${bytes} bytes`;
}
