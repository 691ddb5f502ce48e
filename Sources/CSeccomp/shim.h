#include <seccomp.h>
/* CLONE_NEW*: glibc declares them only under _GNU_SOURCE. */
#include <linux/sched.h>
