/**
 * `value` as one single-quoted shell word: every byte stands for itself in bash, zsh and POSIX sh, and
 * the `'\''` splice never puts two quotes side by side, so zsh's RC_QUOTES reads it the same way.
 */
export function shellQuote(value: string): string {
  return `'${value.replaceAll("'", "'\\''")}'`;
}
