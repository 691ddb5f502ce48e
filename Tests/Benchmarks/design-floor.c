// The floor of gestured's design for the keys and live figures of `make bench-vm`: the
// least two processes can cost that read a panel as gestured does and write a key, or run
// a command, per swipe as it does, with nothing recognized beyond a right swipe and nothing
// checked.
//
// A "launcher" makes a uinput keyboard, starts a "reader" on its own CPU (both kept there,
// as gestured keeps its two; the reader is the same executable started again with
// `__recognizer`, as gestured starts its recognizer, so that bench-vm finds it the same
// way), and at each datagram from it writes the alt+left chord and a log line. The reader
// opens the panel twice, as gestured reads at contact changes: a doorbell masked to keys and
// ABS_MT_TRACKING_ID wakes it at landings and lifts, the moves are read in batches at a
// timer while a contact is down, and a lift with the contact right of where it landed sends
// one datagram. The doorbell's mask and the hold on one CPU are gestured's own (its C shim,
// linked in), so that the floor cannot drift from the daemon. Set against lisgd and
// gestured in the same boot, it shows how much of gestured's CPU is its design's and how
// much its code's.
//
// With a COMMAND, the launcher runs it at each datagram instead of writing the chord, as
// gestured runs a `run:` action: `/bin/sh -c COMMAND` started by the shim's
// gestured_spawn with an environment of gestured's size for a swipe and stdout and stderr
// on a pipe made once, a log line at its start and one at its exit, its exit watched
// through a pidfd and reaped, and the 30 s timeout armed at the start and cleared at the
// exit.
//
//   design-floor DEVNODE LOGFILE [COMMAND]   (until SIGTERM; the reader prints its counts)
//   design-floor __recognizer DEVNODE FD   (the reader, started by the above)
#define _GNU_SOURCE
#include "CGesturedShim.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/input.h>
#include <linux/uinput.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SLOTS 16

static volatile sig_atomic_t stopping;
static void stop(int signal_number) { (void)signal_number; stopping = 1; }

static void fail(const char *what) {
  perror(what);
  exit(1);
}

static int open_panel(const char *devnode) {
  int fd = open(devnode, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) fail(devnode);
  int clock = CLOCK_MONOTONIC;
  ioctl(fd, EVIOCSCLOCKID, &clock);
  return fd;
}

static void arm(int timer, long microseconds) {
  struct itimerspec when = {
      .it_value = {.tv_sec = microseconds / 1000000, .tv_nsec = (microseconds % 1000000) * 1000}};
  if (timerfd_settime(timer, 0, &when, NULL) != 0) fail("timerfd_settime");
}

// Waits for `poller`'s ready descriptors: how many, or 0 when a signal came first (the
// caller's loop then sees `stopping`).
static int wait_ready(int poller, struct epoll_event *ready, int capacity) {
  int count = epoll_wait(poller, ready, capacity, -1);
  if (count < 0 && errno != EINTR) fail("epoll_wait");
  return count < 0 ? 0 : count;
}

static int reader(const char *devnode, int channel) {
  int panel = open_panel(devnode);
  int doorbell = open_panel(devnode);
  if (gestured_evdev_mask_to_contact_changes(doorbell) != 0) fail("EVIOCSMASK");
  int timer = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
  int poller = epoll_create1(EPOLL_CLOEXEC);
  if (timer < 0 || poller < 0) fail("timerfd/epoll");
  struct epoll_event bell = {.events = EPOLLIN | EPOLLET, .data.fd = doorbell};
  struct epoll_event tick = {.events = EPOLLIN, .data.fd = timer};
  if (epoll_ctl(poller, EPOLL_CTL_ADD, doorbell, &bell) != 0 ||
      epoll_ctl(poller, EPOLL_CTL_ADD, timer, &tick) != 0)
    fail("epoll_ctl");

  int slot = 0, down = 0, armed = 0, lifted = 0;
  int active[SLOTS] = {0}, landed[SLOTS] = {0};
  long x[SLOTS] = {0}, start[SLOTS] = {0};
  unsigned long frames = 0, wakeups = 0, sent = 0;
  struct input_event events[128];
  while (!stopping) {
    struct epoll_event ready[2];
    int count = wait_ready(poller, ready, 2);
    if (count == 0) continue;
    wakeups++;
    for (int i = 0; i < count; i++) {
      if (ready[i].data.fd == timer) {
        uint64_t expirations;
        (void)!read(timer, &expirations, sizeof expirations);
        armed = 0;
      }
    }
    for (;;) {
      ssize_t bytes = read(panel, events, sizeof events);
      if (bytes <= 0) break;
      size_t n = (size_t)bytes / sizeof events[0];
      for (size_t i = 0; i < n; i++) {
        const struct input_event *e = &events[i];
        if (e->type == EV_ABS && e->code == ABS_MT_SLOT) {
          slot = e->value >= 0 && e->value < SLOTS ? e->value : 0;
        } else if (e->type == EV_ABS && e->code == ABS_MT_TRACKING_ID) {
          if (e->value < 0 && active[slot]) {
            active[slot] = 0;
            down--;
            lifted = lifted || x[slot] - start[slot] > 200;
          } else if (e->value >= 0 && !active[slot]) {
            active[slot] = 1;
            landed[slot] = 1;
            down++;
          }
        } else if (e->type == EV_ABS && e->code == ABS_MT_POSITION_X) {
          x[slot] = e->value;
          if (landed[slot]) start[slot] = e->value, landed[slot] = 0;
        } else if (e->type == EV_SYN && e->code == SYN_REPORT) {
          frames++;
          if (down == 0 && lifted) {
            uint64_t firing[4] = {1, (uint64_t)e->input_event_sec, (uint64_t)e->input_event_usec, sent};
            if (send(channel, firing, sizeof firing, 0) == (ssize_t)sizeof firing) sent++;
          }
          if (down == 0) lifted = 0;
        }
      }
      if (n < sizeof events / sizeof events[0]) break;
    }
    // The next batch of moves while a contact is down (gestured's longest interval), none
    // while none is.
    if (down > 0 && !armed) {
      arm(timer, 250000);
      armed = 1;
    } else if (down == 0 && armed) {
      arm(timer, 0);
      armed = 0;
    }
  }
  printf("design-floor: %lu frames in %lu wake-ups, %lu swipes sent\n", frames, wakeups, sent);
  return 0;
}

static int make_keyboard(void) {
  int fd = open("/dev/uinput", O_WRONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) fail("/dev/uinput");
  struct uinput_setup setup = {.id = {.bustype = BUS_VIRTUAL, .vendor = 1, .product = 1, .version = 1}};
  snprintf(setup.name, sizeof setup.name, "design-floor keyboard");
  if (ioctl(fd, UI_SET_EVBIT, EV_KEY) != 0 || ioctl(fd, UI_SET_EVBIT, EV_SYN) != 0 ||
      ioctl(fd, UI_SET_KEYBIT, KEY_LEFTALT) != 0 || ioctl(fd, UI_SET_KEYBIT, KEY_LEFT) != 0 ||
      ioctl(fd, UI_DEV_SETUP, &setup) != 0 || ioctl(fd, UI_DEV_CREATE) != 0)
    fail("uinput keyboard");
  return fd;
}

// The launcher with a command: until SIGTERM, runs it at each datagram on `channel`;
// returns how many exited.
static unsigned long commands(int poller, int channel, int log, const char *command) {
  // What gestured's environment holds for a swipe: PATH, the binding's four names, the
  // gesture's values.
  static char *const environment[] = {
      "GESTURED_BINDING=swipe", "GESTURED_DEVICE=gestured-touch panel",
      "GESTURED_DEVNODE=/dev/input/event4", "GESTURED_DIRECTION=right", "GESTURED_DX=0.3000",
      "GESTURED_DY=0.0000", "GESTURED_FINGERS=1", "GESTURED_GESTURE=swipe",
      "GESTURED_PROFILE=default", "GESTURED_X=0.6500", "GESTURED_Y=0.5000",
      "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", NULL};
  char *const arguments[] = {"/bin/sh", "-c", (char *)command, NULL};
  int output[2];
  if (pipe2(output, O_CLOEXEC | O_NONBLOCK) != 0) fail("pipe2");
  // Above 2, as gestured_spawn takes them.
  int out_read = fcntl(output[0], F_DUPFD_CLOEXEC, 3), out_write = fcntl(output[1], F_DUPFD_CLOEXEC, 3);
  close(output[0]);
  close(output[1]);
  struct epoll_event readable = {.events = EPOLLIN, .data.fd = out_read};
  int timeout = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
  struct epoll_event expiry = {.events = EPOLLIN, .data.fd = timeout};
  if (timeout < 0 || epoll_ctl(poller, EPOLL_CTL_ADD, out_read, &readable) != 0 ||
      epoll_ctl(poller, EPOLL_CTL_ADD, timeout, &expiry) != 0)
    fail("epoll_ctl");
  static const char started[] = "<6>[swipe-right] started echo R\n";
  static const char exited[] = "<6>[swipe-right] exited 0\n";
  unsigned long exits = 0;
  int running = 0;
  while (!stopping) {
    struct epoll_event ready[4];
    int count = wait_ready(poller, ready, 4);
    for (int i = 0; i < count; i++) {
      int fd = ready[i].data.fd;
      if (fd == channel) {
        uint64_t firing[4];
        if (recv(channel, firing, sizeof firing, 0) <= 0) return exits;
        struct gestured_spawn_result spawned =
            gestured_spawn("/bin/sh", arguments, environment, out_write, out_write, NULL, NULL);
        if (spawned.step) fail(spawned.step);
        int pidfd = gestured_pidfd_open(spawned.pid);
        struct epoll_event exit_watch = {.events = EPOLLIN, .data.fd = pidfd};
        if (pidfd < 0 || epoll_ctl(poller, EPOLL_CTL_ADD, pidfd, &exit_watch) != 0) fail("pidfd");
        if (running++ == 0) arm(timeout, 30000000);
        (void)!write(log, started, sizeof started - 1);
      } else if (fd == out_read) {
        char bytes[512];
        while (read(out_read, bytes, sizeof bytes) > 0) continue;
      } else if (fd == timeout) {
        uint64_t expirations;
        (void)!read(timeout, &expirations, sizeof expirations);
      } else {  // a pidfd: its process exited
        siginfo_t status = {0};
        if (waitid(P_PIDFD, (id_t)fd, &status, WEXITED) == 0) exits++;
        close(fd);
        if (--running == 0) arm(timeout, 0);
        (void)!write(log, exited, sizeof exited - 1);
      }
    }
  }
  return exits;
}

int main(int argc, char **argv) {
  if (argc == 4 && strcmp(argv[1], "__recognizer") == 0) {
    struct sigaction action = {.sa_handler = stop};
    sigaction(SIGTERM, &action, NULL);
    return reader(argv[2], atoi(argv[3]));
  }
  if (argc < 3 || argc > 4) {
    fprintf(stderr, "usage: design-floor DEVNODE LOGFILE [COMMAND]\n");
    return 2;
  }
  const char *command = argc == 4 ? argv[3] : NULL;
  if (gestured_keep_to_one_cpu() < 0) fail("keep to one CPU");
  struct sigaction action = {.sa_handler = stop};  // no SA_RESTART: the wait returns EINTR
  sigaction(SIGTERM, &action, NULL);
  sigaction(SIGINT, &action, NULL);
  int log = open(argv[2], O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (log < 0) fail(argv[2]);
  int keyboard = command ? -1 : make_keyboard();
  int pair[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0) fail("socketpair");
  pid_t child = fork();
  if (child < 0) fail("fork");
  if (child == 0) {
    char channel[16];
    snprintf(channel, sizeof channel, "%d", pair[1]);
    fcntl(pair[1], F_SETFD, 0);  // the one descriptor the reader inherits
    execl("/proc/self/exe", argv[0], "__recognizer", argv[1], channel, (char *)NULL);
    fail("exec");
  }
  close(pair[1]);
  int poller = epoll_create1(EPOLL_CLOEXEC);
  struct epoll_event interest = {.events = EPOLLIN, .data.fd = pair[0]};
  if (poller < 0 || epoll_ctl(poller, EPOLL_CTL_ADD, pair[0], &interest) != 0) fail("epoll");
  if (command) {
    unsigned long ran = commands(poller, pair[0], log, command);
    kill(child, SIGTERM);
    waitpid(child, NULL, 0);
    printf("design-floor: %lu commands run\n", ran);
    return 0;
  }
  // The chord as gestured writes it: pressed in order, released in reverse, one SYN_REPORT
  // per change.
  struct input_event chord[8];
  memset(chord, 0, sizeof chord);
  const unsigned short codes[4] = {KEY_LEFTALT, KEY_LEFT, KEY_LEFT, KEY_LEFTALT};
  const int values[4] = {1, 1, 0, 0};
  for (int i = 0; i < 4; i++) {
    chord[2 * i] = (struct input_event){.type = EV_KEY, .code = codes[i], .value = values[i]};
    chord[2 * i + 1] = (struct input_event){.type = EV_SYN, .code = SYN_REPORT};
  }
  static const char line[] = "<6>[swipe-right] key alt+left\n";
  unsigned long written = 0;
  while (!stopping) {
    struct epoll_event ready;
    if (wait_ready(poller, &ready, 1) == 0) continue;
    uint64_t firing[4];
    ssize_t bytes = recv(pair[0], firing, sizeof firing, 0);
    if (bytes <= 0) break;
    if (write(keyboard, chord, sizeof chord) == (ssize_t)sizeof chord) written++;
    (void)!write(log, line, sizeof line - 1);
  }
  kill(child, SIGTERM);
  waitpid(child, NULL, 0);
  printf("design-floor: %lu chords written\n", written);
  ioctl(keyboard, UI_DEV_DESTROY);
  return 0;
}
