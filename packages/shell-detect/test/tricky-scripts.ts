/**
 * Scripts whose output, errors and exit code must be the same under `shell -c SCRIPT` and under the
 * snapshot's argv: each leans on one thing a prefix line, an eval or a careless quote would change.
 */
export const TRICKY_SCRIPTS: readonly string[] = [
  `printf '%s\\n' "a  b" '$HOME' "it's" \`echo back\``,
  "echo one\necho two\n\n",
  "echo trailing\\",
  "echo continued \\\nline",
  "#!/bin/sh\necho after a shebang line",
  "echo first & wait; echo second",
  "false || echo or-branch",
  "true && echo and-branch; false; echo status $?",
  "cat <<'EOF'\n$HOME `not run`\nEOF\ncat <<EOF\nzero=$0\nEOF",
  "set -e; echo before; false; echo not reached",
  "exit 7",
  'echo "$0|$#|$*|${1-no first}"',
  "echo line $LINENO\necho line $LINENO\nno_such_command_anywhere",
  "echo start\nif then fi",
  "echo $-",
  'echo "${BASH_ENV-no BASH_ENV}|${ZDOTDIR-no ZDOTDIR}|${ENV-no ENV}"',
  "trap 'echo bye' EXIT; echo hi",
  "for word in 1 2 3; do echo $word; done | tail -n 1",
  'echo "$(echo nested "$(echo deeper)")"',
  "echo $((6 * 7)) ${#HOME}",
  "return 3",
  "",
];
