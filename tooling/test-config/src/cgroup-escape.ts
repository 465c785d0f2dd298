/**
 * A command's attempt to get out of its memory limit, for the limits suites: it writes `max` and `-1`
 * to its own group's memory limit (v2's `memory.max`, v1's `memory.limit_in_bytes`; under a delegated
 * cgroup these files are the command's own user's), its pid into every `cgroup.procs` it can find, says
 * how many it tried (`tried N`), then allocates `hogMb` MiB. Each write that works prints LOOSENED or
 * MOVED; a hog that lives prints "survived".
 */
export function cgroupEscapeScript(hogMb: number): string {
  return [
    "for g in $(cut -d: -f3 /proc/self/cgroup | sort -u); do",
    "  for d in /sys/fs/cgroup$g /sys/fs/cgroup/memory$g; do",
    "    (echo max > $d/memory.max) 2>/dev/null && echo LOOSENED",
    "    (echo -1 > $d/memory.limit_in_bytes) 2>/dev/null && echo LOOSENED",
    "  done",
    "done",
    "n=0; for p in $(find /sys/fs/cgroup -maxdepth 5 -name cgroup.procs 2>/dev/null); do",
    "  n=$((n+1)); (echo $$ > $p) 2>/dev/null && echo MOVED",
    "done; echo tried $n",
    `python3 -c 'a = bytearray(${hogMb} * 1024 * 1024); print("survived")'`,
  ].join("\n");
}
