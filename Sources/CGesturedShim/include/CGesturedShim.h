#ifndef GESTURED_SHIM_H
#define GESTURED_SHIM_H

#include <libevdev/libevdev.h>
/* malloc_trim(3): Glibc's Swift module does not include malloc.h. */
#include <malloc.h>
#include <stdint.h>
#include <stddef.h>
#include <sys/types.h>

/* Only what Swift cannot call directly lives here; each function says why. */

/* Unmaps the read-only segments (code and constants) of the executable and of the libraries
 * it loaded (MADV_DONTNEED); ExecutableImage in GesturedSystem says why. Why C:
 * dl_iterate_phdr(3), which finds the segments, does not import into Swift from link.h.
 * Returns the bytes unmapped. */
size_t gestured_unmap_executable_image(void);

/* EVIOCGRAB is a function-like ioctl macro (_IOW) and ioctl(2) is variadic: Swift imports
 * neither. (libevdev_grab() does the same for a libevdev handle; this one works on a bare fd.)
 * Returns 0 or -errno. */
int gestured_evdev_grab(int fd, int grab);

/* Makes evdev fd `fd` (a second open of a panel) a doorbell: EVIOCSMASK lets through only
 * keys (BTN_TOUCH, BTN_TOOL_*) and ABS_MT_TRACKING_ID, so the kernel wakes its reader only
 * for a frame in which a contact lands or lifts (evdev drops a SYN_REPORT that ends a frame
 * with nothing left in it), never for a frame of moves alone. Why C: EVIOCSMASK is a
 * function-like ioctl macro taking a struct input_mask, and ioctl(2) is variadic. Linux 4.4
 * and later; returns 0 or -errno (EINVAL or ENOTTY on a kernel without it). */
int gestured_evdev_mask_to_contact_changes(int fd);

/* Keeps back from evdev fd `fd` every event but EV_SYN, keys and the given axes
 * (EVIOCSMASK), so that a reader that uses only those neither wakes for nor copies the
 * rest. Why C: as for the doorbell above. Returns 0 or -errno. */
int gestured_evdev_mask_to(int fd, const unsigned short *axes, size_t axis_count);

/* UI_SET_PHYS on a /dev/uinput fd before its device is created: a function-like ioctl macro
 * with a string, which Swift cannot call. Returns 0 or -errno. */
int gestured_uinput_set_phys(int fd, const char *phys);
/* UI_DEV_DESTROY: the descriptor forgets its device (created or half set up) and can set up
 * a new one. Why C: the request number is a macro Swift does not import. Returns 0 or -errno. */
int gestured_uinput_reset(int fd);

/* Where libevdev's messages about one device go.
 *
 * libevdev hands its log callback a printf format and a va_list, which Swift cannot format
 * (CVarArg cannot be rebuilt from a C va_list). The shim's trampoline formats the message
 * with vsnprintf, drops the trailing newline and calls `handler` with `context` and the
 * finished line (at most 1023 bytes; longer messages are cut).
 *
 * The caller owns this struct: it must stay valid and unchanged until the device is freed
 * or another target is installed, because libevdev keeps only a pointer to it. */
struct gestured_log_target {
  void (*handler)(void *context, int priority, const char *message);
  void *context;
};

/* Sends `dev`'s messages at or above `max_priority` (LIBEVDEV_LOG_ERROR = 10,
 * LIBEVDEV_LOG_INFO = 20, LIBEVDEV_LOG_DEBUG = 30; larger is chattier) to `target`.
 * A NULL target removes the handler: messages go to libevdev's global handler again. */
void gestured_evdev_set_log_target(struct libevdev *dev, const struct gestured_log_target *target,
                                   int max_priority);

/* pipe2() is declared only under _GNU_SOURCE, which Swift's Glibc module does not define.
 * Creates a pipe with O_CLOEXEC on both ends (no window in which a concurrent spawn could
 * inherit it), so `fds` gets the read end, then the write end. Returns 0 or -errno. */
int gestured_pipe_cloexec(int fds[2]);

/* pidfd_open() (Linux 5.3) is declared in <sys/pidfd.h>, which Swift's Glibc module does not
 * include, and syscall(2) is variadic, so Swift can call neither. Returns a pidfd (close-on-exec,
 * readable once the process has exited) or -errno. */
int gestured_pidfd_open(pid_t pid);

/* openat(directory, name, O_PATH | O_NOFOLLOW | O_CLOEXEC): O_PATH is defined only under
 * _GNU_SOURCE, which Swift's Glibc module does not define. The descriptor names `name` itself
 * (a link is not followed), for fstat, lookups below it and readlinkat(fd, ""). Returns it or
 * -errno. */
int gestured_open_path(int directory, const char *name);

/* The outcome of gestured_spawn(): `step` is NULL on success, with `pid` the child's.
 * Otherwise `error` is -errno and `step` names the call that failed (a static
 * string); a `pid` > 0 then is a child that failed before exec and has exited, for the
 * caller to reap. */
struct gestured_spawn_result {
  pid_t pid;
  int error;
  const char *step;
};

#include "gestured_credentials.h"

/* A resource limit for the child, as prlimit64(2) takes it (RLIM_INFINITY is ~0). */
struct gestured_resource_limit {
  int resource;
  uint64_t soft;
  uint64_t hard;
};

/* The child's process state beyond its user: `limits` set before the credentials are taken,
 * then the umask (`file_mode_mask`, -1 keeps the daemon's), and after them `directory` as
 * its working directory (NULL keeps the daemon's; "/" when it cannot be entered). */
struct gestured_child_setup {
  const char *directory;
  int file_mode_mask;
  const struct gestured_resource_limit *limits;
  size_t limit_count;
  /* Descriptors the child keeps, as 3, 4, … in this order (the recognizer's channel and
   * /dev/uinput descriptors); NULL/0: none. */
  const int *inherited;
  size_t inherited_count;
  /* Nonzero: PR_SET_NO_NEW_PRIVS before exec, so that nothing it execs gains privileges. */
  int no_new_privileges;
  /* Nonzero (needs root, before the credentials are taken): a mount namespace of its own
   * in which every mount is read-only and nosuid, homes and temporary directories are empty
   * (/home, /root, /run/user, /tmp, /var/tmp), /proc shows only its own processes, and
   * /dev/uinput is /dev/null: what ProtectSystem=strict, ProtectHome, PrivateTmp,
   * ProtectProc=invisible with ProcSubset=pid and DeviceAllow give a unit. */
  int private_read_only_file_system;
  /* Nonzero: the child stays on the daemon's one CPU (gestured_keep_to_one_cpu) rather than
   * taking the CPUs actions run on: the recognizer, which the launcher wakes at each firing. */
  int stays_on_the_daemon_cpu;
};

/* Starts `path` with `argv` and exactly `envp`: the child leads its own session and process
 * group (no controlling terminal), has every signal at its default disposition and none
 * blocked, reads stdin from /dev/null, and inherits no descriptor above 2. `stdout_fd` and
 * `stderr_fd` become its stdout and stderr (-1 keeps the daemon's); pass descriptors above
 * 2. With `credentials` (NULL: the daemon's own user) it takes them before it execs, and
 * with `setup` (NULL: none) its limits, umask and directory. It runs its steps before exec
 * on the caller's CPU and execs with the caller's CPU affinity (after
 * gestured_keep_to_one_cpu: with the CPUs the daemon had before). Does not wait for the
 * child beyond its exec.
 *
 * Why C: Swift cannot call vfork (it returns twice) nor run code in the child between fork
 * and exec safely, and posix_spawn has no attribute for another uid/gid (glibc 2.36). vfork
 * rather than posix_spawn for the daemon's own user too: one way to start every action, and
 * each start costs the parent less (glibc's posix_spawn maps and unmaps a stack for the
 * child every time). The child calls setgroups/setresgid/
 * setresuid as raw system calls because glibc's wrappers broadcast credential changes to
 * every thread of the process, and after vfork those are the daemon's threads, not the
 * child's (gestured_credentials.h). */
struct gestured_spawn_result gestured_spawn(const char *path, char *const argv[],
                                            char *const envp[], int stdout_fd, int stderr_fd,
                                            const struct gestured_credentials *credentials,
                                            const struct gestured_child_setup *setup);

/* Keeps the calling thread, and so the threads and children it starts from now on, on the
 * CPU it runs on, when it may run on several: the launcher and the recognizer then wake
 * each other without waking a second CPU. Actions started afterwards by gestured_spawn run
 * on the CPUs allowed before. Returns that CPU, or -errno. Why C: cpu_set_t is handled
 * through the CPU_* macros, which Swift does not import. */
int gestured_keep_to_one_cpu(void);

/* A connected pair of AF_UNIX SOCK_SEQPACKET sockets, close-on-exec, in `fds`. Why C: glibc
 * declares the socket types as an enum that Swift imports as a struct, so SOCK_SEQPACKET
 * cannot be or'd with SOCK_CLOEXEC there. Returns 0 or -errno. */
int gestured_seqpacket_pair(int fds[2]);

/* Sends one datagram without blocking and without SIGPIPE (MSG_DONTWAIT | MSG_NOSIGNAL);
 * returns the bytes sent or -errno. */
long gestured_seqpacket_send(int fd, const void *bytes, size_t length);

/* Receives one datagram into `buffer` without blocking; returns its full length (larger than
 * `capacity` when it was cut short, MSG_TRUNC), 0 when the peer closed, or -errno. */
long gestured_seqpacket_receive(int fd, void *buffer, size_t capacity);

/* As gestured_seqpacket_send, with `count` descriptors (at most 64) passed along with the
 * datagram (SCM_RIGHTS): the launcher's /dev/uinput descriptors for a reload that makes a
 * profile forward. Why C: the control message is laid out with the CMSG_* macros, which
 * Swift does not import. Returns the bytes sent or -errno. */
long gestured_seqpacket_send_descriptors(int fd, const void *bytes, size_t length, const int *descriptors,
                                         size_t count);

/* As gestured_seqpacket_receive, taking the descriptors passed with the datagram
 * (close-on-exec) into `descriptors`, room for `capacity` (at most 64), and their number
 * into `*count`. When more came than there was room for (MSG_CTRUNC), every one received is
 * closed and `*count` is 0. Why C: as gestured_seqpacket_send_descriptors. Returns the
 * datagram's full length, 0 when the peer closed, or -errno. */
long gestured_seqpacket_receive_descriptors(int fd, void *buffer, size_t capacity, int *descriptors,
                                            size_t descriptor_capacity, size_t *count);

/* unshare(2), for `gestured __confinement-check` to show that namespaces are refused. Why C:
 * glibc declares unshare only under _GNU_SOURCE. Returns 0 or -errno. */
int gestured_unshare(int flags);

/* PR_SET_NO_NEW_PRIVS for the calling thread (and what it execs). Why C: prctl is variadic.
 * Returns 0 or -errno. */
int gestured_no_new_privileges(void);

/* One epoll set for every descriptor the daemon watches (signals, timers, the udev monitor,
 * devices, action output pipes, pidfds), waited on by the daemon's main thread itself
 * (EventMultiplexer.swift says why not through Dispatch sources). Why C: `struct
 * epoll_event` is packed on x86-64, a layout Swift does not import. Each call returns 0 (or
 * a count) or -errno. */
int gestured_epoll_create(void);
/* Watches `fd` for input; `id` comes back from gestured_epoll_wait. Level-triggered, or
 * with `edge_triggered` (EPOLLET) once per wake-up of the file, however much it holds. */
int gestured_epoll_add(int epoll_fd, int fd, uint64_t id, int edge_triggered);
int gestured_epoll_remove(int epoll_fd, int fd);
/* A non-blocking, close-on-exec eventfd (EventMultiplexer's wake-up for a serving thread of
 * its own). Why C: Swift's Glibc module does not import <sys/eventfd.h>. Returns the fd or
 * -errno. */
int gestured_eventfd(void);
/* Waits up to `timeout_ms` (-1: until one is ready), fills `ids` with up to `capacity`
 * (at most 64) ready ids and returns how many, 0 on timeout (-EINTR is the caller's to
 * retry). */
int gestured_epoll_wait(int epoll_fd, uint64_t *ids, int capacity, int timeout_ms);

/* A CLOCK_MONOTONIC timerfd (non-blocking, close-on-exec) for deadlines watched through the
 * same epoll set: rearming a Dispatch timer at every frame churns libdispatch's own timer
 * registrations, which crashed it in _dispatch_event_loop_drain here; an absolute timerfd
 * is also exactly the "time is CLOCK_MONOTONIC" the core's deadlines are stated in.
 * Why C: <sys/timerfd.h> is not part of Swift's Glibc module. Returns the fd or -errno. */
int gestured_timerfd_create(void);
/* Arms `fd` to expire at `absolute_us` on CLOCK_MONOTONIC (a past time expires at once), or
 * disarms it when `absolute_us` is negative. Returns 0 or -errno. */
int gestured_timerfd_set(int fd, int64_t absolute_us);
/* Consumes the expiries so that the level-triggered epoll set stops reporting them. Returns
 * 1 when the timer had expired, 0 when not (it was re-armed or disarmed after epoll saw it
 * ready: timerfd_settime drops pending expiries), or -errno (-EAGAIN is that same case). */
int gestured_timerfd_clear(int fd);

/* A signalfd (non-blocking, close-on-exec) for `signals`, so that signals arrive in the same
 * epoll set as everything else instead of through handlers or Dispatch signal sources. The
 * caller blocks those signals in every thread first (pthread_sigmask before any thread is
 * made): a blocked signal waits for the signalfd, an ignored one would be lost. Why C:
 * <sys/signalfd.h> is not part of Swift's Glibc module. Returns the fd or -errno. */
int gestured_signalfd_create(const int *signals, int count);
/* Reads one pending signal: its number, or -errno (-EAGAIN when none is pending). */
int gestured_signalfd_read(int fd);

#endif
