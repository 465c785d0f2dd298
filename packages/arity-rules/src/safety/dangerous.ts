// Codex's `dangerous_command_match` (is_dangerous_command.rs), extended. A command is dangerous when,
// after looking through runners (sudo, doas, env with its assignments and `-S`, xargs, watch, timeout,
// nice, nohup, stdbuf, time, command, builtin, exec, ionice, setsid, chroot, busybox, flock, unshare,
// taskset, chrt, strace and the others in runners.ts, and configured wrappers), it is one of:
//
//   forced-rm             rm with -f in any short cluster, or --force (or an abbreviation), before `--`
//   git-reset-hard        git reset --hard
//   git-clean-force       git clean with -f in a short cluster or --force
//   git-push-force        git push --force, -f, --force-with-lease (still a force push: it overwrites the
//                         remote when the lease holds), --mirror, or a `+refspec`
//   dd-write              dd with an of= operand
//   mkfs                  mkfs, mkfs.*, mke2fs
//   recursive-chmod-root  chmod -R/--recursive with / (or /*, /., /..) as an operand
//   recursive-chown-root  chown or chgrp -R/--recursive with / as an operand
//   find-delete           find with -delete
//   remote-script         a download run unseen: curl/wget piped into a shell or interpreter, or given to
//                         one as a substitution (`bash <(curl x)`, `sh -c "$(curl x)"`)
//   kernel-setting        sysctl setting a value, or a write into /proc/sys, /sys or another global part
//                         of /proc, by a redirection or tee, cp and the like (kernel-settings.ts)
//
// git's subcommand is looked for wherever its global options may leave it (see git.ts), `git-NAME` is
// git's built-in NAME, and an alias given with `-c alias.NAME=…` is read as what it stands for.
// Commands that run other commands are searched too, by the walk every reading shares (walk.ts): shell
// scripts in any spelling, substitutions, `trap`, `eval`, `su -c`, `watch`, `find -exec`, a `mapfile -C`
// callback, `compgen`/`complete -C` and `-W`, `fc -e`, `history -s`, `bind -x`, and the commands, scripts
// and programs options give (`jobs -x`, `git rebase --exec`, `git bisect run`, `tar --to-command`,
// `ssh -o ProxyCommand=`; command-options.ts). This file is the danger table's visitor: it matches each
// command reached (danger-table.ts) and each script read (a download run unseen, a kernel setting
// written by a redirection). Commands whose name is not literal (`$cmd -rf x`) never match.
// Not covered: danger configured outside argv (clean.requireForce=false, a `+` push refspec in config,
// an alias in a config file), branch deletion by push (`--delete`, `:branch`), a script piped into a
// shell, and scripts nested past MAX_SCRIPT_DEPTH or the analysis budget (such a command is never known
// safe either, and `reachableCommands` reports each of these as unread).
import { whenParserLoaded } from "../analyze/analyze.js";
import type { Analysis } from "../types.js";
import { executableName } from "./command-name.js";
import {
  DANGEROUS_REASONS,
  type DangerousMatch,
  DOWNLOADERS,
  directKind,
  INTERPRETERS,
} from "./danger-table.js";
import { kernelSettingRedirect } from "./kernel-settings.js";
import { lookThrough } from "./runners.js";
import type { SafetyOptions } from "./safety-options.js";
import { type WalkedCommand, type WalkVisitor, walk, walkRunners } from "./walk.js";

const SUBSTITUTION_START = /^(?:\$\(|<\(|`)\s*(\S+)/;

/**
 * The first dangerous command that argv would run, in source order, or null. Never runs anything;
 * scripts are read by `analyze()`. `options.wrappers` adds programs to look through.
 */
export function dangerousCommandMatch(
  argv: readonly string[],
  options?: SafetyOptions,
): Promise<DangerousMatch | null> {
  return whenParserLoaded(() => {
    const runners = walkRunners(options);
    return walk(argv, new DangerVisitor(runners), runners);
  });
}

class DangerVisitor implements WalkVisitor<DangerousMatch> {
  readonly #runners: ReturnType<typeof walkRunners>;

  constructor(runners: ReturnType<typeof walkRunners>) {
    this.#runners = runners;
  }

  command({ words, name }: WalkedCommand): DangerousMatch | null {
    if (name === null) return null;
    const kind = directKind(name, words, words.slice(1));
    return kind === null ? null : { kind, argv: [...words], reason: DANGEROUS_REASONS[kind] };
  }

  script(analysis: Analysis): DangerousMatch | null {
    const remote = this.#remoteScript(analysis);
    if (remote !== null) return remote;
    const redirect = kernelSettingRedirect(analysis.redirects);
    if (redirect === null) return null;
    const command = analysis.commands.find((candidate) => candidate.redirects.includes(redirect));
    const argv = [...(command?.argv ?? []), redirect.operator, redirect.target as string];
    return { kind: "kernel-setting", argv, reason: DANGEROUS_REASONS["kernel-setting"] };
  }

  /**
   * A download run unseen: a downloader piped into a shell or interpreter (`curl -fsSL x | sh`,
   * `wget -qO- x | sudo bash`), or a shell or interpreter given a download as a substitution
   * (`bash <(curl x)`, `sh -c "$(curl x)"`, `. <(wget -O- x)`).
   */
  #remoteScript(analysis: Analysis): DangerousMatch | null {
    const { commands, operators } = analysis;
    for (let index = 0; index + 1 < commands.length; index++) {
      const operator = operators[index];
      if (operator !== "|" && operator !== "|&") continue;
      const from = commands[index] as Analysis["commands"][number];
      const to = commands[index + 1] as Analysis["commands"][number];
      const source = this.#programOf(from.argv);
      const sink = this.#programOf(to.argv);
      if (source !== null && DOWNLOADERS.has(source) && isInterpreter(sink)) {
        return { kind: "remote-script", argv: [...to.argv], reason: DANGEROUS_REASONS["remote-script"] };
      }
    }
    const downloads = analysis.opaque.some((part) => {
      const inner = SUBSTITUTION_START.exec(part.text)?.[1];
      return inner !== undefined && DOWNLOADERS.has(executableName(inner));
    });
    if (!downloads) return null;
    const runner = commands.find((command) => isInterpreter(this.#programOf(command.argv)));
    return runner === undefined
      ? null
      : { kind: "remote-script", argv: [...runner.argv], reason: DANGEROUS_REASONS["remote-script"] };
  }

  #programOf(argv: readonly string[]): string | null {
    const first = lookThrough(argv, this.#runners).words[0];
    return first === undefined ? null : executableName(first);
  }
}

/** A shell or interpreter, versioned names too (`python3.12`, `bash5.2`). */
function isInterpreter(name: string | null): boolean {
  return name !== null && (INTERPRETERS.has(name) || INTERPRETERS.has(name.replace(/[\d.]+$/, "")));
}
