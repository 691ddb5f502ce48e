// make link-order: which of gestured's functions run, in both of its processes.
//
// Linked only into the build that `make link-order` runs in the VM, whose Swift code is
// compiled with `-sanitize-coverage=func,trace-pc-guard`: every function calls
// __sanitizer_cov_trace_pc_guard on entry. The first call of each writes one line to
// stderr, "link-order PID PHASE OFFSET", OFFSET being the function's address less the
// executable's load address (as `nm` gives it). The recognizer inherits the launcher's
// stderr and runs the same executable, so one log holds both processes' functions, told
// apart by their pids, and valgrind, which cannot run the root launcher, is not needed.
//
// SIGUSR2 starts the next phase: every function reports again at its next call, so the
// activity's phase lists every function the activity ran, not only those it ran first.
#include <signal.h>
#include <stdint.h>
#include <unistd.h>

// Defined by the linker at the ELF header, the first byte the executable maps.
extern const char __ehdr_start[];

static uint32_t *guards_start;
static uint32_t *guards_stop;
static volatile sig_atomic_t phase;

void __sanitizer_cov_trace_pc_guard_init(uint32_t *start, uint32_t *stop) {
  // Called by each object file's constructor with the same whole range: once is enough.
  if (start == stop || guards_start != 0) return;
  guards_start = start;
  guards_stop = stop;
  for (uint32_t *guard = start; guard < stop; guard++) *guard = 1;
}

static int append_number(char *line, int length, uintptr_t number, unsigned base) {
  char digits[24];
  int count = 0;
  do {
    digits[count++] = "0123456789abcdef"[number % base];
    number /= base;
  } while (number != 0);
  while (count > 0) line[length++] = digits[--count];
  return length;
}

void __sanitizer_cov_trace_pc_guard(uint32_t *guard) {
  if (*guard == 0) return;
  *guard = 0;
  uintptr_t offset = (uintptr_t)__builtin_return_address(0) - (uintptr_t)__ehdr_start;
  // Formatted by hand: nothing here may allocate or take a lock (it runs in every function,
  // malloc's callers included).
  char line[64] = "link-order ";
  int length = 11;
  length = append_number(line, length, (uintptr_t)getpid(), 10);
  line[length++] = ' ';
  line[length++] = (char)('0' + phase);
  line[length++] = ' ';
  length = append_number(line, length, offset, 16);
  line[length++] = '\n';
  ssize_t written = write(2, line, (size_t)length);
  (void)written;
}

static void next_phase(int signal_number) {
  (void)signal_number;
  phase = phase < 9 ? phase + 1 : 9;
  for (uint32_t *guard = guards_start; guard && guard < guards_stop; guard++) *guard = 1;
}

__attribute__((constructor)) static void install_next_phase(void) {
  struct sigaction action = {0};
  action.sa_handler = next_phase;
  action.sa_flags = SA_RESTART;
  sigaction(SIGUSR2, &action, 0);
}
