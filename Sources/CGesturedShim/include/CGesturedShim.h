#ifndef GESTURED_SHIM_H
#define GESTURED_SHIM_H

#include <libevdev/libevdev.h>
#include <spawn.h>

/* Only what Swift cannot call directly lives here; each function says why. */

/* EVIOCGRAB is a function-like ioctl macro (_IOW) and ioctl(2) is variadic: Swift imports
 * neither. (libevdev_grab() does the same for a libevdev handle; this one works on a bare fd.)
 * Returns 0 or -errno. */
int gestured_evdev_grab(int fd, int grab);

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

/* posix_spawn_file_actions_addclosefrom_np() is declared only under _GNU_SOURCE, which
 * Swift's Glibc module does not define, so Swift cannot see it. Adds "close every fd >=
 * `lowest`" to `actions`, so an action never inherits the daemon's device or socket fds.
 * Returns 0 or an errno value, as posix_spawn_file_actions_* do. */
int gestured_spawn_file_actions_close_from(posix_spawn_file_actions_t *actions, int lowest);

#endif
