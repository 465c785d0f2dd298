import { shellQuote } from "./quote.js";
import type { SnapshotShellType } from "./shell-snapshot.js";

/**
 * The script the login shell runs once its startup files are done. It writes NUL-separated records to
 * `outPath` (never to stdout, where the profile's own output goes): `conch-snapshot`, then `options`
 * TEXT, `env` NAME=VALUE, `function` NAME BODY, `fpath` DIR, `zdotdir` DIR, `histfile` PATH (the
 * history file as the profile left HISTFILE, exported or not), `aliases` TEXT, and `end` last, so a
 * script cut short is told apart from one that finished. Filtering and quoting are done by
 * the caller, which knows the environment policy.
 *
 * Each script first turns off what the profile may have turned on that would bend the script itself
 * (alias expansion, errexit, nounset, tracing), and unsets HISTFILE: an interactive shell writes its
 * history file on exit, and the capture must leave the user's history alone. `>|` writes even under
 * noclobber. Commands go through `builtin` so a profile's function named `printf` cannot answer.
 */
export function captureScript(type: SnapshotShellType, outPath: string): string {
  const out = shellQuote(outPath);
  switch (type) {
    case "bash":
      return bashCapture(out);
    case "zsh":
      return zshCapture(out);
    case "sh":
    case "dash":
      return shCapture(out);
  }
}

// bash reads a -c string one line at a time, so the first line's `shopt -u expand_aliases` already
// holds when the rest is parsed.
function bashCapture(out: string): string {
  return `\\builtin shopt -u expand_aliases; \\builtin set +H
__conch_histfile=\${HISTFILE-}; builtin unset HISTFILE
builtin trap - DEBUG ERR RETURN
builtin set +o errexit +o nounset +o pipefail +o xtrace +o verbose +o errtrace +o functrace +o posix
{
  builtin printf 'conch-snapshot\\0histfile\\0%s\\0options\\0' "$__conch_histfile"
  builtin shopt -p
  builtin set +o
  builtin printf '\\0'
  while IFS= builtin read -r __conch_name; do
    case $__conch_name in ''|[0-9]*|*[!A-Za-z0-9_]*) continue ;; esac
    case \${!__conch_name+set} in set) ;; *) continue ;; esac
    builtin printf 'env\\0%s=%s\\0' "$__conch_name" "\${!__conch_name}"
  done < <(builtin compgen -e)
  while IFS= builtin read -r __conch_name; do
    builtin printf 'function\\0%s\\0' "$__conch_name"
    builtin declare -f -- "$__conch_name"
    builtin printf '\\0'
  done < <(builtin compgen -A function)
  builtin printf 'aliases\\0'
  builtin alias -p
  builtin printf '\\0end\\0'
} >| ${out}`;
}

// zsh parses a whole -c string before running any of it, with the profile's aliases (global ones
// included) applied, so the real script is handed to eval once alias expansion is off. The options are
// listed first, as the profile left them; `emulate -L zsh` then gives the rest of the script zsh's
// defaults without touching the user's. Suffix aliases are not in `alias -L`, hence `alias -sL`.
function zshCapture(out: string): string {
  const body = `() {
  local __conch_options="$(builtin unsetopt kshoptionprint; builtin setopt)"
  builtin emulate -L zsh
  local __conch_name __conch_type
  {
    builtin print -rn -- conch-snapshot$'\\0'options$'\\0'"$__conch_options"$'\\0'
    for __conch_name in \${(k)parameters}; do
      __conch_type=\${parameters[$__conch_name]}
      [[ $__conch_type == (scalar|integer|float)*-export* && $__conch_type != *-readonly* ]] || continue
      builtin print -rn -- env$'\\0'"$__conch_name=\${(P)__conch_name}"$'\\0'
    done
    for __conch_name in \${(k)functions}; do
      builtin print -rn -- function$'\\0'"$__conch_name"$'\\0'
      builtin functions -- "$__conch_name"
      builtin print -rn -- $'\\0'
    done
    for __conch_name in "\${fpath[@]}"; do
      builtin print -rn -- fpath$'\\0'"$__conch_name"$'\\0'
    done
    builtin print -rn -- zdotdir$'\\0'"\${ZDOTDIR-}"$'\\0'histfile$'\\0'"$__conch_histfile"$'\\0'aliases$'\\0'
    builtin alias -L
    builtin alias -sL
    builtin print -rn -- $'\\0'end$'\\0'
  } >| ${out}
}`;
  return `\\builtin unsetopt aliases; \\builtin typeset -g __conch_histfile="\${HISTFILE-}"; \\builtin unset HISTFILE; \\builtin eval ${shellQuote(body)}`;
}

// POSIX sh has no indirect expansion and no list of exported names, so awk's ENVIRON (exactly what the
// shell exports to its children) names them and eval reads each one. Globbing is off so an odd name
// cannot expand to file names; dash parses -c line by line, so line one's unalias covers the rest.
function shCapture(out: string): string {
  return `\\unalias -a 2>/dev/null; set +e +u +x +v -f
IFS=' \t
'
{
  printf 'conch-snapshot\\000histfile\\000%s\\000' "\${HISTFILE-}"
  __conch_names=$(command -p awk 'BEGIN { for (name in ENVIRON) print name }') && {
    for __conch_name in $__conch_names; do
      case $__conch_name in [!A-Za-z_]*|*[!A-Za-z0-9_]*) continue ;; esac
      eval "__conch_value=\\\${$__conch_name}"
      printf 'env\\000%s=%s\\000' "$__conch_name" "$__conch_value"
    done
    printf 'end\\000'
  }
} >| ${out}`;
}
