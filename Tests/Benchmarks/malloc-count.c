// Counts heap allocations for gestured-bench: loaded with LD_PRELOAD, it wraps glibc's
// allocator entry points and keeps one counter the benchmark reads by name
// (gestured_bench_allocations). Built by `make bench`; never linked into gestured.
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdint.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);

uint64_t gestured_bench_allocations = 0;

static void counted(void) { __atomic_fetch_add(&gestured_bench_allocations, 1, __ATOMIC_RELAXED); }

void *malloc(size_t size) {
  counted();
  return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
  counted();
  return __libc_calloc(count, size);
}

void *realloc(void *pointer, size_t size) {
  counted();
  return __libc_realloc(pointer, size);
}

void *memalign(size_t alignment, size_t size) {
  counted();
  return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
  counted();
  return __libc_memalign(alignment, size);
}

int posix_memalign(void **result, size_t alignment, size_t size) {
  counted();
  void *pointer = __libc_memalign(alignment, size);
  if (pointer == NULL) return ENOMEM;
  *result = pointer;
  return 0;
}
