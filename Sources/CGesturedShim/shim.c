#include "CGesturedShim.h"

#include <errno.h>
#include <linux/input.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/ioctl.h>

int gestured_evdev_grab(int fd, int grab) {
  return ioctl(fd, EVIOCGRAB, grab ? 1 : 0) == 0 ? 0 : -errno;
}

struct gestured_log_target {
  gestured_log_handler handler;
  void *context;
};

static void gestured_log_trampoline(const struct libevdev *dev, enum libevdev_log_priority priority,
                                    void *data, const char *file, int line, const char *func,
                                    const char *format, va_list args) {
  (void)dev;
  (void)file;
  (void)line;
  (void)func;
  gestured_log_handler handler = (gestured_log_handler)data;
  char message[1024];
  vsnprintf(message, sizeof message, format, args);
  if (handler) handler((int)priority, message, NULL);
}

void gestured_evdev_set_log_handler(struct libevdev *dev, gestured_log_handler handler,
                                    void *context) {
  (void)context;
  libevdev_set_device_log_function(dev, gestured_log_trampoline, LIBEVDEV_LOG_INFO,
                                   (void *)handler);
}
