#ifndef GESTURED_SHIM_H
#define GESTURED_SHIM_H

#include <libevdev/libevdev.h>

/* Only what Swift cannot call directly lives here; each function says why. */

/* EVIOCGRAB is a function-like ioctl macro (_IOW), which Swift does not import.
 * Returns 0 or -errno. */
int gestured_evdev_grab(int fd, int grab);

/* libevdev's log callback receives a va_list, which Swift cannot format portably.
 * This installs a C trampoline that formats the message with vsnprintf and hands the
 * finished line to `handler`. `handler` must be safe to call from any libevdev call. */
typedef void (*gestured_log_handler)(int priority, const char *message, void *context);
void gestured_evdev_set_log_handler(struct libevdev *dev, gestured_log_handler handler,
                                    void *context);

#endif
