/* For posix_spawn_file_actions_addclosefrom_np(). */
#define _GNU_SOURCE

#include "CGesturedShim.h"

#include <errno.h>
#include <linux/input.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>

int gestured_evdev_grab(int fd, int grab) {
  return ioctl(fd, EVIOCGRAB, grab ? 1 : 0) == 0 ? 0 : -errno;
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

int gestured_spawn_file_actions_close_from(posix_spawn_file_actions_t *actions, int lowest) {
  return posix_spawn_file_actions_addclosefrom_np(actions, lowest);
}
