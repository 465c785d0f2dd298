// A session that runs outside the sandbox dies with the Conch process that started it (issue 20, §5).
// A sandboxed one does already: bwrap's --die-with-parent, and its pid namespace takes every descendant
// along. Outside the sandbox there is neither, and Node can set neither PR_SET_PDEATHSIG nor
// PR_SET_CHILD_SUBREAPER on a child. So such a session runs under a small keeper in Perl (perl-base is
// Essential in Debian and Ubuntu; its syscall() reaches prctl) that:
//   - is a child subreaper: whatever the command starts, even after a double fork or setsid, stays its
//     descendant, so it can always find all of it;
//   - gets SIGTERM when its parent dies (PR_SET_PDEATHSIG), and checks its parent every second besides:
//     an orphaned keeper kills every descendant (SIGSTOP, then SIGKILL, until none is left) and exits;
//   - runs the command in a process group of its own (the terminal's foreground group on a PTY), so
//     Ctrl-C and the session's signals reach the command and not the keeper (`wrapped` sessions);
//   - when the command exits, ends what it left (SIGTERM, a grace, SIGKILL) and exits as it did.
// What runs nothing else: no namespace, no mount, no uid change; the command sees the host as it would.
//
// The keeper itself can be killed (SIGKILL to it, or the OOM killer) before it acts. So each keeper is
// also written to a ledger in the state dir, one file per Conch process: its run marker (the variable
// every process of the run inherits) and its pid and start time. Every Conch process, as it starts,
// kills what the ledgers of Conch processes that are gone still name, and removes those ledgers. A
// command outside the sandbox can write a ledger too (the state dir is hidden only from sandboxed ones):
// so what a ledger names is killed only where the process shows the line's run marker (`leftovers`).
// A command outside the sandbox can also kill its own keeper and empty its environment; what it starts
// in a new session then is not found. That is a limit, not a boundary: it could as well ask systemd,
// cron or its shell's startup files to run it later.
import {
  accessSync,
  constants,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { delimiter, dirname, join } from "node:path";
import { RUN_MARKER_VAR, type SpawnSpec } from "@conch/exec-core";

// prctl(2)'s syscall number, where the keeper knows it.
const PRCTL: Readonly<Partial<Record<NodeJS.Architecture, number>>> = { x64: 157, arm64: 167 };

const KEEPER = String.raw`
use strict; use warnings; use POSIX ();
my ($nr, $parent, $report, $nenv, @rest) = @ARGV;
my @env = splice(@rest, 0, $nenv);
my @cmd = @rest;
syscall($nr, 36, 1, 0, 0, 0);
syscall($nr, 1, 15, 0, 0, 0);
# A process whose main thread exited (a zombie leader) still runs while any other thread of it does.
sub threads_live {
  my ($pid) = @_;
  opendir(my $tasks, "/proc/$pid/task") or return 0;
  for my $tid (grep { /^\d+$/ && $_ != $pid } readdir $tasks) {
    open(my $fh, "<", "/proc/$pid/task/$tid/stat") or next;
    my $stat = <$fh>; close $fh;
    next unless defined $stat;
    $stat =~ s/^.*\) //s;
    return 1 if $stat !~ /^[ZX]/;
  }
  return 0;
}
sub descendants {
  my %kids;
  opendir(my $dir, "/proc") or return ();
  for my $pid (grep { /^\d+$/ } readdir $dir) {
    open(my $fh, "<", "/proc/$pid/stat") or next;
    my $stat = <$fh>; close $fh;
    next unless defined $stat;
    $stat =~ s/^.*\) //s;
    my @field = split / /, $stat;
    next if ($field[0] eq "Z" || $field[0] eq "X") && !threads_live($pid);
    push @{$kids{$field[1]}}, $pid;
  }
  my @found; my @queue = ($$);
  while (@queue) { my $pid = shift @queue; for my $kid (@{$kids{$pid} || []}) { push @found, $kid; push @queue, $kid } }
  return @found;
}
sub reap { 1 while waitpid(-1, POSIX::WNOHANG()) > 0 }
sub kill_all {
  for (1 .. 500) {
    my @all = descendants();
    last unless @all;
    kill "STOP", @all; kill "KILL", @all;
    reap();
    select(undef, undef, undef, 0.01);
  }
}
sub orphaned { if (getppid() != $parent) { kill_all(); POSIX::_exit(137) } }
orphaned();
my @quiet = qw(INT QUIT TSTP TTIN TTOU);
$SIG{$_} = "IGNORE" for @quiet;
my $tty = -t STDIN;
my $child = fork();
if (!defined $child) { print STDERR "conch: cannot start the command: $!\n"; POSIX::_exit(126) }
if ($child == 0) {
  POSIX::setpgid(0, 0);
  POSIX::tcsetpgrp(0, POSIX::getpgrp()) if $tty;
  $SIG{$_} = "DEFAULT" for @quiet;
  POSIX::close($report) if $report >= 0;
  for (@env) { my ($name, $value) = split /=/, $_, 2; $ENV{$name} = $value }
  { no warnings; exec { $cmd[0] } @cmd; }
  print STDERR "conch: cannot run $cmd[0]: $!\n"; POSIX::_exit(127);
}
POSIX::setpgid($child, $child);
POSIX::tcsetpgrp(0, $child) if $tty;
$SIG{TERM} = $SIG{HUP} = sub { my $signal = shift; orphaned(); kill $signal, -$child };
$SIG{ALRM} = sub { orphaned(); alarm 1 };
alarm 1;
my $status;
while (1) {
  my $pid = waitpid(-1, 0);
  if ($pid == $child) { $status = $?; last }
  last if $pid == -1 && !$!{EINTR};
}
alarm 0;
my @left = descendants();
if ($report >= 0 && open(my $out, ">&=", $report)) {
  for my $pid (@left) {
    my $name = "?";
    if (open(my $fh, "<", "/proc/$pid/comm")) { $name = <$fh> // "?"; chomp $name; close $fh }
    print $out "$pid $name\n";
  }
  close $out;
}
if (@left) {
  kill "TERM", @left;
  for (1 .. 50) { reap(); last unless descendants(); select(undef, undef, undef, 0.01) }
  kill_all();
}
exit 127 unless defined $status;
exit($status >> 8) if ($status & 127) == 0;
my $signal = $status & 127;
$SIG{$_} = "DEFAULT" for (@quiet, "TERM", "HUP");
kill $signal, $$;
exit 128 + $signal;
`;

/** Environment variables that steer perl itself: the keeper starts without them, the command gets them. */
const PERL_ENV = /^PERL/;

function findPerl(path: string | undefined): string | null {
  for (const dir of ["/usr/bin", "/bin", ...(path ?? "").split(delimiter)]) {
    if (dir === "") continue;
    const candidate = join(dir, "perl");
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not here.
    }
  }
  return null;
}

/** Starts unsandboxed commands under the keeper, and keeps the ledger of this process's keepers. */
export class HostReaper {
  readonly #perl: string;
  readonly #prctl: number;
  readonly #ledger: string;
  readonly #selfStart: number;
  // What the ledger names: keepers that may still run, by run marker (or pid).
  readonly #live = new Map<string, LedgerEntry>();

  private constructor(perl: string, prctl: number, ledger: string, selfStart: number) {
    this.#perl = perl;
    this.#prctl = prctl;
    this.#ledger = ledger;
    this.#selfStart = selfStart;
  }

  /**
   * The reaper for this process, its ledger in `dir`; null where no keeper can run (not Linux, an
   * architecture without a known prctl number, no perl): there, a session outside the sandbox still
   * ends with its process group when Conch ends it, and the ledgers are not kept.
   */
  static create(dir: string, path: string | undefined = process.env.PATH): HostReaper | null {
    const prctl = PRCTL[process.arch];
    if (process.platform !== "linux" || prctl === undefined) return null;
    const perl = findPerl(path);
    if (perl === null) return null;
    const self = readStart(process.pid);
    if (self === null) return null;
    return new HostReaper(perl, prctl, join(dir, `${process.pid}-${self}.jsonl`), self);
  }

  /** Rewrites `spec` to run under the keeper (a spawn hook, as a sandbox backend's). */
  readonly hook = (spec: SpawnSpec): Promise<SpawnSpec> => this.#wrap(spec, false);

  /**
   * The same for a one-shot command: the keeper also names, on the spec's `reportFd`, what the command
   * left running when it exited (and then ends).
   */
  readonly oneShotHook = (spec: SpawnSpec): Promise<SpawnSpec> => this.#wrap(spec, true);

  async #wrap(spec: SpawnSpec, report: boolean): Promise<SpawnSpec> {
    const reportFd = 3 + spec.extraFds.length;
    const env: Record<string, string> = {};
    const moved: string[] = [];
    for (const [name, value] of Object.entries(spec.env)) {
      if (PERL_ENV.test(name)) moved.push(`${name}=${value}`);
      else env[name] = value;
    }
    return {
      ...spec,
      argv: [
        this.#perl,
        "-e",
        KEEPER,
        "--",
        String(this.#prctl),
        String(process.pid),
        String(report ? reportFd : -1),
        String(moved.length),
        ...moved,
        ...spec.argv,
      ],
      env,
      ...(report ? { reportFd } : {}),
    };
  }

  /**
   * Writes a started keeper (its pid and run marker) to the ledger; without a pid (a one-shot command,
   * whose pid the runner keeps to itself), its run marker alone, as of this process's start, until
   * `forget`. The ledger holds only what may still run: a keeper that is gone leaves it at the next write.
   */
  record(pid: number | null, marker: string | undefined): void {
    const startTime = pid === null ? this.#selfStart : readStart(pid);
    if (startTime === null) return;
    const entry: LedgerEntry = { pid, startTime, marker: marker ?? null };
    this.#live.set(marker ?? `pid ${pid}`, entry);
    this.#write();
  }

  /** A one-shot command ended (its keeper with it): its marker leaves the ledger. */
  forget(marker: string | undefined): void {
    if (marker !== undefined && this.#live.delete(marker)) this.#write();
  }

  #write(): void {
    for (const [key, entry] of this.#live) {
      if (entry.pid !== null && readStart(entry.pid) !== entry.startTime) this.#live.delete(key);
    }
    if (this.#live.size === 0) {
      rmSync(this.#ledger, { force: true });
      return;
    }
    mkdirSync(dirname(this.#ledger), { recursive: true, mode: 0o700 });
    // Whole or not at all: written aside, then renamed over the ledger.
    const next = `${this.#ledger}.next`;
    writeFileSync(next, [...this.#live.values()].map((entry) => `${JSON.stringify(entry)}\n`).join(""), {
      mode: 0o600,
    });
    renameSync(next, this.#ledger);
  }
}

/** The marker of a spawn spec, as its processes inherit it. */
export function runMarkerOf(env: Readonly<Record<string, string>>): string | undefined {
  const value = env[RUN_MARKER_VAR];
  return value === undefined ? undefined : `${RUN_MARKER_VAR}=${value}`;
}

/** A process's start time (clock ticks since boot), or null when it is gone. */
function readStart(pid: number): number | null {
  const stat = readStat(pid);
  return stat === null ? null : stat.startTime;
}

interface Stat {
  readonly pid: number;
  readonly state: string;
  readonly session: number;
  readonly startTime: number;
}

function readStat(pid: number): Stat | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, "latin1");
  } catch {
    return null;
  }
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  return {
    pid,
    state: fields[0] ?? "?",
    session: Number(fields[3]),
    startTime: Number(fields[19]),
  };
}

function environHas(pid: number, entry: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/environ`, "latin1").split("\0").includes(entry);
  } catch {
    return false;
  }
}

interface LedgerEntry {
  readonly pid: number | null;
  readonly startTime: number;
  readonly marker: string | null;
}

// A run marker as exec-core makes it (its pid, a counter, a random word): a ledger line naming anything
// else (`PATH=/usr/bin`, which every process holds) names no run of Conch's.
const MARKER = new RegExp(`^${RUN_MARKER_VAR}=\\d+\\.\\d+\\.[0-9a-z]+$`);

function readLedger(path: string): LedgerEntry[] {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return [];
  }
  const entries: LedgerEntry[] = [];
  for (const line of text.split("\n")) {
    try {
      const value = JSON.parse(line) as Partial<LedgerEntry>;
      if ((typeof value.pid === "number" || value.pid === null) && typeof value.startTime === "number") {
        entries.push({
          pid: value.pid,
          startTime: value.startTime,
          marker: typeof value.marker === "string" && MARKER.test(value.marker) ? value.marker : null,
        });
      }
    } catch {
      // A line cut by a crash: skipped.
    }
  }
  return entries;
}

/**
 * The live processes a dead Conch process's keeper left: every process started after the keeper whose
 * environment holds its run marker, and every process of the keeper's session (what emptied its
 * environment stays in it). A ledger is Conch's, but a command outside the sandbox could write one: so a
 * session is the keeper's only when it shows the marker, in the keeper itself (same pid and start time)
 * or, the keeper gone, in a live member (a process can leave a session, never join one: no process of
 * another session can be made to show it). Nothing else is killed, whatever a ledger names.
 */
function leftovers(entries: readonly LedgerEntry[]): number[] {
  const marked = entries.filter((entry): entry is LedgerEntry & { marker: string } => entry.marker !== null);
  if (marked.length === 0) return [];
  let names: string[];
  try {
    names = readdirSync("/proc");
  } catch {
    return [];
  }
  const live: { stat: Stat; entry: LedgerEntry | undefined }[] = [];
  for (const name of names) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) continue;
    const stat = readStat(pid);
    if (stat === null || stat.state === "Z" || stat.state === "X") continue;
    const entry = marked.find(
      (candidate) => stat.startTime >= candidate.startTime && environHas(pid, candidate.marker),
    );
    live.push({ stat, entry });
  }
  const sessions = new Map<number, LedgerEntry>();
  for (const { stat, entry } of live) {
    if (entry === undefined || entry.pid === null || stat.session !== entry.pid) continue;
    const keeper = readStat(entry.pid);
    if (keeper === null || (keeper.startTime === entry.startTime && keeper.session === entry.pid)) {
      sessions.set(entry.pid, entry);
    }
  }
  return live
    .filter(({ stat, entry }) => {
      if (entry !== undefined) return true;
      const keeper = sessions.get(stat.session);
      return keeper !== undefined && stat.startTime >= keeper.startTime;
    })
    .map(({ stat }) => stat.pid);
}

/**
 * Kills what the keepers of Conch processes that are gone left running on the host, and removes their
 * ledgers in `dir`; this process's own ledger, and those of live Conch processes, are kept. Resolves
 * with the pids killed.
 */
export function killLeftovers(dir: string): number[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const killed = new Set<number>();
  for (const name of names) {
    const match = /^(\d+)-(\d+)\.jsonl$/.exec(name);
    if (match === null) continue;
    const owner = Number(match[1]);
    // A Conch process still running (same pid, same start) keeps its ledger and its sessions.
    if (readStart(owner) === Number(match[2])) continue;
    const path = join(dir, name);
    // Only a ledger this user wrote is read: a file another user put in a shared state dir names nothing.
    const file = lstatSync(path, { throwIfNoEntry: false });
    if (file === undefined || !file.isFile() || file.uid !== process.geteuid?.()) continue;
    const entries = readLedger(path);
    // Stopped first, then killed, until nothing named is left: a process forking meanwhile is caught.
    for (let round = 0; round < 100; round++) {
      const pids = leftovers(entries);
      if (pids.length === 0) break;
      for (const pid of pids) signal(pid, "SIGSTOP");
      for (const pid of pids) {
        signal(pid, "SIGKILL");
        killed.add(pid);
      }
    }
    rmSync(path, { force: true });
  }
  return [...killed];
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // Gone already.
  }
}
