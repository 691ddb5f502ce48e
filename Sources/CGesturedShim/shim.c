/* For pipe2() and close_range(). */
#define _GNU_SOURCE

#include "CGesturedShim.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <linux/input.h>
#include <linux/uinput.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sched.h>
#include <link.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <unistd.h>

static int gestured_unmap_segments(struct dl_phdr_info *info, size_t size, void *unmapped) {
  (void)size;
  /* The executable (no name) and the libraries it loaded (a path); not the vDSO. */
  if (info->dlpi_name != NULL && info->dlpi_name[0] != '\0' && info->dlpi_name[0] != '/') return 0;
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  for (ElfW(Half) i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *header = &info->dlpi_phdr[i];
    if (header->p_type != PT_LOAD || (header->p_flags & PF_W)) continue;
    uintptr_t start = (info->dlpi_addr + header->p_vaddr) / page * page;
    uintptr_t end = (info->dlpi_addr + header->p_vaddr + header->p_memsz + page - 1) / page * page;
    if (end <= start) continue;
    if (madvise((void *)start, end - start, MADV_DONTNEED) != 0) continue;
    *(size_t *)unmapped += end - start;
  }
  return 0;
}

size_t gestured_unmap_executable_image(void) {
  size_t unmapped = 0;
  dl_iterate_phdr(gestured_unmap_segments, &unmapped);
  return unmapped;
}

int gestured_evdev_grab(int fd, int grab) {
  return ioctl(fd, EVIOCGRAB, grab ? 1 : 0) == 0 ? 0 : -errno;
}

/* The kernel reads a mask as an array of longs (bits_from_user), which a byte array would
 * match only on a little-endian machine. */
#define GESTURED_LONG_BITS (8 * sizeof(unsigned long))
#define GESTURED_LONGS(count) (((count) + GESTURED_LONG_BITS - 1) / GESTURED_LONG_BITS)
#define GESTURED_SET_BIT(bits, n) ((bits)[(n) / GESTURED_LONG_BITS] |= 1UL << ((n) % GESTURED_LONG_BITS))

/* Every key passes: keys come only at landings and lifts. */
int gestured_evdev_mask_to(int fd, const unsigned short *axes, size_t axis_count) {
  /* The types and codes let through; every other type and code is filtered. */
  unsigned long types[GESTURED_LONGS(EV_CNT)] = {0};
  unsigned long key_bits[GESTURED_LONGS(KEY_CNT)];
  unsigned long axis_bits[GESTURED_LONGS(ABS_CNT)] = {0};
  memset(key_bits, 0xff, sizeof key_bits);
  for (size_t i = 0; i < axis_count; i++) {
    if (axes[i] < ABS_CNT) GESTURED_SET_BIT(axis_bits, axes[i]);
  }
  GESTURED_SET_BIT(types, EV_KEY);
  GESTURED_SET_BIT(types, EV_ABS);
  struct input_mask masks[] = {
      /* Type 0 (EV_SYN) stands for the mask of types; EV_SYN itself is never filtered. */
      {.type = 0, .codes_size = sizeof types, .codes_ptr = (uint64_t)(uintptr_t)types},
      {.type = EV_KEY, .codes_size = sizeof key_bits, .codes_ptr = (uint64_t)(uintptr_t)key_bits},
      {.type = EV_ABS, .codes_size = sizeof axis_bits, .codes_ptr = (uint64_t)(uintptr_t)axis_bits},
  };
  for (size_t i = 0; i < sizeof masks / sizeof masks[0]; i++) {
    if (ioctl(fd, EVIOCSMASK, &masks[i]) != 0) return -errno;
  }
  return 0;
}

int gestured_evdev_mask_to_contact_changes(int fd) {
  const unsigned short tracking_id = ABS_MT_TRACKING_ID;
  return gestured_evdev_mask_to(fd, &tracking_id, 1);
}

int gestured_uinput_set_phys(int fd, const char *phys) {
  return ioctl(fd, UI_SET_PHYS, phys) == 0 ? 0 : -errno;
}

static void gestured_log_trampoline(const struct libevdev *dev,
                                    enum libevdev_log_priority priority, void *data,
                                    const char *file, int line, const char *func,
                                    const char *format, va_list args) {
  (void)dev;
  (void)file;
  (void)line;
  (void)func;
  const struct gestured_log_target *target = data;
  if (target == NULL || target->handler == NULL) return;
  char message[1024];
  int length = vsnprintf(message, sizeof message, format, args);
  if (length < 0) return;
  size_t end = strlen(message);
  while (end > 0 && (message[end - 1] == '\n' || message[end - 1] == '\r')) message[--end] = '\0';
  target->handler(target->context, (int)priority, message);
}

void gestured_evdev_set_log_target(struct libevdev *dev, const struct gestured_log_target *target,
                                   int max_priority) {
  if (target == NULL) {
    libevdev_set_device_log_function(dev, NULL, LIBEVDEV_LOG_ERROR, NULL);
    return;
  }
  libevdev_set_device_log_function(dev, gestured_log_trampoline,
                                   (enum libevdev_log_priority)max_priority, (void *)target);
}

int gestured_pipe_cloexec(int fds[2]) { return pipe2(fds, O_CLOEXEC) == 0 ? 0 : -errno; }

int gestured_pidfd_open(pid_t pid) {
#ifdef SYS_pidfd_open
  long fd = syscall(SYS_pidfd_open, pid, 0);
  return fd >= 0 ? (int)fd : -errno;
#else
  (void)pid;
  return -ENOSYS;
#endif
}

int gestured_open_path(int directory, const char *name) {
  int fd = openat(directory, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
  return fd >= 0 ? fd : -errno;
}

/* Where the vfork child reports a failure. The child shares the parent's memory until it
 * execs or exits, so the parent reads these after vfork returns. */
struct child_report {
  volatile int error;
  const char *volatile step;
};

__attribute__((noreturn)) static void child_fail(struct child_report *report, const char *step) {
  report->error = errno;
  report->step = step;
  _exit(127);
}

/* The file system as the recognizer sees it (gestured_child_setup's
 * private_read_only_file_system); returns the step that failed, or NULL. A kernel without
 * mount_setattr (before 5.12) gets only its root mount read-only, one without proc's
 * subset= (before 5.8) keeps the full /proc, read-only: the recognizer says so in its log. */
static const char *confine_file_system(void) {
  if (unshare(CLONE_NEWNS) != 0) return "unshare CLONE_NEWNS";
  /* Mounts made later on the host (a USB stick) still show up, ours never leave. */
  if (mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL) != 0) return "mount MS_SLAVE /";
  static const char *const emptied[] = {"/home", "/root", "/run/user", "/tmp", "/var/tmp"};
  for (size_t i = 0; i < sizeof emptied / sizeof emptied[0]; i++) {
    if (mount("tmpfs", emptied[i], "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=0755,size=4k") != 0 &&
        errno != ENOENT)
      return "mount tmpfs";
  }
  if (mount("/dev/null", "/dev/uinput", NULL, MS_BIND, NULL) != 0 && errno != ENOENT) return "hide /dev/uinput";
  if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, "hidepid=invisible,subset=pid") != 0 &&
      errno != EINVAL)
    return "mount proc";
  struct mount_attr read_only = {.attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID};
  if (mount_setattr(AT_FDCWD, "/", AT_RECURSIVE, &read_only, sizeof read_only) == 0) return NULL;
  if (errno != ENOSYS) return "mount_setattr read-only";
  if (mount(NULL, "/", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID, NULL) != 0) return "remount / read-only";
  return NULL;
}

/* Runs in the vfork child: only async-signal-safe calls and raw system calls, no allocation,
 * no return (the parent's stack frame is ours until exec). */
__attribute__((noreturn)) static void child_exec(struct child_report *report, const char *path,
                                                 char *const argv[], char *const envp[],
                                                 int stdout_fd, int stderr_fd,
                                                 const struct gestured_credentials *credentials,
                                                 const struct gestured_child_setup *setup,
                                                 const cpu_set_t *affinity) {
  /* A new session (and process group) without a controlling terminal: the daemon's, if it
   * has one, must not be reachable (TIOCSTI) from a command. */
  if (setsid() < 0) child_fail(report, "setsid");

  /* Every disposition back to default (the daemon may ignore or handle some); sigaction
   * refuses SIGKILL, SIGSTOP and glibc's internal signals (32, 33), as posix_spawn leaves
   * those alone too. */
  struct sigaction default_action;
  memset(&default_action, 0, sizeof default_action);
  default_action.sa_handler = SIG_DFL;
  sigemptyset(&default_action.sa_mask);
  for (int signal_number = 1; signal_number < NSIG; signal_number++) {
    if (signal_number == SIGKILL || signal_number == SIGSTOP) continue;
    sigaction(signal_number, &default_action, NULL);
  }

  int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (null_fd < 0) child_fail(report, "open /dev/null");
  if (null_fd == 0) {
    if (fcntl(0, F_SETFD, 0) != 0) child_fail(report, "stdin");
  } else if (dup2(null_fd, 0) < 0) {
    child_fail(report, "stdin");
  }
  if (stdout_fd >= 0 && dup2(stdout_fd, 1) < 0) child_fail(report, "stdout");
  if (stderr_fd >= 0 && dup2(stderr_fd, 2) < 0) child_fail(report, "stderr");
  unsigned int first_closed = 3;
  if (setup != NULL && setup->inherited_count > 0) {
    /* Out of the way first (a source may be numbered 3, 4, …), then into place; dup2's copy
     * is not close-on-exec. */
    size_t count = setup->inherited_count;
    int moved[count];
    for (size_t i = 0; i < count; i++) {
      moved[i] = fcntl(setup->inherited[i], F_DUPFD_CLOEXEC, (int)(3 + count));
      if (moved[i] < 0) child_fail(report, "move an inherited descriptor");
    }
    for (size_t i = 0; i < count; i++)
      if (dup2(moved[i], (int)(3 + i)) < 0) child_fail(report, "inherit a descriptor");
    first_closed = (unsigned int)(3 + count);
  }
  if (close_range(first_closed, ~0U, 0) != 0) {
    /* Kernels before 5.9 lack close_range. The limit by a raw system call: sysconf is not
     * async-signal-safe. */
    struct rlimit limit = {.rlim_cur = 1048576};
    syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, NULL, &limit);
    rlim_t open_max = limit.rlim_cur > 1048576 ? 1048576 : limit.rlim_cur;
    for (rlim_t fd = first_closed; fd < open_max; fd++) close((int)fd);
  }

  if (setup != NULL && setup->private_read_only_file_system) {
    const char *failed = confine_file_system();
    if (failed != NULL) child_fail(report, failed);
  }
  if (setup != NULL) {
    /* Before the uid is dropped: a limit the daemon raised must come down while we may. */
    for (size_t i = 0; i < setup->limit_count; i++) {
      const struct gestured_resource_limit *limit = &setup->limits[i];
      struct {
        uint64_t soft, hard;
      } value = {limit->soft, limit->hard};
      if (syscall(SYS_prlimit64, 0, limit->resource, &value, NULL) != 0) child_fail(report, "setrlimit");
    }
    if (setup->file_mode_mask >= 0) umask((mode_t)setup->file_mode_mask);
  }
  if (credentials != NULL) {
    const char *failed = gestured_set_credentials(credentials);
    if (failed != NULL) child_fail(report, failed);
  }
  /* As the user, so that a home they cannot enter is not entered for them. */
  if (setup != NULL && setup->directory != NULL && chdir(setup->directory) != 0 && chdir("/") != 0)
    child_fail(report, "chdir");

  if (setup != NULL && setup->no_new_privileges && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
    child_fail(report, "prctl PR_SET_NO_NEW_PRIVS");

  /* The command runs where the daemon may run. Should that fail (the CPUs went offline in
   * between), it runs on the one CPU: slower, not wrong. */
  if (affinity != NULL) (void)sched_setaffinity(0, sizeof *affinity, affinity);

  sigset_t no_signals;
  sigemptyset(&no_signals);
  sigprocmask(SIG_SETMASK, &no_signals, NULL);
  execve(path, argv, envp);
  child_fail(report, "execve");
}

/* Set once, by gestured_keep_to_one_cpu before any action starts: the CPUs actions run on
 * while the daemon keeps to one. */
static cpu_set_t action_affinity;
static int keeps_to_one_cpu;

/* The calling thread on `cpu` alone; 0 or -1 with errno, as sched_setaffinity. */
static int run_only_on(int cpu) {
  cpu_set_t here;
  CPU_ZERO(&here);
  CPU_SET(cpu, &here);
  return sched_setaffinity(0, sizeof here, &here);
}

int gestured_keep_to_one_cpu(void) {
  cpu_set_t allowed;
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return -errno;
  int cpu = sched_getcpu();
  if (cpu < 0) return -errno;
  if (cpu >= CPU_SETSIZE) return -EINVAL;
  if (CPU_COUNT(&allowed) <= 1) return cpu;
  if (run_only_on(cpu) != 0) return -errno;
  action_affinity = allowed;
  keeps_to_one_cpu = 1;
  return cpu;
}

/* Back to `affinity`, or to every CPU if its CPUs went offline meanwhile: the daemon must
 * not stay on the CPU it took for a spawn. */
static void restore_affinity(const cpu_set_t *affinity) {
  if (sched_setaffinity(0, sizeof *affinity, affinity) == 0) return;
  cpu_set_t every_cpu;
  memset(&every_cpu, 0xff, sizeof every_cpu);
  (void)sched_setaffinity(0, sizeof every_cpu, &every_cpu);
}

struct gestured_spawn_result gestured_spawn(const char *path, char *const argv[],
                                            char *const envp[], int stdout_fd, int stderr_fd,
                                            const struct gestured_credentials *credentials,
                                            const struct gestured_child_setup *setup) {
  struct gestured_spawn_result result = {0, 0, NULL};
  struct child_report report = {0, NULL};

  /* The child starts on this thread's CPU, which the thread leaves idle while it waits for
   * the exec, rather than on another CPU woken for it; it takes the daemon's affinity back
   * before exec. Without a mask to restore (more CPUs than a cpu_set_t holds), it starts
   * wherever the kernel puts it. A daemon kept to one CPU is there already, and the child
   * takes the CPUs actions run on, unless it is the daemon's own helper. */
  cpu_set_t affinity;
  const cpu_set_t *child_affinity = NULL;
  int pinned = 0;
  if (keeps_to_one_cpu) {
    if (setup == NULL || !setup->stays_on_the_daemon_cpu) child_affinity = &action_affinity;
  } else {
    int cpu = sched_getcpu();
    if (cpu >= 0 && cpu < CPU_SETSIZE && sched_getaffinity(0, sizeof affinity, &affinity) == 0) {
      pinned = run_only_on(cpu) == 0;
      if (pinned) child_affinity = &affinity;
    }
  }

  /* Until its dispositions are reset, the child must not run one of our signal handlers:
   * it would run on our memory. So every signal stays blocked across vfork. */
  sigset_t every_signal, previous_mask;
  sigfillset(&every_signal);
  pthread_sigmask(SIG_SETMASK, &every_signal, &previous_mask);
  pid_t pid = vfork();
  if (pid == 0)
    child_exec(&report, path, argv, envp, stdout_fd, stderr_fd, credentials, setup, child_affinity);
  int vfork_error = errno;
  pthread_sigmask(SIG_SETMASK, &previous_mask, NULL);
  if (pinned) restore_affinity(&affinity);

  if (pid < 0) {
    result.error = -vfork_error;
    result.step = "vfork";
    return result;
  }
  /* On a failure the child has already called _exit: the caller reaps it. */
  result.pid = pid;
  result.error = -report.error;
  result.step = report.step;
  return result;
}

int gestured_eventfd(void) {
  int fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  return fd >= 0 ? fd : -errno;
}

int gestured_epoll_create(void) {
  int fd = epoll_create1(EPOLL_CLOEXEC);
  return fd >= 0 ? fd : -errno;
}

int gestured_epoll_add(int epoll_fd, int fd, uint64_t id, int edge_triggered) {
  struct epoll_event event = {.events = EPOLLIN | (edge_triggered ? EPOLLET : 0), .data.u64 = id};
  return epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &event) == 0 ? 0 : -errno;
}

int gestured_epoll_remove(int epoll_fd, int fd) {
  return epoll_ctl(epoll_fd, EPOLL_CTL_DEL, fd, NULL) == 0 ? 0 : -errno;
}

int gestured_epoll_wait(int epoll_fd, uint64_t *ids, int capacity, int timeout_ms) {
  struct epoll_event events[64];
  if (capacity > 64) capacity = 64;
  int count = epoll_wait(epoll_fd, events, capacity, timeout_ms);
  if (count < 0) return -errno;
  for (int i = 0; i < count; i++) ids[i] = events[i].data.u64;
  return count;
}

int gestured_timerfd_create(void) {
  int fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
  return fd >= 0 ? fd : -errno;
}

int gestured_timerfd_set(int fd, int64_t absolute_us) {
  struct itimerspec spec = {0};
  if (absolute_us >= 0) {
    /* A zero it_value would disarm: the earliest real deadline is 1 ns. */
    spec.it_value.tv_sec = absolute_us / 1000000;
    spec.it_value.tv_nsec = (long)(absolute_us % 1000000) * 1000;
    if (spec.it_value.tv_sec == 0 && spec.it_value.tv_nsec == 0) spec.it_value.tv_nsec = 1;
  }
  return timerfd_settime(fd, TFD_TIMER_ABSTIME, &spec, NULL) == 0 ? 0 : -errno;
}

int gestured_signalfd_create(const int *signals, int count) {
  sigset_t set;
  sigemptyset(&set);
  for (int i = 0; i < count; i++) sigaddset(&set, signals[i]);
  int fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
  return fd >= 0 ? fd : -errno;
}

int gestured_signalfd_read(int fd) {
  struct signalfd_siginfo info;
  ssize_t count = read(fd, &info, sizeof info);
  if (count < 0) return -errno;
  if (count != (ssize_t)sizeof info) return -EIO;
  return (int)info.ssi_signo;
}

int gestured_timerfd_clear(int fd) {
  uint64_t expirations;
  ssize_t count = read(fd, &expirations, sizeof expirations);
  if (count < 0) return -errno;
  return count == sizeof expirations && expirations > 0;
}

int gestured_seqpacket_pair(int fds[2]) {
  return socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fds) == 0 ? 0 : -errno;
}

long gestured_seqpacket_send(int fd, const void *bytes, size_t length) {
  ssize_t sent = send(fd, bytes, length, MSG_DONTWAIT | MSG_NOSIGNAL);
  return sent >= 0 ? (long)sent : -errno;
}

long gestured_seqpacket_receive(int fd, void *buffer, size_t capacity) {
  ssize_t received = recv(fd, buffer, capacity, MSG_DONTWAIT | MSG_TRUNC);
  return received >= 0 ? (long)received : -errno;
}

/* Room for the most descriptors one message passes, aligned as a cmsghdr. */
#define GESTURED_MAXIMUM_PASSED 64
union gestured_control {
  struct cmsghdr header;
  char bytes[CMSG_SPACE(sizeof(int) * GESTURED_MAXIMUM_PASSED)];
};

long gestured_seqpacket_send_descriptors(int fd, const void *bytes, size_t length, const int *descriptors,
                                         size_t count) {
  if (count > GESTURED_MAXIMUM_PASSED) return -EINVAL;
  struct iovec data = {.iov_base = (void *)bytes, .iov_len = length};
  union gestured_control control;
  memset(&control, 0, sizeof control);
  struct msghdr message = {.msg_iov = &data, .msg_iovlen = 1};
  if (count > 0) {
    message.msg_control = control.bytes;
    message.msg_controllen = CMSG_SPACE(sizeof(int) * count);
    struct cmsghdr *header = CMSG_FIRSTHDR(&message);
    header->cmsg_level = SOL_SOCKET;
    header->cmsg_type = SCM_RIGHTS;
    header->cmsg_len = CMSG_LEN(sizeof(int) * count);
    memcpy(CMSG_DATA(header), descriptors, sizeof(int) * count);
  }
  ssize_t sent = sendmsg(fd, &message, MSG_DONTWAIT | MSG_NOSIGNAL);
  return sent >= 0 ? (long)sent : -errno;
}

long gestured_seqpacket_receive_descriptors(int fd, void *buffer, size_t capacity, int *descriptors,
                                            size_t descriptor_capacity, size_t *count) {
  *count = 0;
  if (descriptor_capacity > GESTURED_MAXIMUM_PASSED) descriptor_capacity = GESTURED_MAXIMUM_PASSED;
  struct iovec data = {.iov_base = buffer, .iov_len = capacity};
  union gestured_control control;
  struct msghdr message = {
      .msg_iov = &data,
      .msg_iovlen = 1,
      .msg_control = control.bytes,
      .msg_controllen = CMSG_SPACE(sizeof(int) * descriptor_capacity),
  };
  ssize_t received = recvmsg(fd, &message, MSG_DONTWAIT | MSG_TRUNC | MSG_CMSG_CLOEXEC);
  if (received < 0) return -errno;
  size_t taken = 0;
  for (struct cmsghdr *header = CMSG_FIRSTHDR(&message); header; header = CMSG_NXTHDR(&message, header)) {
    if (header->cmsg_level != SOL_SOCKET || header->cmsg_type != SCM_RIGHTS) continue;
    size_t passed = (header->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    for (size_t index = 0; index < passed; index++) {
      int descriptor;
      memcpy(&descriptor, CMSG_DATA(header) + index * sizeof(int), sizeof(int));
      if (taken < descriptor_capacity && !(message.msg_flags & MSG_CTRUNC)) {
        descriptors[taken++] = descriptor;
      } else {
        close(descriptor);
      }
    }
  }
  *count = taken;
  return (long)received;
}

int gestured_unshare(int flags) { return unshare(flags) == 0 ? 0 : -errno; }

int gestured_no_new_privileges(void) { return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 ? 0 : -errno; }

int gestured_uinput_reset(int fd) { return ioctl(fd, UI_DEV_DESTROY) == 0 ? 0 : -errno; }
