/*
 * conch-sandbox-helper: the small static program @conch/sandbox-linux runs in front of a command.
 *
 * Two jobs, each asked for by an option, both done before the command runs or after it ends:
 *
 * 1. Landlock (where bubblewrap cannot make its namespaces): applies a Landlock ruleset of read and
 *    write grants given as paths, sets no_new_privs, installs the seccomp program read from a
 *    descriptor, and execs the command. Every failure stops before exec, with exit code 125 and a line
 *    on stderr that names what failed: the command never runs with less than it was promised.
 *
 * 2. Leftovers (--report FD): becomes a child subreaper, runs the command as its child, and when the
 *    command exits, writes one line "PID NAME" per process the command left running (its descendants,
 *    orphans included: they were reparented here), kills them all (SIGKILL), reaps them, and exits as
 *    the command did. Signals sent to the helper (INT, TERM, HUP, QUIT) are passed on to the command.
 *
 * 3. Limits (--cgroup DIR, one per hierarchy: cgroup v2's one, or v1's memory, pids and cpu; made and
 *    limited by the caller): joins them before anything else, so every process of the command is
 *    counted; runs the command as its child as in 2; when it exits, writes "limit memory" or
 *    "limit processes" to the report for each limit the kernel enforced (an OOM kill in the group, a
 *    fork refused at pids.max), kills what is left in the groups and removes them. --rlimit-fsize and
 *    --rlimit-nproc set those rlimits for the command. --report-limits FD: the limits only, on a
 *    descriptor the command inherits (a second helper inside bwrap reports the leftovers on it).
 *    --limits-private: the --report-limits descriptor is this process's alone (close-on-exec: no helper
 *    inside bwrap shares it, and the command cannot write to it).
 *    --tmp-limit DIR: when the command has ended and DIR is a tmpfs with no room left, writes
 *    "limit tmp BYTES" (its size) to the report: the bound /tmp the command filled.
 *
 *   conch-sandbox-helper --probe
 *       prints "landlock-abi N" (0: Landlock is not available, with the reason on the next line)
 *   conch-sandbox-helper [--read PATH]... [--write PATH]... [--landlock-min-abi N] [--landlock-net]
 *                        [--landlock-scope] [--no-landlock] [--seccomp FD] [--report FD]
 *                        [--cgroup DIR]... [--report-limits FD]
 *                        [--rlimit-fsize BYTES] [--rlimit-nproc N] [--tmp-limit DIR]
 *                        [--limits-private] -- PROGRAM [ARG]...
 *
 * Built from this file alone, with no library beyond the C library, statically (musl on x86_64, glibc
 * on aarch64): tooling/scripts/build-sandbox-helper.mjs. Constants are spelled out here rather than
 * taken from <linux/landlock.h>, so the build does not depend on the build machine's kernel headers.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define EXIT_SETUP 125

/* Landlock: the same numbers on every architecture (syscalls added after the table was unified). */
#define SYS_LANDLOCK_CREATE_RULESET 444
#define SYS_LANDLOCK_ADD_RULE 445
#define SYS_LANDLOCK_RESTRICT_SELF 446
#define LANDLOCK_CREATE_RULESET_VERSION (1U << 0)
#define LANDLOCK_RULE_PATH_BENEATH 1

#define FS_EXECUTE (1ULL << 0)
#define FS_WRITE_FILE (1ULL << 1)
#define FS_READ_FILE (1ULL << 2)
#define FS_READ_DIR (1ULL << 3)
#define FS_REMOVE_DIR (1ULL << 4)
#define FS_REMOVE_FILE (1ULL << 5)
#define FS_MAKE_CHAR (1ULL << 6)
#define FS_MAKE_DIR (1ULL << 7)
#define FS_MAKE_REG (1ULL << 8)
#define FS_MAKE_SOCK (1ULL << 9)
#define FS_MAKE_FIFO (1ULL << 10)
#define FS_MAKE_BLOCK (1ULL << 11)
#define FS_MAKE_SYM (1ULL << 12)
#define FS_REFER (1ULL << 13)    /* ABI 2 */
#define FS_TRUNCATE (1ULL << 14) /* ABI 3 */
#define FS_IOCTL_DEV (1ULL << 15) /* ABI 5 */
#define NET_BIND_TCP (1ULL << 0)    /* ABI 4 */
#define NET_CONNECT_TCP (1ULL << 1) /* ABI 4 */
#define SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0) /* ABI 6 */
#define SCOPE_SIGNAL (1ULL << 1)               /* ABI 6 */

#define FS_READ (FS_EXECUTE | FS_READ_FILE | FS_READ_DIR)
#define FS_WRITE                                                                                     \
  (FS_WRITE_FILE | FS_REMOVE_DIR | FS_REMOVE_FILE | FS_MAKE_CHAR | FS_MAKE_DIR | FS_MAKE_REG |       \
   FS_MAKE_SOCK | FS_MAKE_FIFO | FS_MAKE_BLOCK | FS_MAKE_SYM | FS_REFER | FS_TRUNCATE | FS_IOCTL_DEV)
/* What a rule on a file (not a directory) may grant. */
#define FS_FILE_RIGHTS (FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | FS_TRUNCATE | FS_IOCTL_DEV)

struct ruleset_attr {
  uint64_t handled_access_fs;
  uint64_t handled_access_net;
  uint64_t scoped;
};

struct path_beneath_attr {
  uint64_t allowed_access;
  int32_t parent_fd;
} __attribute__((packed));

/* openat2 (Linux 5.6, before Landlock's 5.13): the same number everywhere. */
#define SYS_OPENAT2_ 437
#define RESOLVE_NO_SYMLINKS_ 0x04
struct open_how_ {
  uint64_t flags;
  uint64_t mode;
  uint64_t resolve;
};

/* Capabilities: capset with version 3 (two 32-bit words), and the ambient set. */
#define SYS_CAPSET_ARCH SYS_capset
#define LINUX_CAPABILITY_VERSION_3_ 0x20080522
struct cap_header_ {
  uint32_t version;
  int pid;
};
struct cap_data_ {
  uint32_t effective;
  uint32_t permitted;
  uint32_t inheritable;
};

/* seccomp, through prctl (the same numbers everywhere). */
#define PR_SET_SECCOMP_ 22
#define SECCOMP_MODE_FILTER_ 2
struct sock_filter_ {
  uint16_t code;
  uint8_t jt;
  uint8_t jf;
  uint32_t k;
};
struct sock_fprog_ {
  unsigned short len;
  struct sock_filter_ *filter;
};

#define MAX_RULES 4096
#define MAX_FILTER_BYTES (8 * 65536)

static void die(const char *what, int error) {
  if (error != 0)
    fprintf(stderr, "conch-sandbox-helper: %s: %s\n", what, strerror(error));
  else
    fprintf(stderr, "conch-sandbox-helper: %s\n", what);
  _exit(EXIT_SETUP);
}

static int landlock_abi(void) {
  long abi = syscall(SYS_LANDLOCK_CREATE_RULESET, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
  return abi < 0 ? -errno : (int)abi;
}

/* The file rights a kernel of this ABI knows. */
static uint64_t fs_rights(int abi) {
  uint64_t rights = FS_READ | FS_WRITE;
  if (abi < 2) rights &= ~FS_REFER;
  if (abi < 3) rights &= ~FS_TRUNCATE;
  if (abi < 5) rights &= ~FS_IOCTL_DEV;
  return rights;
}

static long parse_number(const char *text, const char *option) {
  char *end = NULL;
  errno = 0;
  long value = strtol(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || value < 0) {
    fprintf(stderr, "conch-sandbox-helper: %s: expected a number of 0 or more, received \"%s\"\n", option,
            text);
    _exit(EXIT_SETUP);
  }
  return value;
}

struct grant {
  const char *path;
  uint64_t access;
};

struct options {
  struct grant grants[MAX_RULES];
  int grant_count;
  int landlock;
  int min_abi;
  int net;
  int scope;
  int seccomp_fd;
  int report_fd;
  int limits_fd;
  int keep_fds;
  const char *cgroups[4];
  int cgroup_count;
  long rlimit_fsize;
  long rlimit_nproc;
  const char *tmp_limit;
  int limits_private;
  char **argv;
};

static void parse(int argc, char **argv, struct options *options) {
  memset(options, 0, sizeof *options);
  options->landlock = 1;
  options->min_abi = 1;
  options->seccomp_fd = -1;
  options->report_fd = -1;
  options->limits_fd = -1;
  options->keep_fds = 2;
  options->rlimit_fsize = -1;
  options->rlimit_nproc = -1;
  int i = 1;
  for (; i < argc; i++) {
    const char *arg = argv[i];
    if (strcmp(arg, "--") == 0) {
      i++;
      break;
    }
    int takes_value = strcmp(arg, "--read") == 0 || strcmp(arg, "--write") == 0 ||
                      strcmp(arg, "--seccomp") == 0 || strcmp(arg, "--report") == 0 ||
                      strcmp(arg, "--landlock-min-abi") == 0 || strcmp(arg, "--rlimit-fsize") == 0 ||
                      strcmp(arg, "--rlimit-nproc") == 0 || strcmp(arg, "--cgroup") == 0 ||
                      strcmp(arg, "--report-limits") == 0 || strcmp(arg, "--keep-fds") == 0 ||
                      strcmp(arg, "--tmp-limit") == 0;
    if (takes_value && i + 1 >= argc) {
      fprintf(stderr, "conch-sandbox-helper: %s: expected a value after it\n", arg);
      _exit(EXIT_SETUP);
    }
    if (strcmp(arg, "--read") == 0 || strcmp(arg, "--write") == 0) {
      if (options->grant_count >= MAX_RULES) die("too many --read and --write paths (at most 4096)", 0);
      const char *path = argv[++i];
      if (path[0] != '/') {
        fprintf(stderr, "conch-sandbox-helper: %s: expected an absolute path, received \"%s\"\n", arg,
                path);
        _exit(EXIT_SETUP);
      }
      options->grants[options->grant_count].path = path;
      options->grants[options->grant_count].access = arg[2] == 'r' ? FS_READ : FS_READ | FS_WRITE;
      options->grant_count++;
    } else if (strcmp(arg, "--cgroup") == 0) {
      if (options->cgroup_count >= 4) die("too many --cgroup directories (at most 4)", 0);
      const char *dir = argv[++i];
      if (dir[0] != '/') {
        fprintf(stderr, "conch-sandbox-helper: --cgroup: expected an absolute path, received \"%s\"\n", dir);
        _exit(EXIT_SETUP);
      }
      options->cgroups[options->cgroup_count++] = dir;
    } else if (strcmp(arg, "--tmp-limit") == 0) {
      options->tmp_limit = argv[++i];
    } else if (strcmp(arg, "--seccomp") == 0) {
      options->seccomp_fd = (int)parse_number(argv[++i], arg);
    } else if (strcmp(arg, "--keep-fds") == 0) {
      options->keep_fds = (int)parse_number(argv[++i], arg);
    } else if (strcmp(arg, "--report-limits") == 0) {
      options->limits_fd = (int)parse_number(argv[++i], arg);
    } else if (strcmp(arg, "--report") == 0) {
      options->report_fd = (int)parse_number(argv[++i], arg);
    } else if (strcmp(arg, "--landlock-min-abi") == 0) {
      options->min_abi = (int)parse_number(argv[++i], arg);
    } else if (strcmp(arg, "--rlimit-fsize") == 0) {
      options->rlimit_fsize = parse_number(argv[++i], arg);
    } else if (strcmp(arg, "--rlimit-nproc") == 0) {
      options->rlimit_nproc = parse_number(argv[++i], arg);
    } else if (strcmp(arg, "--limits-private") == 0) {
      options->limits_private = 1;
    } else if (strcmp(arg, "--landlock-net") == 0) {
      options->net = 1;
    } else if (strcmp(arg, "--landlock-scope") == 0) {
      options->scope = 1;
    } else if (strcmp(arg, "--no-landlock") == 0) {
      options->landlock = 0;
    } else {
      fprintf(stderr, "conch-sandbox-helper: unknown option \"%s\"\n", arg);
      _exit(EXIT_SETUP);
    }
  }
  if (i >= argc) die("expected a program after --", 0);
  options->argv = argv + i;
}

/* Reads the whole seccomp program from `fd` (raw struct sock_filter entries) and closes it. */
static struct sock_fprog_ read_filter(int fd) {
  static unsigned char buffer[MAX_FILTER_BYTES];
  size_t length = 0;
  for (;;) {
    if (length == sizeof buffer) die("the seccomp program is too long", 0);
    ssize_t got = read(fd, buffer + length, sizeof buffer - length);
    if (got < 0) {
      if (errno == EINTR) continue;
      die("reading the seccomp program", errno);
    }
    if (got == 0) break;
    length += (size_t)got;
  }
  close(fd);
  if (length == 0 || length % sizeof(struct sock_filter_) != 0)
    die("the seccomp program is empty or not whole instructions", 0);
  struct sock_fprog_ program = {(unsigned short)(length / sizeof(struct sock_filter_)),
                                (struct sock_filter_ *)buffer};
  return program;
}

/*
 * No capability survives into the command (a root caller's, or one in a user namespace): Landlock does
 * not cover what they allow (a file's mode, owner, attributes). The bounding set is emptied where this
 * process may, the ambient set cleared, and the effective, permitted and inheritable sets set to none;
 * whatever is left is checked, and the command does not run with any.
 */
static void drop_capabilities(void) {
  for (int cap = 0; cap < 64; cap++) {
    if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno != EINVAL && errno != EPERM)
      die("prctl(PR_CAPBSET_DROP)", errno);
  }
  prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
  struct cap_header_ header = {LINUX_CAPABILITY_VERSION_3_, 0};
  struct cap_data_ data[2];
  memset(data, 0, sizeof data);
  if (syscall(SYS_CAPSET_ARCH, &header, data) != 0) die("capset", errno);
  FILE *status = fopen("/proc/self/status", "re");
  if (status == NULL) die("reading /proc/self/status to check the capabilities", errno);
  char line[256];
  int clear = 0;
  while (fgets(line, sizeof line, status) != NULL) {
    if (strncmp(line, "CapEff:", 7) == 0) clear = strtoull(line + 7, NULL, 16) == 0;
  }
  fclose(status);
  if (!clear) die("capabilities are left after dropping them all", 0);
}

/* Applies the rlimits, the Landlock ruleset, no_new_privs and the seccomp program: this process only. */
static void confine(const struct options *options, const struct sock_fprog_ *filter) {
  if (options->rlimit_fsize >= 0) {
    struct rlimit limit = {(rlim_t)options->rlimit_fsize, (rlim_t)options->rlimit_fsize};
    if (setrlimit(RLIMIT_FSIZE, &limit) != 0) die("setrlimit(RLIMIT_FSIZE)", errno);
  }
  if (options->rlimit_nproc >= 0) {
    struct rlimit limit = {(rlim_t)options->rlimit_nproc, (rlim_t)options->rlimit_nproc};
    if (setrlimit(RLIMIT_NPROC, &limit) != 0) die("setrlimit(RLIMIT_NPROC)", errno);
  }
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) die("prctl(PR_SET_NO_NEW_PRIVS)", errno);
  if (options->landlock) drop_capabilities();
  if (options->landlock) {
    int abi = landlock_abi();
    if (abi < 0) die("Landlock is not available (landlock_create_ruleset)", -abi);
    if (abi < options->min_abi) {
      fprintf(stderr, "conch-sandbox-helper: Landlock ABI %d is older than the %d these rules need\n", abi,
              options->min_abi);
      _exit(EXIT_SETUP);
    }
    if (options->net && abi < 4) die("Landlock before ABI 4 cannot restrict TCP", 0);
    if (options->scope && abi < 6) die("Landlock before ABI 6 cannot scope signals", 0);
    uint64_t handled = fs_rights(abi);
    struct ruleset_attr attr = {handled, options->net ? NET_BIND_TCP | NET_CONNECT_TCP : 0,
                                options->scope ? SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL : 0};
    size_t size = abi >= 6 ? sizeof attr : abi >= 4 ? 2 * sizeof(uint64_t) : sizeof(uint64_t);
    int ruleset = (int)syscall(SYS_LANDLOCK_CREATE_RULESET, &attr, size, 0);
    if (ruleset < 0) die("landlock_create_ruleset", errno);
    for (int i = 0; i < options->grant_count; i++) {
      const struct grant *grant = &options->grants[i];
      /* No symbolic link anywhere on the way: a grant must land on the path listed, never on what a
       * link made since the rules were found points to (a link to / would grant everything). */
      struct open_how_ how = {O_PATH | O_CLOEXEC, 0, RESOLVE_NO_SYMLINKS_};
      int fd = (int)syscall(SYS_OPENAT2_, AT_FDCWD, grant->path, &how, sizeof how);
      if (fd < 0) {
        /* Gone, or a link now, since the rules were made: nothing to grant (fewer rights, never more). */
        if (errno == ENOENT || errno == ENOTDIR || errno == ELOOP) continue;
        fprintf(stderr, "conch-sandbox-helper: opening %s for a rule: %s\n", grant->path, strerror(errno));
        _exit(EXIT_SETUP);
      }
      struct stat info;
      if (fstat(fd, &info) != 0) die("fstat", errno);
      uint64_t access = grant->access & handled;
      if (!S_ISDIR(info.st_mode)) access &= FS_FILE_RIGHTS;
      struct path_beneath_attr rule = {access, fd};
      if (access != 0 && syscall(SYS_LANDLOCK_ADD_RULE, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0) != 0) {
        fprintf(stderr, "conch-sandbox-helper: landlock_add_rule for %s: %s\n", grant->path, strerror(errno));
        _exit(EXIT_SETUP);
      }
      close(fd);
    }
    if (syscall(SYS_LANDLOCK_RESTRICT_SELF, ruleset, 0) != 0) die("landlock_restrict_self", errno);
    close(ruleset);
  }
  if (filter != NULL && prctl(PR_SET_SECCOMP_, SECCOMP_MODE_FILTER_, filter, 0, 0) != 0)
    die("installing the seccomp program", errno);
}

static pid_t command_pid = -1;

static void pass_on(int signal) {
  if (command_pid > 0) kill(command_pid, signal);
}

/* The children of this process (the command's leftovers end up here: this is their subreaper). */
static int children(pid_t *out, int max) {
  char path[64];
  snprintf(path, sizeof path, "/proc/self/task/%d/children", (int)getpid());
  FILE *file = fopen(path, "re");
  if (file == NULL) return -1;
  int count = 0;
  int pid;
  while (count < max && fscanf(file, "%d", &pid) == 1) out[count++] = pid;
  fclose(file);
  return count;
}

static void process_name(pid_t pid, char *name, size_t size) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/comm", (int)pid);
  name[0] = '\0';
  FILE *file = fopen(path, "re");
  if (file == NULL) return;
  if (fgets(name, (int)size, file) == NULL) name[0] = '\0';
  fclose(file);
  name[strcspn(name, "\n")] = '\0';
}

#define MAX_LEFT 4096

/*
 * Kills what the command left, writing each to `report` once: a process is first stopped (so a fork
 * loop cannot outrun the kill), its name read, then every stopped one is killed; its children come to
 * this process as it dies, and are found in the next round.
 */
/* Whether `pid` has already ended (a zombie, or on its way out): not something the command left running. */
static int has_ended(pid_t pid) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
  FILE *file = fopen(path, "re");
  if (file == NULL) return 1;
  char line[512];
  int ended = 1;
  if (fgets(line, sizeof line, file) != NULL) {
    /* The state follows the name in parentheses, which may itself hold ") ". */
    char *close = strrchr(line, ')');
    ended = close == NULL || close[1] == '\0' || close[2] == 'Z' || close[2] == 'X';
  }
  fclose(file);
  return ended;
}

static void kill_leftovers(int report) {
  static pid_t reported[MAX_LEFT];
  int reported_count = 0;
  /* A child may be ending just as the command does (a pipeline's last writer, ssh's ProxyCommand whose
   * exit was what ended the command): a few milliseconds to finish on its own before anything counts as
   * left behind. Nothing that means to stay outlives that. */
  for (int wait = 0; wait < 5; wait++) {
    while (waitpid(-1, NULL, WNOHANG) > 0) {
    }
    pid_t left[1];
    if (children(left, 1) <= 0) return;
    struct timespec pause = {0, 10 * 1000 * 1000};
    nanosleep(&pause, NULL);
  }
  for (int round = 0; round < 10000; round++) {
    while (waitpid(-1, NULL, WNOHANG) > 0) {
    }
    pid_t found[512];
    int count = children(found, 512);
    if (count <= 0) return;
    for (int i = 0; i < count; i++) kill(found[i], SIGSTOP);
    for (int i = 0; i < count; i++) {
      int seen = 0;
      for (int j = 0; j < reported_count; j++) seen |= reported[j] == found[i];
      if (!seen && has_ended(found[i])) seen = 1;
      if (!seen && reported_count < MAX_LEFT) {
        reported[reported_count++] = found[i];
        char name[64];
        process_name(found[i], name, sizeof name);
        if (report >= 0) dprintf(report, "%d %s\n", (int)found[i], name[0] == '\0' ? "?" : name);
      }
      kill(found[i], SIGKILL);
    }
    for (int i = 0; i < count; i++) waitpid(found[i], NULL, 0);
  }
}

/*
 * Closes every descriptor above `keep_fds` but the report ones: what the caller inherited without
 * close-on-exec (an IDE's pipe, a shell's `exec 240<dir`) must reach neither the command nor this
 * process, whose descriptors the command could otherwise open through /proc/PID/fd.
 */
static void close_inherited(const struct options *options) {
  DIR *dir = opendir("/proc/self/fd");
  if (dir == NULL) die("listing /proc/self/fd to close inherited descriptors", errno);
  int own = dirfd(dir);
  int found[1024];
  int count = 0;
  struct dirent *entry;
  while ((entry = readdir(dir)) != NULL && count < 1024) {
    if (entry->d_name[0] < '0' || entry->d_name[0] > '9') continue;
    int fd = atoi(entry->d_name);
    if (fd == own || fd <= options->keep_fds || fd == options->report_fd || fd == options->limits_fd) continue;
    found[count++] = fd;
  }
  closedir(dir);
  if (count == 1024) die("too many inherited descriptors to close", 0);
  for (int i = 0; i < count; i++) close(found[i]);
}

/* Moves this process into each group (before any fork: everything the command starts is counted). */
static void join_cgroups(const struct options *options) {
  for (int i = 0; i < options->cgroup_count; i++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/cgroup.procs", options->cgroups[i]);
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) {
      fprintf(stderr, "conch-sandbox-helper: joining %s: %s\n", options->cgroups[i], strerror(errno));
      _exit(EXIT_SETUP);
    }
    char pid[32];
    int length = snprintf(pid, sizeof pid, "%d\n", (int)getpid());
    if (write(fd, pid, (size_t)length) != length) {
      fprintf(stderr, "conch-sandbox-helper: joining %s: %s\n", options->cgroups[i], strerror(errno));
      _exit(EXIT_SETUP);
    }
    close(fd);
  }
}

/* The number after `key ` in a cgroup file of "key value" lines, or 0. */
static long cgroup_count_of(const char *dir, const char *file, const char *key) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, file);
  FILE *stream = fopen(path, "re");
  if (stream == NULL) return 0;
  char line[256];
  long value = 0;
  size_t key_length = strlen(key);
  while (fgets(line, sizeof line, stream) != NULL) {
    if (strncmp(line, key, key_length) == 0 && line[key_length] == ' ') value = strtol(line + key_length + 1, NULL, 10);
  }
  fclose(stream);
  return value;
}

/* Says which limits the kernel enforced, then kills what is left in the groups and removes them. */
/* The first number in a cgroup file (a limit: memory.max, memory.limit_in_bytes, pids.max), or -1. */
static long long cgroup_value(const char *dir, const char *file) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, file);
  FILE *stream = fopen(path, "re");
  if (stream == NULL) return -1;
  long long value = -1;
  if (fscanf(stream, "%lld", &value) != 1) value = -1;
  fclose(stream);
  return value;
}

#define TMPFS_MAGIC 0x01021994
/* A tmpfs at `dir` with no room left (less than 64 KiB, or no inode): the bound /tmp was filled. */
static void report_full_tmp(const char *dir, int report) {
  struct statfs fs;
  if (statfs(dir, &fs) != 0 || (unsigned long)fs.f_type != TMPFS_MAGIC) return;
  unsigned long long free_bytes = (unsigned long long)fs.f_bavail * (unsigned long long)fs.f_bsize;
  if (free_bytes >= 64 * 1024 && fs.f_ffree != 0) return;
  dprintf(report, "limit tmp %llu\n", (unsigned long long)fs.f_blocks * (unsigned long long)fs.f_bsize);
}

static void finish_cgroups(const struct options *options, int report) {
  long long memory = -1, processes = -1;
  for (int i = 0; i < options->cgroup_count; i++) {
    const char *dir = options->cgroups[i];
    /* v2's memory.events, v1's memory.oom_control: "oom_kill N". */
    if (cgroup_count_of(dir, "memory.events", "oom_kill") > 0) memory = cgroup_value(dir, "memory.max");
    if (cgroup_count_of(dir, "memory.oom_control", "oom_kill") > 0)
      memory = cgroup_value(dir, "memory.limit_in_bytes");
    /* v1 and v2's pids.events: "max N", forks refused at pids.max. */
    if (cgroup_count_of(dir, "pids.events", "max") > 0) processes = cgroup_value(dir, "pids.max");
  }
  /* "limit KIND N": the limit the kernel enforced, and its value (bytes, processes). */
  if (report >= 0 && memory != -1) dprintf(report, "limit memory %lld\n", memory);
  if (report >= 0 && processes != -1) dprintf(report, "limit processes %lld\n", processes);
  /* This process was never in the groups (its child joined them before exec): empty them, remove them.
   * cgroup v2 (Linux 5.14+) kills a whole group at once, a fork bomb's processes forking meanwhile
   * included; the loop below then only waits for them (and is the way on v1 and older kernels). */
  for (int i = 0; i < options->cgroup_count; i++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/cgroup.kill", options->cgroups[i]);
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) continue;
    if (write(fd, "1", 1) != 1) {
      /* Not supported here: the loop kills one by one. */
    }
    close(fd);
  }
  for (int round = 0; round < 100; round++) {
    int left = 0;
    for (int i = 0; i < options->cgroup_count; i++) {
      char path[4096];
      snprintf(path, sizeof path, "%s/cgroup.procs", options->cgroups[i]);
      FILE *stream = fopen(path, "re");
      if (stream == NULL) continue;
      int pid;
      while (fscanf(stream, "%d", &pid) == 1) {
        if (pid == getpid()) continue;
        kill(pid, SIGKILL);
        left = 1;
      }
      fclose(stream);
    }
    while (waitpid(-1, NULL, WNOHANG) > 0) {
    }
    if (!left) break;
    usleep(10000);
  }
  for (int i = 0; i < options->cgroup_count; i++) {
    for (int tries = 0; tries < 100 && rmdir(options->cgroups[i]) != 0 && errno == EBUSY; tries++) usleep(10000);
  }
}

int main(int argc, char **argv) {
  if (argc == 2 && strcmp(argv[1], "--probe") == 0) {
    int abi = landlock_abi();
    if (abi < 0) {
      printf("landlock-abi 0\n%s\n", strerror(-abi));
      return 0;
    }
    printf("landlock-abi %d\n", abi);
    return 0;
  }
  struct options options;
  parse(argc, argv, &options);

  struct sock_fprog_ filter;
  int has_filter = options.seccomp_fd >= 0;
  if (has_filter) filter = read_filter(options.seccomp_fd);
  if (options.report_fd >= 0 && fcntl(options.report_fd, F_SETFD, FD_CLOEXEC) != 0)
    die("the --report descriptor", errno);
  if (options.limits_private && options.limits_fd >= 0 && fcntl(options.limits_fd, F_SETFD, FD_CLOEXEC) != 0)
    die("the --report-limits descriptor", errno);
  close_inherited(&options);

  if (options.report_fd < 0 && options.cgroup_count == 0 && options.limits_fd < 0) {
    confine(&options, has_filter ? &filter : NULL);
    execvp(options.argv[0], options.argv);
    fprintf(stderr, "conch-sandbox-helper: cannot run %s: %s\n", options.argv[0], strerror(errno));
    _exit(errno == ENOENT ? 127 : 126);
  }

  /* Dies with whoever started it (Conch), as bwrap's --die-with-parent does; the command then dies with
   * this process (below), and bwrap with its parent. */
  pid_t starter = getppid();
  if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0) die("prctl(PR_SET_PDEATHSIG)", errno);
  if (getppid() != starter) _exit(EXIT_SETUP);
  if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0) die("prctl(PR_SET_CHILD_SUBREAPER)", errno);
  /* The command runs with this process's uid: it must not read this process's descriptors or memory
   * through /proc (not dumpable: that takes CAP_SYS_PTRACE, which the command does not hold). */
  if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) die("prctl(PR_SET_DUMPABLE)", errno);
  /* Signals arriving before the fork are passed on once there is someone to pass them to. */
  sigset_t passed, previous;
  sigemptyset(&passed);
  int forwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
  for (size_t i = 0; i < sizeof forwarded / sizeof forwarded[0]; i++) sigaddset(&passed, forwarded[i]);
  sigprocmask(SIG_BLOCK, &passed, &previous);
  pid_t child = fork();
  if (child < 0) die("fork", errno);
  if (child == 0) {
    sigprocmask(SIG_SETMASK, &previous, NULL);
    pid_t helper = getppid();
    if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0) die("prctl(PR_SET_PDEATHSIG)", errno);
    if (getppid() != helper) _exit(EXIT_SETUP);
    /* Only the command is counted in the groups, from before its exec; this process never joins. */
    join_cgroups(&options);
    confine(&options, has_filter ? &filter : NULL);
    execvp(options.argv[0], options.argv);
    fprintf(stderr, "conch-sandbox-helper: cannot run %s: %s\n", options.argv[0], strerror(errno));
    _exit(errno == ENOENT ? 127 : 126);
  }
  command_pid = child;
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = pass_on;
  for (size_t i = 0; i < sizeof forwarded / sizeof forwarded[0]; i++) sigaction(forwarded[i], &action, NULL);
  sigprocmask(SIG_SETMASK, &previous, NULL);

  int status = 0;
  for (;;) {
    pid_t done = waitpid(-1, &status, 0);
    if (done == child) break;
    if (done < 0 && errno != EINTR) die("waitpid", errno);
  }
  command_pid = -1;
  kill_leftovers(options.report_fd);
  int limits_report = options.report_fd >= 0 ? options.report_fd : options.limits_fd;
  finish_cgroups(&options, limits_report);
  /* Killed by SIGXFSZ itself (an exit status of 153 proves nothing: any command can exit so), under a
   * file size limit this process holds (its own, or inherited from a helper in front of bwrap). */
  struct rlimit fsize = {RLIM_INFINITY, RLIM_INFINITY};
  if (options.rlimit_fsize >= 0) fsize.rlim_cur = (rlim_t)options.rlimit_fsize;
  else if (getrlimit(RLIMIT_FSIZE, &fsize) != 0) fsize.rlim_cur = RLIM_INFINITY;
  if (limits_report >= 0 && WIFSIGNALED(status) && WTERMSIG(status) == SIGXFSZ && fsize.rlim_cur != RLIM_INFINITY)
    dprintf(limits_report, "limit file %llu\n", (unsigned long long)fsize.rlim_cur);
  if (limits_report >= 0 && options.tmp_limit != NULL) report_full_tmp(options.tmp_limit, limits_report);
  if (options.report_fd >= 0) close(options.report_fd);
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  /* Ended by a signal: end the same way, so whoever waits for this process sees it. */
  int signal_number = WTERMSIG(status);
  signal(signal_number, SIG_DFL);
  sigset_t only;
  sigemptyset(&only);
  sigaddset(&only, signal_number);
  sigprocmask(SIG_UNBLOCK, &only, NULL);
  raise(signal_number);
  return 128 + signal_number;
}
