// The floor of `make bench-vm`: the least a daemon that reads each frame as it arrives
// can cost. One epoll_wait and one read per wake-up, frames counted, nothing recognized,
// nothing run. Its CPU ticks over the bench stream are the kernel's and the wake-ups'
// share, which no reader of every frame goes under; set against lisgd's in the same boot
// they bound the live ratio from below (BENCHMARKS.md, row "the floor").
//
// With BATCH_MS > 0 it sleeps that long after each wake-up before reading, so that the
// frames of that interval are read together: what reading a movement in batches would
// save, at the price of that much latency on every frame.
//
//   floor-reader DEVNODE [BATCH_MS]      (until SIGTERM; prints its frame count)
#include <errno.h>
#include <fcntl.h>
#include <linux/input.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stopping;
static void stop(int signal_number) { (void)signal_number; stopping = 1; }

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: floor-reader DEVNODE [BATCH_MS|block]\n");
    return 2;
  }
  int blocking = argc > 2 && strcmp(argv[2], "block") == 0;
  long batch_ms = argc > 2 && !blocking ? strtol(argv[2], NULL, 10) : 0;
  int device = open(argv[1], O_RDONLY | (blocking ? 0 : O_NONBLOCK) | O_CLOEXEC);
  if (device < 0) {
    perror(argv[1]);
    return 1;
  }
  int clock = CLOCK_MONOTONIC;
  ioctl(device, EVIOCSCLOCKID, &clock);  // the clock gestured asks for too
  struct sigaction action = {.sa_handler = stop};  // no SA_RESTART: the wait returns EINTR
  sigaction(SIGTERM, &action, NULL);
  sigaction(SIGINT, &action, NULL);
  struct input_event events[256];
  unsigned long frames = 0, wakeups = 0;
  if (blocking) {
    while (!stopping) {
      ssize_t bytes = read(device, events, sizeof events);
      if (bytes < 0) {
        if (errno == EINTR) continue;
        perror("read");
        return 1;
      }
      wakeups++;
      for (size_t i = 0; i < (size_t)bytes / sizeof events[0]; i++)
        if (events[i].type == EV_SYN && events[i].code == SYN_REPORT) frames++;
    }
    printf("floor-reader: %lu frames in %lu wake-ups\n", frames, wakeups);
    return 0;
  }
  int poller = epoll_create1(EPOLL_CLOEXEC);
  struct epoll_event interest = {.events = EPOLLIN, .data.fd = device};
  if (poller < 0 || epoll_ctl(poller, EPOLL_CTL_ADD, device, &interest) < 0) {
    perror("epoll");
    return 1;
  }

  struct timespec batch = {.tv_sec = batch_ms / 1000, .tv_nsec = (batch_ms % 1000) * 1000000};
  while (!stopping) {
    struct epoll_event ready;
    int count = epoll_wait(poller, &ready, 1, -1);
    if (count < 0) {
      if (errno == EINTR) continue;
      perror("epoll_wait");
      return 1;
    }
    wakeups++;
    if (batch_ms > 0) nanosleep(&batch, NULL);
    ssize_t bytes = read(device, events, sizeof events);
    if (bytes < 0) {
      if (errno == EAGAIN || errno == EINTR) continue;
      perror("read");
      return 1;
    }
    for (size_t i = 0; i < (size_t)bytes / sizeof events[0]; i++)
      if (events[i].type == EV_SYN && events[i].code == SYN_REPORT) frames++;
  }
  printf("floor-reader: %lu frames in %lu wake-ups\n", frames, wakeups);
  return 0;
}
