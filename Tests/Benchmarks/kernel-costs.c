// What the guest's kernel charges for the steps a firing takes, in the boot of
// `make bench-vm` (BENCHMARKS.md, row "kernel costs"): one wake-up of a process blocked in
// epoll_wait by a datagram from another (the recognizer waking the launcher), the calls into
// code such a wake-up makes first (on pages of their own, or packed on one; from many call
// sites, or from one in a loop), a key chord written to a uinput keyboard (a `key:`
// action), a log line appended to a file, and a command started with vfork as gestured
// does (its child held to the parent's CPU until the exec, and for comparison started
// anywhere) or with fork as lisgd does. Each figure is
// the CPU time (CLOCK_PROCESS_CPUTIME_ID) of the process doing it, per operation, the
// median of ROUNDS rounds; set against gestured's and lisgd's ticks per firing they show
// how much of each firing is the kernel's under this VM.
//
//   kernel-costs SCRATCH_DIR [ROUNDS]     (prints one line per operation)
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <linux/uinput.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { OPERATIONS_PER_ROUND = 40, MAXIMUM_ROUNDS = 15 };

static long long cpu_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec * 1000000000LL + t.tv_nsec;
}

// Operations in the bench come apart in time: the CPU is idle between them, as here.
static void pause_ms(int ms) {
  struct timespec t = {0, ms * 1000000L};
  nanosleep(&t, NULL);
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static void report(const char *what, double *per_round_us, int rounds) {
  qsort(per_round_us, rounds, sizeof *per_round_us, by_value);
  printf("%s: median %.1f us per operation (rounds of %d: %.1f to %.1f)\n", what, per_round_us[rounds / 2],
         OPERATIONS_PER_ROUND, per_round_us[0], per_round_us[rounds - 1]);
}

// Times `operation` OPERATIONS_PER_ROUND times a round, each after `pause` ms idle, and
// reports the median round's CPU time per operation.
static void time_rounds(const char *what, int rounds, int pause, void (*operation)(void *), void *context) {
  double per_round[MAXIMUM_ROUNDS];
  for (int round = 0; round < rounds; round++) {
    long long spent = 0;
    for (int i = 0; i < OPERATIONS_PER_ROUND; i++) {
      pause_ms(pause);
      long long start = cpu_ns();
      operation(context);
      spent += cpu_ns() - start;
    }
    per_round[round] = spent / 1000.0 / OPERATIONS_PER_ROUND;
  }
  report(what, per_round, rounds);
}

// Rounds of OPERATIONS_PER_ROUND datagrams, 5 ms apart, to a child blocked in epoll_wait.
// Per round and operation: the child's CPU for each wake-up (epoll_wait returning, one
// recv) or, given `after_wake`, for that step alone after each wake-up; and, given
// `sender`, the sender's CPU per send.
static void datagram_rounds(int rounds, double *receiver, double *sender, void (*after_wake)(void *), void *context) {
  for (int round = 0; round < rounds; round++) {
    int pair[2], result[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0 || pipe(result) != 0) exit(1);
    pid_t child = fork();
    if (child == 0) {
      int epoll = epoll_create1(EPOLL_CLOEXEC);
      struct epoll_event watched = {.events = EPOLLIN};
      epoll_ctl(epoll, EPOLL_CTL_ADD, pair[1], &watched);
      char buffer[256];
      long long spent = 0, start = cpu_ns();
      for (int i = 0; i < OPERATIONS_PER_ROUND; i++) {
        struct epoll_event ready;
        epoll_wait(epoll, &ready, 1, -1);
        recv(pair[1], buffer, sizeof buffer, MSG_DONTWAIT);
        if (after_wake == NULL) continue;
        long long step = cpu_ns();
        after_wake(context);
        spent += cpu_ns() - step;
      }
      if (after_wake == NULL) spent = cpu_ns() - start;
      (void)!write(result[1], &spent, sizeof spent);
      _exit(0);
    }
    char message[165] = {1};
    long long sent = 0;
    for (int i = 0; i < OPERATIONS_PER_ROUND; i++) {
      pause_ms(5);
      long long start = cpu_ns();
      send(pair[0], message, sizeof message, 0);
      sent += cpu_ns() - start;
    }
    long long spent = 0;
    (void)!read(result[0], &spent, sizeof spent);
    waitpid(child, NULL, 0);
    receiver[round] = spent / 1000.0 / OPERATIONS_PER_ROUND;
    if (sender != NULL) sender[round] = sent / 1000.0 / OPERATIONS_PER_ROUND;
    close(pair[0]), close(pair[1]), close(result[0]), close(result[1]);
  }
}

static void wake_ups(int rounds) {
  double receiver[MAXIMUM_ROUNDS], sender[MAXIMUM_ROUNDS];
  datagram_rounds(rounds, receiver, sender, NULL, NULL);
  report("wake-up of a process in epoll_wait by a datagram, the woken side (epoll_wait, recv)", receiver, rounds);
  report("the same, the sending side (send)", sender, rounds);
}

// What a wake-up's first calls into code cost: after each wake-up by a datagram, CALLS small
// functions are called once each, every one on a page of its own or all packed on one page.
// The difference between the two is what spreading a wake-up's code over pages costs: a CPU
// that dropped its page translations while another process ran walks the page tables
// again for each page.
enum { CALLS = 64, PAGE = 4096 };
typedef int (*small_function)(int);

static void call_all(void *functions) {
  static volatile int sum;
  for (int call = 0; call < CALLS; call++) sum += ((small_function *)functions)[call](call);
}

#if defined(__x86_64__)
// Each pair of ways to call code after a wake-up: the receiver's CPU for that step alone,
// one line for each.
static void after_wakes(int rounds, const char *const names[2], void (*run)(void *), void *const contexts[2]) {
  for (int way = 0; way < 2; way++) {
    double per_round[MAXIMUM_ROUNDS];
    datagram_rounds(rounds, per_round, NULL, run, contexts[way]);
    report(names[way], per_round, rounds);
  }
}

// The small function every call reaches: lea eax, [rdi + rdi*2 + 3]; ret
static const unsigned char small_body[] = {0x8d, 0x44, 0x7f, 0x03, 0xc3};

// Writes `call target` (E8 and a 32-bit displacement) at `at`; returns what follows it.
static unsigned char *emit_call(unsigned char *at, const unsigned char *target) {
  *at++ = 0xe8;
  int32_t displacement = (int32_t)(target - (at + 4));
  memcpy(at, &displacement, 4);
  return at + 4;
}
#endif

static void code_touches(int rounds) {
#if defined(__x86_64__)
  // CALLS pages with one function each, and one more page with all of them.
  size_t length = (size_t)(CALLS + 1) * PAGE;
  unsigned char *code = mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (code == MAP_FAILED) exit(1);
  small_function spread[CALLS], packed[CALLS];
  for (int i = 0; i < CALLS; i++) {
    // Each at its own offset in its page, so that their jump targets do not collide in the
    // emulator's cache, which is indexed by the address's low bits.
    unsigned char *alone = code + (size_t)i * PAGE + i * 64;
    unsigned char *together = code + (size_t)CALLS * PAGE + i * 64;
    memcpy(alone, small_body, sizeof small_body);
    memcpy(together, small_body, sizeof small_body);
    spread[i] = (small_function)(void *)alone;
    packed[i] = (small_function)(void *)together;
  }
  if (mprotect(code, length, PROT_READ | PROT_EXEC) != 0) exit(1);
  static const char *const names[] = {"64 calls a wake-up makes first, each function on a page of its own",
                                      "the same 64 calls, the functions packed on one page"};
  after_wakes(rounds, names, call_all, (void *const[]){spread, packed});
  munmap(code, length);
#endif
}

// What a wake-up pays for each call site it runs: after each wake-up by a datagram, one
// small function is called SITES times, either from SITES call sites one after another
// (as straight-line code calls the runtime's retain, release and the like) or from one
// call site in a loop. Both execute the same instructions; the call sites differ in how
// many places a return goes back to.
enum { SITES = 1024 };

static void run_code(void *entry) { ((void (*)(void))entry)(); }

static void call_sites(int rounds) {
#if defined(__x86_64__)
  // One page for the callee and the loop, then the SITES calls and a ret.
  size_t length = PAGE + (size_t)SITES * 5 + 1;
  unsigned char *code = mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (code == MAP_FAILED) exit(1);
  memcpy(code, small_body, sizeof small_body);
  // The loop: mov ecx, SITES; again: call callee; dec ecx; jnz again; ret
  unsigned char *loop = code + 64, *at = loop;
  *at++ = 0xb9;
  int32_t count = SITES;
  memcpy(at, &count, 4), at += 4;
  unsigned char *again = at;
  at = emit_call(at, code);
  *at++ = 0xff, *at++ = 0xc9;
  *at++ = 0x75, *at = (unsigned char)(again - (at + 1)), at++;
  *at = 0xc3;
  // The call sites: call callee, SITES times, then ret.
  unsigned char *sites = code + PAGE;
  at = sites;
  for (int site = 0; site < SITES; site++) at = emit_call(at, code);
  *at = 0xc3;
  if (mprotect(code, length, PROT_READ | PROT_EXEC) != 0) exit(1);
  static const char *const names[] = {"1024 calls a wake-up makes from 1024 call sites (one callee)",
                                      "the same 1024 calls from one call site in a loop"};
  after_wakes(rounds, names, run_code, (void *const[]){sites, loop});
  munmap(code, length);
#endif
}

static void emit(struct input_event *events, int *count, int type, int code, int value) {
  memset(&events[*count], 0, sizeof events[*count]);
  events[*count].type = type;
  events[*count].code = code;
  events[*count].value = value;
  (*count)++;
}

struct chord {
  int device;
  struct input_event events[8];
  int count;
};

static void write_chord(void *context) {
  struct chord *chord = context;
  (void)!write(chord->device, chord->events, chord->count * sizeof chord->events[0]);
}

// alt+left as gestured writes it: one write, one SYN_REPORT per change.
static void key_chords(int rounds) {
  int device = open("/dev/uinput", O_WRONLY | O_NONBLOCK | O_CLOEXEC);
  if (device < 0) {
    printf("key chord: no /dev/uinput\n");
    return;
  }
  ioctl(device, UI_SET_EVBIT, EV_KEY);
  ioctl(device, UI_SET_EVBIT, EV_SYN);
  for (int key = KEY_ESC; key < KEY_MAX && key < 256; key++) ioctl(device, UI_SET_KEYBIT, key);
  struct uinput_setup setup = {.id = {.bustype = BUS_VIRTUAL}};
  strcpy(setup.name, "kernel-costs keyboard");
  if (ioctl(device, UI_DEV_SETUP, &setup) != 0 || ioctl(device, UI_DEV_CREATE) != 0) {
    printf("key chord: cannot make the keyboard\n");
    close(device);
    return;
  }
  sleep(1);
  struct chord chord = {.device = device};
  emit(chord.events, &chord.count, EV_KEY, KEY_LEFTALT, 1), emit(chord.events, &chord.count, EV_SYN, SYN_REPORT, 0);
  emit(chord.events, &chord.count, EV_KEY, KEY_LEFT, 1), emit(chord.events, &chord.count, EV_SYN, SYN_REPORT, 0);
  emit(chord.events, &chord.count, EV_KEY, KEY_LEFT, 0), emit(chord.events, &chord.count, EV_SYN, SYN_REPORT, 0);
  emit(chord.events, &chord.count, EV_KEY, KEY_LEFTALT, 0), emit(chord.events, &chord.count, EV_SYN, SYN_REPORT, 0);
  time_rounds("key chord alt+left written to a uinput keyboard (one write of 8 events)", rounds, 5, write_chord, &chord);
  ioctl(device, UI_DEV_DESTROY);
  close(device);
}

static void write_log_line(void *context) {
  static const char line[] = "[default/swipe] key alt+left\n";
  (void)!write(*(int *)context, line, sizeof line - 1);
}

static void log_lines(const char *directory, int rounds) {
  char path[4096];
  snprintf(path, sizeof path, "%s/kernel-costs.log", directory);
  int file = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
  time_rounds("log line appended to a file in the scratch directory", rounds, 2, write_log_line, &file);
  close(file);
}

// The parent's share of starting `sh -c 'echo R >> FILE'` and collecting it: with vfork and
// a pidfd, the child held to the parent's CPU until its exec (gestured) or started where the
// kernel puts it; or with fork and SIGCHLD ignored (lisgd, whose children reap themselves).
enum spawn_way { VFORK_ON_PARENTS_CPU, VFORK_ANYWHERE, FORK_ANYWHERE };

static pid_t start_child(enum spawn_way way, char **arguments, char **environment) {
  cpu_set_t saved, here;
  int pinned = 0;
  if (way == VFORK_ON_PARENTS_CPU && sched_getaffinity(0, sizeof saved, &saved) == 0) {
    CPU_ZERO(&here);
    CPU_SET(sched_getcpu(), &here);
    pinned = sched_setaffinity(0, sizeof here, &here) == 0;
  }
  pid_t child = way == FORK_ANYWHERE ? fork() : vfork();
  if (child == 0) {
    if (pinned) sched_setaffinity(0, sizeof saved, &saved);
    setsid();
    execve(arguments[0], arguments, environment);
    _exit(127);
  }
  if (pinned) sched_setaffinity(0, sizeof saved, &saved);
  return child;
}

static void spawns(const char *directory, int rounds) {
  char command[4200];
  snprintf(command, sizeof command, "echo R >> %s/kernel-costs.out", directory);
  char *arguments[] = {"/bin/sh", "-c", command, NULL};
  char *environment[] = {"PATH=/usr/bin:/bin", NULL};
  static const char *names[] = {
      [VFORK_ON_PARENTS_CPU] = "command started with vfork on the parent's CPU, watched with a pidfd and reaped (the parent's share)",
      [VFORK_ANYWHERE] = "the same, the child started where the kernel puts it (the parent's share)",
      [FORK_ANYWHERE] = "command started with fork (the parent's share)",
  };
  for (enum spawn_way way = VFORK_ON_PARENTS_CPU; way <= FORK_ANYWHERE; way++) {
    double per_round[MAXIMUM_ROUNDS];
    for (int round = 0; round < rounds; round++) {
      long long spent = 0;
      for (int i = 0; i < OPERATIONS_PER_ROUND; i++) {
        pause_ms(20);
        long long start = cpu_ns();
        pid_t child = start_child(way, arguments, environment);
        int pidfd = way != FORK_ANYWHERE ? (int)syscall(SYS_pidfd_open, child, 0) : -1;
        spent += cpu_ns() - start;
        if (pidfd >= 0) {
          int epoll = epoll_create1(EPOLL_CLOEXEC);
          struct epoll_event watched = {.events = EPOLLIN};
          epoll_ctl(epoll, EPOLL_CTL_ADD, pidfd, &watched);
          epoll_wait(epoll, &watched, 1, -1);
          close(epoll);
          start = cpu_ns();
          waitpid(child, NULL, 0);
          close(pidfd);
          spent += cpu_ns() - start;
        } else {
          waitpid(child, NULL, 0);
        }
      }
      per_round[round] = spent / 1000.0 / OPERATIONS_PER_ROUND;
    }
    report(names[way], per_round, rounds);
  }
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: kernel-costs SCRATCH_DIR [ROUNDS]\n");
    return 2;
  }
  int rounds = argc > 2 ? atoi(argv[2]) : 5;
  if (rounds < 1 || rounds > MAXIMUM_ROUNDS) rounds = 5;
  setvbuf(stdout, NULL, _IOLBF, 0);
  wake_ups(rounds);
  code_touches(rounds);
  call_sites(rounds);
  key_chords(rounds);
  log_lines(argv[1], rounds);
  spawns(argv[1], rounds);
  return 0;
}
